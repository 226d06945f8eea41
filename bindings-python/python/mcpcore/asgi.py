"""The server as an ASGI app: mount it in Starlette, FastAPI or any ASGI framework, or serve it
with uvicorn, hypercorn or granian directly.

Each request goes straight into the Rust engine (the same router ``serve_http`` serves: both
lineages, SSE answers, legacy sessions, the 2024-11-05 transport, every check), with no
listener of its own and no loopback hop::

    from fastapi import FastAPI
    from mcpcore import Server

    server = Server("demo", "1.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        return a + b

    mcp = server.asgi_app()
    app = FastAPI(lifespan=mcp.lifespan)       # ends open streams and sessions at shutdown
    app.mount("/mcp", mcp)                     # the endpoint is http://HOST/mcp/

Mounted under a prefix the app serves the MCP endpoint at the prefix itself (``/mcp/``; the
framework redirects ``/mcp`` there) and the 2024-11-05 transport at ``/mcp/sse`` and
``/mcp/messages``; served alone it answers on ``path`` (default ``/mcp``), ``/sse`` and
``/messages``. Frameworks do not run a mounted app's lifespan: pass ``mcp.lifespan`` to yours
(Starlette and FastAPI take it as ``lifespan=``) or enter it with ``async with mcp.lifespan():``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Dict, List, MutableMapping, Optional
from typing import Sequence, Tuple, Union

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from . import Server
    from ._server_auth import Auth

__all__ = ["AsgiApp"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_DEFAULT_MAX_BODY = 4 * 1024 * 1024


class AsgiApp:
    """An ASGI 3 application serving one :class:`mcpcore.Server` (see the module docs). Made by
    :meth:`mcpcore.Server.asgi_app`."""

    def __init__(
        self,
        server: "Server",
        *,
        path: str = "/mcp",
        response_mode: str = "auto",
        max_body: Optional[int] = None,
        allowed_hosts: Optional[Sequence[str]] = None,
        allowed_origins: Optional[Sequence[str]] = None,
        any_host: bool = False,
        store: Optional[str] = None,
        state_keys: Optional[Union[str, Sequence[str]]] = None,
        auth: Optional["Auth"] = None,
    ) -> None:
        self._server = server
        self._max_body = max_body if max_body is not None else _DEFAULT_MAX_BODY
        self._settings = json.dumps(
            {
                "path": path,
                "response_mode": response_mode,
                "max_body": max_body,
                "allowed_hosts": list(allowed_hosts) if allowed_hosts is not None else None,
                "allowed_origins": list(allowed_origins) if allowed_origins is not None else None,
                "any_host": any_host,
                "store": store,
                "state_keys": state_keys if state_keys is None or isinstance(state_keys, str) else list(state_keys),
            }
        )
        self._auth = auth
        self._native: Optional[_native.Server] = None
        self._mounts: Dict[str, _native.Mount] = {}

    # -- lifecycle ----------------------------------------------------------------------------

    def _mount(self, prefix: str) -> _native.Mount:
        """The endpoint for requests under ``prefix`` (the framework's ``root_path``), made on
        first use; the server's tools, resources and prompts are taken when the first is made."""
        mount = self._mounts.get(prefix)
        if mount is None:
            if self._native is None:
                self._native = self._server._native_server()
            auth = self._auth._native if self._auth is not None else None
            mount = self._native.mount(self._settings, prefix or None, auth)
            self._mounts[prefix] = mount
        return mount

    def startup(self) -> None:
        """Checks the settings and builds the endpoint (raises :class:`mcpcore.InvalidInput` for
        bad ones). Called by the lifespan; without one, the first request does it."""
        self._mount("")

    def shutdown(self) -> None:
        """Ends open streams; legacy sessions end once their calls finish."""
        for mount in self._mounts.values():
            mount.shutdown()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """The app's lifespan as an async context manager, for a framework that takes one
        (``FastAPI(lifespan=mcp.lifespan)``, ``Starlette(lifespan=mcp.lifespan)``)."""
        self.startup()
        try:
            yield
        finally:
            self.shutdown()

    # -- ASGI ---------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})
        else:
            raise ValueError(f"mcpcore.asgi: unsupported ASGI scope type {kind!r}")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self.startup()
                except Exception as e:  # reported to the server, which refuses to start
                    await send({"type": "lifespan.startup.failed", "message": str(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        root = scope.get("root_path") or ""
        path = scope.get("path") or "/"
        # Starlette >= 0.33 keeps the full path in "path"; older frameworks strip the mount.
        full = path if not root or path.startswith(root) else root + path
        if root and full == root:
            full = root + "/"
        query = scope.get("query_string") or b""
        if query:
            full += "?" + query.decode("latin-1")
        headers: List[Tuple[str, str]] = [
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers") or []
        ]
        body = await self._read_body(receive)
        if body is None:
            await _plain(send, 413, "Payload Too Large: the request body exceeds max_body")
            return
        mount = self._mount(root.rstrip("/"))
        # A client that goes away drops the request: while the engine works on the answer (its
        # future is cancelled) and while the answer streams (its body is closed); either way
        # the call still running for it is cancelled, as when serve_http's connection closes.
        gone = asyncio.ensure_future(_disconnected(receive))
        pending = asyncio.ensure_future(mount.handle(scope.get("method", "GET"), full, headers, body))
        try:
            await asyncio.wait([pending, gone], return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                pending.cancel()
                return
            response = pending.result()
            gone.add_done_callback(lambda _: response.close())
            try:
                await self._answer(response, send)
            finally:
                response.close()
        finally:
            gone.cancel()
            pending.cancel()

    async def _read_body(self, receive: Receive) -> Optional[bytes]:
        """The whole request body, or None past ``max_body`` (the rest is not read)."""
        chunks: List[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    @staticmethod
    async def _answer(response: _native.MountResponse, send: Send) -> None:
        """Sends the head, then the body as it comes."""
        await send(
            {
                "type": "http.response.start",
                "status": response.status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers],
            }
        )
        while True:
            chunk = await response.next()
            if chunk is None:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await send({"type": "http.response.body", "body": chunk, "more_body": True})


async def _disconnected(receive: Receive) -> None:
    """Completes when the client has gone away (after the request body was read)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text.encode()})
