#!/usr/bin/env python3
"""Reference HTTP MCP server built with the official Python SDK (pinned ``mcp==2.3.0``).

The same low-level ``Server`` and tools as ``sdk_server.py`` (echo, add), served over HTTP
by uvicorn on 127.0.0.1 only.

Usage:
  sdk_http_server.py --port PORT [--legacy-only | --modern-only] [--json-response]
  sdk_http_server.py --port PORT --sse-transport [--legacy-only | --modern-only]
  ... [--ssl-certfile PEM --ssl-keyfile PEM [--ssl-ca-certs PEM]]   (HTTPS; with a CA: mutual TLS)

``--port 0`` picks a free port. When listening, one line goes to stdout (then it is flushed):
  READY http://127.0.0.1:PORT/mcp       (Streamable HTTP)
  READY http://127.0.0.1:PORT/sse       (--sse-transport)
Logs go to stderr. SIGINT -> graceful shutdown, exit 0; SIGTERM -> graceful shutdown, then uvicorn
re-raises the signal (exit status 143). Port in use -> uvicorn's ERROR line + one
"sdk_http_server: error: ..." line, exit 1.

Streamable HTTP at /mcp (``StreamableHTTPSessionManager``; the same security settings
``Server.streamable_http_app(host="127.0.0.1")`` applies: Host must be 127.0.0.1/localhost/[::1]
with any port, a present Origin must be http://127.0.0.1|localhost|[::1] with any port, else 403):
  default        SDK routing, unchanged: a request whose ``MCP-Protocol-Version`` header names a
                 non-handshake version (2026-07-28, or anything unknown) goes to the modern
                 single-exchange entry (no session); no header or a handshake version
                 (2024-11-05 .. 2025-11-25) goes to the stateful legacy transport (``initialize``
                 mints ``mcp-session-id``; GET stream; DELETE).
  --legacy-only  every request goes to the stateful legacy transport whatever its headers (the
                 SDK has no switch for this: a ``StreamableHTTPSessionManager`` subclass skips the
                 header routing). A modern ``server/discover`` probe then gets the legacy answer
                 to a non-initialize request without a session: 400 + JSON-RPC -32600
                 "Bad Request: Missing session ID".
  --modern-only  every request goes to the SDK's modern entry (private
                 ``mcp.server._streamable_http_modern.handle_modern_request``): ``initialize``
                 without the envelope -> 400 + -32602 "params._meta must be ...", GET/DELETE -> 405.
  --json-response  ``json_response=True``: both paths answer requests with application/json
                 instead of text/event-stream.

--sse-transport: the deprecated 2024-11-05 HTTP+SSE transport (``SseServerTransport``):
  GET /sse opens the stream (first event ``endpoint`` = ``/messages/?session_id=<hex>``),
  POST /messages/?session_id=... -> 202 "Accepted", replies arrive as ``event: message`` on the
  stream. The session loop is ``Server.run`` (dual-era: the first request picks the era), or
  ``serve_loop`` with --legacy-only, or the -32022 initialize-rejecting middleware of
  ``sdk_server.py`` with --modern-only.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server import Server
from mcp.server._streamable_http_modern import handle_modern_request  # private; pinned with mcp==2.3.0
from mcp.server.runner import serve_loop
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import Receive, Scope, Send

from sdk_server import build_server, reject_initialize

HOST = "127.0.0.1"
log = logging.getLogger("sdk_http_server")

# What `Server.streamable_http_app(host="127.0.0.1")` / `MCPServer.sse_app(host="127.0.0.1")` use.
LOCALHOST_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


class LegacyOnlySessionManager(StreamableHTTPSessionManager):
    """Skip the SDK's header-based era routing: everything is served by the stateful legacy transport."""

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._task_group is None:  # same guard as the base class
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
        await self._handle_stateful_request(scope, receive, send)


class ModernOnlySessionManager(StreamableHTTPSessionManager):
    """Send everything to the SDK's modern single-exchange entry (no legacy transport, no sessions)."""

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._task_group is None:
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
        await handle_modern_request(
            self.app, self.security_settings, self.json_response, self._lifespan_state, scope, receive, send
        )


