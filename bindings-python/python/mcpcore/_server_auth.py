"""Protected servers: ``Server.serve_http(auth=Auth(...))`` makes the server an OAuth 2.1
resource server (2025-11-25 / 2026-07-28 ``basic/authorization``).

The Rust core does the work: every request needs ``Authorization: Bearer <token>``; without one
the answer is 401 with ``WWW-Authenticate: Bearer resource_metadata="..."``, and the Protected
Resource Metadata (RFC 9728) is served at its well-known paths. Tokens are checked by the
built-in JWT verifier (``jwks_url``, ``issuer``, ``audience``) or by your own ``verify``.
Tools, prompts and resources may need scopes: with ``scope_mode="hide"`` (the default) an entry
the caller's token does not reach is left out of its lists and refused like an unknown one;
``"step_up"`` lists it and answers its use with 403 ``insufficient_scope``. Handlers read the
caller from ``ctx.auth`` (an :class:`Identity`).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import _native

__all__ = ["Auth", "Identity", "TokenRefused"]


@dataclass(frozen=True)
class Identity:
    """Who a verified access token says the caller is."""

    subject: Optional[str] = None
    """The token's subject (``sub``)."""
    scopes: Tuple[str, ...] = ()
    """The scopes the token grants."""
    client_id: Optional[str] = None
    """The OAuth client the token was issued to (``client_id`` / ``azp``)."""
    claims: Mapping[str, Any] = field(default_factory=dict)
    """Every claim of the token (a JWT's payload, an introspection response)."""

    def has_scope(self, scope: str) -> bool:
        """True when the token grants ``scope``."""
        return scope in self.scopes

    @staticmethod
    def _from_json(text: Optional[str]) -> Optional["Identity"]:
        if text is None:
            return None
        v = json.loads(text)
        return Identity(subject=v.get("subject"), scopes=tuple(v.get("scopes") or ()),
                        client_id=v.get("clientId"), claims=v.get("claims") or {})


class TokenRefused(Exception):
    """Raised by a ``verify`` callable to refuse a token: ``"invalid_token"`` (401, the
    default), ``"insufficient_scope"`` (403, naming ``scopes``) or ``"unavailable"`` (503: the
    verifier could not decide). ``description`` goes to the client as ``error_description``."""

    KINDS = ("invalid_token", "insufficient_scope", "unavailable")

    def __init__(self, description: str = "the token was refused", kind: str = "invalid_token",
                 scopes: Sequence[str] = ()) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"kind must be one of {self.KINDS}, not {kind!r}")
        super().__init__(description)
        self.description = description
        self.kind = kind
        self.scopes = list(scopes)


Verifier = Callable[[str], Union[Optional[Identity], Awaitable[Optional[Identity]]]]
"""``token -> Identity | None`` (sync or async); ``None`` or :class:`TokenRefused` refuses."""


def _wrap(verify: Verifier) -> Callable[[str], Awaitable[str]]:
    """The verifier as the native side calls it: an async callable answering JSON text."""

    async def run(token: str) -> str:
        try:
            out = verify(token)
            if inspect.isawaitable(out):
                out = await out
        except TokenRefused as e:
            return json.dumps({"refusal": {"kind": e.kind, "description": e.description, "scopes": e.scopes}})
        if out is None:
            return json.dumps({"refusal": {"kind": "invalid_token", "description": "the token was refused",
                                           "scopes": []}})
        if not isinstance(out, Identity):
            raise TypeError(f"verify must return an Identity or None, not {type(out).__name__}")
        return json.dumps({"identity": {"subject": out.subject, "client_id": out.client_id,
                                        "scopes": list(out.scopes), "claims": dict(out.claims)}}, default=str)

    return run


class Auth:
    """What a protected server requires (pass it to :meth:`Server.serve_http` as ``auth``).

    - ``jwks_url``, ``issuer``, ``audience``: accept JWT access tokens signed with the keys at
      ``jwks_url``, whose ``iss`` is ``issuer`` and whose ``aud`` holds ``audience`` (the
      server's canonical URI, e.g. ``http://127.0.0.1:8000/mcp``);
    - or ``verify``: your own check, ``token -> Identity | None`` (async or not; raise
      :class:`TokenRefused` to say why);
    - ``resource``: the canonical URI (default ``audience``; needed with ``verify``);
      ``authorization_servers`` (default ``[issuer]``) and ``scopes_supported`` go to the PRM;
    - ``required_scopes`` every request needs; ``tool_scopes``, ``prompt_scopes``,
      ``resource_scopes`` (by name, URI or URI template) what each entry needs;
    - ``scope_mode``: ``"hide"`` or ``"step_up"`` (see the module docs);
    - ``dpop``: ``"off"`` (default), ``"allowed"`` or ``"required"``: DPoP-bound tokens
      (RFC 9449, ``Authorization: DPoP`` with a ``DPoP`` proof), checked in the core; a
      DPoP-bound token is never accepted as a bearer token; ``dpop_nonce=True`` also demands
      server-provided nonces (RFC 9449 §9);
    - ``visibility``: rules hiding tools and prompts per caller, e.g.
      ``[{"tools": ["billing__*"], "allow": {"scopes": ["billing"]}},
      {"tools": ["*_delete"], "deny": {"claims": {"role": "intern"}}}]`` (``allow`` or ``deny``
      a condition of ``scopes`` and ``claims``; a hidden entry is refused like an unknown one).
    """

    def __init__(
        self,
        *,
        jwks_url: Optional[str] = None,
        issuer: Optional[str] = None,
        audience: Optional[str] = None,
        verify: Optional[Verifier] = None,
        resource: Optional[str] = None,
        authorization_servers: Optional[Sequence[str]] = None,
        scopes_supported: Optional[Sequence[str]] = None,
        required_scopes: Sequence[str] = (),
        tool_scopes: Optional[Mapping[str, Sequence[str]]] = None,
        prompt_scopes: Optional[Mapping[str, Sequence[str]]] = None,
        resource_scopes: Optional[Mapping[str, Sequence[str]]] = None,
        scope_mode: str = "hide",
        leeway_seconds: Optional[int] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        visibility: Optional[Sequence[Mapping[str, Any]]] = None,
        dpop: str = "off",
        dpop_nonce: bool = False,
    ) -> None:
        def table(t: Optional[Mapping[str, Sequence[str]]]) -> Dict[str, list]:
            return {k: list(v) for k, v in (t or {}).items()}

        settings = {
            "jwks_url": jwks_url, "issuer": issuer, "audience": audience, "resource": resource,
            "authorization_servers": list(authorization_servers or ()),
            "scopes_supported": list(scopes_supported) if scopes_supported is not None else None,
            "required_scopes": list(required_scopes), "tool_scopes": table(tool_scopes),
            "prompt_scopes": table(prompt_scopes), "resource_scopes": table(resource_scopes),
            "scope_mode": scope_mode, "leeway_seconds": leeway_seconds, "metadata": dict(metadata or {}),
            "dpop": dpop, "dpop_nonce": dpop_nonce,
        }
        if visibility is not None:
            settings["visibility"] = [dict(rule) for rule in visibility]
        self._native = _native.ServerAuth(json.dumps(settings), _wrap(verify) if verify is not None else None)

    @property
    def metadata_url(self) -> Optional[str]:
        """The Protected Resource Metadata URL named in 401 challenges."""
        return self._native.metadata_url
