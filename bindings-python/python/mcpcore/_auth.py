"""OAuth 2.1 for ``Client.connect_http(url, auth=OAuth(...))``.

The Rust core runs the whole dance when the server answers 401 (or 403 ``insufficient_scope``):
Protected Resource Metadata and authorization server discovery, client registration
(pre-registered credentials, a Client ID Metadata Document, or Dynamic Client Registration),
the authorization code grant with PKCE, token refresh, step-up with the union of scopes, DPoP
when the server supports it. What the host provides:

- the user-interaction step, ``on_authorize(url) -> redirect URL`` (async or not): take the user
  to ``url`` and return the URL the authorization server redirected back to ``redirect_uri``.
  Without it, a loopback listener on 127.0.0.1 opens the system browser (for CLIs and desktop
  apps);
- where tokens and registrations live: any object with the four methods of :class:`TokenStore`
  (default: in memory), or ``store_path`` for a JSON file readable only by its owner.

Failures raise :class:`mcpcore.errors.AuthError` with the OAuth ``error``, its description and
the HTTP status.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Dict, Optional, Protocol, Sequence, Union

from . import _native

__all__ = ["OAuth", "TokenStore", "MemoryTokenStore"]

Record = Dict[str, Any]
"""A stored record: tokens (``access_token``, ``token_type``, ``refresh_token``, ``expires_at``,
``issued_at``, ``scope``, ``issuer``, ``resource``, ``dpop_key``) or a registration (``issuer``, ``client_id``,
``client_secret``, ``token_endpoint_auth_method``, ``redirect_uris``). Treat them as secrets."""

MaybeAwaitable = Union[Any, Awaitable[Any]]


class TokenStore(Protocol):
    """Where an OAuth client keeps tokens (per MCP server URL) and client registrations (per
    authorization server issuer), so they survive a restart. Methods may be ``async``."""

    def load_tokens(self, server: str) -> MaybeAwaitable:
        """The tokens record stored for ``server``, or None."""

    def save_tokens(self, server: str, tokens: Optional[Record]) -> MaybeAwaitable:
        """Stores the tokens record for ``server`` (None: forget them)."""

    def load_client(self, issuer: str) -> MaybeAwaitable:
        """The registration stored for the authorization server ``issuer``, or None."""

    def save_client(self, issuer: str, client: Optional[Record]) -> MaybeAwaitable:
        """Stores the registration for ``issuer`` (None: forget it)."""


class MemoryTokenStore:
    """A :class:`TokenStore` in a dict (what you get without ``store``); handy to inspect."""

    def __init__(self) -> None:
        self.tokens: Dict[str, Record] = {}
        self.clients: Dict[str, Record] = {}

    def load_tokens(self, server: str) -> Optional[Record]:
        return self.tokens.get(server)

    def save_tokens(self, server: str, tokens: Optional[Record]) -> None:
        if tokens is None:
            self.tokens.pop(server, None)
        else:
            self.tokens[server] = tokens

    def load_client(self, issuer: str) -> Optional[Record]:
        return self.clients.get(issuer)

    def save_client(self, issuer: str, client: Optional[Record]) -> None:
        if client is None:
            self.clients.pop(issuer, None)
        else:
            self.clients[issuer] = client


class _StoreAdapter:
    """Turns the store's dicts into the JSON text the native side reads, and back."""

    def __init__(self, store: Any) -> None:
        self._store = store

    async def _call(self, name: str, *args: Any) -> Any:
        out = getattr(self._store, name)(*args)
        if hasattr(out, "__await__"):
            out = await out
        return out

    async def load_tokens(self, server: str) -> Any:
        return await self._call("load_tokens", server)

    async def save_tokens(self, server: str, tokens: Optional[str]) -> None:
        await self._call("save_tokens", server, json.loads(tokens) if tokens is not None else None)

    async def load_client(self, issuer: str) -> Any:
        return await self._call("load_client", issuer)

    async def save_client(self, issuer: str, client: Optional[str]) -> None:
        await self._call("save_client", issuer, json.loads(client) if client is not None else None)


class OAuth:
    """An OAuth 2.1 client for one or more MCP servers (state is kept per server URL).

    :param on_authorize: the user step, ``(url) -> redirect URL``; needs ``redirect_uri``.
        Without it (authorization code grant), a 127.0.0.1 loopback listener opens the browser.
    :param redirect_uri: where the authorization server sends the user back.
    :param client_id: pre-registered credentials (used first); with ``client_secret`` or
        ``private_key_pem`` (``private_key_jwt``).
    :param grant: ``"authorization_code"`` (default), ``"client_credentials"`` (machine to
        machine, needs ``client_id``) or ``"jwt_bearer"`` (workload identity: ``assertion``).
    :param scopes: scopes to request instead of the server's (a 403 still adds what it needs).
    :param client_metadata_url: this client's Client ID Metadata Document (an https URL).
    :param store: a :class:`TokenStore`; ``store_path``: a JSON file instead.
    :param dpop: use DPoP-bound tokens when the resource's metadata and its authorization
        server both say they take them (``False``: bearer tokens only).
    """

    def __init__(
        self,
        *,
        on_authorize: Optional[Callable[[str], MaybeAwaitable]] = None,
        redirect_uri: Optional[str] = None,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        private_key_pem: Optional[str] = None,
        signing_algorithm: Optional[str] = None,
        issuer: Optional[str] = None,
        grant: str = "authorization_code",
        assertion: Optional[str] = None,
        scopes: Optional[Sequence[str]] = None,
        client_metadata_url: Optional[str] = None,
        client_name: Optional[str] = None,
        offline_access: bool = True,
        dpop: bool = True,
        max_authorizations: Optional[int] = None,
        store: Optional[TokenStore] = None,
        store_path: Optional[str] = None,
    ) -> None:
        config = {
            "grant": grant,
            "client_id": client_id,
            "client_secret": client_secret,
            "private_key_pem": private_key_pem,
            "signing_algorithm": signing_algorithm,
            "issuer": issuer,
            "assertion": assertion,
            "scopes": list(scopes) if scopes is not None else None,
            "client_metadata_url": client_metadata_url,
            "client_name": client_name,
            "offline_access": offline_access,
            "dpop": dpop,
            "max_authorizations": max_authorizations,
            "redirect_uri": redirect_uri,
            "store_path": store_path,
        }
        adapter = _StoreAdapter(store) if store is not None else None
        self._native = _native.OAuth(json.dumps(config), on_authorize, adapter)

    async def tokens(self, url: str) -> Optional[Record]:
        """The tokens held for the MCP server at ``url``, or None."""
        text = await self._native.tokens(url)
        return json.loads(text) if text is not None else None

    async def forget(self, url: str) -> None:
        """Forgets the tokens for the MCP server at ``url`` (registrations stay)."""
        await self._native.forget(url)
