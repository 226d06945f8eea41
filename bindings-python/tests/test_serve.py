"""Serving: a server written with the facade (tests/servers/toolbox.py), reached over stdio, over
HTTP in a child process (Server.run("http")) and over HTTP in-process (Server.serve_http), in both
lineages: what tools/list shows and what each kind of return value becomes."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import time
from typing import Any, Callable, Dict

import pytest
from jsonschema import Draft202012Validator

from mcpcore import Client, InvalidInput, Server, TransportError

from conftest import LINEAGES, PY, TOOLBOX, bounded, run_async

import toolbox as toolbox_module

EXPECTED_DESCRIPTIONS = {
    "echo": "Returns the text unchanged.",
    "add": "Adds two numbers.",
    "double": "Doubles an integer.",
    "point": "Makes a point.",
    "pixel": "A 1x1 PNG image.",
    "fail": "Always raises ValueError(message).",
}


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_tools_list_shows_docstrings_and_type_hints(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        assert (client.lineage, client.protocol_version) == (lineage, version)
        assert client.server_info is not None and client.server_info["name"] == "toolbox"
        assert client.server_info["version"] == "1.2.3"
        assert client.instructions == "Tools for the mcpcore test suite."
        tools = {t.name: t for t in await client.list_tools()}

    assert set(tools) == set(toolbox_module.build().registry.names)
    for name, description in EXPECTED_DESCRIPTIONS.items():
        assert tools[name].description == description
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object"
        if tool.output_schema is not None:
            Draft202012Validator.check_schema(tool.output_schema)

    assert tools["echo"].input_schema == {
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
        "additionalProperties": False,
    }
    assert tools["echo"].output_schema is None
    add = tools["add"]
    assert add.input_schema["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}
    assert sorted(add.input_schema["required"]) == ["a", "b"]
    assert add.output_schema == {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}
    assert tools["double"].input_schema["properties"] == {"n": {"type": "integer"}}
    assert tools["double"].output_schema == {
        "type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]
    }
    point = tools["point"]
    assert point.input_schema["properties"]["label"] == {"type": "string", "default": "p"}
    assert sorted(point.input_schema["required"]) == ["x", "y"]
    assert point.output_schema is not None
    assert point.output_schema["properties"] == {
        "x": {"type": "integer"}, "y": {"type": "integer"}, "label": {"type": "string"}
    }
    assert tools["tags"].input_schema["properties"]["words"] == {"type": "array", "items": {"type": "string"}}
    # a Context parameter is not part of the schema
    assert tools["progress"].input_schema["properties"] == {"steps": {"type": "integer", "default": 3}}
    assert tools["whoami"].input_schema["properties"] == {}
    # explicit name and title
    assert tools["optional-arg"].title == "Optional argument"
    assert tools["optional-arg"].raw["title"] == "Optional argument"


def check_output(tool_schema: Dict[str, Any], structured: Any) -> None:
    Draft202012Validator(tool_schema).validate(structured)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_return_values_become_content(toolbox: Callable[..., Any], lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        schemas = {t.name: t.output_schema for t in await client.list_tools()}

        r = await client.call_tool("echo", {"text": "héllo ✓"})
        assert r.content == [{"type": "text", "text": "héllo ✓"}]
        assert (r.text, r.data, r.structured_content, r.is_error) == ("héllo ✓", "héllo ✓", None, False)

        # TypedDict (async tool) → structuredContent matching outputSchema, plus its JSON as text
        r = await client.call_tool("add", {"a": 1.5, "b": 2})
        assert r.structured_content == {"sum": 3.5} and r.data == {"sum": 3.5} and not r.is_error
        check_output(schemas["add"], r.structured_content)
        assert json.loads(r.text) == {"sum": 3.5}

        # int → wrapped {"result": ...}
        r = await client.call_tool("double", {"n": 21})
        assert r.structured_content == {"result": 42}
        check_output(schemas["double"], r.structured_content)

        # dataclass → structuredContent
        r = await client.call_tool("point", {"x": 1, "y": -2})
        assert r.structured_content == {"x": 1, "y": -2, "label": "p"}
        check_output(schemas["point"], r.structured_content)

        # list → wrapped
        r = await client.call_tool("tags", {"words": ["a", "b"], "upper": True})
        assert r.structured_content == {"result": ["A", "B"]}
        check_output(schemas["tags"], r.structured_content)

        # Image → image block (base64 of the raw bytes)
        r = await client.call_tool("pixel")
        assert len(r.content) == 1
        block = r.content[0]
        assert block["type"] == "image" and block["mimeType"] == "image/png"
        assert base64.b64decode(block["data"]) == toolbox_module.PNG
        assert r.text == "" and r.structured_content is None

        # Optional argument, absent and present
        assert (await client.call_tool("optional-arg")).text == "none"
        assert (await client.call_tool("optional-arg", {"value": 7})).text == "7"
        assert (await client.call_tool("optional-arg", {"value": None})).text == "none"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_exception_becomes_is_error_and_the_server_keeps_serving(
    toolbox: Callable[..., Any], lineage: str, version: str
) -> None:
    async with toolbox(lineage=lineage) as client:
        for i in range(3):
            r = await client.call_tool("fail", {"message": f"bad input {i}"})
            assert r.is_error is True
            assert r.text == f"ValueError: bad input {i}"
            assert r.structured_content is None
            assert (await client.call_tool("echo", {"text": f"still here {i}"})).text == f"still here {i}"


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async
async def test_context_describes_the_call(toolbox: Callable[..., Any], transport: str, lineage: str, version: str) -> None:
    async with toolbox(lineage=lineage) as client:
        info = (await client.call_tool("whoami")).structured_content
        assert info["protocol_version"] == version
        assert info["request_id"] != ""
        assert info["wants_progress"] is False
        if transport == "http-inproc":
            assert info["pid"] == os.getpid()
        else:
            assert info["pid"] != os.getpid()
        again = (await client.call_tool("whoami")).structured_content
        assert again["request_id"] != info["request_id"]


@run_async
async def test_serve_http_in_process_binds_shuts_down_and_waits() -> None:
    server = Server("inproc", "0.0.1")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    serving = await server.serve_http("127.0.0.1", 0)
    assert serving.port > 0
    assert serving.url == f"http://127.0.0.1:{serving.port}/mcp"
    async with await Client.connect_http(serving.url) as client:
        info = client.server_info
        assert info is not None and (info["name"], info["version"]) == ("inproc", "0.0.1")
        assert (await client.call_tool("echo", {"text": "in-process"})).text == "in-process"
    waiter = asyncio.ensure_future(serving.wait())
    await bounded(serving.shutdown(), 10)
    await bounded(waiter, 10)
    with pytest.raises(TransportError):
        await Client.connect_http(serving.url, timeout=5)


@run_async
async def test_serve_http_custom_path_and_sse_transport() -> None:
    server = toolbox_module.build()
    serving = await server.serve_http(path="/custom", response_mode="json")
    try:
        assert serving.url.endswith("/custom")
        async with await Client.connect_http(serving.url) as client:
            assert (await client.call_tool("echo", {"text": "custom"})).text == "custom"
        sse_url = serving.url.rsplit("/", 1)[0] + "/sse"
        async with await Client.connect_http(sse_url, transport="sse") as client:
            assert (client.lineage, client.protocol_version) == ("legacy", "2024-11-05")
            r = await client.call_tool("double", {"n": 4})
            # structuredContent is a 2025-06-18 feature: a 2024-11-05 caller gets the text only
            assert (r.text, r.structured_content) == ("8", None)
    finally:
        await serving.shutdown()


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "call-in-flight"])
def test_run_http_in_a_child_exits_cleanly_on_sigint(spawn: Callable[..., Any], busy: bool) -> None:
    child = spawn([PY, TOOLBOX, "--http"])
    assert child.url.startswith("http://127.0.0.1:") and child.url.endswith("/mcp")
    sent_at = []

    async def use_it() -> None:
        for lineage in ("modern", "legacy"):
            async with await Client.connect_http(child.url, lineage=lineage) as client:
                assert (await client.call_tool("echo", {"text": lineage})).text == lineage
        if busy:
            # a legacy session stays open and a call is in flight when SIGINT arrives
            client = await Client.connect_http(child.url, lineage="legacy")
            call = asyncio.ensure_future(client.call_tool("sleep_sync", {"seconds": 0.5}))
            await asyncio.sleep(0.2)
            sent_at.append(time.monotonic())
            child.proc.send_signal(signal.SIGINT)
            r = await asyncio.wait_for(call, 10)
            assert r.text == "slept 0.5"  # graceful: the in-flight call is answered
            await client.close()

    asyncio.run(asyncio.wait_for(use_it(), 30))
    if not busy:
        sent_at.append(time.monotonic())
        child.proc.send_signal(signal.SIGINT)
    rc = child.proc.wait(timeout=10)
    assert rc == 0, "".join(child.stderr_lines)
    assert time.monotonic() - sent_at[0] < 5
    assert "Traceback" not in "".join(child.stderr_lines)


def test_stdio_server_exits_when_stdin_closes() -> None:
    proc = subprocess.Popen([PY, str(TOOLBOX)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate("", timeout=10)
    assert proc.returncode == 0, err
    assert out == ""


def test_stdio_server_speaks_raw_json_rpc_in_both_lineages() -> None:
    """Plain JSON lines, no client library: the legacy handshake and a modern request."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "double", "arguments": {"n": 5}}},
    ]
    proc = subprocess.run([PY, str(TOOLBOX)], input="".join(json.dumps(l) + "\n" for l in lines),
                          capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, proc.stderr
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines())}
    assert answers[1]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[1]["result"]["serverInfo"]["name"] == "toolbox"
    assert answers[2]["result"]["structuredContent"] == {"result": 10}

    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    modern = [
        {"jsonrpc": "2.0", "id": "a", "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "modern"}, "_meta": meta}},
    ]
    proc = subprocess.run([PY, str(TOOLBOX)], input="".join(json.dumps(l) + "\n" for l in modern),
                          capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, proc.stderr
    (answer,) = map(json.loads, proc.stdout.splitlines())
    assert answer["id"] == "a"
    assert answer["result"]["content"] == [{"type": "text", "text": "modern"}]


async def _legacy_post(port: int, body: Dict[str, Any], session: "str | None" = None) -> "tuple[int, str | None]":
    """One legacy POST on a new connection: the status and the Mcp-Session-Id answered."""
    data = json.dumps(body).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
            f"Content-Length: {len(data)}\r\n")
    if session is not None:
        head += f"Mcp-Session-Id: {session}\r\n"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode() + b"\r\n" + data)
    answer = await _read_to_close(reader)
    writer.close()
    status = int(answer.split(b" ", 2)[1])
    sid = None
    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        name, _, value = line.decode().partition(":")
        if name.lower() == "mcp-session-id":
            sid = value.strip()
    return status, sid


