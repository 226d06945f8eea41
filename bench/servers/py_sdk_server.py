#!/usr/bin/env python3
"""Benchmark peer server on the official Python SDK (mcp==2.3.0): the low-level ``Server`` with
the tools ``echo`` and ``touch``, served by the SDK's own ``Server.streamable_http_app()``.

    py_sdk_server.py --http 127.0.0.1:PORT [--best] [--catalogue | --tools N]
    py_sdk_server.py [--catalogue]                                  # stdio

HTTP configurations (the request-body limit is raised to 64 MiB in both, for W11):
  defaults  ``streamable_http_app()``: dual-era routing, stateful legacy sessions, SSE answers.
  --best    ``streamable_http_app(stateless_http=True, json_response=True)``: the SDK's documented
            setting for stateless JSON serving.
``--catalogue`` adds 1,000 tools ``tool_0000``... and 10,000 resources ``bench://catalogue/00000``...;
``--tools N`` only the first N of those tools (W12's realistic stateless server).
``touch`` publishes ``ToolsListChanged`` on the ``subscriptions/listen`` bus and sends
``notifications/tools/list_changed`` to every session that initialized (W10).
"""

from __future__ import annotations

import sys
from typing import Any, List

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

ECHO = types.Tool(
    name="echo",
    description="Returns the text unchanged.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)
TOUCH = types.Tool(name="touch", description="Announces a tool-list change (W10).", input_schema={"type": "object"})
TOOLS: List[types.Tool] = [ECHO, TOUCH]
RESOURCES: List[types.Resource] = []
SESSIONS: List[Any] = []
BUS = InMemorySubscriptionBus()


def catalogue_tools(count: int) -> None:
    for i in range(count):
        TOOLS.append(types.Tool(
            name=f"tool_{i:04}",
            description=f"Catalogue tool {i}.",
            input_schema={"type": "object", "properties": {
                "id": {"type": "string", "description": f"The item of tool {i}."},
                "count": {"type": "integer", "minimum": 0}}, "required": ["id"]},
        ))


def catalogue() -> None:
    catalogue_tools(1000)
    for j in range(10_000):
        RESOURCES.append(types.Resource(uri=f"bench://catalogue/{j:05}", name=f"r{j:05}", mime_type="text/plain"))


async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=RESOURCES)


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "echo":
        text = args.get("text")
        if not isinstance(text, str):
            return types.CallToolResult(content=[types.TextContent(text="echo: 'text' must be a string")], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=text)])
    if params.name == "touch":
        await BUS.publish(ToolsListChanged())
        sent = 0
        for s in list(SESSIONS):
            try:
                await s.send_tool_list_changed()
                sent += 1
            except Exception:  # noqa: BLE001 - a closed session
                SESSIONS.remove(s)
        return types.CallToolResult(content=[types.TextContent(text=f"notified {sent} sessions")])
    if params.name.startswith("tool_"):
        return types.CallToolResult(content=[types.TextContent(text=params.name)])
    return types.CallToolResult(content=[types.TextContent(text=f"Unknown tool: {params.name}")], is_error=True)


async def remember_sessions(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    if ctx.method == "initialize":
        SESSIONS.append(ctx.session)
    return await call_next(ctx)


def build() -> Server[Any]:
    server = Server(
        "bench-python-sdk", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_subscriptions_listen=ListenHandler(BUS),
    )
    server.middleware.append(remember_sessions)
    return server


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())


def main() -> int:
    argv = sys.argv[1:]
    if "--catalogue" in argv:
        catalogue()
    elif "--tools" in argv:
        catalogue_tools(int(argv[argv.index("--tools") + 1]))
    server = build()
    if "--http" not in argv:
        anyio.run(serve_stdio, server)
        return 0
    host, _, port = argv[argv.index("--http") + 1].rpartition(":")
    opts: dict = {"max_request_body_size": 64 << 20}
    if "--best" in argv:
        opts.update(stateless_http=True, json_response=True)
    app = server.streamable_http_app(host=host, **opts)
    uvicorn.run(app, host=host, port=int(port), log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
