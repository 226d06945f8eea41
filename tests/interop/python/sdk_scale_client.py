#!/usr/bin/env python3
"""The official Python SDK's ``mcp.Client`` (pinned ``mcp==2.3.0``) against several mcpcore
``conformance-server`` instances behind one load balancer (tests/rust/scale_out.rs).

Usage:
  sdk_scale_client.py --mode legacy|modern --url URL [--calls N] [--pause-after K] [--mrtr M]
                      [--updates U] [--features] [--listen L] [--failover S --slow C]

Over one client (legacy: ONE Streamable HTTP session, 2025-11-25; modern: 2026-07-28), in order:
- ``echo {"text": "call <i>"}`` N times, each answer checked. With --pause-after K it prints
  ``{"paused": K}`` after the K-th call and waits for one line on stdin (the test kills an
  instance meanwhile).
- M calls of ``test_input_required_result_elicitation``, answered by the SDK's elicitation
  callback: modern, an MRTR round each; legacy, a real ``elicitation/create`` request whose
  answer the SDK POSTs separately (so it may land on another instance than the call).
- --features: ``test_tool_with_progress`` (progress callback) and ``test_tool_with_logging``
  (logging callback): the notifications sent while a call runs.
- legacy, U > 0: ``resources/subscribe`` once, then U times ``test_trigger_resource_update`` and
  wait for the ``notifications/resources/updated`` (it travels on the session's GET stream).
- modern, L > 0: ``client.listen(resource_subscriptions=[uri])``, then L triggers, each waited for
  as a listen event (the listen stream is on one instance, the triggers on others).
- legacy, --failover S --slow C: subscribe, print ``{"ready": true}`` and wait for a line (the
  test finds the instance holding the GET stream); start C concurrent ``slow_compute
  {"seconds": S}`` calls, print ``{"calls": C}`` and wait for a line (the test kills the GET's
  instance with the calls in flight on it); then trigger 3 resource updates at once (while the
  GET stream is away) and wait for all 3 notifications (the resumed stream's replay) and for every
  slow call, each ending with its result or an error.
Prints ONE JSON line:
  {"protocolVersion", "echoes", "mrtr", "updates", "progress", "logs", "listen",
   "slow": {"ok": n, "errors": [messages]}}
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

WATCHED = "test://watched-resource"


async def elicitation(_ctx: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ann"})


def text_of(result: Any) -> str:
    for block in getattr(result, "content", []) or []:
        if getattr(block, "type", None) == "text":
            return block.text
    return ""


async def wait_until(predicate: Any, what: str, seconds: float = 10) -> None:
    try:
        with anyio.fail_after(seconds):
            while not predicate():
                await anyio.sleep(0.02)
    except TimeoutError:
        raise RuntimeError(f"timed out waiting for {what}") from None


async def subscribe(client: Client) -> None:
    with warnings.catch_warnings():  # legacy on purpose: removed only as of 2026-07-28
        warnings.simplefilter("ignore")
        await client.subscribe_resource(WATCHED)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    mode = "legacy" if args.mode == "legacy" else "2026-07-28"
    updates: list[str] = []
    logs: list[Any] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updates.append(str(root.params.uri))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async with Client(
        args.url, mode=mode, elicitation_callback=elicitation, message_handler=on_message,
        logging_callback=on_log, log_level="debug" if mode != "legacy" else None, read_timeout_seconds=20,
    ) as client:
        out: dict[str, Any] = {"protocolVersion": client.protocol_version, "echoes": [], "mrtr": [],
                               "updates": [], "progress": [], "logs": 0, "listen": [], "slow": None}
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
        if args.features:
            progress: list[float] = []

            async def on_progress(p: float, _total: float | None, _message: str | None) -> None:
                progress.append(p)

            r = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            if r.is_error:
                raise RuntimeError(f"test_tool_with_progress failed: {text_of(r)}")
            out["progress"] = progress
            r = await client.call_tool("test_tool_with_logging", {})
            if r.is_error:
                raise RuntimeError(f"test_tool_with_logging failed: {text_of(r)}")
            await wait_until(lambda: len(logs) >= 3, "three log messages")
            out["logs"] = len(logs)
        if args.updates:
            await subscribe(client)
            for i in range(1, args.updates + 1):
                await client.call_tool("test_trigger_resource_update", {"uri": WATCHED})
                await wait_until(lambda: len(updates) >= i, f"resource update {i}")
            out["updates"] = updates
        if args.listen:
            async with client.listen(resource_subscriptions=[WATCHED]) as sub:
                events: list[str] = []

                async def collect() -> None:
                    async for event in sub:
                        events.append(str(getattr(event, "uri", type(event).__name__)))

                async with anyio.create_task_group() as tg:
                    tg.start_soon(collect)
                    for i in range(1, args.listen + 1):
                        await client.call_tool("test_trigger_resource_update", {"uri": WATCHED})
                        await wait_until(lambda: len(events) >= i, f"listen event {i}")
                    tg.cancel_scope.cancel()
            out["listen"] = events
        if args.failover:
            out["slow"] = await failover(client, args, updates)
            out["updates"] = updates
        return out


async def failover(client: Client, args: argparse.Namespace, updates: list[str]) -> dict[str, Any]:
    """Slow calls in flight while the test kills an instance; updates sent while the GET is away."""
    await subscribe(client)
    print(json.dumps({"ready": True}), flush=True)
    await anyio.to_thread.run_sync(sys.stdin.readline)
    ok, errors = 0, []

    async def slow(i: int) -> None:
        nonlocal ok
        try:
            r = await client.call_tool("slow_compute", {"seconds": args.failover, "label": f"slow {i}"})
            if r.is_error:
                errors.append(f"tool error: {text_of(r)}")
            else:
                ok += 1
        except Exception as e:  # the call's error: what a killed instance must give
            errors.append(" ".join(f"{type(e).__name__}: {e}".split()))

    async with anyio.create_task_group() as tg:
        for i in range(args.slow):
            tg.start_soon(slow, i)
        print(json.dumps({"calls": args.slow}), flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)
        # The GET stream's instance is gone: these updates wait in the replay log until the SDK
        # reconnects the stream with Last-Event-ID.
        for _ in range(3):
            await client.call_tool("test_trigger_resource_update", {"uri": WATCHED})
        await wait_until(lambda: len(updates) >= 3, "3 resource updates after the failover", 30)
    return {"ok": ok, "errors": errors}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["legacy", "modern"], required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--calls", type=int, default=1)
    p.add_argument("--pause-after", type=int, default=0)
    p.add_argument("--mrtr", type=int, default=0)
    p.add_argument("--updates", type=int, default=0)
    p.add_argument("--features", action="store_true")
    p.add_argument("--listen", type=int, default=0)
    p.add_argument("--failover", type=float, default=0)
    p.add_argument("--slow", type=int, default=6)
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
