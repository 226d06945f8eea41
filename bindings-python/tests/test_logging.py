"""Tools log through Context.log; clients receive messages through Client.on_log: legacy sessions
filter with logging/setLevel (every level until set), 2026-07-28 requests get messages only when
they pass log_level."""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

import pytest

from mcpcore import Client, Context, InvalidInput, McpError, Server

from conftest import bounded, run_async


def chatty_server() -> Server:
    server = Server("chatty", "1.0")

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Logs at three levels."""
        ctx.log("debug", {"step": 1}, logger="chatty")
        ctx.info("two")
        ctx.error(["three"])
        return "done"

    @server.tool()
    def bad_level(ctx: Context) -> str:
        ctx.log("loud", "x")
        return "unreachable"

    return server


@run_async
async def test_legacy_session_logs_filtered_by_set_level() -> None:
    serving = await chatty_server().serve_http()
    seen: List[Tuple[str, Any, Optional[str]]] = []
    try:
        async with await Client.connect_http(serving.url, lineage="legacy") as client:
            client.on_log(lambda level, data, logger: seen.append((level, data, logger)))
            assert (await client.call_tool("chatty")).text == "done"
            assert seen == [("debug", {"step": 1}, "chatty"), ("info", "two", None), ("error", ["three"], None)]
            seen.clear()
            assert await client.request("logging/setLevel", {"level": "warning"}) == {}
            await client.call_tool("chatty")
            assert seen == [("error", ["three"], None)]
    finally:
        await serving.shutdown()


@run_async
async def test_modern_requests_get_logs_only_when_asked() -> None:
    serving = await chatty_server().serve_http()
    seen: List[str] = []
    try:
        async with await Client.connect_http(serving.url, lineage="modern") as client:
            client.on_log(lambda level, data, logger: seen.append(level))
            await client.call_tool("chatty")
            assert seen == []
            await client.call_tool("chatty", log_level="info")
            assert seen == ["info", "error"]
            with pytest.raises(InvalidInput):
                await client.call_tool("chatty", log_level="loud")
            with pytest.raises(McpError) as e:
                await client.request("logging/setLevel", {"level": "info"})
            assert e.value.code == -32601
    finally:
        await serving.shutdown()


@run_async
async def test_an_unknown_level_is_a_tool_error() -> None:
    server = chatty_server()
    result = await server.registry.call_tool("bad_level")
    assert result.is_error and "unknown log level" in result.text


@run_async
async def test_the_engine_logs_each_http_request_to_python_logging() -> None:
    import logging

    import mcpcore
    import toolbox as toolbox_module

    records: List[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("mcpcore")
    handler = Keep()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    mcpcore.refresh_logging()
    serving = await toolbox_module.build().serve_http()
    try:
        async with await bounded(mcpcore.Client.connect_http(serving.url, lineage="legacy")) as client:
            await client.call_tool("echo", {"text": "logged"})
    finally:
        await serving.shutdown()
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        mcpcore.refresh_logging()
    lines = [(r.name, r.levelno, r.getMessage()) for r in records]
    calls = [l for l in lines if "tools/call" in l[2] and l[0] == "mcpcore.http"]
    assert calls, lines
    name, level, message = calls[0]
    assert (name, level) == ("mcpcore.http", logging.DEBUG)
    assert re.fullmatch(r"POST tools/call id=\S+ -> 200 in [0-9.]+ ms", message), message
    assert any(m.startswith("POST initialize id=") for _, _, m in lines), lines
    # The legacy session's connection logs the JSON-RPC outcome too.
    assert any(n == "mcpcore.server" and re.match(r"tools/call id=\S+ -> ok in ", m) for n, _, m in lines), lines
