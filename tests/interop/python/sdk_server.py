#!/usr/bin/env python3
"""Reference stdio MCP server built with the official Python SDK (pinned ``mcp==2.3.0``).

Used by the mcpcore interop tests: the Rust client talks to this server, and
``sdk_client.py`` uses it as a self-check.

Tools:
  echo(text: str)          -> one text content equal to ``text``
  add(a: number, b: number) -> structuredContent ``{"sum": a+b}`` (declared by an
                               outputSchema) plus the same object as compact JSON text.
                               ``sum`` is always a float (``2`` + ``3`` -> ``5.0``).

Usage:
  sdk_server.py                 dual-era (SDK default): the client's FIRST request decides
                                the era for the whole process: a request whose
                                ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``
                                (e.g. ``server/discover``) -> modern 2026-07-28, anything else
                                (normally ``initialize``) -> legacy handshake.
  sdk_server.py --legacy-only   handshake era only (SDK ``serve_loop``): ``server/discover``
                                is answered with -32601 Method not found, so probing clients
                                fall back to ``initialize``.
  sdk_server.py --modern-only   dual-era loop plus a middleware that rejects ``initialize``
                                with -32022 and ``data.supported == ["2026-07-28"]``.
  sdk_server.py --faults        faults for ``mcpcore doctor`` to find (tests/rust/doctor.rs):
                                tools/list also lists broken definitions (a name with a space, a
                                duplicate name, an unknown ``type``, a
                                network ``$ref``) and takes 300 ms.

Logs go to stderr only (stdout is the JSON-RPC channel).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, TypeGuard

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

SERVER_NAME = "mcpcore-interop-python-sdk-server"
SERVER_VERSION = "0.1.0"

log = logging.getLogger("sdk_server")

ECHO_TOOL = types.Tool(
    name="echo",
    description="Return the given text unchanged.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
)

ADD_TOOL = types.Tool(
    name="add",
    description="Add two numbers; the result is structured as {\"sum\": a+b}.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
    output_schema={
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"],
    },
)


FAULTY_TOOLS = [
    types.Tool(name="has space", input_schema={"type": "object"}),
    types.Tool(name="echo", input_schema={"type": "object"}),
    types.Tool(name="typo", input_schema={"type": "object", "properties": {"x": {"type": "strin"}}}),
    types.Tool(name="remote", input_schema={"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}}),
]

FAULTS = False


def _tool_error(message: str) -> types.CallToolResult:
    """A tool-level failure: reported inside the result (isError), not as a JSON-RPC error."""
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _is_number(value: object) -> TypeGuard[int | float]:
    """JSON numbers only (bool is an int subclass in Python, but not a JSON number)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    if FAULTS:
        await anyio.sleep(0.3)
        return types.ListToolsResult(tools=[ECHO_TOOL, ADD_TOOL, *FAULTY_TOOLS])
    return types.ListToolsResult(tools=[ECHO_TOOL, ADD_TOOL])


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    args: dict[str, Any] = params.arguments or {}
    log.info("tools/call %s (protocol %s)", params.name, ctx.protocol_version)
    if params.name == "echo":
        text = args.get("text")
        if not isinstance(text, str):
            return _tool_error("echo: argument 'text' must be a string")
        return types.CallToolResult(content=[types.TextContent(text=text)])
    if params.name == "add":
        a, b = args.get("a"), args.get("b")
        if _is_number(a) and _is_number(b):
            structured = {"sum": float(a) + float(b)}
            text = json.dumps(structured, separators=(",", ":"))
            return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured)
        return _tool_error("add: arguments 'a' and 'b' must be numbers")
    # Unknown tool: JSON-RPC -32602 as in the spec's tools-page example (note: the SDK's
    # high-level MCPServer answers isError:true instead).
    raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")


async def reject_initialize(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Middleware for --modern-only: refuse the legacy handshake, naming the modern versions."""
    if ctx.method == "initialize":
        requested = (ctx.params or {}).get("protocolVersion")
        raise MCPError(
            code=types.UNSUPPORTED_PROTOCOL_VERSION,
            message="Unsupported protocol version",
            data={"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": str(requested)},
        )
    return await call_next(ctx)


def build_server() -> Server[Any]:
    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(mode: str) -> None:
    server = build_server()
    if mode == "modern-only":
        server.middleware.append(reject_initialize)
    init_options = server.create_initialization_options()
    async with stdio_server() as (read_stream, write_stream):
        if mode == "legacy-only":
            # `Server.run` = lifespan + `serve_dual_era_loop`; this is the same minus the era router.
            async with server.lifespan(server) as lifespan_state:
                await serve_loop(
                    server, read_stream, write_stream, lifespan_state=lifespan_state, init_options=init_options
                )
        else:
            await server.run(read_stream, write_stream, init_options)
    log.info("stdin closed; exiting")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--legacy-only", action="store_true", help="serve only initialize-based revisions")
    group.add_argument("--modern-only", action="store_true", help="reject initialize with -32022")
    parser.add_argument("--faults", action="store_true", help="broken tool definitions and a slow tools/list")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="sdk_server: %(message)s")
    global FAULTS
    FAULTS = args.faults
    mode = "legacy-only" if args.legacy_only else "modern-only" if args.modern_only else "dual-era"
    log.info("serving over stdio, mode=%s", mode)
    anyio.run(serve, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
