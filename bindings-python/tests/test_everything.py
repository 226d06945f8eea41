"""@modelcontextprotocol/server-everything (pinned in tests/interop/ts) driven by the Python
client over stdio, legacy Streamable HTTP and the 2024-11-05 SSE transport: every tool it offers
a client declaring sampling, elicitation (form and URL) and roots, as listed in
tests/vectors/everything/tools.json (the Rust, Node and Kotlin tests run the same file). Python
handlers answer its sampling and elicitation tools (one sync, one async), its task-required
tool runs as a task, and logs, resource updates and a roots change arrive over each transport."""

from __future__ import annotations

import asyncio
import json
import shutil
from typing import Any, Dict, List

import pytest

from mcpcore import Client

from conftest import REPO, Spawned, run_async

VECTOR = json.loads((REPO / "tests" / "vectors" / "everything" / "tools.json").read_text())
TS = REPO / "tests" / "interop" / "ts"
EVERYTHING = TS / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
HOST = VECTOR["host"]


@pytest.fixture(autouse=True)
def _peer_installed() -> None:
    if shutil.which("node") is None or not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run `npm ci` in tests/interop/ts")


class Host:
    """The host's handlers: the elicitation one is sync, the sampling one async."""

    def __init__(self) -> None:
        self.asked: List[str] = []

    def on_elicitation(self, params: Dict[str, Any]) -> Any:
        self.asked.append("elicitation")
        if params.get("mode") == "url":
            return HOST["url_elicitation"]
        return dict(HOST["elicitation"])

    async def on_sampling(self, params: Dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        self.asked.append("sampling")
        assert params["messages"][0]["role"] == "user"
        return {"content": HOST["sampling"], "model": "test-model"}


async def every_tool(client: Client, host: Host) -> int:
    logs: "asyncio.Queue[str]" = asyncio.Queue()
    updates: "asyncio.Queue[str]" = asyncio.Queue()
    client.on_log(lambda level, data, logger: logs.put_nowait(str(data)))
    client.on_resource_updated(updates.put_nowait)

    async def next_log(containing: str) -> None:
        while containing not in await asyncio.wait_for(logs.get(), 20):
            pass

    calls = VECTOR["calls"]
    offered = sorted(t.name for t in await client.list_tools())
    assert offered == sorted(c["tool"] for c in calls), "the tools offered are the tools of the vector"
    await client.subscribe(VECTOR["subscribe"])
    passed = 0
    for call in calls:
        name = call["tool"]
        progress: List[float] = []
        before = len(host.asked)
        r = await client.call_tool(name, call["arguments"], progress=lambda p, total, msg: progress.append(p))
        assert not r.is_error, (name, r)
        for want in call.get("text", []):
            assert want in r.text, (name, want, r.text)
        types = [c["type"] for c in r.content]
        for ty in call.get("types", []):
            assert ty in types, (name, ty, types)
        for key in call.get("structured", []):
            assert key in (r.structured_content or {}), (name, key, r.structured_content)
        if "progress" in call:
            assert len(progress) == call["progress"], (name, progress)
        if "log" in call:
            await next_log(call["log"])
        if call.get("resource_updated"):
            assert await asyncio.wait_for(updates.get(), 20) == VECTOR["subscribe"]
        if name.startswith(("trigger-elicitation", "trigger-url", "trigger-sampling")) or call.get("task"):
            assert len(host.asked) > before, (name, host.asked)
        passed += 1

    # The roots change: the server asks again (and says so in a log), then lists the new roots.
    client.set_roots(HOST["roots_later"])
    await next_log("Roots updated: 2 root(s)")
    r = await client.call_tool("get-roots-list", {})
    assert "file:///srv/second-root" in r.text, r.text
    return passed


def connect_kwargs(host: Host) -> Dict[str, Any]:
    return {
        "on_elicitation": host.on_elicitation,
        "on_sampling": host.on_sampling,
        "roots": HOST["roots"],
        "timeout": 30,
    }


@run_async(timeout=90)
async def test_stdio_every_tool() -> None:
    host = Host()
    async with await Client.connect_stdio(f"node {EVERYTHING} stdio", **connect_kwargs(host)) as client:
        assert client.protocol_version == "2025-11-25"
        assert await every_tool(client, host) == 17


@pytest.mark.parametrize("transport", ["streamableHttp", "sse"])
@run_async(timeout=90)
async def test_http_every_tool(transport: str) -> None:
    served = Spawned(["node", TS / "everything.mjs", "--transport", transport, "--port", "0"], "READY ")
    try:
        host = Host()
        kwargs = connect_kwargs(host)
        if transport == "sse":
            # The 2024-11-05 transport would otherwise speak 2024-11-05, which has no elicitation.
            kwargs.update(transport="sse", protocol_version="2025-11-25")
        async with await Client.connect_http(served.url, **kwargs) as client:
            assert await every_tool(client, host) == 17
    finally:
        served.stop()
