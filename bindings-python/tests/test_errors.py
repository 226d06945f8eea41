"""Errors: the McpError hierarchy with .code and .data as a remote caller sees it, timeouts,
cancellation (on the wire and in the server), and a server that dies mid-call."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Callable, List

import pytest

from mcpcore import (
    Client,
    ConnectionClosed,
    InvalidInput,
    McpError,
    Registry,
    RequestTimeout,
    TransportError,
)

from conftest import LINEAGES, PY, SERVERS, TOOLBOX, bounded, events_env, read_events, run_async, wait_until

import toolbox as toolbox_module

LINEAGE_IDS = [l for l, _ in LINEAGES]


async def healthy(client: Client) -> None:
    """The connection still works, and so does the engine in this process."""
    assert (await bounded(client.call_tool("echo", {"text": "still alive"}))).text == "still alive"
    reg = Registry()
    reg.add_tool(lambda: "local", name="local")
    assert (await bounded(reg.call_tool("local"))).text == "local"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_unknown_tool(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        with pytest.raises(McpError) as e:
            await client.call_tool("no_such_tool", {})
        assert type(e.value) is McpError
        assert e.value.code == -32602
        assert "no_such_tool" in e.value.message
        await healthy(client)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_bad_arguments(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    """2026-07-28 and 2025-11-25 (SEP-1303): arguments the schema refuses are a tool execution
    error the model can read, with the failing fields in the text."""
    async with toolbox(lineage=lineage) as client:
        r = await client.call_tool("double", {"n": "not a number"})
        assert r.is_error and r.text.startswith("Invalid arguments for tool double: /n: "), r

        missing = await client.call_tool("add", {"a": 1})
        assert missing.is_error and '"b" is a required property' in missing.text, missing

        extra_type = await client.call_tool("tags", {"words": "not a list"})
        assert extra_type.is_error and "/words" in extra_type.text, extra_type

        # No **kwargs: a stray argument is refused by the schema, not a Python TypeError.
        stray = await client.call_tool("double", {"n": 2, "m": 3})
        assert stray.is_error and "Additional properties are not allowed ('m' was unexpected)" in stray.text, stray
        await healthy(client)


@pytest.mark.parametrize("transport", ["stdio"])
@run_async
async def test_bad_arguments_before_2025_11_25_are_protocol_errors(toolbox: Callable[..., Any]) -> None:
    async with toolbox(protocol_version="2025-06-18") as client:
        with pytest.raises(McpError) as e:
            await client.call_tool("double", {"n": "not a number"})
        assert e.value.code == -32602
        assert isinstance(e.value.data, dict), repr(e.value)
        assert e.value.data["tool"] == "double"
        assert any(err["path"] == "/n" for err in e.value.data["errors"]), e.value.data


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_tool_raising_mcp_error_reaches_the_caller(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        with pytest.raises(McpError) as e:
            await client.call_tool("rpc_fail", {"reason": "quota"})
        assert type(e.value) is McpError
        assert e.value.code == -32050
        assert e.value.data == {"reason": "quota", "retry": False}
        assert e.value.message == "custom failure"
        await healthy(client)


@run_async
async def test_mcp_error_through_a_local_registry() -> None:
    reg = Registry()

    @reg.tool()
    async def refuse(why: str) -> str:
        raise McpError("refused", code=-32050, data={"why": why})

    @reg.tool()
    def codeless() -> str:
        raise McpError("no code")  # code 0: an ordinary tool failure

    with pytest.raises(McpError) as e:
        await reg.call_tool("refuse", {"why": "because"})
    assert (e.value.code, e.value.data, e.value.message) == (-32050, {"why": "because"}, "refused")
    r = await reg.call_tool("codeless")
    assert r.is_error and r.text == "McpError: no code"


@run_async
async def test_mcpcores_own_error_classes_from_a_tool_are_failures_a_host_subclass_is_its_error() -> None:
    # As in the Node binding: an InvalidInput (say, re-raised from a nested call) is a failure
    # of the tool; the host's own subclass names the JSON-RPC error to answer with.
    reg = Registry()

    class Teapot(InvalidInput):
        pass

    @reg.tool()
    def nested() -> str:
        raise InvalidInput("a nested call failed", code=-32602)

    @reg.tool()
    def teapot() -> str:
        raise Teapot("short and stout", code=-32418)

    r = await reg.call_tool("nested")
    assert r.is_error and r.text == "InvalidInput: a nested call failed"
    with pytest.raises(McpError) as e:
        await reg.call_tool("teapot")
    assert e.value.code == -32418


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_per_call_timeout(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        started = time.monotonic()
        with pytest.raises(RequestTimeout) as e:
            await client.call_tool("slow", {"seconds": 5, "tag": "timeout"}, timeout=0.3)
        assert 0.25 < time.monotonic() - started < 2.0
        assert isinstance(e.value, McpError) and e.value.code != 0
        await healthy(client)
        # a sync tool hanging past the timeout too
        with pytest.raises(RequestTimeout):
            await client.call_tool("sleep_sync", {"seconds": 1.0}, timeout=0.2)
        await healthy(client)


@run_async
async def test_default_timeout_from_connect() -> None:
    # (the timeout also bounds the connect, the server's start-up included: not too tight)
    async with await Client.connect_stdio([PY, str(TOOLBOX)], timeout=1.5) as client:
        with pytest.raises(RequestTimeout):
            await client.call_tool("slow", {"seconds": 5})
        # a per-call timeout overrides the default
        assert (await client.call_tool("slow", {"seconds": 0.5}, timeout=5)).text == "slept 0.5"


# --------------------------------------------------------------------------- cancellation


async def cancel_a_call(client: Client, tag: str, seconds: float = 3.0) -> None:
    """Starts a slow call, lets it run a bit, cancels the awaiting task."""
    task = asyncio.ensure_future(client.call_tool("slow", {"seconds": seconds, "tag": tag}))
    await asyncio.sleep(0.4)
    assert not task.done()
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bounded(task, 5)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_cancelling_the_awaiting_task_keeps_everything_healthy(
    toolbox: Callable[..., Any], lineage: str, version: str
) -> None:
    async with toolbox(lineage=lineage) as client:
        await cancel_a_call(client, "c1")
        await healthy(client)
        # several at once, while other calls go on
        tasks = [asyncio.ensure_future(client.call_tool("slow", {"seconds": 3, "tag": f"m{i}"})) for i in range(5)]
        await asyncio.sleep(0.2)
        for t in tasks:
            t.cancel()
        results = await bounded(asyncio.gather(*tasks, return_exceptions=True), 5)
        assert all(isinstance(r, asyncio.CancelledError) for r in results)
        ok = await bounded(asyncio.gather(*[client.call_tool("double", {"n": i}) for i in range(5)]))
        assert [r.structured_content["result"] for r in ok] == [0, 2, 4, 6, 8]


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_cancellation_goes_out_on_the_wire_over_stdio(tmp_path: Path, lineage: str, version: str) -> None:
    """A relay between client and server logs what the client sends: the cancelled request is
    followed by notifications/cancelled naming its id."""
    log = tmp_path / "sent.jsonl"
    argv = [PY, str(SERVERS / "relay.py"), str(log), "--", PY, str(TOOLBOX)]
    async with await Client.connect_stdio(argv, lineage=lineage) as client:
        await cancel_a_call(client, "wire")

        def sent() -> List[dict]:
            return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

        def cancelled_sent() -> bool:
            return any(m.get("method") == "notifications/cancelled" for m in sent())

        assert await wait_until(cancelled_sent, 5), sent()
        call = next(m for m in sent() if m.get("method") == "tools/call" and m["params"]["name"] == "slow")
        note = next(m for m in sent() if m.get("method") == "notifications/cancelled")
        assert note["params"]["requestId"] == call["id"]
        await healthy(client)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@pytest.mark.parametrize("where", ["stdio", "http-inproc"])
@run_async
async def test_cancellation_cancels_the_async_tool_in_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, lineage: str, version: str
) -> None:
    events = tmp_path / "events.txt"
    if where == "stdio":
        client = await Client.connect_stdio([PY, str(TOOLBOX)], env=events_env(events), lineage=lineage)
        serving = None
    else:
        monkeypatch.setenv("MCPCORE_TEST_EVENTS", str(events))
        serving = await toolbox_module.build().serve_http()
        client = await Client.connect_http(serving.url, lineage=lineage)
    try:
        await cancel_a_call(client, "srv", seconds=3.0)
        await asyncio.sleep(0.5)
        ticks = read_events(events).count("tick:srv")
        await asyncio.sleep(0.5)
        evs = read_events(events)
        assert "start:srv" in evs
        assert "cancelled:srv" in evs, evs
        assert evs.count("tick:srv") == ticks, "the tool kept ticking after the cancellation"
        await healthy(client)
    finally:
        await client.close()
        if serving is not None:
            await serving.shutdown()


# --------------------------------------------------------------------------- dying servers


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_server_dying_mid_call_over_stdio(lineage: str, version: str) -> None:
    client = await Client.connect_stdio([PY, str(TOOLBOX)], lineage=lineage)
    async with client:
        assert (await client.call_tool("echo", {"text": "before"})).text == "before"
        pending = asyncio.ensure_future(client.call_tool("slow", {"seconds": 5}))
        with pytest.raises(ConnectionClosed) as e:
            await bounded(client.call_tool("die", {"code": 3}))
        assert "3" in str(e.value)
        with pytest.raises(ConnectionClosed):  # the other in-flight call fails too
            await bounded(pending)
        with pytest.raises(ConnectionClosed):  # and so does every later one
            await bounded(client.call_tool("echo", {"text": "after"}))
    # this process is fine: a new server works
    async with await Client.connect_stdio([PY, str(TOOLBOX)], lineage=lineage) as fresh:
        await healthy(fresh)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_server_dying_mid_call_over_http(spawn: Callable[..., Any], lineage: str, version: str) -> None:
    child = spawn([PY, TOOLBOX, "--http"])
    async with await Client.connect_http(child.url, lineage=lineage) as client:
        with pytest.raises(McpError) as e:
            await bounded(client.call_tool("die", {"code": 4}))
        # The connection closed before the answer: ConnectionClosed, as over stdio.
        assert isinstance(e.value, ConnectionClosed), repr(e.value)
        # Afterwards nobody listens: the server is unreachable.
        with pytest.raises((ConnectionClosed, TransportError)):
            await bounded(client.call_tool("echo", {"text": "after"}))
    assert child.proc.wait(timeout=5) == 4
    async with await Client.connect_stdio([PY, str(TOOLBOX)]) as fresh:
        await healthy(fresh)


@run_async
async def test_server_that_is_not_an_mcp_server(tmp_path: Path) -> None:
    """A child that prints garbage and exits: the connect fails cleanly."""
    script = tmp_path / "garbage.py"
    script.write_text("import sys\nprint('this is not JSON-RPC')\nsys.stdout.flush()\n")
    with pytest.raises(McpError):
        await bounded(Client.connect_stdio([PY, str(script)], timeout=5), 15)
    reg = Registry()
    reg.add_tool(lambda: "ok", name="ok")
    assert (await reg.call_tool("ok")).text == "ok"
