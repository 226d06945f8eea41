#!/usr/bin/env python3
"""The official Python SDK's high-level ``mcp.Client`` (``mcp==2.3.0``) against the facade's
tests/servers/features.py: resources, a template, prompts, completion, client input (real
requests answered by the SDK on a legacy session; MRTR rounds driven by the SDK on 2026-07-28)
and resource change notifications. Prints ONE JSON line with what it observed.

Usage: sdk_features_driver.py --mode legacy|modern (--url URL | --stdio CMD...)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

asked: List[str] = []


async def sampling(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked.append("sampling")
    text = getattr(params.messages[0].content, "text", "?")
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"re: {text}"), model="sdk-model",
        stop_reason="endTurn",
    )


async def elicitation(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    asked.append(f"elicitation:{params.message}")
    return types.ElicitResult(action="accept", content={"name": "Ann", "username": "ann"})


async def roots(_ctx: Any) -> types.ListRootsResult:
    asked.append("roots")
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def text_of(result: Any) -> str:
    for block in getattr(result, "content", []) or []:
        if getattr(block, "type", None) == "text":
            return str(block.text)
    return ""


async def run(args: argparse.Namespace) -> Dict[str, Any]:
    server: Any = args.url or StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    updates: List[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updates.append(str(root.params.uri))

    async with Client(
        server,
        mode="legacy" if args.mode == "legacy" else "2026-07-28",
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        message_handler=on_message,
        read_timeout_seconds=20,
    ) as client:
        out: Dict[str, Any] = {"protocolVersion": client.protocol_version}
        listed = await client.list_resources()
        out["resources"] = sorted(str(r.uri) for r in listed.resources)
        out["today"] = (await client.read_resource("memo://today")).contents[0].text
        logo = (await client.read_resource("memo://logo")).contents[0]
        out["logo"] = [logo.blob, logo.mime_type]
        profile = (await client.read_resource("users://ann/profile")).contents[0]
        out["profile"] = [json.loads(profile.text), profile.mime_type]
        out["square"] = (await client.read_resource("squares://7")).contents[0].text
        templates = await client.list_resource_templates()
        out["templates"] = sorted(t.uri_template for t in templates.resource_templates)
        try:
            await client.read_resource("memo://broken")
            out["broken"] = "no error"
        except MCPError as e:
            out["broken"] = [e.code, e.message]
        out["after_broken"] = (await client.read_resource("memo://today")).contents[0].text
        prompts = await client.list_prompts()
        out["prompts"] = {
            p.name: [[a.name, bool(a.required)] for a in (p.arguments or [])] for p in prompts.prompts
        }
        got = await client.get_prompt("review", {"code": "x = 1"})
        out["review"] = [got.messages[0].role, got.messages[0].content.text]
        got = await client.get_prompt("dialogue", {"topic": "tea"})
        out["dialogue"] = [[m.role, m.content.text] for m in got.messages]
        done = await client.complete(types.PromptReference(type="ref/prompt", name="review"),
                                     {"name": "language", "value": "p"})
        out["complete_language"] = done.completion.values
        done = await client.complete(types.PromptReference(type="ref/prompt", name="dialogue"),
                                     {"name": "topic", "value": "tea"})
        out["complete_topic"] = done.completion.values
        done = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="users://{id}/profile"),
            {"name": "id", "value": "b"},
        )
        out["complete_id"] = done.completion.values
        # client input: real requests (legacy) or MRTR rounds (modern), the SDK answers both
        out["signup"] = text_of(await client.call_tool("signup", {}))
        out["signup_sync"] = text_of(await client.call_tool("signup_sync", {}))
        out["interview"] = text_of(await client.call_tool("interview", {}))
        out["remember"] = text_of(await client.call_tool("remember", {}))
        g = await client.get_prompt("greet_user", {})
        out["greet_user"] = g.messages[0].content.text
        out["asked"] = sorted(set(asked))
        if args.mode == "legacy":
            await client.subscribe_resource("memo://today")
            await client.call_tool("touch", {"uri": "memo://today"})
            with anyio.fail_after(5):
                while not updates:
                    await anyio.sleep(0.02)
            out["updated"] = updates[0]
        else:
            async with client.listen(resource_subscriptions=["memo://today"]) as sub:
                await client.call_tool("touch", {"uri": "memo://today"})
                with anyio.fail_after(5):
                    async for ev in sub:
                        out["updated"] = type(ev).__name__
                        break
        return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["legacy", "modern"], required=True)
    p.add_argument("--url")
    p.add_argument("--stdio", nargs=argparse.REMAINDER)
    args = p.parse_args()
    try:
        out = anyio.run(run, args)
    except BaseException as e:  # report every failure on one line
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"sdk_features_driver: error: {msg}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