@run_async
async def test_serve_http_session_and_call_limits() -> None:
    """max_sessions_per_client=1: a client's second session ends its first (idle) one; the
    other limits are accepted and checked, bad values name the option."""
    server = toolbox_module.build()
    serving = await server.serve_http(max_sessions_per_client=1, max_sessions=10, session_idle=60,
                                      max_backlog=1 << 20, max_in_flight=4, max_tasks_per_client=2,
                                      peer_request_timeout=5)
    try:
        port = int(serving.url.rsplit(":", 1)[1].split("/")[0])
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        status, first = await _legacy_post(port, init)
        assert status == 200 and first
        status, second = await _legacy_post(port, init)
        assert status == 200 and second and second != first
        assert (await _legacy_post(port, ping, first))[0] == 404, "the first session made room"
        assert (await _legacy_post(port, ping, second))[0] == 200
    finally:
        await serving.shutdown()
    for bad in ({"max_sessions_per_client": 0}, {"max_in_flight": 0}, {"peer_request_timeout": 0},
                {"body_budget": 0}):
        with pytest.raises(InvalidInput) as e:
            await server.serve_http(**bad)
        assert list(bad)[0] in str(e.value), e.value


async def _read_to_close(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(-1), 10)


@run_async
async def test_serve_http_connection_limits() -> None:
    """header_timeout closes a connection that sends nothing; past max_connections the oldest
    idle connection is closed to admit a new one (503 only when all are busy: the Rust tests);
    bad values name the option."""
    server = toolbox_module.build()
    serving = await server.serve_http(header_timeout=0.5, max_connections=2)
    try:
        port = int(serving.url.rsplit(":", 1)[1].split("/")[0])
        started = time.monotonic()
        idle_r, idle_w = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.05)  # idle is the older one
        held_r, held_w = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.05)
        over_r, over_w = await asyncio.open_connection("127.0.0.1", port)
        over_w.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        assert await _read_to_close(idle_r) == b""  # closed to make room, before the head timeout
        assert time.monotonic() - started < 0.45
        answered = await _read_to_close(over_r)
        assert answered.startswith(b"HTTP/1.1 406"), answered  # admitted (and told its Accept is wrong)
        assert await _read_to_close(held_r) == b""  # closed by the head timeout
        assert time.monotonic() - started >= 0.4
        for w in (idle_w, held_w, over_w):
            w.close()
        async with await Client.connect_http(serving.url) as client:
            assert (await client.call_tool("echo", {"text": "room"})).text == "room"
    finally:
        await serving.shutdown()
    for bad in ({"max_connections": 0}, {"header_timeout": 0}, {"body_timeout": -1}):
        with pytest.raises(InvalidInput) as e:
            await server.serve_http(**bad)
        assert list(bad)[0] in str(e.value), e.value


