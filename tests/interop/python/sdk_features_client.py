#!/usr/bin/env python3
"""The official Python SDK's high-level ``mcp.Client`` (pinned ``mcp==2.3.0``) against an mcpcore
server exposing the conformance fixture (``mcpcore conformance-server``).

Usage:
  sdk_features_client.py --mode legacy|modern (--stdio CMD... | --url URL)

It exercises resources (list, read text, read a template), prompts (list, get with arguments),
completion, client input (sampling, elicitation, roots: real requests on a legacy session, MRTR
rounds on 2026-07-28, driven by the SDK itself), and change notifications (legacy
``resources/subscribe`` + ``notifications/resources/updated``; modern ``subscriptions/listen``),
then prints ONE JSON line with what it observed. Exit 1 with one line on stderr on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters


async def sampling(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content
    text = getattr(asked, "text", "?")
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"re: {text}"),
        model="sdk-model",
        stop_reason="endTurn",
    )


async def elicitation(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ann", "username": "ann", "email": "a@x.io", "context": "tea"})


async def roots(_ctx: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def text_of(result: Any) -> str:
    for block in getattr(result, "content", []) or []:
        if getattr(block, "type", None) == "text":
            return block.text
    return ""


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server: Any = args.url or StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updates.append(root.params.uri)

    mode = "legacy" if args.mode == "legacy" else "2026-07-28"
    async with Client(
        server,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        message_handler=on_message,
        read_timeout_seconds=10,
    ) as client:
        out: dict[str, Any] = {"protocolVersion": client.protocol_version}
        listed = await client.list_resources()
        out["resources"] = sorted(str(r.uri) for r in listed.resources)
        read = await client.read_resource("test://static-text")
        out["static_text"] = read.contents[0].text
        read = await client.read_resource("test://template/42/data")
        out["template"] = json.loads(read.contents[0].text)["id"]
        templates = await client.list_resource_templates()
        out["templates"] = [t.uri_template for t in templates.resource_templates]
        prompts = await client.list_prompts()
        out["prompts"] = sorted(p.name for p in prompts.prompts)
        got = await client.get_prompt("test_prompt_with_arguments", {"arg1": "x", "arg2": "y"})
        out["prompt_text"] = got.messages[0].content.text
        done = await client.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "te"},
        )
        out["completion"] = done.completion.values
        # Client input: the SDK answers real requests (legacy) or drives MRTR rounds (modern).
        r = await client.call_tool("test_input_required_result_elicitation", {})
        out["elicitation"] = text_of(r)
        r = await client.call_tool("test_input_required_result_sampling", {})
        out["sampling"] = text_of(r)
        r = await client.call_tool("test_input_required_result_multiple_inputs", {})
        out["multiple"] = text_of(r)
        r = await client.call_tool("test_input_required_result_multi_round", {})
        out["multi_round"] = text_of(r)
        g = await client.get_prompt("test_input_required_result_prompt", {})
        out["input_prompt"] = g.messages[0].content.text
        # Change notifications.
        if args.mode == "legacy":
            await client.subscribe_resource("test://watched-resource")
            await client.call_tool("test_trigger_resource_update", {"uri": "test://watched-resource"})
            with anyio.fail_after(5):
                while not updates:
                    await anyio.sleep(0.02)
            out["updated"] = updates[0]
        else:
            async with client.listen(tools_list_changed=True, resource_subscriptions=["test://watched-resource"]) as sub:
                await client.call_tool("test_trigger_resource_update", {"uri": "test://watched-resource"})
                await client.call_tool("test_trigger_tool_change", {})
                events = []
                with anyio.fail_after(5):
                    async for event in sub:
                        events.append(type(event).__name__)
                        if len(events) == 2:
                            break
            out["events"] = sorted(events)
        return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["legacy", "modern"], required=True)
    p.add_argument("--url")
    p.add_argument("--stdio", nargs=argparse.REMAINDER)
    args = p.parse_args()
    if not args.url and not args.stdio:
        p.error("give --url or --stdio")
    try:
        out = anyio.run(run, args)
    except BaseException as e:  # report every failure on one line
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"sdk_features_client: error: {msg}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