def streamable_http_app(server: Server[Any], mode: str, json_response: bool) -> Starlette:
    """The same app `Server.streamable_http_app()` builds (no auth), with the era routing chosen by `mode`."""
    cls = {
        "dual-era": StreamableHTTPSessionManager,
        "legacy-only": LegacyOnlySessionManager,
        "modern-only": ModernOnlySessionManager,
    }[mode]
    manager = cls(app=server, json_response=json_response, security_settings=LOCALHOST_SECURITY)
    return Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))],
        lifespan=lambda app: manager.run(),
    )


def sse_app(server: Server[Any], mode: str) -> Starlette:
    """Like `MCPServer.sse_app()`: GET /sse + POST /messages/ (2024-11-05 HTTP+SSE transport)."""
    sse = SseServerTransport("/messages/", security_settings=LOCALHOST_SECURITY)
    if mode == "modern-only":
        server.middleware.append(reject_initialize)

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as (read_stream, write_stream):
            init_options = server.create_initialization_options()
            if mode == "legacy-only":
                async with server.lifespan(server) as lifespan_state:
                    await serve_loop(
                        server, read_stream, write_stream, lifespan_state=lifespan_state, init_options=init_options
                    )
            else:
                await server.run(read_stream, write_stream, init_options)
        return Response()

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=sse.handle_post_message),
        ]
    )


async def serve(port: int, mode: str, json_response: bool, sse_transport: bool, log_level: str, tls: dict) -> None:
    server = build_server()
    app = sse_app(server, mode) if sse_transport else streamable_http_app(server, mode, json_response)
    config = uvicorn.Config(app, host=HOST, port=port, log_level=log_level.lower(), lifespan="on", **tls)
    uv = uvicorn.Server(config)

    async with anyio.create_task_group() as tg:

        async def announce() -> None:
            while not uv.started:
                if uv.should_exit:
                    return
                await anyio.sleep(0.02)
            bound = uv.servers[0].sockets[0].getsockname()[1]
            path = "/sse" if sse_transport else "/mcp"
            scheme = "https" if tls else "http"
            print(f"READY {scheme}://{HOST}:{bound}{path}", flush=True)

        tg.start_soon(announce)
        try:
            await uv.serve()
        except SystemExit:  # uvicorn's startup failure (e.g. port in use), already logged by uvicorn
            pass
        tg.cancel_scope.cancel()
    if not uv.started:
        print(f"sdk_http_server: error: could not listen on {HOST}:{port}", file=sys.stderr)
        raise SystemExit(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1 (0 = pick a free one)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--legacy-only", action="store_true", help="serve only initialize-based revisions")
    group.add_argument("--modern-only", action="store_true", help="serve only 2026-07-28")
    parser.add_argument("--json-response", action="store_true", help="answer with application/json, not SSE")
    parser.add_argument("--sse-transport", action="store_true", help="2024-11-05 HTTP+SSE transport at /sse")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    parser.add_argument("--ssl-certfile", help="serve HTTPS with this PEM certificate (uvicorn's ssl_certfile)")
    parser.add_argument("--ssl-keyfile", help="its PEM key")
    parser.add_argument("--ssl-ca-certs", help="require client certificates signed by these CAs")
    args = parser.parse_args()
    tls: dict = {}
    if args.ssl_certfile:
        import ssl

        tls = {"ssl_certfile": args.ssl_certfile, "ssl_keyfile": args.ssl_keyfile}
        if args.ssl_ca_certs:
            tls.update(ssl_ca_certs=args.ssl_ca_certs, ssl_cert_reqs=ssl.CERT_REQUIRED)
    if args.sse_transport and args.json_response:
        parser.error("--json-response applies to Streamable HTTP only")
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="sdk_http_server: %(message)s")
    mode = "legacy-only" if args.legacy_only else "modern-only" if args.modern_only else "dual-era"
    log.info("serving on %s:%d, mode=%s", HOST, args.port, mode)
    anyio.run(serve, args.port, mode, args.json_response, args.sse_transport, args.log_level, tls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
