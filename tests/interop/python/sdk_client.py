#!/usr/bin/env python3
"""Reference stdio MCP client built with the official Python SDK (pinned ``mcp==2.3.0``).

Used by the mcpcore interop tests to drive a server (normally the Rust one) through
the SDK's own client stack: ``mcp.stdio_client`` + ``mcp.ClientSession``.

Usage:
  sdk_client.py [--lineage auto|modern|legacy] [--protocol-version V] [--text T]
                [--timeout SECONDS] -- CMD [ARGS...]

Negotiation (all of it done by SDK code; the version printed is read back from the session):
  auto   (default)  The SDK's ``Client(mode="auto")`` policy: probe ``server/discover`` at
                    2026-07-28; a DiscoverResult (or -32022 naming a mutual modern version)
                    -> modern, any other error -> ``initialize`` fallback.
                    With ``--protocol-version V`` the lineage is inferred from V instead
                    (2026-07-28 -> modern, anything else -> legacy).
  modern            ``server/discover`` only, never ``initialize``. Without V:
                    ``ClientSession.discover()`` (2026-07-28, one retry on -32022). With V: one
                    ``server/discover`` stamped with V, then ``ClientSession.adopt()``.
  legacy            ``initialize`` + ``notifications/initialized`` only. Without V:
                    ``ClientSession.initialize()`` (offers 2025-11-25). With V: the same
                    handshake offering V; the server's counter-offer is accepted if the
                    SDK supports it (the printed version is what the server answered).

Then: tools/list (all pages), tools/call echo {"text": T} (default "hello from python sdk"),
tools/call add {"a": 2, "b": 3}, and ONE JSON line on stdout:
  {"protocolVersion": "...", "lineage": "modern"|"legacy", "tools": [sorted names],
   "echo": "<echo text>", "add": <add structuredContent or null>}

Exit status 0 on success; 1 with "sdk_client: error: ..." on stderr on any failure (a
JSON-RPC error is printed as "MCP error <code>: <message> data=<json>"); 2 on bad usage.
The server inherits this process's full environment; its stderr goes to our stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client._probe import negotiate_auto  # the exact policy `mcp.Client(mode="auto")` runs
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

Lineage = Literal["auto", "modern", "legacy"]
DEFAULT_TEXT = "hello from python sdk"
CLIENT_INFO = types.Implementation(name="mcpcore-interop-python-sdk-client", version="0.1.0")


class InteropFailure(Exception):
    """A check failed; the message is printed on stderr."""


async def connect_legacy(session: ClientSession, version: str | None) -> None:
    if version is None:
        await session.initialize()
        return
    # ClientSession.initialize() always offers LATEST_HANDSHAKE_VERSION; this is the same
    # sequence (mcp/client/session.py) with the offered version replaced.
    result = await session.send_request(
        types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=version, capabilities=types.ClientCapabilities(), client_info=CLIENT_INFO
            )
        ),
        types.InitializeResult,
    )
    if result.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
        raise InteropFailure(f"server answered initialize with unsupported protocolVersion {result.protocol_version!r}")
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())


async def connect_modern(session: ClientSession, version: str | None) -> None:
    if version is None:
        await session.discover()
        return
    raw = await session.send_discover(version)
    session.adopt(types.DiscoverResult.model_validate(raw))
    if session.protocol_version != version:
        raise InteropFailure(f"asked for {version!r} but the SDK adopted {session.protocol_version!r}")


async def connect(session: ClientSession, lineage: Lineage, version: str | None) -> None:
    if lineage == "auto" and version is not None:
        lineage = "modern" if version in MODERN_PROTOCOL_VERSIONS else "legacy"
    if lineage == "auto":
        await negotiate_auto(session)
    elif lineage == "modern":
        await connect_modern(session, version)
    else:
        await connect_legacy(session, version)


async def list_tool_names(session: ClientSession) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    for _ in range(100):  # page cap: a server that never stops paginating must not hang the test
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        names.extend(tool.name for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            return sorted(names)
    raise InteropFailure("tools/list did not finish within 100 pages")


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    result = await session.call_tool(name, arguments)  # also validates structuredContent vs outputSchema
    if result.is_error:
        raise InteropFailure(f"tool {name!r} returned isError=true: {result.model_dump(mode='json', by_alias=True)}")
    return result


async def run(command: list[str], lineage: Lineage, version: str | None, text: str) -> dict[str, Any]:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, client_info=CLIENT_INFO) as session:
            await connect(session, lineage, version)
            negotiated = session.protocol_version
            if negotiated is None:  # pragma: no cover - connect() always adopts or raises
                raise InteropFailure("no protocol version negotiated")
            tools = await list_tool_names(session)

            echo = await call(session, "echo", {"text": text})
            if len(echo.content) != 1 or not isinstance(echo.content[0], types.TextContent):
                raise InteropFailure(f"echo: expected exactly one text content, got {echo.content!r}")

            add = await call(session, "add", {"a": 2, "b": 3})
            return {
                "protocolVersion": negotiated,
                "lineage": "modern" if session.discover_result is not None else "legacy",
                "tools": tools,
                "echo": echo.content[0].text,
                "add": add.structured_content,
            }


def describe(exc: BaseException) -> str:
    """One line for stderr, unwrapping the single-member exception groups anyio produces."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"MCP error {exc.error.code}: {exc.error.message} data={json.dumps(exc.error.data)}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"


def main() -> int:
    parser = argparse.ArgumentParser(
        usage="%(prog)s [--lineage auto|modern|legacy] [--protocol-version V] [--text T] [--timeout S] -- CMD [ARGS...]",
        description="Drive a stdio MCP server with the official Python SDK and print one JSON line.",
    )
    parser.add_argument("--lineage", choices=["auto", "modern", "legacy"], default="auto")
    parser.add_argument("--protocol-version", dest="version", default=None)
    parser.add_argument("--text", default=DEFAULT_TEXT)
    parser.add_argument("--timeout", type=float, default=60.0, help="overall deadline in seconds (default 60)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="server command, after --")
    args = parser.parse_args()
    command: list[str] = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("missing server command after --")

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(args.timeout):
            return await run(command, args.lineage, args.version, args.text)

    try:
        output = anyio.run(guarded)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one stderr line + exit 1
        if isinstance(exc, KeyboardInterrupt):
            raise
        print(f"sdk_client: error: {describe(exc)}", file=sys.stderr)
        return 1
    print(json.dumps(output), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
