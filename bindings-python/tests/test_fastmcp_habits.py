"""What people coming from fastmcp write works: bare decorators, awaited ``ctx.info`` and
``ctx.report_progress``, a lifespan whose state handlers see, and stray arguments refused with a
message the model can read."""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Dict, List

import pytest

from mcpcore import Client, Context, Registry, Server

from conftest import bounded, run_async


def test_bare_decorators_register_and_return_the_function() -> None:
    server = Server("bare", "1.0")

    @server.tool
    def shout(text: str) -> str:
        """Shouts."""
        return text.upper()

    @server.prompt
    def hello(name: str) -> str:
        return f"Hello {name}"

    registry = Registry()

    @registry.tool
    def twice(n: int) -> int:
        return 2 * n

    assert shout("a") == "A" and hello("b") == "Hello b" and twice(2) == 4, "the names stay the functions"
    assert server.registry.names == ["shout"]
    assert [p["name"] for p in server.list_prompts()] == ["hello"]
    assert registry.names == ["twice"]
    with pytest.raises(TypeError, match=r"@server.resource needs the resource's URI"):

        @server.resource  # type: ignore[arg-type]
        def memo() -> str:
            return "x"


@run_async(timeout=60)
async def test_awaited_logging_and_progress_and_the_lifespan() -> None:
    events: List[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[Dict[str, Any]]:
        events.append("start")
        yield {"db": "connected"}
        events.append("stop")

    server = Server("habits", "1.0", lifespan=lifespan)

    @server.tool
    async def work(ctx: Context) -> str:
        await ctx.info("starting")
        await ctx.report_progress(1, 2, "half")
        ctx.warning("not awaited is fine too")
        await ctx.report_progress(2, 2)
        return str(ctx.lifespan["db"])

    serving = await server.serve_http()
    assert events == ["start"]
    try:
        async with await bounded(Client.connect_http(serving.url, lineage="legacy")) as c:
            logs: List[Any] = []
            c.on_log(lambda level, data, logger: logs.append((level, data)))
            progress: List[float] = []
            r = await c.call_tool("work", progress=lambda p, total, msg: progress.append(p))
            assert r.text == "connected" and not r.is_error, r
            assert logs == [("info", "starting"), ("warning", "not awaited is fine too")]
            assert progress == [1, 2]
    finally:
        await serving.shutdown()
    assert events == ["start", "stop"]


@pytest.mark.parametrize("lineage", ["modern", "legacy"])
@run_async(timeout=60)
async def test_a_stray_argument_is_a_message_not_a_type_error(lineage: str) -> None:
    server = Server("strict", "1.0")

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def loose(text: str, **rest: int) -> str:
        return f"{text} {sorted(rest.items())}"

    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url, lineage=lineage)) as c:
            r = await c.call_tool("echo", {"text": "hi", "volume": 11})
            assert r.is_error
            assert r.text == "Invalid arguments for tool echo: Additional properties are not allowed ('volume' was unexpected)"
            assert (await c.call_tool("loose", {"text": "hi", "volume": 11})).text == "hi [('volume', 11)]"
            bad = await c.call_tool("loose", {"text": "hi", "volume": "loud"})
            assert bad.is_error and "/volume" in bad.text, bad
    finally:
        await serving.shutdown()
    # In-process, the registry answers the same.
    local = await server.registry.call_tool("echo", {"text": "hi", "volume": 11})
    assert local.is_error and "'volume' was unexpected" in local.text
