#!/usr/bin/env python3
"""The official Python SDK's ``mcp.Client`` (pinned ``mcp==2.3.0``) against several mcpcore
``conformance-server`` instances behind one load balancer (tests/rust/scale_out.rs).

Usage:
  sdk_scale_client.py --mode legacy|modern --url URL [--calls N] [--pause-after K] [--mrtr M]
                      [--updates U]

Over one client (legacy: ONE Streamable HTTP session, 2025-11-25; modern: 2026-07-28), it calls
``echo {"text": "call <i>"}`` N times and checks every answer. With --pause-after K it prints
``{"paused": K}`` after the K-th call and waits for one line on stdin before going on (the test
kills an instance meanwhile). Then (modern) M calls of ``test_input_required_result_elicitation``,
an MRTR round each, answered by the SDK's elicitation callback (legacy: a real
``elicitation/create`` request, whose answer the SDK POSTs separately). Then (legacy) U times:
``resources/subscribe`` once, ``test_trigger_resource_update`` and wait for the
``notifications/resources/updated`` (it travels on the session's GET stream). Prints ONE JSON line:
  {"protocolVersion": "...", "echoes": ["call 1", ...], "mrtr": ["Hello, Ann!", ...], "updates": [uri, ...]}
Exit 1 with one line on stderr on any failure.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp import Client


async def elicitation(_ctx: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ann"})


def text_of(result: Any) -> str:
    for block in getattr(result, "content", []) or []:
        if getattr(block, "type", None) == "text":
            return block.text
    return ""


async def run(args: argparse.Namespace) -> dict[str, Any]:
    mode = "legacy" if args.mode == "legacy" else "2026-07-28"
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updates.append(str(root.params.uri))

    async with Client(
        args.url, mode=mode, elicitation_callback=elicitation, message_handler=on_message, read_timeout_seconds=10
    ) as client:
        out: dict[str, Any] = {"protocolVersion": client.protocol_version, "echoes": [], "mrtr": [], "updates": []}
        for i in range(1, args.calls + 1):
            r = await client.call_tool("echo", {"text": f"call {i}"})
            if r.is_error or text_of(r) != f"call {i}":
                raise RuntimeError(f"call {i}: unexpected answer {r.model_dump(mode='json', by_alias=True)}")
            out["echoes"].append(text_of(r))
            if i == args.pause_after:
                print(json.dumps({"paused": i}), flush=True)
                await anyio.to_thread.run_sync(sys.stdin.readline)
        for _ in range(args.mrtr):
            r = await client.call_tool("test_input_required_result_elicitation", {})
            out["mrtr"].append(text_of(r))
        if args.updates:
            uri = "test://watched-resource"
            with warnings.catch_warnings():  # legacy on purpose: removed only as of 2026-07-28
                warnings.simplefilter("ignore")
                await client.subscribe_resource(uri)
            for i in range(1, args.updates + 1):
                await client.call_tool("test_trigger_resource_update", {"uri": uri})
                with anyio.fail_after(5):
                    while len(updates) < i:
                        await anyio.sleep(0.02)
            out["updates"] = updates
        return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["legacy", "modern"], required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--calls", type=int, default=1)
    p.add_argument("--pause-after", type=int, default=0)
    p.add_argument("--mrtr", type=int, default=0)
    p.add_argument("--updates", type=int, default=0)
    args = p.parse_args()

    async def guarded() -> dict[str, Any]:
        with anyio.fail_after(120):
            return await run(args)

    try:
        out = anyio.run(guarded)
    except BaseException as e:  # report every failure on one line
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"sdk_scale_client: error: {msg}", file=sys.stderr)
        return 1
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
