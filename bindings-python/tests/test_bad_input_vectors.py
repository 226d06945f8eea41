"""The shared bad-input vectors (tests/vectors/bad-input/, see its README) against a server written
with the Python facade (tests/servers/echo_like.py), on stdio and on HTTP, so the Python binding
answers bad input exactly as the Rust, Node and Kotlin servers do."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import ECHO_LIKE, PY, REPO

VECTORS = REPO / "tests" / "vectors" / "bad-input"
ALIVE = {"jsonrpc": "2.0", "id": "alive", "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}


def load(name: str) -> Dict[str, Any]:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def to_bytes(body: Dict[str, Any]) -> bytes:
    """The bytes of a ``send`` or ``body`` object."""
    if "json" in body:
        return json.dumps(body["json"], separators=(",", ":"), ensure_ascii=False).encode()
    if "text" in body:
        return body["text"].encode()
    if "hex" in body:
        return bytes.fromhex(body["hex"])
    return b"".join(text.encode() * times for text, times in body["repeat"])


def check(what: str, got: Dict[str, Any], expect: Dict[str, Any]) -> None:
    if "code" in expect:
        assert got.get("error", {}).get("code") == expect["code"], f"{what}: {got}"
    if expect.get("result"):
        assert "result" in got, f"{what}: {got}"
    if "id" in expect:
        assert got.get("id") == expect["id"], f"{what}: {got}"


SESSIONS = load("stdio.json")["sessions"]


@pytest.mark.parametrize("session", SESSIONS, ids=[s["name"] for s in SESSIONS])
def test_stdio_vectors(session: Dict[str, Any]) -> None:
    server = subprocess.Popen([PY, str(ECHO_LIKE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        for i, step in enumerate(session["steps"]):
            server.stdin.write(to_bytes(step["send"]) + b"\n")
            server.stdin.flush()
            if step["expect"] is not None:
                line = server.stdout.readline()
                assert line, f"step {i}: the server closed stdout"
                check(f"step {i}", json.loads(line), step["expect"])
        server.stdin.write(json.dumps(ALIVE).encode() + b"\n")
        server.stdin.flush()
        last = json.loads(server.stdout.readline())
        assert last.get("id") == "alive" and "tools" in last.get("result", {}), last
    finally:
        server.kill()
        server.wait()


def dechunk(body: bytes) -> bytes:
    out = b""
    while b"\r\n" in body:
        size_text, rest = body.split(b"\r\n", 1)
        size = int(size_text.strip(), 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return out


def exchange(addr: Tuple[str, int], method: str, headers: List[List[str]], body: Optional[bytes]) -> Tuple[int, bytes]:
    """One raw HTTP/1.1 request on a fresh connection: the status and the de-chunked body."""
    head = f"{method} /mcp HTTP/1.1\r\n"
    if not any(k.lower() == "host" for k, _ in headers):
        head += f"Host: {addr[0]}:{addr[1]}\r\n"
    for k, v in headers:
        head += f"{k}: {v}\r\n"
    if body is not None:
        head += f"Content-Length: {len(body)}\r\n"
    head += "Connection: close\r\n\r\n"
    with socket.create_connection(addr, timeout=20) as sock:
        sock.sendall(head.encode())
        try:
            sock.sendall(body or b"")
        except OSError:
            pass  # the server may answer (and close) before reading a body it refuses
        raw = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            raw += chunk
    head_bytes, _, rest = raw.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    if any(l.lower().startswith("transfer-encoding:") and "chunked" in l.lower() for l in lines[1:]):
        rest = dechunk(rest)
    return status, rest


def test_http_vectors() -> None:
    server = subprocess.Popen([PY, str(ECHO_LIKE), "--http"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    assert server.stdout is not None
    try:
        line = server.stdout.readline()
        assert line.startswith("listening on "), line
        host_port = line.split()[-1].removeprefix("http://").split("/")[0]
        host, port = host_port.rsplit(":", 1)
        addr = (host, int(port))
        doc = load("http.json")
        failures = []
        for case in doc["cases"]:
            body = to_bytes(case["body"]) if "body" in case else None
            status, got = exchange(addr, case["method"], case["headers"], body)
            expect = case["expect"]
            if status != expect["status"]:
                failures.append(f"{case['name']}: status {status}, expected {expect['status']}: {got[:300]!r}")
                continue
            if expect.get("empty") and got:
                failures.append(f"{case['name']}: expected no body, got {got[:300]!r}")
            if "code" in expect or "isError" in expect:
                try:
                    v = json.loads(got)
                except ValueError:
                    failures.append(f"{case['name']}: not JSON: {got[:300]!r}")
                    continue
                if "code" in expect:
                    matches = v.get("error", {}).get("code") == expect["code"]
                else:
                    matches = v.get("result", {}).get("isError") is True
                if not matches or ("id" in expect and v.get("id") != expect["id"]):
                    failures.append(f"{case['name']}: expected {expect}, got {v}")
        headers = [["Accept", "application/json, text/event-stream"], ["Content-Type", "application/json"],
                   ["MCP-Protocol-Version", "2026-07-28"], ["Mcp-Method", "tools/list"]]
        status, got = exchange(addr, "POST", headers, json.dumps(ALIVE).encode())
        assert not failures, f"{len(failures)} of {len(doc['cases'])} cases failed:\n" + "\n".join(failures)
        assert status == 200, got
    finally:
        server.terminate()
        server.wait(timeout=20)
