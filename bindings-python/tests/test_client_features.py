"""The Python client's typed API against mcpcore servers written with the facade: resources,
templates, prompts, completion (with their page iterators), input answered by Python handlers
on both lineages (only the given capabilities declared), list-change and resource-update
notifications, tasks, a command line for connect_stdio, and a 401 with its challenge."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, Iterator, List

import pytest

from mcpcore import AuthError, Client, McpError, ResourceNotFound, Root, Server

from conftest import LINEAGES, PY, SERVERS, Spawned, bounded, run_async, rust_bin

FEATURES = SERVERS / "features.py"


@pytest.fixture(scope="module")
def features_http() -> Iterator[str]:
    child = Spawned([PY, FEATURES, "--http"], "listening on ")
    yield child.url
    child.stop()


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=60)
async def test_typed_catalog_methods(features_http: str, lineage: str, version: str) -> None:
    async with await bounded(Client.connect_http(features_http, lineage=lineage)) as c:
        assert c.protocol_version == version
        assert "resources" in c.server_capabilities and "prompts" in c.server_capabilities
        resources = await c.list_resources()
        assert {"uri": "memo://today", "name": "today", "description": "Today's memo.",
                "mimeType": "text/plain"} in resources
        assert [r async for r in c.iter_resources()] == resources
        templates = await c.list_resource_templates()
        assert any(t["uriTemplate"] == "users://{id}/profile" for t in templates)
        assert await c.read_resource("memo://today") == [
            {"uri": "memo://today", "mimeType": "text/plain", "text": "Buy milk"}
        ]
        profile = await c.read_resource("users://ann/profile")
        assert json.loads(profile[0]["text"]) == {"id": "ann", "served": True}
        with pytest.raises(ResourceNotFound):
            await c.read_resource("memo://nothing-here")
        prompts = {p["name"]: p for p in await c.list_prompts()}
        assert prompts["dialogue"]["title"] == "A dialogue"
        got = await c.get_prompt("review", {"code": "x = 1", "language": "rust"})
        assert got["messages"][0]["content"]["text"] == "Review this rust code:\nx = 1"
        assert await c.complete("language", "r", prompt="review") == ["rust"]
        assert await c.complete("id", "b", resource="users://{id}/profile") == ["bob", "bea"]
        await c.ping()
        await c.set_log_level("error")


class Answers:
    """Python handlers: a sync elicitation handler, an async sampling handler, a roots function."""

    def __init__(self) -> None:
        self.asked: List[str] = []

    def on_elicitation(self, params: Dict[str, Any]) -> Dict[str, Any]:
        self.asked.append("elicitation")
        return {"name": "Ann"}  # the form's values: accepted

    async def on_sampling(self, params: Dict[str, Any]) -> str:
        self.asked.append("sampling")
        await asyncio.sleep(0)
        return f"summary of {params['messages'][0]['content']['text']}"

    async def roots(self) -> List[Root]:
        self.asked.append("roots")
        return [Root("file:///work", "work")]


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=60)
async def test_python_handlers_answer_the_server(lineage: str, version: str) -> None:
    """Legacy: real server→client requests; 2026-07-28: MRTR rounds the client retries itself."""
    a = Answers()
    kwargs: Dict[str, Any] = {"on_elicitation": a.on_elicitation, "on_sampling": a.on_sampling, "roots": a.roots}
    async with await bounded(Client.connect_stdio([PY, str(FEATURES)], lineage=lineage, **kwargs)) as c:
        r = await c.call_tool("interview")
        assert r.text == "Ann|summary of Summarize Ann|file:///work", r
        assert (await c.call_tool("signup")).text == "Hello, Ann!"
        caps = (await c.call_tool("caps")).structured_content["caps"]
        assert {"elicitation", "sampling", "roots"} <= set(caps), caps
        assert set(a.asked) == {"elicitation", "sampling", "roots"}
        c.roots_changed()  # a roots function: the host says when its answer changes

    # Only what is given is declared.
    async with await bounded(Client.connect_stdio([PY, str(FEATURES)], lineage=lineage,
                                                  on_sampling=a.on_sampling)) as c:
        caps = (await c.call_tool("caps")).structured_content["caps"]
        assert "sampling" in caps and "elicitation" not in caps and "roots" not in caps, caps
    async with await bounded(Client.connect_stdio([PY, str(FEATURES)], lineage=lineage)) as c:
        caps = (await c.call_tool("caps")).structured_content["caps"]
        assert not {"sampling", "elicitation", "roots"} & set(caps), caps


@run_async(timeout=60)
async def test_a_failing_handler_fails_the_call_not_the_client() -> None:
    def refuse(params: Dict[str, Any]) -> Any:
        raise ValueError("no forms today")

    async with await bounded(Client.connect_stdio([PY, str(FEATURES)], lineage="legacy", on_elicitation=refuse)) as c:
        # The server's elicit raises the client's JSON-RPC error (-32603, with the handler's
        # words), which this server's tool lets through.
        with pytest.raises(McpError) as e:
            await c.call_tool("signup")
        assert e.value.code == -32603 and "no forms today" in e.value.message
        assert "elicitation" in (await c.call_tool("caps")).structured_content["caps"]


@run_async(timeout=60)
async def test_list_changes_and_resource_updates_reach_their_handlers() -> None:
    """Legacy Streamable HTTP: notifications that answer no request come on the GET stream the
    client opens by itself."""
    server = Server("changing", "1.0")

    @server.resource("memo://a")
    def memo() -> str:
        return "a"

    @server.prompt()
    def hello() -> str:
        return "hi"

    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url, lineage="legacy")) as c:
            seen: "asyncio.Queue[str]" = asyncio.Queue()
            c.on_tools_changed(lambda: seen.put_nowait("tools"))
            c.on_resources_changed(lambda: seen.put_nowait("resources"))

            async def prompts_changed() -> None:  # async handlers run on this loop
                seen.put_nowait("prompts")

            c.on_prompts_changed(prompts_changed)
            c.on_resource_updated(lambda uri: seen.put_nowait(f"updated {uri}"))
            await c.subscribe("memo://a")

            @server.tool()
            def later() -> str:
                return "added while serving"

            assert await bounded(seen.get()) == "tools"
            assert "later" in [t.name for t in await c.list_tools()], "the tools cache was dropped"
            server.notify_resource_updated("memo://a")
            assert await bounded(seen.get()) == "updated memo://a"
            server.add_resource(lambda: "b", "memo://b", name="b")
            assert await bounded(seen.get()) == "resources"
            server.remove_prompt("hello")
            assert await bounded(seen.get()) == "prompts"
            await c.unsubscribe("memo://a")
            # on_notification sees every method, and replaces the specific handlers
            raw: "asyncio.Queue[Any]" = asyncio.Queue()
            c.on_notification(lambda method, params: raw.put_nowait((method, params)))
            server.notify_resource_updated("memo://b")
            server.remove_resource("memo://b")
            assert await bounded(raw.get()) == ("notifications/resources/list_changed", {})
    finally:
        await serving.shutdown()


@run_async(timeout=60)
async def test_modern_handlers_hear_through_the_clients_own_listen_stream() -> None:
    """2026-07-28 has no GET stream and no resources/subscribe: registering handlers makes the
    client open a subscriptions/listen stream asking for what they want (and the subscribed
    resources), which it keeps open and closes with the client."""
    server = Server("changing", "1.0")

    @server.resource("memo://a")
    def memo() -> str:
        return "a"

    @server.prompt()
    def hello() -> str:
        return "hi"

    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url, lineage="modern")) as c:
            seen: "asyncio.Queue[str]" = asyncio.Queue()
            c.on_tools_changed(lambda: seen.put_nowait("tools"))
            c.on_resource_updated(lambda uri: seen.put_nowait(f"updated {uri}"))
            await c.subscribe("memo://a")
            # What the server agreed to send: the handlers' kinds, not prompts.
            assert await bounded(c.notifications_ready()) == {
                "toolsListChanged": True, "resourceSubscriptions": ["memo://a"]}
            before = len(await c.list_tools())
            server.remove_prompt("hello")  # not asked for: never sent

            @server.tool()
            def later() -> str:
                return "added while serving"

            assert await bounded(seen.get()) == "tools"
            assert len(await c.list_tools()) == before + 1, "the tools cache was dropped"
            server.notify_resource_updated("memo://a")
            assert await bounded(seen.get()) == "updated memo://a"
            await c.unsubscribe("memo://a")
            assert await bounded(c.notifications_ready()) == {"toolsListChanged": True}
            # on_notification wants everything a listen stream carries
            raw: "asyncio.Queue[Any]" = asyncio.Queue()
            c.on_notification(lambda method, params: raw.put_nowait((method, params)))
            acked = await bounded(c.notifications_ready())
            assert acked is not None and acked.get("promptsListChanged") is True, acked
            server.add_resource(lambda: "b", "memo://b", name="b")
            method, params = await bounded(raw.get())
            assert method == "notifications/resources/list_changed", (method, params)
    finally:
        await serving.shutdown()


@run_async(timeout=60)
async def test_tasks_through_their_handle() -> None:
    """fixture_server --tasks (the Tasks extension, 2026-07-28): a handle with status and
    result, cancel, and a required tool run as a task by a plain call."""
    def name(params: Dict[str, Any]) -> Dict[str, Any]:
        return {"name": "Ada"}

    server = str(rust_bin("fixture_server"))
    async with await bounded(Client.connect_stdio([server, "--tasks"], on_elicitation=name, timeout=10)) as c:
        task = await c.call_tool("task_sleep", {"ms": 50}, task=True)
        assert task.id is not None
        assert (await task.status())["taskId"] == task.id
        assert (await task.result()).text == "slept"
        assert (await task.status())["status"] == "completed"
        asked = await c.call_tool("task_ask", {}, task=True)
        assert (await asked.result()).text == "hello Ada"
        long = await c.call_tool("task_sleep", {"ms": 60_000}, task=True)
        await long.cancel()
        with pytest.raises(Exception) as e:
            await long.result()
        assert type(e.value).__name__ == "RequestCancelled"
        assert (await c.call_tool("task_only")).text == "only"


@run_async(timeout=60)
async def test_one_command_line_and_the_probe_timeout() -> None:
    async with await bounded(Client.connect_stdio(f"{PY} {FEATURES}", probe_timeout=2)) as c:
        assert c.lineage == "modern"
    with pytest.raises(Exception) as e:
        await Client.connect_stdio(f"{PY} '{FEATURES}")
    assert "unbalanced quotes" in str(e.value)


@run_async(timeout=60)
async def test_a_401_raises_auth_error_with_the_challenge() -> None:
    from mcpcore import Auth

    server = Server("protected", "1.0")

    @server.tool()
    def echo(text: str) -> str:
        return text

    auth = Auth(verify=lambda token: None, resource="http://127.0.0.1/mcp",
                authorization_servers=["https://as.example"])
    serving = await server.serve_http(auth=auth)
    try:
        with pytest.raises(AuthError) as e:
            await bounded(Client.connect_http(serving.url))
        assert e.value.http_status == 401
        assert e.value.error == "unauthorized"
        assert e.value.challenge is not None and e.value.challenge.startswith("Bearer ")
        assert "resource_metadata=" in e.value.challenge
    finally:
        await serving.shutdown()
