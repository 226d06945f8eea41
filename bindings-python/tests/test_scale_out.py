"""``Server.serve_http(store=..., state_keys=...)``: two Python echo servers
(examples/python/echo_server.py ``--store redis://...``) share legacy sessions through a real
``redis-server`` started here, so a session initialized on one is served by the other; without
``--store`` the other answers 404 (2025-11-25 basic/transports: an unknown session id is 404).
Three of them behind ``nginx`` round-robin (no affinity) serve the official Python SDK client.

Needs ``redis-server`` and ``nginx`` (Debian packages; scripts/test.sh installs them). Without
them the tests are skipped with a message, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, TypedDict

import pytest

from conftest import EXAMPLES, PY, run_async
from mcpcore import Client, InvalidInput, Server

STATE_KEY = "4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21"
PY_SERVER = EXAMPLES / "echo_server.py"
LEGACY = "2025-11-25"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A ``redis-server`` on a free loopback port, stopped at the end of the module."""
    exe = shutil.which("redis-server")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing (scripts/test.sh installs it)")
        pytest.skip("redis-server is missing: apt-get install redis-server")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="mcpcore-redis-") as dir:
        proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                        s.sendall(b"PING\r\n")
                        if s.recv(7) == b"+PONG\r\n":
                            break
                except OSError:
                    pass
                assert time.monotonic() < deadline, f"redis-server did not answer PING on {port}"
                time.sleep(0.02)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.kill()
            proc.wait(timeout=10)


