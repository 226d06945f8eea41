"""``server.asgi_app()``: the server mounted in Starlette and FastAPI (and served alone) by
uvicorn in a child process, answering through the engine in process. Driven by the official
Python SDK's client (tests/interop/python/sdk_http_client.py: Streamable HTTP in both lineages,
and the 2024-11-05 SSE transport), mcpcore's own client, and httpx for the HTTP details."""

from __future__ import annotations

import json
from typing import Any, Callable, List
from urllib.parse import urlsplit

import httpx2 as httpx  # httpx 2 (the official SDK's HTTP client)
import pytest

from mcpcore import Client

from conftest import INTEROP, PY, SERVERS, Spawned, bounded, describe, events_env, read_events, run, run_async

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

HOST = SERVERS / "asgi_host.py"
SDK_HTTP_CLIENT = INTEROP / "sdk_http_client.py"


def sse_url(url: str) -> str:
    return url.rstrip("/") + "/sse" if url.endswith("/mcp/") else url.rsplit("/", 1)[0] + "/sse"


# each framework once, each lineage in two of them
@pytest.mark.parametrize(
    "framework,flags,version,lineage",
    [("starlette", [], "2026-07-28", "modern"), ("starlette", ["--lineage", "legacy"], "2025-11-25", "legacy"),
     ("fastapi", [], "2026-07-28", "modern"), ("bare", ["--lineage", "legacy"], "2025-11-25", "legacy")],
    ids=["starlette-modern", "starlette-legacy", "fastapi-modern", "bare-legacy"],
)
def test_official_client_calls_the_mounted_server(
    spawn: Callable[..., Spawned], framework: str, flags: List[str], version: str, lineage: str
) -> None:
    host = spawn([PY, HOST, framework])
    proc = run([PY, SDK_HTTP_CLIENT, *flags, "--text", "through ASGI", host.url], timeout=60)
    assert proc.returncode == 0, describe(proc)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"protocolVersion": version, "lineage": lineage, "tools": ["add", "echo"],
                   "echo": "through ASGI", "add": {"sum": 5.0}}


@pytest.mark.parametrize("framework", ["starlette"])
def test_official_client_over_the_2024_sse_transport(spawn: Callable[..., Spawned], framework: str) -> None:
    host = spawn([PY, HOST, framework])
    proc = run([PY, SDK_HTTP_CLIENT, "--sse-transport", "--lineage", "legacy", "--protocol-version", "2024-11-05",
               "--text", "old transport", sse_url(host.url)], timeout=60)
    assert proc.returncode == 0, describe(proc)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (out["protocolVersion"], out["echo"]) == ("2024-11-05", "old transport")


@run_async(timeout=60)
async def test_mcpcore_client_and_the_host_routes(spawn: Callable[..., Spawned]) -> None:
    host = spawn([PY, HOST, "fastapi", "toolbox"])
    for lineage in ("modern", "legacy"):
        async with await bounded(Client.connect_http(host.url, lineage=lineage)) as client:
            assert client.lineage == lineage
            seen: List[Any] = []
            result = await bounded(client.call_tool("progress", {"steps": 3}, progress=lambda *p: seen.append(p)))
            assert result.text == "wants_progress=True"
            assert [p[0] for p in seen] == [1, 2, 3]  # progress streamed over SSE through the mount
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(host.url))
    async with httpx.AsyncClient() as http:
        assert (await http.get(origin + "/health")).text == '"ok"'  # the host app's own route
        big = b"[" + b"1," * 40_000 + b"1]"  # over the mount's max_body (64 KiB)
        r = await http.post(host.url, content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413
        r = await http.post(host.url, content=b"{not json", headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream"})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32700
        r = await http.post(host.url, content=b"{}", headers={"origin": "http://evil.example"})
        assert r.status_code == 403  # the engine's DNS-rebinding guard runs in the mount too
        # DNS rebinding: a page of evil.example re-pointed at this host sends its own Host and
        # Origin; a mount (no bound address known) answers only localhost and IP addresses.
        rebound = {"host": "evil.example:80", "origin": "http://evil.example:80"}
        r = await http.post(host.url, content=b"{}", headers=rebound)
        assert r.status_code == 403 and "allowed_hosts" in r.text, r.text


@run_async(timeout=60)
async def test_a_client_that_goes_away_cancels_the_call(spawn: Callable[..., Spawned], tmp_path: Any) -> None:
    events = tmp_path / "events"
    host = spawn([PY, HOST, "starlette", "toolbox"], env={**__import__("os").environ, **events_env(events)})
    async with await bounded(Client.connect_http(host.url, lineage="modern")) as client:
        import asyncio

        call = asyncio.ensure_future(client.call_tool("slow", {"seconds": 30, "tag": "gone"}))
        from conftest import wait_until

        assert await wait_until(lambda: "start:gone" in read_events(events), 10)
        call.cancel()  # the client drops the request: its HTTP stream closes
        with pytest.raises(asyncio.CancelledError):
            await call
    assert await wait_until(lambda: "cancelled:gone" in read_events(events), 10), read_events(events)
    assert "finished:gone" not in read_events(events)


def test_lifespan_refuses_bad_settings_at_startup() -> None:
    # A Redis store needs requestState keys: uvicorn's lifespan startup fails with the reason.
    env = {k: v for k, v in __import__("os").environ.items() if k != "MCPCORE_STATE_KEY"}
    proc = run([PY, HOST, "bare", "--store", "redis://127.0.0.1:1/0"], timeout=30, env=env)
    assert proc.returncode != 0, describe(proc)
    assert "MCPCORE_STATE_KEY" in proc.stderr, describe(proc)
    assert "listening on" not in proc.stdout
