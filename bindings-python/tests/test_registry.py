"""Registry: local Python tools and the tools of connected servers in one place, collision
policies, and the registry served again as a server of its own (a proxy)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpcore import Client, ConnectionClosed, InvalidInput, McpError, Registry, Server

from conftest import LINEAGES, PY, SERVERS, TOOLBOX, bounded, run_async

import toolbox as toolbox_module

LINEAGE_IDS = [l for l, _ in LINEAGES]
REMOTE_NAMES = sorted(toolbox_module.build().registry.names)


def mixed_registry() -> Registry:
    reg = Registry()

    @reg.tool()
    def echo(text: str) -> str:
        """The local echo."""
        return f"local {text}"

    @reg.tool()
    async def local_only(n: int) -> int:
        """Only here."""
        await asyncio.sleep(0)
        return n + 1

    return reg


async def remote_client(how: str, lineage: str, serving_url: str = "") -> Client:
    if how == "stdio":
        return await bounded(Client.connect_stdio([PY, str(TOOLBOX)], lineage=lineage))
    return await bounded(Client.connect_http(serving_url, lineage=lineage))


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@pytest.mark.parametrize("how", ["stdio", "http"])
@run_async
async def test_local_and_remote_tools_in_one_registry(how: str, lineage: str, version: str) -> None:
    serving = await toolbox_module.build().serve_http() if how == "http" else None
    try:
        reg = mixed_registry()
        client = await remote_client(how, lineage, serving.url if serving else "")
        outcome = await reg.connect("tb", client, collision="prefix")
        by_name = {o.get("requested", o["name"]): o for o in outcome}
        assert sorted(by_name) == REMOTE_NAMES
        assert by_name["echo"] == {"status": "renamed", "requested": "echo", "name": "tb_echo"}
        assert by_name["add"] == {"status": "registered", "name": "add"}
        assert reg.servers == ["tb"]
        assert reg.names == sorted(["echo", "local_only", "tb_echo", *[n for n in REMOTE_NAMES if n != "echo"]])

        listed = {t.name: t for t in reg.list_tools()}
        assert listed["add"].description == "Adds two numbers."
        assert listed["add"].output_schema == {
            "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]
        }
        assert listed["tb_echo"].description == "Returns the text unchanged."
        assert listed["echo"].description == "The local echo."

        # call both kinds alike
        assert (await reg.call_tool("echo", {"text": "x"})).text == "local x"
        assert (await reg.call_tool("tb_echo", {"text": "x"})).text == "x"
        assert (await reg.call_tool("local_only", {"n": 1})).structured_content == {"result": 2}
        assert (await reg.call_tool("add", {"a": 1, "b": 2})).structured_content == {"sum": 3.0}
        assert (await reg.call_tool("fail", {"message": "remote"})).is_error
        with pytest.raises(McpError) as e:
            await reg.call_tool("rpc_fail", {"reason": "r"})
        assert (e.value.code, e.value.data) == (-32050, {"reason": "r", "retry": False})
        bad = await reg.call_tool("double", {"n": "x"})
        assert bad.is_error and bad.text.startswith("Invalid arguments for tool double: /n: "), bad
        # both kinds concurrently
        results = await bounded(asyncio.gather(
            *[reg.call_tool("slow", {"seconds": 0.2}) for _ in range(5)],
            *[reg.call_tool("local_only", {"n": i}) for i in range(5)],
        ))
        assert len(results) == 10 and not any(r.is_error for r in results)

        removed = await reg.disconnect("tb")
        assert sorted(removed) == sorted(["tb_echo", *[n for n in REMOTE_NAMES if n != "echo"]])
        assert reg.names == ["echo", "local_only"] and reg.servers == []
        with pytest.raises(McpError):
            await reg.call_tool("add", {"a": 1, "b": 2})
    finally:
        if serving is not None:
            await serving.shutdown()


@run_async
async def test_collision_error_registers_nothing() -> None:
    reg = mixed_registry()
    async with await Client.connect_stdio([PY, str(TOOLBOX)]) as client:
        with pytest.raises(InvalidInput) as e:
            await reg.connect("tb", client, collision="error")
        assert "echo" in str(e.value)
        assert reg.names == ["echo", "local_only"] and reg.servers == []
        assert (await reg.call_tool("echo", {"text": "x"})).text == "local x"
        # the default policy is "error"
        with pytest.raises(InvalidInput):
            await reg.connect("tb", client)


@run_async
async def test_collision_skip_keeps_the_local_tool() -> None:
    reg = mixed_registry()
    async with await Client.connect_stdio([PY, str(TOOLBOX)]) as client:
        outcome = await reg.connect("tb", client, collision="skip")
        statuses = {o["name"]: o["status"] for o in outcome}
        assert statuses["echo"] == "skipped"
        assert all(s == "registered" for n, s in statuses.items() if n != "echo")
        assert "tb_echo" not in reg.names
        assert (await reg.call_tool("echo", {"text": "x"})).text == "local x"
        assert (await reg.call_tool("double", {"n": 2})).structured_content == {"result": 4}
        assert "echo" not in await reg.disconnect("tb")
        assert reg.names == ["echo", "local_only"]


@run_async
async def test_two_remote_servers_with_the_same_tools() -> None:
    reg = Registry()
    a = await Client.connect_stdio([PY, str(TOOLBOX), "--name", "a"])
    b = await Client.connect_stdio([PY, str(TOOLBOX), "--name", "b"], lineage="legacy")
    await reg.connect("a", a)
    outcome = await reg.connect("b", b, collision="prefix")
    assert all(o["status"] == "renamed" and o["name"] == f"b_{o['requested']}" for o in outcome)
    assert reg.servers == ["a", "b"]
    assert (await reg.call_tool("b_echo", {"text": "from b"})).text == "from b"
    pid_a = (await reg.call_tool("whoami")).structured_content["pid"]
    pid_b = (await reg.call_tool("b_whoami")).structured_content["pid"]
    assert pid_a != pid_b
    await reg.disconnect("a")
    await reg.disconnect("b")
    assert reg.names == []


@pytest.mark.parametrize("outer", LINEAGES, ids=[f"client-{l}" for l, _ in LINEAGES])
@pytest.mark.parametrize("inner", LINEAGES, ids=[f"remote-{l}" for l, _ in LINEAGES])
@run_async
async def test_registry_served_again_as_a_proxy(outer: Any, inner: Any) -> None:
    """client → proxy (this process, HTTP) → remote (toolbox.py over stdio), in a few lines."""
    registry = mixed_registry()
    await registry.connect("tb", await Client.connect_stdio([PY, str(TOOLBOX)], lineage=inner[0]), collision="prefix")
    proxy = await Server("proxy", "2.0", registry=registry).serve_http()
    try:
        async with await Client.connect_http(proxy.url, lineage=outer[0]) as client:
            assert (client.lineage, client.protocol_version) == outer
            assert client.server_info is not None and client.server_info["name"] == "proxy"
            names = sorted(t.name for t in await client.list_tools())
            assert names == registry.names
            assert (await client.call_tool("echo", {"text": "p"})).text == "local p"
            assert (await client.call_tool("tb_echo", {"text": "p"})).text == "p"
            assert (await client.call_tool("local_only", {"n": 41})).structured_content == {"result": 42}
            assert (await client.call_tool("point", {"x": 1, "y": 2})).structured_content == {
                "x": 1, "y": 2, "label": "p"
            }
            failed = await client.call_tool("fail", {"message": "deep"})
            assert failed.is_error and failed.text == "ValueError: deep"
            with pytest.raises(McpError) as e:
                await client.call_tool("rpc_fail", {"reason": "through the proxy"})
            assert (e.value.code, e.value.data) == (-32050, {"reason": "through the proxy", "retry": False})
            # Through the proxy, as from the server itself: a result the model can read.
            bad = await client.call_tool("double", {"n": "x"})
            assert bad.is_error and bad.text.startswith("Invalid arguments for tool double: /n: "), bad
            started = asyncio.get_running_loop().time()
            await bounded(asyncio.gather(*[client.call_tool("slow", {"seconds": 0.2}) for _ in range(10)]))
            assert asyncio.get_running_loop().time() - started < 1.5
    finally:
        await proxy.shutdown()
        await registry.disconnect("tb")


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async
async def test_proxy_script_over_stdio(lineage: str, version: str) -> None:
    """tests/servers/proxy.py: client → proxy.py (stdio) → toolbox.py (stdio)."""
    argv = [PY, str(SERVERS / "proxy.py"), "--", PY, str(TOOLBOX)]
    async with await bounded(Client.connect_stdio(argv, lineage=lineage), 20) as client:
        assert client.protocol_version == version
        names = {t.name for t in await client.list_tools()}
        assert {"local_hello", "echo", "add", "double"} <= names
        assert (await client.call_tool("local_hello", {"name": "py"})).text == "hello py from the proxy"
        assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"sum": 5.0}
        with pytest.raises(McpError) as e:
            await client.call_tool("rpc_fail", {"reason": "two hops"})
        assert (e.value.code, e.value.data["reason"]) == (-32050, "two hops")


@run_async
async def test_remote_server_dying_surfaces_through_the_registry() -> None:
    reg = Registry()
    reg.add_tool(lambda: "ok", name="local")
    client = await Client.connect_stdio([PY, str(TOOLBOX)])
    await reg.connect("tb", client)
    # a lost connection becomes a failed result naming the server (not an exception)
    died = await bounded(reg.call_tool("die"))
    assert died.is_error and died.text == 'remote server "tb": server exited with code 3'
    later = await bounded(reg.call_tool("echo", {"text": "gone"}))
    assert later.is_error and "exited" in later.text
    with pytest.raises(ConnectionClosed):
        await client.call_tool("echo", {"text": "gone"})
    assert (await reg.call_tool("local")).text == "ok"
    await reg.disconnect("tb")
    assert reg.names == ["local"]


@run_async
async def test_load_config_connects_an_mcp_servers_file(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("MCPCORE_TEST_PY", PY)
    reg = mixed_registry()
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "py": {"command": "${env:MCPCORE_TEST_PY}", "args": [str(TOOLBOX)], "include": ["add", "double"]},
        "off": {"command": "nothing", "disabled": True},
    }, "globalShortcut": "ignored"}))
    assert await bounded(reg.load_config(config)) == ["py"]
    assert reg.names == ["echo", "local_only", "py__add", "py__double"]
    assert (await reg.call_tool("py__double", {"n": 21})).structured_content == {"result": 42}
    with pytest.raises(InvalidInput, match="MCPCORE_SURELY_UNSET"):
        await reg.load_config({"servers": {"x": {"type": "stdio", "command": "${env:MCPCORE_SURELY_UNSET}"}}})
    assert sorted(await reg.disconnect("py")) == ["py__add", "py__double"]
