#!/usr/bin/env python3
"""The official Python SDK's high-level ``mcp.Client`` (pinned ``mcp==2.3.0``) driving an
aggregating server (``mcpcore gateway``) through a plan.

Usage:
  sdk_gateway_plan_client.py --mode legacy|modern --url URL --plan JSON

The plan: ``{"calls": [[NAME, ARGS], ...], "progress": [[NAME, ARGS], ...], "reads": [URI, ...],
"prompts": [[NAME, ARGS], ...]}``. The client declares sampling, elicitation and roots (real
requests on a legacy session, MRTR rounds driven by the SDK on 2026-07-28); a ``progress`` call
carries a progress callback. Prints ONE JSON line:
  {"protocolVersion", "tools": [names as listed], "calls": {NAME: {"isError", "text"}},
   "progress": {NAME: number of notifications}, "asked": [what the callbacks were asked, in order],
   "reads": {URI: first text}, "gets": {NAME: [message texts]}}
Exit 1 with one line on stderr on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

asked: list[str] = []


async def sampling(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    text = getattr(params.messages[0].content, "text", "?")
    asked.append(f"sample: {text}")
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="the python model says hi"),
        model="python-model",
        stop_reason="endTurn",
    )


def answer_for(schema: dict[str, Any]) -> dict[str, Any]:
    """A value for every property of a requested form schema."""
    out: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if "enum" in prop:
            out[name] = prop["enum"][0]
        elif kind == "boolean":
            out[name] = True
        elif kind in ("number", "integer"):
            out[name] = 7
        else:
            out[name] = "Ann Python"
    return out


async def elicitation(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    asked.append(f"elicit: {params.message}")
    schema = getattr(params, "requested_schema", None)
    schema = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else (schema or {})
    return types.ElicitResult(action="accept", content=answer_for(schema))


async def roots(_ctx: Any) -> types.ListRootsResult:
    asked.append("roots")
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def texts(content: list[Any]) -> str:
    return "\n".join(c.text for c in content if isinstance(c, types.TextContent))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    plan = json.loads(args.plan)
    mode = "legacy" if args.mode == "legacy" else "2026-07-28"
    async with Client(
        args.url,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        read_timeout_seconds=30,
    ) as client:
        out: dict[str, Any] = {"protocolVersion": client.protocol_version, "calls": {}, "progress": {}}
        tools: list[str] = []
        cursor = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
            tools.extend(t.name for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        out["tools"] = tools
        for name, arguments in plan.get("calls", []):
            r = await client.call_tool(name, arguments)
            out["calls"][name] = {"isError": bool(r.is_error), "text": texts(r.content)}
        for name, arguments in plan.get("progress", []):
            seen: list[float] = []

            async def on_progress(progress: float, _total: float | None, _message: str | None) -> None:
                seen.append(progress)

            r = await client.call_tool(name, arguments, progress_callback=on_progress)
            out["calls"][name] = {"isError": bool(r.is_error), "text": texts(r.content)}
            out["progress"][name] = len(seen)
        out["reads"] = {}
        for uri in plan.get("reads", []):
            r = await client.read_resource(uri)
            out["reads"][uri] = getattr(r.contents[0], "text", None)
        out["gets"] = {}
        for name, arguments in plan.get("prompts", []):
            r = await client.get_prompt(name, arguments)
            out["gets"][name] = [getattr(m.content, "text", None) for m in r.messages]
        out["asked"] = asked
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description="Drive an MCP gateway with the official Python SDK.")
    parser.add_argument("--mode", choices=["legacy", "modern"], required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--timeout", type=float, default=90.0)
    args = parser.parse_args()

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(args.timeout):
            return await run(args)

    try:
        output = anyio.run(guarded)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one stderr line + exit 1
        if isinstance(exc, KeyboardInterrupt):
            raise
        print(f"sdk_gateway_plan_client: error: {' '.join(repr(exc).split())}", file=sys.stderr)
        return 1
    print(json.dumps(output), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
