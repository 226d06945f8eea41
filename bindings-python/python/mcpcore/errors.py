"""The exceptions of mcpcore. Every error from the engine arrives as one of these, carrying the
JSON-RPC ``code`` and ``data`` when the peer sent them (``http_status`` for HTTP failures)."""

from __future__ import annotations

import json
from typing import Any, Optional, Tuple

__all__ = [
    "McpError",
    "RequestTimeout",
    "RequestCancelled",
    "ConnectionClosed",
    "ProtocolError",
    "TransportError",
    "InvalidInput",
    "ToolError",
    "HttpError",
    "InputRequired",
    "ResourceNotFound",
    "KIND_CLASSES",
    "AuthError",
]


class McpError(Exception):
    """Base of every mcpcore error; raised as itself for a JSON-RPC error from the peer.

    Raising it (with a non-zero ``code``) from a tool sends that JSON-RPC error to the caller
    instead of an ``isError`` result.
    """

    code: int
    """The JSON-RPC error code (0 when the error did not come from a JSON-RPC error)."""
    data: Any
    """The JSON-RPC error ``data``, decoded (None when absent)."""
    http_status: Optional[int]
    """The HTTP status, for errors answered with one and no JSON-RPC body."""

    def __init__(
        self, message: str, code: int = 0, data: Any = None, http_status: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                pass
        self.data = data
        self.http_status = http_status

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code}, data={self.data!r})"


class RequestTimeout(McpError):
    """The request did not complete within its timeout (it was cancelled on the wire)."""


class RequestCancelled(McpError):
    """The request was cancelled."""


class ConnectionClosed(McpError):
    """The connection closed (e.g. the server process exited) before an answer arrived."""


class ProtocolError(McpError):
    """The peer broke the protocol, or no protocol version is acceptable to both sides."""


class TransportError(McpError):
    """Spawning or reaching the server failed at the OS or network level."""


class InvalidInput(McpError, ValueError):
    """Something passed to mcpcore is invalid (a bad tool name, a taken name, bad JSON...)."""


class ToolError(McpError):
    """A tool failed; servers turn this into an ``isError`` result."""


class HttpError(McpError):
    """An HTTP server answered with an error status and no JSON-RPC error."""


class InputRequired(McpError):
    """A 2026-07-28 request needs answers from the client that it did not send yet.

    Raised by ``Context.elicit``/``sample``/``list_roots``/``input`` (and their ``_sync`` forms)
    on a 2026-07-28 request. **Let it propagate** out of your tool, resource or prompt handler:
    the server then answers ``input_required`` with the questions, and the client's retry runs
    the handler again from the start, now with the answers. (Catching it does not stop that: a
    call whose input request raised it always ends as ``input_required``.) Legacy sessions never
    raise it: there the request goes to the client and the call awaits its answer.
    """


class AuthError(McpError):
    """Authorization failed (OAuth 2.1 over HTTP): the authorization server refused a request,
    the authorization response did not validate, or the server kept answering 401/403.

    ``error`` is the OAuth error code (``invalid_grant``, ``insufficient_scope``,
    ``access_denied``...) or one of mcpcore's own refusals (``resource_mismatch``,
    ``issuer_mismatch``, ``pkce_unsupported``, ``iss_mismatch``, ``retry_limit``...);
    ``http_status`` is the status of the response that carried it, when there was one, and
    ``challenge`` the server's ``WWW-Authenticate`` header (a 401 to a client without ``auth=``:
    ``error`` is then ``unauthorized``).
    """

    error: str
    """The OAuth ``error`` code, or mcpcore's refusal."""
    error_description: Optional[str]
    """The ``error_description``."""
    error_uri: Optional[str]
    """The ``error_uri``."""
    challenge: Optional[str]
    """The ``WWW-Authenticate`` challenge of a 401 or 403, as received."""

    def __init__(
        self,
        message: str,
        code: int = 0,
        data: Any = None,
        http_status: Optional[int] = None,
        *,
        error: str = "",
        error_description: Optional[str] = None,
        error_uri: Optional[str] = None,
        challenge: Optional[str] = None,
    ) -> None:
        super().__init__(message, code, data, http_status)
        self.error = error
        self.error_description = error_description
        self.error_uri = error_uri
        self.challenge = challenge


class ResourceNotFound(McpError):
    """The resource asked for does not exist (the server answered ``-32002`` on legacy
    revisions, ``-32602`` on 2026-07-28); ``data`` carries its ``uri``."""


KIND_CLASSES = {
    "rpc": McpError,
    "timeout": RequestTimeout,
    "cancelled": RequestCancelled,
    "closed": ConnectionClosed,
    "protocol": ProtocolError,
    "transport": TransportError,
    "invalid_input": InvalidInput,
    "tool": ToolError,
    "http": HttpError,
    "input_required": InputRequired,
    "resource_not_found": ResourceNotFound,
    "auth": AuthError,
}
"""The exception class of each error kind of the engine (``mcpcore::ErrorKind::as_str``)."""


def _from_native(
    kind: str,
    message: str,
    code: int,
    data: Optional[str],
    http_status: Optional[int],
    auth: Optional[Tuple[str, Optional[str], Optional[str], Optional[str]]] = None,
) -> McpError:
    """The exception for an engine error of ``kind`` (called by the native module); ``auth`` is
    the OAuth ``error``, description, URI and ``WWW-Authenticate`` challenge of an ``auth`` error."""
    if kind == "auth":
        error, description, uri, challenge = auth or ("", None, None, None)
        return AuthError(
            message, code, data, http_status, error=error, error_description=description, error_uri=uri,
            challenge=challenge,
        )
    return KIND_CLASSES.get(kind, McpError)(message, code, data, http_status)
