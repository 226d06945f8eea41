#!/usr/bin/env python3
"""bench/harness.py: runs W1-W12 (W7: fleet.py; W8: gateway.py) and the raw ceilings for mcpcore and the official SDKs, in
alternation (round r runs every subject, forward on even rounds and backward on odd ones; a peer's
two HTTP configurations, its defaults and its best documented one, alternate the same way), and
writes bench/results/<date>.json and bench/RESULTS.md. Started by bench/run, which installs and
builds everything first and passes the paths in the environment (see bench/run). Standard library
only. Loopback only; every child process has a timeout and is killed at the end. The scale
workloads W9-W11 live in scale.py, W12 in stateless.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

import fleet
import gateway
import report
import scale
import stateless

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
LEGACY, MODERN = "2025-11-25", "2026-07-28"
STDIO_VERSION = LEGACY  # every peer (TS SDK v1 included) speaks it on stdio

CHILDREN: List[subprocess.Popen] = []
RBIN = Path(".")  # the Rust binaries (set by main)


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


class Fail(Exception):
    pass


# ---------------------------------------------------------------- subjects


def subjects(env: Dict[str, str]) -> Dict[str, Dict[str, Any]]:
    """Every server+client pair. `driver` takes the driver format (bench/drivers/_common.py).
    `http` serves W2/W4 with the peer's defaults, `http_best` with its best documented
    configuration (`best` names the exact settings). `scale_http(addr, best, catalogue)` and
    `scale_stdio` are the servers of W9-W11 (the same tools plus `touch` and the catalogue);
    `w12_http(addr, tools)` is W12's stateless server with `tools` catalogue tools, in the peer's
    best configuration (bench/stateless.py)."""
    rbin, py, node = Path(env["BENCH_RUST_BIN"]), env["BENCH_PYTHON"], env.get("BENCH_NODE", "node")
    rmcp = env.get("BENCH_RMCP_BIN", "")
    d, sv = BENCH / "drivers", BENCH / "servers"
    flags = lambda best, cat: (["--best"] if best else []) + (["--catalogue"] if cat else [])  # noqa: E731
    binding_frame = (16 << 20, "the binding's stdio/HTTP client frame limit is a fixed 16 MiB")
    stateless = "stateless: no sessions, so no GET stream"
    # BENCH_MCPCORE_CURRENT_THREAD=1: mcpcore's echo_server serves HTTP on a current-thread
    # runtime (--current-thread), as the server before issue 14's refactor did, for a like-for-
    # like before/after; unset, it runs the multi-thread runtime the example ships with.
    one_thread = ["--current-thread"] if env.get("BENCH_MCPCORE_CURRENT_THREAD") == "1" else []
    subs = {
        "raw": {
            "label": "raw ceiling (serde_json lines / hyper fixed reply)",
            "lang": "rust",
            "stdio": [str(rbin / "raw_stdio_echo")],
            "http": lambda a: [str(rbin / "raw_http_echo"), a],
            "driver": [str(rbin / "mcpcore_driver")],
            "stdio_mode": "raw-stdio",
            "scale_stdio": [str(rbin / "raw_stdio_echo")],
        },
        "mcpcore-rust": {
            "label": "mcpcore (Rust tool, Rust client)",
            "lang": "rust",
            "stdio": [str(rbin / "echo_server")],
            "http": lambda a: [str(rbin / "echo_server"), "--http", a] + one_thread,
            "driver": [str(rbin / "mcpcore_driver")],
            "scale_http": lambda a, best, cat: [str(rbin / "bench_server"), "--http", a] + flags(False, cat),
            "scale_stdio": [str(rbin / "bench_server")],
            "w12_http": lambda a, n: [str(rbin / "bench_server"), "--http", a, "--tools", str(n), "--multi-thread"],
        },
        "mcpcore-rust-spin": {
            # Information, not a target: the optional spin before a stdio read blocks (off by
            # default; core/src/transport/spin.rs), set for the driver and inherited by the server.
            "label": "mcpcore (Rust tool, Rust client), MCPCORE_STDIO_SPIN_US=50 (opt-in)",
            "lang": "rust",
            "stdio": [str(rbin / "echo_server")],
            "driver": [str(rbin / "mcpcore_driver")],
            "env": {"MCPCORE_STDIO_SPIN_US": "50"},
            "stdio_only": True,
        },
        "rmcp": {
            "label": "rmcp 3.11.0 (official Rust SDK)",
            "lang": "rust",
            "stdio": [rmcp, "server"],
            "http": lambda a: [rmcp, "server", "--http", a],
            "http_best": lambda a: [rmcp, "server", "--http", a, "--best"],
            "defaults": "StreamableHttpServerConfig::default() (stateful sessions, SSE answers, 15 s keep-alive)",
            "best": "StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true)"
                    ".with_sse_keep_alive(None)",
            "driver": [rmcp],
            "scale_http": lambda a, best, cat: [rmcp, "server", "--http", a] + flags(best, cat),
            "scale_stdio": [rmcp, "server"],
            "w12_http": lambda a, n: [rmcp, "server", "--http", a, "--best", "--tools", str(n)],
            "w10_na": {"legacy@best": stateless},
        },
        "mcpcore-python": {
            "label": "mcpcore Python (tool and client in Python)",
            "lang": "python",
            "stdio": [py, str(ROOT / "examples/python/echo_server.py")],
            "http": lambda a: [py, str(ROOT / "examples/python/echo_server.py"), "--http", a],
            "driver": [py, str(d / "py_mcpcore.py")],
            "scale_http": lambda a, best, cat: [py, str(sv / "py_mcpcore_server.py"), "--http", a] + flags(False, cat),
            "scale_stdio": [py, str(sv / "py_mcpcore_server.py")],
            "w12_http": lambda a, n: [py, str(sv / "py_mcpcore_server.py"), "--http", a, "--tools", str(n)],
            "w11_limit": binding_frame,
        },
        "python-sdk": {
            "label": "mcp 2.3.0 (official Python SDK)",
            "lang": "python",
            "stdio": [py, str(ROOT / "tests/interop/python/sdk_server.py")],
            "http": lambda a: [py, str(sv / "py_sdk_server.py"), "--http", a],
            "http_best": lambda a: [py, str(sv / "py_sdk_server.py"), "--http", a, "--best"],
            "defaults": "Server.streamable_http_app() (dual-era, stateful legacy sessions, SSE answers)",
            "best": "Server.streamable_http_app(stateless_http=True, json_response=True)",
            "driver": [py, str(d / "py_sdk.py")],
            "scale_http": lambda a, best, cat: [py, str(sv / "py_sdk_server.py"), "--http", a] + flags(best, cat),
            "scale_stdio": [py, str(sv / "py_sdk_server.py")],
            "w12_http": lambda a, n: [py, str(sv / "py_sdk_server.py"), "--http", a, "--best", "--tools", str(n)],
            "w10_na": {"legacy@best": stateless},
        },
        "mcpcore-node": {
            "label": "mcpcore Node (tool and client in JS)",
            "lang": "node",
            "stdio": [node, str(sv / "node_mcpcore_server.mjs")],
            "http": lambda a: [node, str(sv / "node_mcpcore_server.mjs"), "--http", a],
            "driver": [node, str(d / "node_mcpcore.mjs")],
            "scale_http": lambda a, best, cat: [node, str(sv / "node_mcpcore_server.mjs"), "--http", a] + flags(False, cat),
            "scale_stdio": [node, str(sv / "node_mcpcore_server.mjs")],
            "w12_http": lambda a, n: [node, str(sv / "node_mcpcore_server.mjs"), "--http", a, "--tools", str(n)],
            "w11_limit": binding_frame,
            "w2_twice": True,
        },
        "ts-v2": {
            "label": "TypeScript SDK v2 2.4.0 (official)",
            "lang": "node",
            "stdio": [node, str(sv / "ts_v2_server.mjs")],
            "http": lambda a: [node, str(sv / "ts_v2_server.mjs"), "--http", a],
            "http_best": lambda a: [node, str(sv / "ts_v2_server.mjs"), "--http", a, "--best"],
            "defaults": "createMcpHandler(factory) (responseMode 'auto'; legacy leg stateless, SSE answers)",
            "best": "createMcpHandler(factory, { responseMode: 'json' })",
            "driver": [node, str(d / "ts_v2.mjs")],
            "scale_http": lambda a, best, cat: [node, str(sv / "ts_v2_server.mjs"), "--http", a] + flags(best, cat),
            "scale_stdio": [node, str(sv / "ts_v2_server.mjs")],
            "w12_http": lambda a, n: [node, str(sv / "ts_v2_server.mjs"), "--http", a, "--best", "--tools", str(n)],
            "w10_na": {"legacy@defaults": "legacy leg is stateless: GET is 405", "legacy@best": "legacy leg is stateless: GET is 405"},
        },
        "ts-v1": {
            "label": "TypeScript SDK v1 1.32.2 (official)",
            "lang": "node",
            "stdio": [node, str(sv / "ts_v1_server.mjs")],
            "http": lambda a: [node, str(sv / "ts_v1_server.mjs"), "--http", a],
            "http_best": lambda a: [node, str(sv / "ts_v1_server.mjs"), "--http", a, "--best"],
            "defaults": "StreamableHTTPServerTransport({ sessionIdGenerator }) per session (SSE answers)",
            "best": "the same with enableJsonResponse: true",
            "driver": [node, str(d / "ts_v1.mjs")],
            "scale_http": lambda a, best, cat: [node, str(sv / "ts_v1_server.mjs"), "--http", a] + flags(best, cat),
            "scale_stdio": [node, str(sv / "ts_v1_server.mjs")],
            "no_modern": "n/a (not supported by peer v1.32.2: initialize-based lineage only)",
            "w10_na": {"modern@defaults": "no 2026-07-28", "modern@best": "no 2026-07-28"},
        },
    }
    before = env.get("BENCH_MCPCORE_BEFORE_BIN", "")
    if before:
        # Another build of mcpcore's echo_server (e.g. the commit before a refactor), served to
        # the same current Rust client, so a change to the server is measured side by side.
        subs["mcpcore-rust-before"] = {
            "label": f"mcpcore (Rust tool, Rust client), server built from {env.get('BENCH_MCPCORE_BEFORE_REV', before)}",
            "lang": "rust",
            "stdio": [before],
            "http": lambda a: [before, "--http", a],
            "driver": [str(rbin / "mcpcore_driver")],
        }
    return subs


def configs(s: Dict[str, Any]) -> List[str]:
    """The HTTP configurations a subject runs: a peer's defaults and its best; mcpcore one."""
    return ["defaults", "best"] if "http_best" in s else ["defaults"]


