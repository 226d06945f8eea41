"""Resources, prompts, completion and client input served by the facade
(tests/servers/features.py), checked with real peers:

* the official Python SDK's high-level ``mcp.Client`` (mcp==2.3.0) in both lineages, over stdio
  and HTTP: it answers real elicitation/sampling/roots requests on legacy sessions and drives
  the MRTR rounds on 2026-07-28;
* an mcpcore Client and raw JSON-RPC lines for what a high-level client hides (error codes and
  data, ``input_required`` results, cancellation while a handler waits for input).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from mcpcore import Client, Context, InvalidInput, McpError, Message, Server

from conftest import LINEAGES, PY, SERVERS, Spawned, bounded, describe, read_events, run, run_async

FEATURES = SERVERS / "features.py"
DRIVER = SERVERS / "sdk_features_driver.py"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


@pytest.fixture(scope="module")
def features_http() -> Iterator[str]:
    child = Spawned([PY, FEATURES, "--http"], "listening on ")
    yield child.url
    child.stop()


# --------------------------------------------------------------------------- the official SDK


def expected_sdk(mode: str) -> Dict[str, Any]:
    modern = mode == "modern"
    return {
        "protocolVersion": "2026-07-28" if modern else "2025-11-25",
        "resources": ["memo://broken", "memo://logo", "memo://teapot", "memo://today"],
        "today": "Buy milk",
        "logo": ["iVBORw0K", "image/png"],
        "profile": [{"id": "ann", "served": True}, "application/json"],
        "square": "49",
        "templates": ["squares://{n}", "users://{id}/profile"],
        "broken": [-32603, "Internal error: RuntimeError: disk on fire"],
        "after_broken": "Buy milk",
        "prompts": {"review": [["code", True], ["language", False]], "dialogue": [["topic", True]],
                    "greet_user": []},
        "review": ["user", "Review this python code:\nx = 1"],
        "dialogue": [["user", "Tell me about tea"], ["assistant", "Gladly."]],
        "complete_language": ["python", "perl"],
        "complete_topic": ["tea", "teapots"],
        "complete_id": ["bob", "bea"],
        "signup": "Hello, Ann!",
        "signup_sync": "Hello, Ann!",
        "interview": "Ann|re: Summarize Ann|file:///work",
        # the handler runs once per round on 2026-07-28, keeping its state sealed in between
        "remember": "Ann after 2 round(s)" if modern else "Ann after 1 round(s)",
        "greet_user": "Greet Ann warmly.",
        "asked": ["elicitation:Who are you?", "elicitation:Your name?", "roots", "sampling"],
        "updated": "ResourceUpdated" if modern else "memo://today",
    }


def sdk_output(proc: Any) -> Any:
    assert proc.returncode == 0, describe(proc)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, describe(proc)
    return json.loads(lines[0])


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_sdk_client_over_stdio(mode: str) -> None:
    pytest.importorskip("mcp", reason="the official SDK (mcp==2.3.0) is not installed")
    out = sdk_output(run([PY, DRIVER, "--mode", mode, "--stdio", PY, FEATURES], timeout=90))
    assert out == expected_sdk(mode)


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_sdk_client_over_http(features_http: str, mode: str) -> None:
    pytest.importorskip("mcp", reason="the official SDK (mcp==2.3.0) is not installed")
    out = sdk_output(run([PY, DRIVER, "--mode", mode, "--url", features_http], timeout=90))
    assert out == expected_sdk(mode)


# --------------------------------------------------------------------------- an mcpcore Client


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=60)
async def test_wire_shapes_and_errors_with_an_mcpcore_client(features_http: str, lineage: str, version: str) -> None:
    async with await bounded(Client.connect_http(features_http, lineage=lineage)) as c:
        assert c.protocol_version == version
        listed = await c.request("resources/list")
        today = next(r for r in listed["resources"] if r["uri"] == "memo://today")
        assert today == {"uri": "memo://today", "name": "today", "description": "Today's memo.",
                         "mimeType": "text/plain"}
        templates = (await c.request("resources/templates/list"))["resourceTemplates"]
        assert {"uriTemplate": "users://{id}/profile", "name": "profile", "description": "A user's profile.",
                "mimeType": "application/json"} in templates
        read = await c.request("resources/read", {"uri": "memo://logo"})
        assert read["contents"] == [{"uri": "memo://logo", "mimeType": "image/png", "blob": "iVBORw0K"}]
        # a handler's exception is -32603 and the server keeps serving
        with pytest.raises(McpError) as e:
            await c.request("resources/read", {"uri": "memo://broken"})
        assert e.value.code == -32603 and "disk on fire" in e.value.message
        # an McpError with a code is sent as that error, data included
        with pytest.raises(McpError) as e:
            await c.request("resources/read", {"uri": "memo://teapot"})
        assert (e.value.code, e.value.data) == (-32002, {"uri": "memo://teapot"})
        # a bad int variable is the handler's ValueError: -32603 too
        with pytest.raises(McpError) as e:
            await c.request("resources/read", {"uri": "squares://seven"})
        assert e.value.code == -32603 and "ValueError" in e.value.message
        prompts = {p["name"]: p for p in (await c.request("prompts/list"))["prompts"]}
        assert prompts["review"]["arguments"] == [
            {"name": "code", "required": True, "description": "The code to review."},
            {"name": "language", "required": False, "description": "Its language."},
        ]
        assert prompts["dialogue"]["title"] == "A dialogue"
        # the engine checks required arguments before the handler runs
        with pytest.raises(McpError) as e:
            await c.request("prompts/get", {"name": "review", "arguments": {}})
        assert e.value.code == -32602 and e.value.data["missing"] == ["code"]
        done = await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "review"},
                                                       "argument": {"name": "language", "value": "R"}})
        assert done["completion"]["values"] == ["rust"]
        # tools run in-session still work beside them
        assert (await c.call_tool("touch", {"uri": "memo://today"})).text == "ok"


@run_async(timeout=60)
async def test_modern_input_without_the_capability_is_32021_with_its_data(features_http: str) -> None:
    """The mcpcore Client declares no elicitation capability: the tool's ``elicit`` gets the
    engine's -32021, which crosses Python and stays a JSON-RPC error with its data."""
    async with await bounded(Client.connect_http(features_http, lineage="modern")) as c:
        with pytest.raises(McpError) as e:
            await c.call_tool("signup", {})
        assert e.value.code == -32021
        assert e.value.data == {"requiredCapabilities": {"elicitation": {}}}
        caps = await c.call_tool("caps", {})
        assert caps.data["caps"] is not None and "elicitation" not in caps.data["caps"]


