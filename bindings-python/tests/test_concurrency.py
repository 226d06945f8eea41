"""Concurrency: many calls in flight, sync tools off the event loop, async tools on the host loop."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

from mcpcore import Client, Context, InvalidInput, Registry, Server

from conftest import LINEAGES, bounded, run_async

LINEAGE_IDS = [l for l, _ in LINEAGES]


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_twenty_calls_in_flight(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        await client.call_tool("echo", {"text": "warm-up"})
        started = time.monotonic()
        results = await bounded(
            asyncio.gather(*[client.call_tool("slow", {"seconds": 0.2, "tag": f"c{i}"}) for i in range(20)]), 10
        )
        elapsed = time.monotonic() - started
        assert [r.text for r in results] == ["slept 0.2"] * 20
        assert elapsed < 1.5, f"20 x 0.2 s calls took {elapsed:.2f} s (serial would be 4 s)"

        # answers are matched to their requests
        doubled = await bounded(asyncio.gather(*[client.call_tool("double", {"n": i}) for i in range(50)]))
        assert [r.structured_content["result"] for r in doubled] == [2 * i for i in range(50)]


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_sync_tools_run_in_parallel(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        started = time.monotonic()
        results = await bounded(asyncio.gather(*[client.call_tool("sleep_sync", {"seconds": 0.4}) for _ in range(4)]))
        elapsed = time.monotonic() - started
        assert all(r.text == "slept 0.4" for r in results)
        assert elapsed < 1.2, f"4 x 0.4 s sync calls took {elapsed:.2f} s"


@run_async
async def test_many_concurrent_local_registry_calls() -> None:
    reg = Registry()

    @reg.tool()
    async def nap(i: int) -> int:
        await asyncio.sleep(0.2)
        return i

    started = time.monotonic()
    results = await bounded(asyncio.gather(*[reg.call_tool("nap", {"i": i}) for i in range(50)]))
    assert [r.structured_content["result"] for r in results] == list(range(50))
    assert time.monotonic() - started < 1.5


async def ticking_while(aw: Any, step: float = 0.01) -> Any:
    """Awaits ``aw`` while a ticker counts how often the loop lets it run; returns (result, ticks)."""
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            await asyncio.sleep(step)
            ticks += 1

    t = asyncio.ensure_future(ticker())
    try:
        result = await aw
    finally:
        stop.set()
        await t
    return result, ticks


@run_async
async def test_sync_tool_does_not_block_the_loop_locally() -> None:
    reg = Registry()

    @reg.tool()
    def block(seconds: float) -> str:
        time.sleep(seconds)
        return "done"

    started = time.monotonic()
    result, ticks = await ticking_while(reg.call_tool("block", {"seconds": 0.5}))
    assert result.text == "done"
    assert time.monotonic() - started >= 0.5
    assert ticks >= 20, f"the loop ticked only {ticks} times in 0.5 s"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_sync_tool_does_not_block_the_loop_when_served_in_process(lineage: str, version: str) -> None:
    server = Server("blocking")
    loop_thread = threading.get_ident()
    seen: Dict[str, int] = {}

    @server.tool()
    def block(seconds: float) -> str:
        """Sleeps synchronously."""
        seen["thread"] = threading.get_ident()
        time.sleep(seconds)
        return "done"

    serving = await server.serve_http()
    try:
        async with await Client.connect_http(serving.url, lineage=lineage) as client:
            result, ticks = await ticking_while(client.call_tool("block", {"seconds": 0.5}))
            assert result.text == "done"
            assert ticks >= 20, f"the loop ticked only {ticks} times in 0.5 s"
            assert seen["thread"] != loop_thread
    finally:
        await serving.shutdown()


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_inline_sync_tools_answer_off_the_loop_and_can_ask_for_input(lineage: str, version: str) -> None:
    """``inline=True``: a sync tool runs on the engine's thread (not the loop's), many calls in
    flight are answered each to its own request; asking for input works as an input round
    (2026-07-28) and is refused with a clear error on a legacy session, where waiting would stop
    the very task that delivers the question; calling mcpcore's async API from one is refused
    (the work would queue behind it on its own thread); an async tool cannot be inline."""
    server = Server("inline")
    loop_thread = threading.get_ident()
    threads: set = set()

    @server.tool(inline=True)
    def double(n: int) -> int:
        threads.add(threading.get_ident())
        return 2 * n

    @server.tool(inline=True)
    def ask(ctx: Context) -> str:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        return str(ctx.elicit_sync("k", "Name?", schema).data["name"])

    other = Registry()

    @other.tool()
    def hello() -> str:
        return "hello"

    @server.tool(inline=True)
    def nested() -> str:
        # The engine's work would queue behind this tool on its own thread: refused, not hung.
        return str(asyncio.run(other.call_tool("hello", {})).text)

    with pytest.raises(InvalidInput, match="inline is for sync functions"):

        @server.tool(inline=True)
        async def not_inline() -> str:
            return ""

    serving = await server.serve_http()
    try:
        async with await Client.connect_http(
            serving.url, lineage=lineage, on_elicitation=lambda params: {"name": "Ann"}
        ) as client:
            doubled = await bounded(asyncio.gather(*[client.call_tool("double", {"n": i}) for i in range(50)]))
            assert [r.structured_content["result"] for r in doubled] == [2 * i for i in range(50)]
            assert threads and loop_thread not in threads
            asked = await bounded(client.call_tool("ask", {}))
            if lineage == "modern":
                assert asked.text == "Ann"
            else:
                assert asked.is_error and "cannot wait for client input on a legacy session" in asked.text, asked
            assert "not_inline" not in [t.name for t in await client.list_tools()]
            refused = await bounded(client.call_tool("nested", {}))
            assert refused.is_error and "cannot call mcpcore's async API" in refused.text, refused
    finally:
        await serving.shutdown()


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_async_tools_run_on_the_host_loop(lineage: str, version: str) -> None:
    server = Server("loop-check")
    host_loop = asyncio.get_running_loop()
    host_thread = threading.get_ident()
    seen: List[Any] = []

    @server.tool()
    async def where() -> str:
        """Records its loop and thread."""
        seen.append((asyncio.get_running_loop(), threading.get_ident()))
        await asyncio.sleep(0.01)
        return "here"

    serving = await server.serve_http()
    try:
        async with await Client.connect_http(serving.url, lineage=lineage) as client:
            results = await bounded(asyncio.gather(*[client.call_tool("where") for _ in range(5)]))
            assert all(r.text == "here" for r in results)
        assert len(seen) == 5
        for loop, thread in seen:
            assert loop is host_loop
            assert thread == host_thread
    finally:
        await serving.shutdown()


@run_async
async def test_async_tools_of_a_local_registry_run_on_the_host_loop() -> None:
    reg = Registry()
    host_loop = asyncio.get_running_loop()
    seen: List[Any] = []

    @reg.tool()
    async def where() -> str:
        seen.append((asyncio.get_running_loop(), threading.get_ident()))
        return "here"

    assert (await reg.call_tool("where")).text == "here"
    assert seen == [(host_loop, threading.get_ident())]


def test_async_tools_work_across_event_loops() -> None:
    """A registry used from one asyncio.run and then another (the first loop closed) still runs
    its async tools."""
    reg = Registry()

    @reg.tool()
    async def hello() -> str:
        await asyncio.sleep(0)
        return "hi"

    for _ in range(3):
        assert asyncio.run(asyncio.wait_for(reg.call_tool("hello"), 10)).text == "hi"
