"""The installed package: what it exports, its error and result types, local registries, and the
checks on what a caller passes in."""

from __future__ import annotations

import asyncio
import pickle
import textwrap
from pathlib import Path

import pytest

import mcpcore
from mcpcore import (
    CallToolResult,
    Client,
    ConnectionClosed,
    HttpError,
    InvalidInput,
    McpError,
    ProtocolError,
    Registry,
    RequestCancelled,
    RequestTimeout,
    Server,
    Tool,
    ToolError,
    TransportError,
)
from mcpcore import errors as errors_module

from conftest import BINDING, PY, TOOLBOX, describe, run, run_async


def test_uses_the_installed_package_not_the_source_tree() -> None:
    path = Path(mcpcore.__file__).resolve()
    assert BINDING / "python" not in path.parents, path
    assert "site-packages" in path.parts
    assert mcpcore._native.__file__ and "site-packages" in mcpcore._native.__file__
    assert (path.parent / "py.typed").exists()


def test_exports() -> None:
    for name in mcpcore.__all__:
        assert hasattr(mcpcore, name), name
    assert isinstance(mcpcore.__version__, str) and mcpcore.__version__.count(".") == 2
    assert mcpcore.__version__ == mcpcore._native.__version__


@pytest.mark.parametrize(
    "cls", [RequestTimeout, RequestCancelled, ConnectionClosed, ProtocolError, TransportError, InvalidInput,
            ToolError, HttpError, mcpcore.InputRequired],
)
def test_error_hierarchy(cls: type) -> None:
    assert issubclass(cls, McpError) and issubclass(cls, Exception)
    e = cls("boom", code=-32000, data='{"k": [1, 2]}', http_status=418)
    assert isinstance(e, McpError)
    assert (e.message, e.code, e.data, e.http_status) == ("boom", -32000, {"k": [1, 2]}, 418)
    assert str(e) == "boom"
    assert repr(e) == f"{cls.__name__}('boom', code=-32000, data={{'k': [1, 2]}})"


def test_error_defaults_and_data_decoding() -> None:
    e = McpError("plain")
    assert (e.code, e.data, e.http_status) == (0, None, None)
    assert McpError("x", data="not json").data == "not json"  # undecodable text stays text
    assert McpError("x", data={"a": 1}).data == {"a": 1}
    assert issubclass(InvalidInput, ValueError)
    assert sorted(errors_module.__all__) == sorted(
        ["McpError", "RequestTimeout", "RequestCancelled", "ConnectionClosed", "ProtocolError",
         "TransportError", "InvalidInput", "ToolError", "HttpError", "InputRequired", "AuthError",
         "ResourceNotFound", "KIND_CLASSES"]
    )


def test_errors_pickle() -> None:
    e = pickle.loads(pickle.dumps(McpError("boom", -32050, {"a": 1})))
    assert isinstance(e, McpError) and str(e) == "boom"


def test_call_tool_result_views() -> None:
    r = CallToolResult.from_json(
        {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"},
                     {"type": "text", "text": "b"}]}
    )
    assert r.text == "a\nb" and r.data == "a\nb" and r.structured_content is None and not r.is_error
    s = CallToolResult.from_json({"content": [], "structuredContent": {"sum": 3}, "isError": False})
    assert s.data == {"sum": 3} and s.text == ""
    e = CallToolResult.from_json({"content": [{"type": "text", "text": "bad"}], "isError": True})
    assert e.is_error and e.text == "bad"
    assert CallToolResult.from_json({}).content == []


def test_tool_from_json() -> None:
    raw = {"name": "t", "inputSchema": {"type": "object"}, "title": "T", "annotations": {"readOnlyHint": True}}
    t = Tool.from_json(raw)
    assert (t.name, t.description, t.input_schema, t.output_schema, t.title) == ("t", "", {"type": "object"}, None, "T")
    assert t.raw["annotations"] == {"readOnlyHint": True}


# --------------------------------------------------------------------------- local registry


