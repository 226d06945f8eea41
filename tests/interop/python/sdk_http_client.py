#!/usr/bin/env python3
"""Reference HTTP MCP client built with the official Python SDK (pinned ``mcp==2.3.0``).

``sdk_client.py`` over HTTP instead of stdio: the same negotiation code, calls and output
(it imports them from ``sdk_client.py``), with ``mcp.client.streamable_http.streamable_http_client``
(or, with ``--sse-transport``, the 2024-11-05 ``mcp.client.sse.sse_client``) + ``mcp.ClientSession``.

Usage:
  sdk_http_client.py [--lineage auto|modern|legacy] [--protocol-version V] [--text T]
                     [--timeout SECONDS] [--sse-transport] [--everything] URL

URL is the Streamable HTTP endpoint (e.g. http://127.0.0.1:PORT/mcp) or, with
--sse-transport, the SSE endpoint (e.g. http://127.0.0.1:PORT/sse).
--everything targets @modelcontextprotocol/server-everything (tests/interop/ts/everything.mjs):
its tools are ``echo {message}`` (answers "Echo: <message>") and ``get-sum {a, b}`` (text only), so
the calls become echo {"message": T} and get-sum {"a": 2, "b": 3}; "echo" is then "Echo: T" and
"add" is get-sum's structuredContent (null).

Negotiation: exactly as sdk_client.py (auto = ``negotiate_auto``, the ``Client(mode="auto")``
policy; modern = ``server/discover`` only; legacy = ``initialize`` only; ``--protocol-version``
as there). On HTTP the SDK turns an HTTP 4xx on the probe into an ``MCPError`` (the JSON-RPC
error in the body when there is one, else -32601 for 404 / -32603 otherwise), so every 4xx
except a -32022 naming only modern versions falls back to ``initialize``.

Then tools/list (all pages), tools/call echo {"text": T}, tools/call add {"a": 2, "b": 3}, and ONE
JSON line on stdout, the same as sdk_client.py:
  {"protocolVersion": "...", "lineage": "modern"|"legacy", "tools": [sorted names],
   "echo": "<echo text>", "add": <add structuredContent or null>}

Exit status 0 on success; 1 with ONE line "sdk_http_client: error: ..." on stderr on any failure
(a JSON-RPC error is printed as "MCP error <code>: <message> data=<json>"; whitespace runs, including
the newlines of e.g. a pydantic ValidationError, are collapsed to one space); 2 on bad usage.
On exit a legacy session that got an ``mcp-session-id`` is ended with DELETE (SDK default).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from sdk_client import CLIENT_INFO, DEFAULT_TEXT, InteropFailure, Lineage, call, connect, describe, list_tool_names


async def run(
    url: str, sse_transport: bool, lineage: Lineage, version: str | None, text: str, everything: bool
) -> dict[str, Any]:
    transport = sse_client(url) if sse_transport else streamable_http_client(url)
    async with transport as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, client_info=CLIENT_INFO) as session:
            await connect(session, lineage, version)
            negotiated = session.protocol_version
            if negotiated is None:  # pragma: no cover - connect() always adopts or raises
                raise InteropFailure("no protocol version negotiated")
            tools = await list_tool_names(session)

            echo = await call(session, "echo", {"message" if everything else "text": text})
            if len(echo.content) != 1 or not isinstance(echo.content[0], types.TextContent):
                raise InteropFailure(f"echo: expected exactly one text content, got {echo.content!r}")

            add = await call(session, "get-sum" if everything else "add", {"a": 2, "b": 3})
            return {
                "protocolVersion": negotiated,
                "lineage": "modern" if session.discover_result is not None else "legacy",
                "tools": tools,
                "echo": echo.content[0].text,
                "add": add.structured_content,
            }


def main() -> int:
    parser = argparse.ArgumentParser(
        usage="%(prog)s [--lineage auto|modern|legacy] [--protocol-version V] [--text T] [--timeout S] "
        "[--sse-transport] [--everything] URL",
        description="Drive an HTTP MCP server with the official Python SDK and print one JSON line.",
    )
    parser.add_argument("--lineage", choices=["auto", "modern", "legacy"], default="auto")
    parser.add_argument("--protocol-version", dest="version", default=None)
    parser.add_argument("--text", default=DEFAULT_TEXT)
    parser.add_argument("--timeout", type=float, default=60.0, help="overall deadline in seconds (default 60)")
    parser.add_argument("--sse-transport", action="store_true", help="URL is a 2024-11-05 HTTP+SSE endpoint")
    parser.add_argument("--everything", action="store_true", help="call server-everything's echo/get-sum")
    parser.add_argument("url", help="server endpoint, e.g. http://127.0.0.1:PORT/mcp")
    args = parser.parse_args()

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(args.timeout):
            return await run(args.url, args.sse_transport, args.lineage, args.version, args.text, args.everything)

    try:
        output = anyio.run(guarded)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one stderr line + exit 1
        if isinstance(exc, KeyboardInterrupt):
            raise
        one_line = " ".join(describe(exc).split())  # e.g. pydantic ValidationError text spans lines
        print(f"sdk_http_client: error: {one_line}", file=sys.stderr)
        return 1
    print(json.dumps(output), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
