"""The Python examples (examples/python/echo_server.py, echo_client.py) do what the example
contract says, with each other, with the Rust echo_server/echo_client, over stdio and HTTP:
the client prints the echoed text, then ``protocol V``, and exits 0."""

from __future__ import annotations

import json
import socket
from typing import Any, Callable, List

import pytest

from conftest import EXAMPLES, INTEROP, MODERN, PY, describe, run, rust_bin

PY_SERVER = EXAMPLES / "echo_server.py"
PY_CLIENT = EXAMPLES / "echo_client.py"


def check_client_output(proc: Any, text: str, version: str = MODERN) -> None:
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout == f"{text}\nprotocol {version}\n", describe(proc)


def server_argv(kind: str) -> List[Any]:
    return [PY, PY_SERVER] if kind == "py" else [rust_bin("echo_server")]


def client_argv(kind: str) -> List[Any]:
    return [PY, PY_CLIENT] if kind == "py" else [rust_bin("echo_client")]


PAIRS = [("py", "py"), ("py", "rust"), ("rust", "py")]
PAIR_IDS = [f"{c}-client-{s}-server" for c, s in PAIRS]


@pytest.mark.parametrize("client,server", PAIRS, ids=PAIR_IDS)
def test_stdio(client: str, server: str) -> None:
    text = f"hello from the {client} client, stdio ✓"
    proc = run([*client_argv(client), text, "--", *server_argv(server)], timeout=30)
    check_client_output(proc, text)


@pytest.mark.parametrize("client,server", PAIRS, ids=PAIR_IDS)
def test_http(spawn: Callable[..., Any], client: str, server: str) -> None:
    child = spawn([*server_argv(server), "--http", "127.0.0.1:0"])
    assert child.url.startswith("http://127.0.0.1:") and child.url.endswith("/mcp")
    text = f"hello from the {client} client over HTTP"
    proc = run([*client_argv(client), child.url, text], timeout=30)
    check_client_output(proc, text)
    # the server keeps serving, then stops cleanly on Ctrl-C
    check_client_output(run([*client_argv(client), child.url, "again"], timeout=30), "again")
    assert child.interrupt(timeout=10) == 0, "".join(child.stderr_lines)


def test_py_client_default_text() -> None:
    proc = run([PY, PY_CLIENT, "--", PY, PY_SERVER], timeout=30)
    check_client_output(proc, "hello from mcpcore (python)")


def test_py_client_over_the_sse_transport(spawn: Callable[..., Any]) -> None:
    child = spawn([PY, PY_SERVER, "--http", "127.0.0.1:0"])
    sse = child.url.rsplit("/", 1)[0] + "/sse"
    check_client_output(run([PY, PY_CLIENT, sse, "sse"], timeout=30), "sse", "2024-11-05")


def test_py_client_usage_error() -> None:
    proc = run([PY, PY_CLIENT], timeout=30)
    assert proc.returncode == 2, describe(proc)
    assert "usage" in proc.stderr


def test_py_client_failure_exits_1() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run([PY, PY_CLIENT, f"http://127.0.0.1:{port}/mcp", "x"], timeout=30)
    assert proc.returncode == 1, describe(proc)
    assert proc.stderr.startswith("echo_client: TransportError:"), describe(proc)
    assert proc.stdout == ""
    # a server command that is not an MCP server
    proc = run([PY, PY_CLIENT, "x", "--", PY, "-c", "print('not json-rpc')"], timeout=30)
    assert proc.returncode == 1, describe(proc)
    assert proc.stderr.startswith("echo_client: "), describe(proc)


def test_py_server_tools_through_the_rust_client_and_the_sdk() -> None:
    """The example server's add tool answers {"sum": a+b} to the official SDK client."""
    pytest.importorskip("mcp")
    proc = run([PY, INTEROP / "sdk_client.py", "--text", "example", "--", PY, PY_SERVER], timeout=60)
    assert proc.returncode == 0, describe(proc)
    out = json.loads(proc.stdout)
    assert out["tools"] == ["add", "echo"] and out["echo"] == "example" and out["add"] == {"sum": 5.0}


def test_the_agent_host_demo() -> None:
    """examples/demo/agent_host.py (what `make demo` runs first): local + Node + Rust tools in one
    registry, called in process, then served to the official Python and TypeScript clients."""
    import shutil

    ts_client = INTEROP.parent / "ts" / "sdk_calls.mjs"
    node_modules = INTEROP.parent / "ts" / "node_modules" / "@modelcontextprotocol" / "client"
    if shutil.which("node") is None or not node_modules.exists():
        pytest.skip("node or tests/interop/ts/node_modules is missing")
    node_server = EXAMPLES.parent / "node" / "echo_server.mjs"
    if not (EXAMPLES.parent / "node" / "node_modules" / "mcpcore").exists():
        pytest.skip("examples/node is not installed (npm ci there)")
    proc = run([PY, EXAMPLES.parent / "demo" / "agent_host.py", rust_bin("echo_server"), node_server, ts_client],
               timeout=90)
    assert proc.returncode == 0, describe(proc)
    lines = proc.stdout.splitlines()
    assert lines[0] == ("registry: local word_count + node, rust servers -> "
                        "node__add, node__echo, rust__add, rust__echo, word_count"), proc.stdout
    for who in ("official Python SDK client", "official TypeScript SDK client"):
        mine = [l for l in lines if who in l]
        assert mine[0].endswith("tools: node__add, node__echo, rust__add, rust__echo, word_count"), proc.stdout
        assert any(l.endswith("-> hello from the Node tool") for l in mine), proc.stdout
        assert any("rust__add" in l and l.endswith('{"sum":42.0}') for l in mine), proc.stdout
        assert any("word_count" in l and l.endswith('{"words":4}') for l in mine), proc.stdout