def test_registry_add_list_remove() -> None:
    reg = Registry()

    def shout(text: str, times: int = 1) -> str:
        """Shouts."""
        return (text.upper() + "!") * times

    tool = reg.add_tool(shout)
    assert tool.name == "shout" and tool.description == "Shouts."
    assert tool.input_schema["required"] == ["text"]

    @reg.tool("renamed", description="Custom description.", title="A title")
    async def whatever(x: int) -> int:
        return x

    assert whatever.__name__ == "whatever"  # the decorator returns the function unchanged
    assert reg.names == ["renamed", "shout"]
    listed = {t.name: t for t in reg.list_tools()}
    assert listed["renamed"].description == "Custom description." and listed["renamed"].title == "A title"
    assert listed["renamed"].output_schema == {
        "type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]
    }
    assert reg.remove_tool("renamed") is True
    assert reg.remove_tool("renamed") is False
    assert reg.names == ["shout"]
    assert reg.servers == []


def test_registry_rejects_bad_and_taken_names() -> None:
    reg = Registry()

    def f() -> str:
        return ""

    reg.add_tool(f, name="ok")
    with pytest.raises(InvalidInput):
        reg.add_tool(f, name="ok")
    with pytest.raises(InvalidInput):
        reg.add_tool(f, name="has space")
    with pytest.raises(InvalidInput):
        reg.add_tool(f, name="")


@run_async
async def test_registry_call_tool_locally() -> None:
    reg = Registry()

    @reg.tool()
    def shout(text: str) -> str:
        return text.upper()

    @reg.tool()
    async def twice(n: int) -> int:
        await asyncio.sleep(0)
        return 2 * n

    @reg.tool()
    def broken() -> str:
        raise RuntimeError("nope")

    assert (await reg.call_tool("shout", {"text": "hi"})).text == "HI"
    r = await reg.call_tool("twice", {"n": 21})
    assert r.structured_content == {"result": 42} and r.data == {"result": 42}
    b = await reg.call_tool("broken")
    assert b.is_error and b.text == "RuntimeError: nope"
    with pytest.raises(McpError) as unknown:
        await reg.call_tool("missing")
    assert unknown.value.code == -32602
    # As a server of the newest revision answers: invalid arguments are a result the model reads.
    bad = await reg.call_tool("twice", {"n": "x"})
    assert bad.is_error and bad.text.startswith("Invalid arguments for tool twice: /n: "), bad


@run_async
async def test_registry_call_timeout() -> None:
    reg = Registry()

    @reg.tool()
    async def nap() -> str:
        await asyncio.sleep(5)
        return "late"

    with pytest.raises(RequestTimeout):
        await reg.call_tool("nap", timeout=0.2)


# --------------------------------------------------------------------------- caller input checks


@run_async
async def test_invalid_arguments_to_the_api() -> None:
    with pytest.raises(InvalidInput):
        await Client.connect_stdio([PY, str(TOOLBOX)], lineage="medieval")
    with pytest.raises(InvalidInput):
        await Client.connect_stdio([PY, str(TOOLBOX)], protocol_version="1999-01-01")
    with pytest.raises(InvalidInput):
        await Client.connect_stdio([PY, str(TOOLBOX)], timeout=0)
    with pytest.raises(InvalidInput):
        await Client.connect_stdio([PY, str(TOOLBOX)], protocol_version="2025-11-25", lineage="modern")
    with pytest.raises(InvalidInput):
        await Client.connect_http("http://127.0.0.1:1/mcp", transport="carrier-pigeon")
    server = Server()
    with pytest.raises(InvalidInput):
        await server.serve_http(response_mode="telepathy")
    with pytest.raises(InvalidInput):
        await server.serve_http(host="localhost")  # an IP address is required
    with pytest.raises(InvalidInput):
        await Registry().call_tool("x", timeout=-1)
    async with await Client.connect_stdio([PY, str(TOOLBOX)]) as client:
        with pytest.raises(InvalidInput):
            await Registry().connect("s", client, collision="merge")
        with pytest.raises(InvalidInput):
            await client.call_tool("echo", {"text": "x"}, timeout=float("nan"))


@run_async
async def test_spawn_failure_is_a_transport_error() -> None:
    with pytest.raises(McpError) as e:
        await Client.connect_stdio(["/nonexistent/definitely-not-a-server"])
    assert isinstance(e.value, (TransportError, ConnectionClosed)), repr(e.value)


@run_async
async def test_nothing_listening_is_a_transport_error() -> None:
    import socket

    with socket.socket() as s:  # a port that is certainly closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(TransportError):
        await Client.connect_http(f"http://127.0.0.1:{port}/mcp", timeout=5)


