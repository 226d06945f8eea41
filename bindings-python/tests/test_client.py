"""Calling: Client.connect_stdio / connect_http with automatic negotiation, forced lineages and
pinned revisions; list_tools; typed results; headers and bearer tokens; progress; closing."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable, List, Optional, Tuple

import pytest

from mcpcore import Client, ConnectionClosed, HttpError, RequestTimeout

from conftest import (
    LINEAGES,
    NEGOTIATION_IDS,
    NEGOTIATIONS,
    PY,
    TOOLBOX,
    bounded,
    run_async,
    wait_until,
)

import toolbox as toolbox_module


def _gone(pid: int) -> bool:
    """True once process ``pid`` no longer exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("lineage,pin,version,expected_lineage", NEGOTIATIONS, ids=NEGOTIATION_IDS)
@run_async
async def test_negotiation(toolbox: Callable[..., Any], lineage: Optional[str], pin: Optional[str],
                           version: str, expected_lineage: str) -> None:
    async with toolbox(lineage=lineage, protocol_version=pin) as client:
        assert client.protocol_version == version
        assert client.lineage == expected_lineage
        assert client.server_info is not None and client.server_info["name"] == "toolbox"
        tools = {t.name: t for t in await client.list_tools()}
        assert "echo" in tools and "add" in tools
        assert (await client.call_tool("echo", {"text": version})).text == version
        add = await client.call_tool("add", {"a": 2, "b": 3})
        info = await client.call_tool("whoami")  # what the server saw
        if version >= "2025-06-18":
            # outputSchema / structuredContent exist from 2025-06-18 on
            assert tools["add"].output_schema is not None
            assert add.structured_content == {"sum": 5.0}
            assert info.structured_content["protocol_version"] == version
        else:
            assert tools["add"].output_schema is None
            assert add.structured_content is None
            assert json.loads(add.text) == {"sum": 5.0}
            assert json.loads(info.text)["protocol_version"] == version


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_typed_results(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        text = await client.call_tool("echo", {"text": "t"})
        assert text.data == "t" and text.text == "t" and text.is_error is False
        assert text.raw["content"] == [{"type": "text", "text": "t"}]
        structured = await client.call_tool("point", {"x": 3, "y": 4, "label": "q"})
        assert structured.data == {"x": 3, "y": 4, "label": "q"} == structured.structured_content
        failed = await client.call_tool("fail", {"message": "m"})
        assert failed.is_error and failed.data == "ValueError: m" and failed.raw["isError"] is True
        # the raw request API
        listed = await client.request("tools/list")
        assert {t["name"] for t in listed["tools"]} == set(toolbox_module.build().registry.names)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_progress_reaches_the_callback(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        seen: List[Tuple[float, Optional[float], Optional[str]]] = []
        r = await client.call_tool("progress", {"steps": 4}, progress=lambda p, t, m: seen.append((p, t, m)))
        assert r.text == "wants_progress=True"
        assert seen == [(float(i), 4.0, f"step {i}") for i in range(1, 5)]
        # without a callback the tool is told nobody listens
        assert (await client.call_tool("progress", {"steps": 2})).text == "wants_progress=False"


@run_async
async def test_a_failing_progress_callback_does_not_break_the_call(toolbox: Callable[..., Any]) -> None:
    async with toolbox() as client:
        def bad(p: float, t: Optional[float], m: Optional[str]) -> None:
            raise RuntimeError("callback bug")

        r = await client.call_tool("progress", {"steps": 2}, progress=bad)
        assert r.text == "wants_progress=True"
        assert (await client.call_tool("echo", {"text": "ok"})).text == "ok"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_async_with_closes_the_stdio_server(lineage: str, version: str) -> None:
    async with await Client.connect_stdio([PY, str(TOOLBOX)], lineage=lineage) as client:
        pid = (await client.call_tool("whoami")).data["pid"]
        assert pid != os.getpid()
        os.kill(pid, 0)  # alive

    assert await wait_until(lambda: _gone(pid), 10), f"server {pid} still running after close"
    with pytest.raises(ConnectionClosed):
        await client.call_tool("echo", {"text": "after close"})
    with pytest.raises(ConnectionClosed):
        await client.list_tools()
    assert client.protocol_version == version, "what negotiation settled stays readable"
    assert client.lineage == lineage
    await client.close()  # closing twice is fine


@run_async(timeout=60)
async def test_the_timeout_bounds_the_whole_connect(tmp_path: Any) -> None:
    """Issue 37: ``connect_stdio([...], timeout=2)`` against a server that never answers took 7 s
    (the 5 s probe, then ``initialize``). Now the whole connect fails at 2 s, and the child goes."""
    pidfile = tmp_path / "pid"
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(RequestTimeout, match="timed out after 2.0 s"):
        await Client.connect_stdio(["sh", "-c", f"echo $$ > {pidfile}; exec sleep 30"], timeout=2)
    took = loop.time() - start
    assert took < 2.9, took
    pid = int(pidfile.read_text())

    assert await wait_until(lambda: _gone(pid), 10), f"the silent server {pid} was left running"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_async_with_closes_an_http_client(lineage: str, version: str) -> None:
    serving = await toolbox_module.build().serve_http()
    try:
        async with await Client.connect_http(serving.url, lineage=lineage) as client:
            assert (await client.call_tool("echo", {"text": "x"})).text == "x"
        with pytest.raises(ConnectionClosed):
            await client.call_tool("echo", {"text": "after close"})
        # the server is unaffected
        async with await Client.connect_http(serving.url, lineage=lineage) as other:
            assert (await other.call_tool("echo", {"text": "y"})).text == "y"
    finally:
        await serving.shutdown()


@run_async
async def test_stdio_env_and_cwd_reach_the_server(tmp_path: Any) -> None:
    events = tmp_path / "events.txt"
    async with await Client.connect_stdio(
        PY, [str(TOOLBOX), "--name", "renamed"], env={"MCPCORE_TEST_EVENTS": str(events)}, cwd=str(tmp_path)
    ) as client:
        assert client.server_info is not None and client.server_info["name"] == "renamed"
        await client.call_tool("slow", {"seconds": 0.01, "tag": "env"})
    assert "start:env" in events.read_text()


# --------------------------------------------------------------------------- HTTP headers


class Capture:
    """A TCP forwarder on 127.0.0.1 in front of a server, keeping every byte clients send."""

    def __init__(self, target_port: int = 0) -> None:
        self.target_port = target_port  # may be set after the forwarder is listening
        self.sent = bytearray()
        self.server: Optional[asyncio.base_events.Server] = None

    async def __aenter__(self) -> "Capture":
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter, keep: bool) -> None:
            try:
                while chunk := await r.read(65536):
                    if keep:
                        self.sent += chunk
                    w.write(chunk)
                    await w.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_headers_and_bearer_token_are_sent(lineage: str, version: str) -> None:
    async with Capture() as capture:
        # the Host header names the forwarder, so the server must allow it (DNS-rebinding guard)
        serving = await toolbox_module.build().serve_http(allowed_hosts=[f"127.0.0.1:{capture.port}"])
        capture.target_port = serving.port
        url = f"http://127.0.0.1:{capture.port}/mcp"
        try:
            async with await Client.connect_http(
                url, headers={"X-Trace-Id": "trace-123"}, bearer_token="s3cret-token", lineage=lineage
            ) as client:
                assert (await client.call_tool("echo", {"text": "with headers"})).text == "with headers"
        finally:
            await serving.shutdown()
        sent = capture.sent.decode("latin-1").lower()
    requests = sent.count("post /mcp")
    assert requests >= 2
    assert sent.count("x-trace-id: trace-123") >= requests
    assert sent.count("authorization: bearer s3cret-token") >= requests


@run_async
async def test_http_error_status_is_reported() -> None:
    """A server that refuses the Host (DNS-rebinding protection) answers 403."""
    serving = await toolbox_module.build().serve_http(allowed_hosts=["example.invalid"])
    try:
        with pytest.raises(HttpError) as e:
            await bounded(Client.connect_http(serving.url, transport="streamable", timeout=5))
        assert e.value.http_status == 403
        assert e.value.code == -32600, "the JSON-RPC code of the 403 body survives"
        # A 403 is the server's answer: "auto" does not try the 2024-11-05 SSE transport.
        with pytest.raises(HttpError) as auto:
            await bounded(Client.connect_http(serving.url, timeout=5))
        assert auto.value.http_status == 403 and auto.value.code == -32600
    finally:
        await serving.shutdown()