@run_async
async def test_serve_http_on_a_unix_socket(tmp_path: Any) -> None:
    """``serve_http(unix=PATH)``: the same endpoint on a socket file of mode 0600, reached by
    ``Client.connect_http`` with its ``http+unix://`` URL and with ``unix:PATH``; removed at
    shutdown."""
    import stat

    socket_path = tmp_path / "py.sock"
    serving = await toolbox_module.build().serve_http(unix=socket_path)
    try:
        assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o600
        assert serving.url.startswith("http+unix://%2F"), serving.url
        for url, lineage in ((serving.url, "modern"), (f"unix:{socket_path}", "legacy")):
            async with await bounded(Client.connect_http(url, lineage=lineage)) as client:
                assert (await client.call_tool("echo", {"text": "via socket"})).text == "via socket"
    finally:
        await serving.shutdown()
    assert not socket_path.exists()
    with pytest.raises(InvalidInput) as e:
        await toolbox_module.build().serve_http(unix=socket_path, unix_mode=0o1777)
    assert "unix_mode" in str(e.value)


@run_async
async def test_client_reads_the_server_card_before_connecting() -> None:
    serving = await toolbox_module.build().serve_http()
    try:
        card = await Client.server_card(serving.url)
        assert card["$schema"] == "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
        assert card["name"].startswith("127.0.0.1/")
        assert card["remotes"][0] == {"type": "streamable-http", "url": serving.url,
                                      "supportedProtocolVersions": card["remotes"][0]["supportedProtocolVersions"]}
        assert "2026-07-28" in card["remotes"][0]["supportedProtocolVersions"]
    finally:
        await serving.shutdown()