def post(url: str, body: Dict[str, Any], session: Optional[str] = None,
         host: Optional[str] = None) -> Tuple[int, Dict[str, str], Any]:
    """A raw JSON-RPC POST (2025-11-25 basic/transports); returns status, headers, JSON body."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": LEGACY}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    if host is not None:
        headers["Host"] = host
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            raw = resp.read().decode()
            status, hdrs = resp.status, {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, None
    if hdrs.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
        raw = next(d for d in data if d)
    return status, hdrs, json.loads(raw) if raw else None


def initialize(url: str, host: Optional[str] = None) -> str:
    status, headers, body = post(url, {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "scale-out-test", "version": "0"}},
    }, host=host)
    assert status == 200, (status, body)
    assert body["result"]["protocolVersion"] == LEGACY, body
    session = headers.get("mcp-session-id")
    assert session, headers
    status, _, _ = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, host)
    assert status == 202, status
    return session


def call_echo(url: str, session: str, text: str, id: int = 2, host: Optional[str] = None) -> Tuple[int, Any]:
    status, _, body = post(url, {
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}},
    }, session, host)
    return status, body


def env_with_key() -> Dict[str, str]:
    return {**os.environ, "MCPCORE_STATE_KEY": STATE_KEY}


def test_one_legacy_session_across_two_instances(spawn: Callable[..., Any], redis_url: str) -> None:
    argv = [PY, PY_SERVER, "--http", "127.0.0.1:0", "--store", redis_url]
    a = spawn(argv, env=env_with_key())
    b = spawn(argv, env=env_with_key())
    session = initialize(a.url)
    for i, (server, text) in enumerate([(b, "on B"), (a, "on A"), (b, "on B again")]):
        status, body = call_echo(server.url, session, text, id=10 + i)
        assert status == 200, (server.url, status, body)
        assert body["result"]["content"][0]["text"] == text, body
    # Deleting the session on B ends it on A too.
    req = urllib.request.Request(b.url, method="DELETE", headers={"Mcp-Session-Id": session,
                                                                  "MCP-Protocol-Version": LEGACY})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status in (200, 204), resp.status
    assert call_echo(a.url, session, "gone")[0] == 404


def test_without_store_the_other_instance_does_not_know_the_session(spawn: Callable[..., Any]) -> None:
    a = spawn([PY, PY_SERVER, "--http", "127.0.0.1:0"])
    b = spawn([PY, PY_SERVER, "--http", "127.0.0.1:0"])
    session = initialize(a.url)
    assert call_echo(a.url, session, "here")[0] == 200
    assert call_echo(b.url, session, "there")[0] == 404


def test_allowed_host_is_accepted_on_both(spawn: Callable[..., Any], redis_url: str) -> None:
    ports = [free_port(), free_port()]
    a, b = (spawn([PY, PY_SERVER, "--http", f"127.0.0.1:{p}", "--store", redis_url,
                   "--allowed-host", "mcp.example:8443"], env=env_with_key()) for p in ports)
    public = "mcp.example:8443"
    session = initialize(a.url, host=public)
    status, body = call_echo(b.url, session, "via the proxy name", host=public)
    assert status == 200 and body["result"]["content"][0]["text"] == "via the proxy name", body
    # Another name is still refused (the DNS-rebinding guard); the direct loopback name is not.
    assert post(b.url, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, session, "evil.example")[0] == 403
    assert call_echo(b.url, session, "direct")[0] == 200


def test_a_store_without_state_keys_is_refused_naming_the_variable(spawn: Callable[..., Any],
                                                                   redis_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MCPCORE_STATE_KEY"}
    proc = subprocess.run([PY, PY_SERVER, "--http", "127.0.0.1:0", "--store", redis_url],
                          env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert "MCPCORE_STATE_KEY" in proc.stderr, proc.stderr


@run_async
async def test_serve_http_settings_are_checked() -> None:
    server = Server("scale-out-settings", "0")
    old = os.environ.pop("MCPCORE_STATE_KEY", None)
    try:
        with pytest.raises(InvalidInput, match="MCPCORE_STATE_KEY"):
            await server.serve_http(store="redis://127.0.0.1:1/0")
        with pytest.raises(InvalidInput, match="store"):
            await server.serve_http(store="memcached://127.0.0.1:1", state_keys=STATE_KEY)
        with pytest.raises(InvalidInput, match="MCPCORE_STATE_KEY key 1"):
            await server.serve_http(state_keys=["abcd"])
        # Keys alone (a list, newest first) are fine without a store: a single instance.
        serving = await server.serve_http(state_keys=[STATE_KEY, STATE_KEY])
        await serving.shutdown()
    finally:
        if old is not None:
            os.environ["MCPCORE_STATE_KEY"] = old


def test_three_python_servers_behind_nginx_serve_the_official_client(spawn: Callable[..., Any],
                                                                     redis_url: str) -> None:
    """Three Python echo servers with ``--store`` behind nginx round-robin with no affinity, driven
    by the official Python SDK client (``mcp``): one legacy session whose POSTs land on every
    instance, and 2026-07-28 calls."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing (scripts/test.sh installs it)")
        pytest.skip("nginx is missing: apt-get install nginx")
    from mcp import Client as SdkClient  # the official SDK, pinned in tests/interop/python

    lb = free_port()
    public = f"127.0.0.1:{lb}"
    ports = [free_port() for _ in range(3)]
    for p in ports:
        spawn([PY, PY_SERVER, "--http", f"127.0.0.1:{p}", "--store", redis_url, "--allowed-host", public],
              env=env_with_key())
    with tempfile.TemporaryDirectory(prefix="mcpcore-nginx-") as d:
        servers = "".join(f"server 127.0.0.1:{p}; " for p in ports)
        conf = (
            f"worker_processes 1; error_log {d}/error.log warn; pid {d}/nginx.pid; daemon off;"
            f" events {{ worker_connections 64; }}"
            f" http {{ log_format mcp '$http_mcp_session_id|$request_method|$status|$upstream_addr';"
            f" access_log {d}/access.log mcp; client_body_temp_path {d}/b; proxy_temp_path {d}/p;"
            f" fastcgi_temp_path {d}/f; uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;"
            f" upstream mcp {{ {servers}}} server {{ listen {public}; location / {{ proxy_pass http://mcp;"
            f" proxy_http_version 1.1; proxy_set_header Connection \"\"; proxy_set_header Host $http_host;"
            f" proxy_buffering off; }} }} }}"
        )
        Path(d, "nginx.conf").write_text(conf)
        proc = subprocess.Popen([nginx, "-p", d, "-e", f"{d}/error.log", "-c", f"{d}/nginx.conf"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", lb), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "nginx did not listen"
                    time.sleep(0.02)
            url = f"http://{public}/mcp"

            async def drive() -> Tuple[List[str], List[str], Any]:
                async with SdkClient(url, mode="legacy", read_timeout_seconds=20) as legacy:
                    texts = []
                    for i in range(12):
                        r = await legacy.call_tool("echo", {"text": f"call {i}"})
                        texts.append(r.content[0].text)
                    summed = (await legacy.call_tool("add", {"a": 2, "b": 3})).structured_content
                async with SdkClient(url, mode="2026-07-28", read_timeout_seconds=20) as modern:
                    modern_texts = [(await modern.call_tool("echo", {"text": f"m{i}"})).content[0].text
                                    for i in range(3)]
                return texts, modern_texts, summed

            texts, modern_texts, summed = run_async(drive)()
            assert texts == [f"call {i}" for i in range(12)]
            assert modern_texts == ["m0", "m1", "m2"]
            assert summed == {"sum": 5}
            lines = [ln.split("|") for ln in Path(d, "access.log").read_text().splitlines()]
            session = next(f[0] for f in lines if f[1] == "DELETE")
            served = {f[3] for f in lines if f[0] == session and f[1] == "POST" and f[2].startswith("2")}
            assert served == {f"127.0.0.1:{p}" for p in ports}, lines
        finally:
            proc.terminate()
            proc.wait(timeout=10)


class Deployed(TypedDict):
    """A service was deployed."""

    service: str


@run_async
async def test_two_python_servers_on_one_store_share_their_event_occurrences(redis_url: str) -> None:
    """Events in a fleet (issue 48): an emit on one server is polled on the other, from a cursor
    the first gave (both registries share the occurrences through Redis)."""
    servers = [Server(f"events-{i}", "1.0") for i in range(2)]
    for s in servers:
        s.event("deployed")(Deployed)
    servings = [await s.serve_http(store=redis_url, state_keys=STATE_KEY) for s in servers]
    try:
        async with await Client.connect_http(servings[0].url) as first, \
                await Client.connect_http(servings[1].url) as second:
            start = (await first.poll_events("deployed"))["cursor"]
            await servers[0].emit("deployed", Deployed(service="api"))
            deadline = time.monotonic() + 10
            got: List[Any] = []
            while not got and time.monotonic() < deadline:
                got = (await second.poll_events("deployed", cursor=start))["events"]
                await asyncio.sleep(0.05)
            assert [e["data"] for e in got] == [{"service": "api"}]
    finally:
        for serving in servings:
            await serving.shutdown()
