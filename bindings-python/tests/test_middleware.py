"""Middleware in Python (issue 35): ``@server.middleware`` functions and the engine's ready-made
middleware, over real HTTP on 127.0.0.1 with our client on both lineages. A middleware sees the
method, params, revision, client and headers; changes a request; answers one itself; refuses one
with its own code and data, which the client receives unchanged; sees errors of the rest of the
chain as ``McpError`` with the wire's code and data; and changes results on the way back."""

from __future__ import annotations

import asyncio
import logging
import shutil
from typing import Any, Dict, List

import pytest

from mcpcore import Client, InvalidInput, McpError, Server, refresh_logging
from mcpcore.middleware import (
    CallNext,
    Idempotency,
    ListCache,
    RateLimit,
    Request,
    RequestLog,
    ResponseLimit,
    Timeouts,
)

from conftest import EXAMPLES, LINEAGES, PY, run_async, rust_bin


def add_tools(server: Server) -> None:
    """``echo``, ``slow`` (sleeps ``seconds``) and ``big`` (a 5,000-character result)."""

    @server.tool()
    def echo(text: str) -> str:
        """Returns the text."""
        return text

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleeps."""
        await asyncio.sleep(seconds)
        return "woke"

    @server.tool()
    def big() -> str:
        """A large result."""
        return "x" * 5000


def build(seen: List[str]) -> Server:
    server = Server("mw", "1")
    add_tools(server)

    @server.tool()
    def strict(n: int) -> int:
        """Refuses what is not an int."""
        return n

    @server.middleware
    async def record(request: Request, call_next: CallNext) -> Dict[str, Any]:
        ctx = request.context
        assert ctx is not None
        info = ctx.client_info or {}
        seen.append(f"{request.method} {ctx.protocol_version} {info.get('name')} {ctx.header('x-tenant')}")
        return await call_next(request)

    @server.middleware
    async def shape(request: Request, call_next: CallNext) -> Dict[str, Any]:
        if request.tool == "secret":
            raise McpError("Forbidden by policy", -32042, data={"reason": "module_off", "remedy": "ask an admin"})
        if request.tool == "answered":
            return {"content": [{"type": "text", "text": "from the middleware"}]}
        if request.tool == "echo":
            request.params["arguments"]["text"] = "changed: " + request.params["arguments"]["text"]
        if request.tool == "missing":
            try:
                await call_next(request)
            except McpError as e:
                return {"content": [{"type": "text", "text": f"caught {e.code}"}]}
        result = await call_next(request)
        if request.method == "tools/call":
            result["content"].append({"type": "text", "text": "(seen)"})
        return result

    return server


def texts(r: Any) -> List[str]:
    return [c["text"] for c in r.content]


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_python_middleware_sees_changes_refuses_and_answers(mode: str, version: str) -> None:
    seen: List[str] = []
    server = build(seen)

    @run_async
    async def go() -> None:
        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(
                serving.url, headers={"x-tenant": "acme"}, protocol_version=version
            ) as client:
                names = [t.name for t in await client.list_tools()]
                assert names == ["big", "echo", "slow", "strict"]
                assert texts(await client.call_tool("echo", {"text": "hi"})) == ["changed: hi", "(seen)"]
                assert texts(await client.call_tool("answered", {})) == ["from the middleware"]
                with pytest.raises(McpError) as refused:
                    await client.call_tool("secret", {})
                assert refused.value.code == -32042
                assert refused.value.data == {"reason": "module_off", "remedy": "ask an admin"}
                # The rest of the chain's error reaches the middleware with its wire code.
                assert texts(await client.call_tool("missing", {})) == ["caught -32602"]
            assert f"tools/list {version} mcpcore-python acme" in seen, seen
            assert sum(line.startswith("tools/call ") for line in seen) == 4, seen
            assert not any(line.startswith("initialize") for line in seen), seen
        finally:
            await serving.shutdown()

    go()


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_ready_made_middleware_from_python(mode: str, version: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcpcore.requests")
    refresh_logging()
    server = Server(
        "ready",
        "1",
        middleware=[
            RequestLog(),
            RateLimit(per_second=0.01, burst=6, methods=["tools/call"]),
            Timeouts(default=5.0, per_tool={"slow": 0.1}),
            ResponseLimit(max_bytes=2048),
        ],
    )

    add_tools(server)

    @run_async
    async def go() -> None:
        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(serving.url, protocol_version=version) as client:
                with pytest.raises(McpError) as timed_out:
                    await client.call_tool("slow", {"seconds": 5})
                assert timed_out.value.code == -32001
                assert timed_out.value.data == {"tool": "slow", "timeoutMs": 100}
                with pytest.raises(McpError) as too_big:
                    await client.call_tool("big", {})
                assert too_big.value.data["limit"] == "response_size" and too_big.value.data["max"] == 2048
                for _ in range(4):
                    assert (await client.call_tool("echo", {"text": "ok"})).text == "ok"
                with pytest.raises(McpError) as limited:
                    await client.call_tool("echo", {"text": "over"})
                assert limited.value.code == -32603
                assert limited.value.data["limit"] == "rate" and limited.value.data["retryAfter"] >= 1
                assert [t.name for t in await client.list_tools()] == ["big", "echo", "slow"], "lists not counted"
        finally:
            await serving.shutdown()

    go()
    logged = [r.getMessage() for r in caplog.records if r.name == "mcpcore.requests"]
    assert any(m.startswith('served tools/list method="tools/list"') for m in logged), logged
    assert any(m.startswith("refused tools/call: Request timed out") for m in logged), logged


def test_a_sync_middleware_is_refused_with_a_clear_error() -> None:
    server = Server("s", "1")

    def sync(request: Request, call_next: CallNext) -> Any:
        return call_next(request)

    with pytest.raises(InvalidInput, match="must be an async def"):
        server.middleware(sync)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="not a middleware"):
        Server("s", "1", middleware=[42])  # type: ignore[list-item]


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_idempotent_writes_act_once(mode: str, version: str) -> None:
    server = Server("idem", "1", middleware=[Idempotency(ttl=60)])
    charged: List[float] = []

    @server.tool()
    async def charge(idempotency_key: str, amount: float) -> str:
        """Charges once per idempotency key."""
        await asyncio.sleep(0.1)
        charged.append(amount)
        return f"charge #{len(charged)} of {amount:g}"

    @run_async
    async def go() -> None:
        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(serving.url, protocol_version=version) as client:
                args = {"idempotency_key": "k1", "amount": 5}
                first = await asyncio.gather(*(client.call_tool("charge", args) for _ in range(3)))
                assert {r.text for r in first} == {"charge #1 of 5"} and charged == [5]
                assert (await client.call_tool("charge", args)).text == "charge #1 of 5"
                with pytest.raises(McpError) as reused:
                    await client.call_tool("charge", {"idempotency_key": "k1", "amount": 6})
                assert reused.value.code == -32602
                assert reused.value.data == {"reason": "idempotency_key_reused", "idempotencyKey": "k1"}
                await client.call_tool("charge", {"idempotency_key": "k2", "amount": 5})
                assert charged == [5, 5]
        finally:
            await serving.shutdown()

    go()


def example_server(kind: str) -> List[str]:
    """The example echo server of ``kind`` (py, rust, node) as an argv."""
    if kind == "py":
        return [PY, str(EXAMPLES / "echo_server.py")]
    if kind == "rust":
        return [str(rust_bin("echo_server"))]
    node = shutil.which("node")
    if node is None or not (EXAMPLES.parent / "node" / "node_modules" / "mcpcore").exists():
        pytest.skip("node, or examples/node/node_modules, is missing")
    return [node, str(EXAMPLES.parent / "node" / "echo_server.mjs")]


@pytest.mark.parametrize("kind", ["py", "rust", "node"])
def test_the_example_servers_serve_append_once_per_key_and_limit_rates(kind: str) -> None:
    @run_async(timeout=60)
    async def go() -> None:
        argv = example_server(kind)
        async with await Client.connect_stdio(argv[0], [*argv[1:], "--idempotency"]) as client:
            assert "append" in [t.name for t in await client.list_tools()]
            first = await client.call_tool("append", {"text": "a", "idempotency_key": "k"})
            again = await client.call_tool("append", {"text": "a", "idempotency_key": "k"})
            other = await client.call_tool("append", {"text": "b", "idempotency_key": "k2"})
            assert (first.structured_content, again.structured_content, other.structured_content) == (
                {"length": 1}, {"length": 1}, {"length": 2})
        async with await Client.connect_stdio(argv[0], [*argv[1:], "--rate-limit", "0.01"]) as client:
            with pytest.raises(McpError) as limited:
                for _ in range(3):
                    await client.call_tool("echo", {"text": "x"})
            assert limited.value.data["limit"] == "rate"

    go()


def test_a_rate_limit_store_must_be_a_redis_url() -> None:
    with pytest.raises(InvalidInput, match="redis://"):
        Server("s", "1", middleware=[RateLimit(per_second=1, burst=1, store="memcached://x")])


def test_the_list_cache_answers_repeats_until_the_catalogue_changes() -> None:
    """Legacy lineage (our client keeps no legacy lists itself): three lists reach the server's
    handlers once; a tool added while serving empties the cache, and the next list has it."""
    reached: List[str] = []
    server = Server("cached", "1", middleware=[ListCache(ttl=60.0)])
    add_tools(server)

    @server.middleware
    async def count(request: Request, call_next: CallNext) -> Dict[str, Any]:
        reached.append(request.method)
        return await call_next(request)

    @run_async
    async def go() -> None:
        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(serving.url, protocol_version="2025-11-25") as client:
                for _ in range(3):
                    assert [t.name for t in await client.list_tools()] == ["big", "echo", "slow"]
                assert reached.count("tools/list") == 1, reached

                @server.tool()
                def later() -> str:
                    """Added while serving."""
                    return "later"

                assert "later" in [t.name for t in await client.list_tools()]
                assert reached.count("tools/list") == 2, reached
                assert (await client.call_tool("later", {})).text == "later"
        finally:
            await serving.shutdown()

    go()