# --------------------------------------------------------------------------- raw JSON-RPC on stdio


class RawStdio:
    """features.py on stdio, spoken to in JSON lines."""

    def __init__(self, events: Optional[Path] = None) -> None:
        env = None
        if events is not None:
            import os

            env = {**os.environ, "MCPCORE_TEST_EVENTS": str(events)}
        self.proc = subprocess.Popen([PY, str(FEATURES)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.lines: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, message: Dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.proc.stdin.flush()

    def next(self, timeout: float = 10.0) -> Dict[str, Any]:
        return self.lines.get(timeout=timeout)

    def answer(self, id: Any, timeout: float = 10.0) -> Dict[str, Any]:
        """The response to request ``id`` (skipping notifications)."""
        while True:
            m = self.next(timeout)
            if m.get("id") == id and "method" not in m:
                return m

    def request(self, id: Any, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        self.send({"id": id, "method": method, "params": params})
        return self.answer(id)

    def initialize(self, capabilities: Dict[str, Any]) -> None:
        out = self.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                                             "clientInfo": {"name": "raw", "version": "0"}})
        assert out["result"]["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
        assert out["result"]["capabilities"]["prompts"] == {"listChanged": True}
        assert out["result"]["capabilities"]["completions"] == {}
        self.send({"method": "notifications/initialized"})

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        return self.proc.stderr.read()


def test_modern_mrtr_rounds_on_the_wire() -> None:
    """2026-07-28: ``input_required`` with the dataclass's schema, then the retry with the
    answer and the sealed state completes; a handler that swallows InputRequired still ends as
    ``input_required``; request state survives rounds."""
    raw = RawStdio()
    try:
        first = raw.request(1, "tools/call", {"name": "signup", "arguments": {}, "_meta": MODERN_META})
        result = first["result"]
        assert result["resultType"] == "input_required", first
        ask = result["inputRequests"]["profile"]
        assert ask["method"] == "elicitation/create"
        assert ask["params"]["message"] == "Who are you?"
        schema = ask["params"]["requestedSchema"]
        assert schema["type"] == "object" and set(schema["properties"]) == {"name", "username"}
        assert schema["required"] == ["name"]
        retry = raw.request(2, "tools/call", {
            "name": "signup", "arguments": {}, "_meta": MODERN_META, "requestState": result["requestState"],
            "inputResponses": {"profile": {"action": "accept", "content": {"name": "Bo"}}},
        })
        assert retry["result"]["content"] == [{"type": "text", "text": "Hello, Bo!"}], retry
        declined = raw.request(3, "tools/call", {
            "name": "signup", "arguments": {}, "_meta": MODERN_META, "requestState": result["requestState"],
            "inputResponses": {"profile": {"action": "decline"}},
        })
        assert declined["result"]["content"][0]["text"] == "no signup (decline)"

        swallowed = raw.request(4, "tools/call", {"name": "swallow", "arguments": {}, "_meta": MODERN_META})
        assert swallowed["result"]["resultType"] == "input_required", swallowed

        sync = raw.request(5, "tools/call", {"name": "signup_sync", "arguments": {}, "_meta": MODERN_META})
        assert sync["result"]["resultType"] == "input_required", sync
        done = raw.request(6, "tools/call", {
            "name": "signup_sync", "arguments": {}, "_meta": MODERN_META,
            "requestState": sync["result"]["requestState"],
            "inputResponses": {"name": {"action": "accept", "content": {"name": "Cy"}}},
        })
        assert done["result"]["content"][0]["text"] == "Hello, Cy!"

        # a prompt that elicits
        got = raw.request(7, "prompts/get", {"name": "greet_user", "_meta": MODERN_META})
        assert got["result"]["resultType"] == "input_required"
        got = raw.request(8, "prompts/get", {
            "name": "greet_user", "_meta": MODERN_META, "requestState": got["result"]["requestState"],
            "inputResponses": {"who": {"action": "accept", "content": {"name": "Di"}}},
        })
        assert got["result"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "Greet Di warmly."}}]
    finally:
        assert "Traceback" not in raw.close()