# ---------------------------------------------------------------- processes


def run_json(cmd: List[str], timeout: float, what: str, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Runs a driver in its own process group (a timeout kills the servers it spawned too), with
    `env` added to the environment."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=BENCH / "drivers",
                         stdin=subprocess.DEVNULL, start_new_session=True, env={**os.environ, **(env or {})})
    CHILDREN.append(p)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(p)
        raise Fail(f"{what}: timed out after {timeout:.0f}s")
    finally:
        CHILDREN.remove(p)
    if p.returncode != 0:
        raise Fail(f"{what}: exit {p.returncode}: {err.strip()[-1500:]}")
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if not lines:
        raise Fail(f"{what}: no JSON output: {out[-500:]} {err[-500:]}")
    return json.loads(lines[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident set of the process and its descendants (a server may be a launcher + child)."""
    total = 0.0
    pids = [pid]
    try:
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        pids += [int(k) for k in kids]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


class HttpServer:
    """A server under test on a free loopback port. `wait=False` returns right after spawning
    (W9 times start-up from `spawned`, wall-clock seconds)."""

    def __init__(self, cmd_for, name: str, wait: bool = True):
        self.port = free_port()
        self.addr = f"127.0.0.1:{self.port}"
        self.url = f"http://{self.addr}/mcp"
        self.name = name
        self.err = tempfile.TemporaryFile()
        cmd = cmd_for(self.addr)
        self.spawned = time.time()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err, start_new_session=True,
            cwd=BENCH / "servers",
        )
        CHILDREN.append(self.proc)
        if not wait:
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Fail(f"{name} HTTP server exited: {self.stderr()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.02)
        raise Fail(f"{name} HTTP server not listening after 30 s")

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode(errors="replace")[-1500:]

    def stop(self) -> None:
        stop(self.proc)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(3)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(5)


# ---------------------------------------------------------------- HTTP wire (for wrk)

ACCEPT = "application/json, text/event-stream"


def post(url: str, body: Dict[str, Any], headers: Dict[str, str]) -> tuple:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    for k, v in {"Content-Type": "application/json", "Accept": ACCEPT, **headers}.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def wire_request(url: str, version: str) -> tuple:
    """(headers, body-prefix, body-suffix) of a tools/call echo for wrk; the id goes between.
    2025-11-25: initialize + notifications/initialized first (Mcp-Session-Id when the server
    mints one). 2026-07-28: stateless, `_meta` in every request plus the Mcp-* headers."""
    args = {"name": "echo", "arguments": {"text": "x"}}
    headers = {"Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": version}
    if version == MODERN:
        args["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "wrk", "version": "1"},
        }
        headers.update({"Mcp-Method": "tools/call", "Mcp-Name": "echo"})
    else:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "wrk", "version": "1"}}}
        status, h, body = post(url, init, {})
        if status != 200 or '"result"' not in body:
            raise Fail(f"initialize failed: {status} {body[:300]}")
        sid = {k.lower(): v for k, v in h.items()}.get("mcp-session-id")
        if sid:
            headers["Mcp-Session-Id"] = sid
        status, _, body = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                               {k: v for k, v in headers.items() if k not in ("Content-Type", "Accept")})
        if status >= 300:
            raise Fail(f"notifications/initialized failed: {status} {body[:300]}")
    body = json.dumps({"jsonrpc": "2.0", "id": 424242, "method": "tools/call", "params": args}, separators=(",", ":"))
    pre, post_ = body.split("424242")
    # one check request outside wrk: a benchmark of error answers is worthless
    status, _, reply = post(url, json.loads(pre + "1" + post_), {k: v for k, v in headers.items() if k not in ("Content-Type", "Accept")})
    if status != 200 or '"result"' not in reply or '"isError":true' in reply.replace(" ", ""):
        raise Fail(f"tools/call check failed ({version}): {status} {reply[:300]}")
    return headers, pre, post_


WRK_LUA = r"""
local threads = {}
local hdrs = %(headers)s
local pre, post = %(pre)s, %(post)s
function setup(thread) thread:set("tid", #threads + 1); table.insert(threads, thread) end
function init(args) n = 0; bad = 0; sample = "" end
function request()
  n = n + 1
  return wrk.format("POST", "/mcp", hdrs, pre .. tostring(tid * 100000000 + n) .. post)
end
function response(status, headers, body)
  local b = body:gsub("%%s", "")
  if status ~= 200 or not b:find('"result"', 1, true) or b:find('"isError":true', 1, true) then
    bad = bad + 1
    if sample == "" then sample = tostring(status) .. " " .. body:sub(1, 200) end
  end
end
function done(summary, latency, requests)
  local b, s = 0, ""
  for _, t in ipairs(threads) do b = b + t:get("bad"); if s == "" then s = t:get("sample") end end
  io.write(string.format("WRKJSON {\"requests\":%%d,\"secs\":%%f,\"non2xx\":%%d,\"sockerr\":%%d,\"bad\":%%d,\"p50_us\":%%d,\"p99_us\":%%d}\n",
    summary.requests, summary.duration / 1e6, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, b,
    latency:percentile(50), latency:percentile(99)))
  if s ~= "" then io.write("WRKSAMPLE " .. s:gsub("\n", " ") .. "\n") end
end
"""


def lua_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_wrk(url: str, headers: Dict[str, str], pre: str, post_: str, secs: int, conns: int) -> Dict[str, Any]:
    lua = WRK_LUA % {
        "headers": "{" + ", ".join(f"[{lua_str(k)}] = {lua_str(v)}" for k, v in headers.items()) + "}",
        "pre": lua_str(pre),
        "post": lua_str(post_),
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(lua)
    try:
        p = subprocess.run(["wrk", "-t2", f"-c{conns}", f"-d{secs}s", "--timeout", "5s", "-s", f.name, url],
                           capture_output=True, text=True, timeout=secs + 30)
    finally:
        os.unlink(f.name)
    m = re.search(r"WRKJSON (\{.*\})", p.stdout)
    if not m:
        raise Fail(f"wrk: no summary: {p.stdout[-500:]} {p.stderr[-500:]}")
    out = json.loads(m.group(1))
    sample = re.search(r"WRKSAMPLE (.*)", p.stdout)
    out["rps"] = out["requests"] / out["secs"] if out["secs"] else 0
    out["failed"] = out["non2xx"] + out["sockerr"] + out["bad"]
    if sample:
        out["failed_sample"] = sample.group(1)[:200]
    return out


# ---------------------------------------------------------------- workloads


def stdio_workload(s: Dict[str, Any], cfg: Dict[str, Any], name: str) -> Dict[str, Any]:
    mode = s.get("stdio_mode", "stdio")
    cmd = s["driver"] + [mode, str(cfg["n"]), "8", str(cfg["payload"]), str(cfg["payload_n"]), str(cfg["starts"]), STDIO_VERSION, "--"] + s["stdio"]
    return run_json(cmd, cfg["timeout"], f"{name} stdio", s.get("env"))


def http_workload(s: Dict[str, Any], cfg: Dict[str, Any], name: str, config: str = "defaults") -> Dict[str, Any]:
    srv = HttpServer(s["http" if config == "defaults" else "http_best"], name)
    out: Dict[str, Any] = {}
    try:
        time.sleep(0.3)  # let the server settle before the idle reading
        out["rss_idle_mb"] = rss_mb(srv.proc.pid)
        w2(s, cfg, name, srv, out)
        out["rss_after_mb"] = rss_mb(srv.proc.pid)
        if s.get("w2_twice"):  # the Node target: no growth from one W2 run to the next
            w2(s, cfg, name, srv, {})
            out["rss_after2_mb"] = rss_mb(srv.proc.pid)
        if srv.proc.poll() is not None:
            raise Fail(f"{name} HTTP server died: {srv.stderr()}")
    finally:
        srv.stop()
    return out


def w2(s: Dict[str, Any], cfg: Dict[str, Any], name: str, srv: HttpServer, out: Dict[str, Any]) -> None:
    """W2 on a running server: wrk in each lineage, then the SDK's own client."""
    versions = [MODERN] if name == "raw" else [LEGACY, MODERN]
    for v in versions:
        if v == MODERN and s.get("no_modern"):
            out[f"wrk_{v}"] = {"na": s["no_modern"]}
            continue
        if name == "raw":
            headers, pre, post_ = {"Content-Type": "application/json"}, '{"jsonrpc":"2.0","id":', ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}'
        else:
            headers, pre, post_ = wire_request(srv.url, v)
        w = run_wrk(srv.url, headers, pre, post_, cfg["wrk_secs"], cfg["wrk_conns"])
        if w["failed"]:
            raise Fail(f"{name} wrk {v}: {w['failed']} failed requests of {w['requests']}: {w.get('failed_sample', '')}")
        out[f"wrk_{v}"] = w
    if name != "raw":
        for v in [LEGACY, MODERN]:
            if v == MODERN and s.get("no_modern"):
                out[f"client_{v}"] = {"na": s["no_modern"]}
                continue
            cmd = s["driver"] + ["http", srv.url, v, str(cfg["n_http"]), "16"]
            out[f"client_{v}"] = run_json(cmd, cfg["timeout"], f"{name} http client {v}")


def bare_node_mb(node: str) -> Optional[float]:
    """RSS of a bare `node` idling (the floor of the Node W4 target)."""
    p = subprocess.Popen([node, "-e", "setTimeout(() => {}, 60000)"], start_new_session=True)
    CHILDREN.append(p)
    try:
        time.sleep(0.5)
        return rss_mb(p.pid)
    finally:
        stop(p)


def w6_workload(s: Dict[str, Any], cfg: Dict[str, Any], name: str, rbin: Path) -> Dict[str, Any]:
    cmd = [str(rbin / "mcpcore_driver"), "stdio", str(cfg["n"]), "1", "1", "1", "0", STDIO_VERSION, "--"] + s["stdio"]
    r = run_json(cmd, cfg["timeout"], f"W6 {name}")
    return {"us_per_call": r["seq"]["secs"] / r["seq"]["n"] * 1e6, "p50_us": r["seq"]["p50_us"]}


# ---------------------------------------------------------------- summary


def med(xs: List[float]) -> Optional[Dict[str, float]]:
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def metrics(r: Dict[str, Any]) -> Dict[str, Optional[float]]:
    """Flat metrics of one subject in one round (None when not run or n/a). Keys of HTTP and
    scale workloads end in @defaults or @best (the configuration); stdio has one configuration."""
    m: Dict[str, Optional[float]] = {}
    st = r.get("stdio")
    if st:
        for k in ("seq", "conc"):
            m[f"w1_{k}_cps"] = st[k]["n"] / st[k]["secs"]
            m[f"w1_{k}_p50"] = st[k]["p50_us"]
            m[f"w1_{k}_p99"] = st[k]["p99_us"]
        p = st["payload"]
        m["w3_mbs"] = p["bytes"] * p["n"] / p["secs"] / 1e6 if p["n"] else None
        m["w5_ms"] = statistics.median(st["startup_ms"]) if st["startup_ms"] else None
    for config, h in (r.get("http") or {}).items():
        at = f"@{config}"
        m["w4_idle_mb" + at] = h["rss_idle_mb"]
        m["w4_after_mb" + at] = h["rss_after_mb"]
        if "rss_after2_mb" in h:
            m["w4_after2_mb" + at] = h["rss_after2_mb"]
        for v in (LEGACY, MODERN):
            w = h.get(f"wrk_{v}")
            m[f"w2_wrk_{v}" + at] = w.get("rps") if w else None
            c = h.get(f"client_{v}")
            m[f"w2_cseq_{v}" + at] = c["seq"]["n"] / c["seq"]["secs"] if c and "seq" in c else None
            m[f"w2_cconc_{v}" + at] = c["conc"]["n"] / c["conc"]["secs"] if c and "conc" in c else None
    if r.get("node_bare_mb"):
        m["node_bare_mb"] = r["node_bare_mb"]
    if r.get("w6"):
        m["w6_us"] = r["w6"]["us_per_call"]
    scale.metrics(r, m)
    stateless.metrics(r, m)
    gateway.metrics(r, m)
    fleet.metrics(r, m)
    return m


def fmt(x: Optional[Dict[str, float]], digits: int = 0, scale: float = 1.0) -> str:
    if not x:
        return "—"
    f = lambda v: f"{v * scale:,.{digits}f}"  # noqa: E731
    if x["n"] == 1:
        return f(x["median"])
    return f"{f(x['median'])} ({f(x['min'])}–{f(x['max'])})"


PHASES = ("stdio", "http", "w6", "w7", "w8", "w9", "w10", "w11", "w12")


def run_phase(phase: str, s: Dict[str, Any], cfg: Dict[str, Any], name: str, res: Dict[str, Any], r: int, env: Dict[str, str]) -> None:
    """One phase of one subject in round r (both configurations, in alternating order)."""
    confs = configs(s) if r % 2 == 0 else configs(s)[::-1]
    if phase == "stdio":
        res["stdio"] = stdio_workload(s, cfg, name)
    elif phase == "http":
        res["http"] = {c: http_workload(s, cfg, name, c) for c in confs}
        if name == "mcpcore-node":
            res["node_bare_mb"] = bare_node_mb(env.get("BENCH_NODE", "node"))
    elif phase == "w6":
        res["w6"] = w6_workload(s, cfg, name, RBIN)
    elif phase == "w7":
        res["w7"] = fleet.w7(sys.modules[__name__], cfg)
    elif phase == "w8":
        res["w8"] = gateway.w8(sys.modules[__name__], cfg)
    elif phase == "w9":
        res["w9"] = {c: scale.w9(sys.modules[__name__], s, cfg, name, c) for c in confs}
        if name == "mcpcore-rust":
            res["w9_register"] = scale.w9_register(sys.modules[__name__], cfg)
    elif phase == "w10":
        res["w10"] = {c: scale.w10(sys.modules[__name__], s, cfg, name, c) for c in confs}
    elif phase == "w11":
        if s.get("scale_stdio"):
            res["w11_stdio"] = scale.w11_stdio(sys.modules[__name__], s, cfg, name)
        res["w11_http"] = {c: scale.w11_http(sys.modules[__name__], s, cfg, name, c) for c in confs}
    elif phase == "w12":
        res["w12"] = stateless.w12(sys.modules[__name__], s, cfg, name, r)


def applies(phase: str, name: str, s: Dict[str, Any]) -> bool:
    if s.get("stdio_only"):
        return phase == "stdio"
    if phase == "w6":
        return name.startswith("mcpcore-")
    if phase in ("w7", "w8"):
        return name == "mcpcore-rust"  # the Rust echo_server fleet; the gateway is mcpcore's own binary
    if phase in ("w9", "w10"):
        return bool(s.get("scale_http"))
    if phase == "w12":
        return bool(s.get("w12_http"))
    return True


def raise_fd_limit() -> str:
    """W10 holds 1,000+ sockets in one server and one client: lift the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError) as e:
            log(f"could not raise the file-descriptor limit from {soft}: {e}")
    return str(soft)


def main() -> int:
    global RBIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small N, 1 round, short wrk: proves it works")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated subjects")
    ap.add_argument("--phases", default=",".join(PHASES), help="comma-separated phases: " + ",".join(PHASES))
    ap.add_argument("--tiny", action="store_true",
                    help="the smallest N of every workload, one wrk second: a structure check (without --quick: W11 up to 16 MiB)")
    ap.add_argument("--streams", type=int, default=None, help="W10: streams per server")
    ap.add_argument("--label", default="release")
    ap.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    args = ap.parse_args()
    env = dict(os.environ)
    cfg = dict(n=2000, n_http=1000, payload=1 << 20, payload_n=20, starts=5, wrk_secs=10, wrk_conns=32, rounds=3, timeout=300,
               w9_rounds=5, w10_streams=1000, w11_sizes=scale.SIZES_FULL, w11_reps=5)
    if args.quick:
        cfg.update(n=50, n_http=30, payload_n=2, starts=1, wrk_secs=1, rounds=1, timeout=120,
                   w9_rounds=1, w10_streams=20, w11_sizes=scale.SIZES_QUICK, w11_reps=1)
    if args.tiny:
        cfg.update(n=5, n_http=5, payload_n=1, starts=1, wrk_secs=1, w9_rounds=1, w10_streams=3, w11_reps=1)
    if args.streams:
        cfg["w10_streams"] = args.streams
    if args.rounds:
        cfg["rounds"] = args.rounds
    cfg["fd_limit"] = raise_fd_limit()
    phases = [p for p in PHASES if p in args.phases.split(",")]
    subs = subjects(env)
    if not env.get("BENCH_RMCP_BIN"):
        subs.pop("rmcp")
    if args.only:
        keep = set(args.only.split(","))
        subs = {k: v for k, v in subs.items() if k in keep}
    RBIN = Path(env["BENCH_RUST_BIN"])
    started = dt.datetime.now(dt.timezone.utc)
    load_before = os.getloadavg()
    rounds: List[Dict[str, Dict[str, Any]]] = []
    errors: List[str] = []
    names = list(subs)
    for r in range(cfg["rounds"]):
        order = names if r % 2 == 0 else names[::-1]
        res: Dict[str, Dict[str, Any]] = {n: {} for n in names}
        for phase in phases:
            for name in order:
                s = subs[name]
                if not applies(phase, name, s):
                    continue
                log(f"[round {r + 1}/{cfg['rounds']}] {phase:5} {name}")
                try:
                    run_phase(phase, s, cfg, name, res[name], r, env)
                except Fail as e:
                    log(f"  FAILED: {e}")
                    errors.append(f"round {r + 1} {phase} {name}: {e}")
        rounds.append(res)
    finished = dt.datetime.now(dt.timezone.utc)
    per_round = [{n: metrics(res[n]) for n in names} for res in rounds]
    keys = {n: sorted({k for pr in per_round for k in pr[n]}) for n in names}
    summary = {n: {k: med([pr[n].get(k) for pr in per_round]) for k in keys[n]} for n in names}
    info = machine_info(env)
    info.update(started=started.isoformat(timespec="seconds"), finished=finished.isoformat(timespec="seconds"),
                load_before=load_before, load_after=os.getloadavg(), config=cfg, label=args.label, quick=args.quick,
                phases=phases)
    doc = {"info": info, "rounds": rounds, "metrics_per_round": per_round, "summary": summary,
           "ratios": report.ratios(per_round, names), "w6_added_us": report.w6_added(per_round), "errors": errors,
           "subjects": {n: subs[n]["label"] for n in names},
           "configurations": {n: {"defaults": subs[n].get("defaults", "its defaults"), "best": subs[n].get("best")} for n in names}}
    outdir = BENCH / "results"
    outdir.mkdir(exist_ok=True)
    stem = started.strftime("%Y-%m-%dT%H%M%SZ") + ("-quick" if args.quick else "")
    (outdir / f"{stem}.json").write_text(json.dumps(doc, indent=1))
    md = report.render(doc, names, subs)
    if not args.quick or args.out != str(BENCH / "RESULTS.md"):
        Path(args.out).write_text(md)
    print(md)
    log(f"results: {outdir / (stem + '.json')}")
    if errors:
        log(f"{len(errors)} workload(s) failed:")
        for e in errors:
            log("  " + e)
        return 1
    return 0


def machine_info(env: Dict[str, str]) -> Dict[str, Any]:
    cpu = ""
    try:
        cpu = next(ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split(":")[1].strip()
    except OSError:
        pass

    def ver(cmd: List[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"

    py = env["BENCH_PYTHON"]
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory": mem, "kernel": platform.release(),
        "rustc": ver(["rustc", "--version"]), "python": ver([py, "--version"]), "node": ver([env.get("BENCH_NODE", "node"), "--version"]),
        "wrk": ver(["sh", "-c", "wrk --version 2>&1 | head -1"]),
        "mcpcore": env.get("BENCH_MCPCORE_REV", "?"), "build": env.get("BENCH_BUILD", "?"),
        "peers": {"mcp (Python SDK)": "2.3.0", "@modelcontextprotocol/server+client": "2.4.0", "@modelcontextprotocol/node": "2.1.2",
                  "@modelcontextprotocol/sdk": "1.32.2", "rmcp": "3.11.0"},
    }


def cleanup(*_: Any) -> None:
    for p in CHILDREN:
        try:
            stop(p)
        except Exception:  # noqa: BLE001
            pass


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: (cleanup(), sys.exit(143)))
    try:
        sys.exit(main())
    finally:
        cleanup()