def test_run_rejects_unknown_transport() -> None:
    with pytest.raises(InvalidInput):
        Server().run("carrier-pigeon")


# --------------------------------------------------------------------------- process exit


EXIT_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from mcpcore import Client, Registry

    reg = Registry()

    @reg.tool()
    def echo(text: str) -> str:
        return text

    async def main():
        assert (await reg.call_tool("echo", {"text": "x"})).text == "x"
        async with await Client.connect_stdio([sys.executable, sys.argv[1]]) as c:
            assert (await c.call_tool("echo", {"text": "y"})).text == "y"

    asyncio.run(main())
    print("ok")
    """
)


def test_processes_exit_cleanly_after_using_the_engine(tmp_path: Path) -> None:
    """Regression: a tokio thread completing an awaitable while the interpreter finalizes used to
    crash the exiting process (SIGSEGV / SIGABRT in about one run of four)."""
    script = tmp_path / "exit_check.py"
    script.write_text(EXIT_SCRIPT)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: run([PY, script, TOOLBOX], timeout=60), range(12)))
    for proc in results:
        assert proc.returncode == 0 and proc.stdout.strip() == "ok", describe(proc)


def test_import_leaves_the_standard_librarys_value_types_unimported() -> None:
    """Start-up: ``import mcpcore`` imports none of the modules whose types it only converts
    (dates, UUIDs, decimals, paths, typing_extensions); a tool that uses one works once the host
    has imported it (the conversions look the types up among the imported modules)."""
    script = textwrap.dedent(
        """
        import sys
        import mcpcore
        lazy = ["datetime", "decimal", "pathlib", "uuid", "typing_extensions", "ipaddress", "platform"]
        print(sorted(m for m in lazy if m in sys.modules))
        import asyncio, datetime, uuid
        reg = mcpcore.Registry()

        @reg.tool()
        def later(day: datetime.date, key: uuid.UUID) -> str:
            return f"{day + datetime.timedelta(days=1)} {key.version}"

        print(reg.list_tools()[0].input_schema["properties"]["day"]["format"])
        print(asyncio.run(reg.call_tool("later", {"day": "2026-12-05", "key": str(uuid.uuid4())})).text)
        """
    )
    proc = run([PY, "-c", script], timeout=60)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.split("\n")[:3] == ["[]", "date", "2026-12-06 4"], describe(proc)


# --------------------------------------------------------------------------- stdio without asyncio


SYNC_SERVER = textwrap.dedent(
    """
    import sys
    from mcpcore import Server

    server = Server("sync-only")

    @server.tool()
    def imported(module: str) -> bool:
        return module in sys.modules

    @server.tool(inline=True)
    def echo(text: str) -> str:
        return text

    if len(sys.argv) > 1:  # one async tool: served on an asyncio loop as before

        @server.tool()
        async def later(text: str) -> str:
            return text

    server.run()
    """
)


@pytest.mark.parametrize("with_async", [False, True])
@run_async(timeout=60)
async def test_a_server_of_sync_handlers_serves_stdio_without_asyncio(tmp_path: Path, with_async: bool) -> None:
    """Start-up (issue 36, W5): ``run()`` on stdio serves a server whose handlers are all sync
    without an asyncio loop, so asyncio is never imported; with one ``async def`` tool it runs
    the loop as before. Both lineages."""
    script = tmp_path / "sync_server.py"
    script.write_text(SYNC_SERVER)
    argv = [PY, str(script)] + (["async"] if with_async else [])
    for lineage in ("legacy", "modern"):
        async with await Client.connect_stdio(argv, lineage=lineage) as c:
            assert (await c.call_tool("echo", {"text": "hi"})).text == "hi"
            loaded = await c.call_tool("imported", {"module": "asyncio"})
            assert loaded.structured_content == {"result": with_async}, loaded
            if with_async:
                assert (await c.call_tool("later", {"text": "x"})).text == "x"


def test_the_blocking_stdio_server_stops_on_sigint(tmp_path: Path) -> None:
    """Ctrl-C stops a server served without asyncio at once (it checks for signals while it
    waits), quietly, as the asyncio one does."""
    import signal
    import subprocess
    import time

    script = tmp_path / "sync_server.py"
    script.write_text(SYNC_SERVER)
    proc = subprocess.Popen([PY, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()  # serving
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() - started < 5
    finally:
        proc.kill()
        proc.wait()
