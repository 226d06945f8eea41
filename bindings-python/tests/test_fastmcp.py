"""fastmcp (PyPI, pinned in requirements-test.txt) on both sides of our client and server:

- a fastmcp server (tests/interop/python/fastmcp_server.py) whose tools ask for input, answered
  by our Python client's ``on_elicitation`` / ``on_sampling`` on both lineages (legacy:
  server-initiated requests; 2026-07-28: fastmcp's guard pattern, ``input_required`` rounds the
  client retries by itself), over stdio and Streamable HTTP;
- fastmcp's ``Client`` and openai-agents' ``MCPServerStdio``/``MCPServerStreamableHttp``
  driving our servers: an invalid argument comes back as a tool result with ``isError`` and the
  validation message, which both feed back instead of raising."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Iterator, List

import pytest

from mcpcore import Client, Server

from conftest import INTEROP, PY, Spawned, bounded, run_async

fastmcp = pytest.importorskip("fastmcp", reason="fastmcp (requirements-test.txt) is not installed")

FASTMCP_SERVER = INTEROP / "fastmcp_server.py"
LINEAGES = [("modern", "2026-07-28"), ("legacy", "2025-11-25")]


@pytest.fixture(scope="module")
def fastmcp_http() -> Iterator[str]:
    child = Spawned([PY, FASTMCP_SERVER, "--http"], "READY ", timeout=60)
    yield child.url
    child.stop()


class Answers:
    def __init__(self) -> None:
        self.asked: List[str] = []

    async def on_elicitation(self, params: Dict[str, Any]) -> Dict[str, Any]:
        self.asked.append("elicitation")
        field = next(iter(params["requestedSchema"]["properties"]))  # "name", or fastmcp's "value"
        return {field: "Ann"}

    def on_sampling(self, params: Dict[str, Any]) -> str:
        self.asked.append("sampling")
        assert params["messages"][0]["content"]["text"] == "Capital of France?"
        return "Paris"


async def ask_both(client: Client, answers: Answers) -> None:
    assert (await client.call_tool("ask_name")).text == "Hello, Ann!"
    assert (await client.call_tool("ask_model")).text == "The model said: Paris"
    assert answers.asked == ["elicitation", "sampling"]


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=90)
async def test_our_client_answers_a_fastmcp_server_over_stdio(lineage: str, version: str) -> None:
    a = Answers()
    client = await bounded(Client.connect_stdio([PY, str(FASTMCP_SERVER)], lineage=lineage,
                                                on_elicitation=a.on_elicitation, on_sampling=a.on_sampling), 60)
    async with client:
        assert client.protocol_version == version
        await ask_both(client, a)


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=90)
async def test_our_client_answers_a_fastmcp_server_over_http(fastmcp_http: str, lineage: str, version: str) -> None:
    a = Answers()
    client = await bounded(Client.connect_http(fastmcp_http, lineage=lineage, on_elicitation=a.on_elicitation,
                                               on_sampling=a.on_sampling), 30)
    async with client:
        assert client.protocol_version == version
        await ask_both(client, a)


# --------------------------------------------------------------------------- our servers


def strict_server() -> Server:
    server = Server("strict", "1.0")

    @server.tool
    def echo(text: str) -> str:
        """Returns the text unchanged."""
        return text

    @server.tool
    def add(a: float, b: float) -> float:
        """Adds two numbers."""
        return a + b

    return server


@run_async(timeout=60)
async def test_the_fastmcp_client_reads_invalid_arguments_as_a_tool_error() -> None:
    serving = await strict_server().serve_http()
    try:
        async with fastmcp.Client(serving.url) as fc:
            r = await fc.call_tool("add", {"a": 1, "b": "two"}, raise_on_error=False)
            assert r.is_error, r
            assert "Invalid arguments for tool add: /b: " in r.content[0].text, r.content
            r = await fc.call_tool("echo", {"text": "hi", "loud": True}, raise_on_error=False)
            assert r.is_error and "'loud' was unexpected" in r.content[0].text, r.content
            # The default raises fastmcp's ToolError carrying the same message (an error result,
            # not a protocol failure).
            with pytest.raises(fastmcp.exceptions.ToolError, match="Invalid arguments for tool add"):
                await fc.call_tool("add", {"a": 1})
            assert (await fc.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3.0}
    finally:
        await serving.shutdown()


@run_async(timeout=60)
async def test_openai_agents_feeds_invalid_arguments_back_to_the_model() -> None:
    agents_mcp = pytest.importorskip("agents.mcp", reason="openai-agents (requirements-test.txt) is not installed")
    serving = await strict_server().serve_http()
    try:
        servers = [
            agents_mcp.MCPServerStreamableHttp({"url": serving.url}, name="ours-http"),
            agents_mcp.MCPServerStdio({"command": PY, "args": [str(INTEROP.parent.parent.parent / "examples" / "python" / "echo_server.py")]},
                                      name="ours-stdio"),
        ]
        for s in servers:
            async with s:
                names = sorted(t.name for t in await s.list_tools())
                assert "add" in names and "echo" in names, names
                r = await s.call_tool("add", {"a": 1, "b": "two"})
                assert r.is_error, r
                assert "Invalid arguments for tool add: /b: " in r.content[0].text, r.content
                ok = await s.call_tool("add", {"a": 1, "b": 2})
                assert not ok.is_error
    finally:
        await serving.shutdown()