@pytest.mark.parametrize("tool,tag", [("signup_sync", "sync"), ("wait_for_name", "async")])
def test_cancel_while_waiting_for_an_elicitation(tmp_path: Path, tool: str, tag: str) -> None:
    """Legacy: the tool's elicitation/create reaches the client, which cancels the call instead
    of answering. The handler stops waiting (a sync tool gets RequestCancelled, an async one
    CancelledError), no response is sent for the call, and the server keeps serving."""
    events = tmp_path / "events"
    raw = RawStdio(events)
    try:
        raw.initialize({"elicitation": {}})
        raw.send({"id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
        ask = raw.next()
        assert ask["method"] == "elicitation/create", ask
        assert ask["params"]["message"] == "Your name?"
        raw.send({"method": "notifications/cancelled", "params": {"requestId": 1, "reason": "changed my mind"}})
        deadline = time.monotonic() + 10
        while f"cancelled:{tag}" not in read_events(events) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert read_events(events) == [f"asked:{tag}", f"cancelled:{tag}"]
        # still serving, and the cancelled call got no response
        pong = raw.request(2, "ping", {})
        assert pong["result"] == {}
        again = raw.request(3, "resources/read", {"uri": "memo://today"})
        assert again["result"]["contents"][0]["text"] == "Buy milk"
        rest = []
        while not raw.lines.empty():
            rest.append(raw.lines.get())
        assert not [m for m in rest if m.get("id") == 1], rest
    finally:
        assert "Traceback" not in raw.close()


def test_legacy_client_without_the_capability_gets_a_tool_error() -> None:
    """The tool's exception holds its Context in a traceback cycle; the server must still exit
    when stdin closes (the call's context, which holds the session, is dropped when it ends)."""
    raw = RawStdio()
    try:
        raw.initialize({})
        out = raw.request(1, "tools/call", {"name": "signup", "arguments": {}})
        assert out["result"]["isError"] is True
        assert "did not declare the capabilities" in out["result"]["content"][0]["text"]
    finally:
        raw.close()


# --------------------------------------------------------------------------- registration


def test_registration_descriptors_and_mistakes() -> None:
    server = Server("t", "1")

    @server.resource("a://x", title="X", mime_type="text/plain")
    def x() -> str:
        """The x."""
        return "x"

    @server.resource("a://{first}/{+rest}{?q}", name="deep")
    def deep(first: str, rest: str, q: str = "", ctx: Optional[Context] = None) -> str:
        return first

    assert server.list_resources() == [{"uri": "a://x", "name": "x", "title": "X", "description": "The x.",
                                        "mimeType": "text/plain"}]
    assert server.list_resource_templates() == [{"uriTemplate": "a://{first}/{+rest}{?q}", "name": "deep"}]
    with pytest.raises(InvalidInput):
        server.add_resource(x, "a://x")  # taken
    with pytest.raises(TypeError, match="no variable"):
        server.add_resource(lambda other: other, "b://{id}")
    with pytest.raises(TypeError, match="no variables"):
        server.add_resource(lambda needed: needed, "b://fixed")
    with pytest.raises(InvalidInput):
        server.add_completion(["a"], template="a://{first}/{+rest}{?q}", argument="nope")
    server.add_completion(["a"], template="a://{first}/{+rest}{?q}", argument="first")

    @server.prompt("p", description="custom", complete={"who": lambda v: ["ann"]})
    def p(who: str, ctx: Context, mood: str = "calm") -> List[Message]:
        return [Message("user", who)]

    assert server.list_prompts() == [{"name": "p", "description": "custom", "arguments": [
        {"name": "who", "required": True}, {"name": "mood", "required": False}]}]
    with pytest.raises(InvalidInput):
        server.add_completion(["x"], prompt="nope", argument="who")
    with pytest.raises(InvalidInput):
        server.add_completion(["x"], prompt="p", argument="nope")
    with pytest.raises(InvalidInput):
        server.add_completion(["x"], argument="who")
    with pytest.raises(TypeError):
        server.add_completion("abc", prompt="p", argument="who")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Message("system", "no")

    assert server.remove_resource("a://{first}/{+rest}{?q}") is True
    assert server.remove_resource("a://x") is True
    assert server.remove_resource("a://x") is False
    assert server.remove_prompt("p") is True and server.remove_prompt("p") is False
    assert server.list_resources() == [] and server.list_prompts() == []


@run_async(timeout=60)
async def test_resources_and_prompts_added_while_serving_and_sync_blocking_guard() -> None:
    """Resources and prompts registered before serving are declared; one added later is served
    (list_changed), and a removed one is gone. Calling a ``*_sync`` input method from an async
    tool is refused rather than blocking the loop."""
    server = Server("live", "1")

    @server.resource("live://one")
    def one() -> str:
        return "1"

    @server.tool()
    async def misuse(ctx: Context) -> str:
        ctx.elicit_sync("k", "?", {"type": "object", "properties": {}})
        return "unreachable"

    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url, lineage="legacy")) as c:
            assert [r["uri"] for r in (await c.request("resources/list"))["resources"]] == ["live://one"]

            @server.resource("live://two")
            async def two() -> List[str]:
                return ["a", "b"]

            read = await c.request("resources/read", {"uri": "live://two"})
            assert [x["text"] for x in read["contents"]] == ["a", "b"]
            server.remove_resource("live://one")
            with pytest.raises(McpError):
                await c.request("resources/read", {"uri": "live://one"})
            bad = await c.call_tool("misuse", {})
            assert bad.is_error and "would block the event loop" in bad.text
            # prompts were not registered when serving started: not served
            with pytest.raises(McpError) as e:
                await c.request("prompts/list")
            assert e.value.code == -32601
    finally:
        await serving.shutdown()
