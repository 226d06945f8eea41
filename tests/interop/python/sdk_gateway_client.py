#!/usr/bin/env python3
"""Drives an aggregating server (``mcpcore gateway``) with the official Python SDK (``mcp==2.3.0``).

Usage:
  sdk_gateway_client.py [--lineage auto|modern|legacy] [--protocol-version V] [--timeout S]
                        [--call NAME JSON]... [--read URI]... [--prompt NAME JSON]...
                        (--url URL | -- CMD [ARGS...])

Connects over Streamable HTTP (``--url``) or stdio (``-- CMD``), negotiating as sdk_client.py
does, then lists every tool, resource and prompt (all pages, in the order the server lists
them), makes each call, read and prompt get, and prints ONE JSON line:
  {"protocolVersion": "...", "lineage": "modern"|"legacy",
   "tools": [names as listed], "resources": [URIs as listed], "prompts": [names as listed],
   "calls": {NAME: {"isError": bool, "text": "<texts joined by newlines>"}},
   "reads": {URI: "<first text contents>"}, "gets": {NAME: ["<message texts>"]}}

Exit status 0 on success; 1 with "sdk_gateway_client: error: ..." on stderr on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from sdk_client import CLIENT_INFO, InteropFailure, Lineage, connect, describe


async def all_pages(list_page, field: str, key: str) -> list[str]:
    out: list[str] = []
    cursor: str | None = None
    for _ in range(100):
        page = await list_page(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        out.extend(str(getattr(item, key)) for item in getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return out
    raise InteropFailure(f"{field} did not finish within 100 pages")


def texts(content: list[Any]) -> str:
    return "\n".join(c.text for c in content if isinstance(c, types.TextContent))


async def drive(session: ClientSession, args: argparse.Namespace) -> dict[str, Any]:
    await connect(session, args.lineage, args.version)
    out: dict[str, Any] = {
        "protocolVersion": session.protocol_version,
        "lineage": "modern" if session.discover_result is not None else "legacy",
        "tools": await all_pages(session.list_tools, "tools", "name"),
        "resources": await all_pages(session.list_resources, "resources", "uri"),
        "prompts": await all_pages(session.list_prompts, "prompts", "name"),
        "calls": {},
        "reads": {},
        "gets": {},
    }
    for name, arguments in args.call:
        r = await session.call_tool(name, json.loads(arguments))
        if not isinstance(r, types.CallToolResult):
            raise InteropFailure(f"{name}: not a CallToolResult: {r!r}")
        out["calls"][name] = {"isError": bool(r.is_error), "text": texts(r.content)}
    for uri in args.read:
        r = await session.read_resource(uri)
        first = r.contents[0]
        out["reads"][uri] = getattr(first, "text", None)
    for name, arguments in args.prompt:
        r = await session.get_prompt(name, json.loads(arguments))
        out["gets"][name] = [getattr(m.content, "text", None) for m in r.messages]
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        transport = streamable_http_client(args.url)
    else:
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            raise InteropFailure("give --url URL or -- CMD [ARGS...]")
        transport = stdio_client(StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ)))
    async with transport as streams:
        read_stream, write_stream = streams[0], streams[1]
        async with ClientSession(read_stream, write_stream, client_info=CLIENT_INFO) as session:
            return await drive(session, args)


def main() -> int:
    parser = argparse.ArgumentParser(description="Drive an MCP gateway with the official Python SDK.")
    parser.add_argument("--lineage", choices=["auto", "modern", "legacy"], default="auto")
    parser.add_argument("--protocol-version", dest="version", default=None)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--url", default=None)
    parser.add_argument("--call", nargs=2, action="append", default=[], metavar=("NAME", "JSON"))
    parser.add_argument("--read", action="append", default=[], metavar="URI")
    parser.add_argument("--prompt", nargs=2, action="append", default=[], metavar=("NAME", "JSON"))
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(args.timeout):
            return await run(args)

    try:
        output = anyio.run(guarded)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one stderr line + exit 1
        if isinstance(exc, KeyboardInterrupt):
            raise
        print(f"sdk_gateway_client: error: {' '.join(describe(exc).split())}", file=sys.stderr)
        return 1
    print(json.dumps(output), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
