#!/usr/bin/env python3
"""bench/harness.py: runs W1-W6 and the raw ceilings for mcpcore and the official SDKs, in
alternation (round r runs every subject, forward on even rounds and backward on odd ones), and
writes bench/results/<date>.json and bench/RESULTS.md. Started by bench/run, which installs and
builds everything first and passes the paths in the environment (see bench/run). Standard library
only. Loopback only; every child process has a timeout and is killed at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
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

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
LEGACY, MODERN = "2025-11-25", "2026-07-28"
STDIO_VERSION = LEGACY  # every peer (TS SDK v1 included) speaks it on stdio

CHILDREN: List[subprocess.Popen] = []


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


class Fail(Exception):
    pass


# ---------------------------------------------------------------- subjects


def subjects(env: Dict[str, str]) -> Dict[str, Dict[str, Any]]:
    """Every server+client pair. `driver` takes the driver format (bench/drivers/_common.py)."""
    rbin, py, node = Path(env["BENCH_RUST_BIN"]), env["BENCH_PYTHON"], env.get("BENCH_NODE", "node")
    rmcp = env.get("BENCH_RMCP_BIN", "")
    d = BENCH / "drivers"
    return {
        "raw": {
            "label": "raw ceiling (serde_json lines / hyper fixed reply)",
            "lang": "rust",
            "stdio": [str(rbin / "raw_stdio_echo")],
            "http": lambda a: [str(rbin / "raw_http_echo"), a],
            "driver": [str(rbin / "mcpcore_driver")],
            "stdio_mode": "raw-stdio",
        },
        "mcpcore-rust": {
            "label": "mcpcore (Rust tool, Rust client)",
            "lang": "rust",
            "stdio": [str(rbin / "echo_server")],
            "http": lambda a: [str(rbin / "echo_server"), "--http", a],
            "driver": [str(rbin / "mcpcore_driver")],
        },
        "rmcp": {
            "label": "rmcp 3.11.0 (official Rust SDK)",
            "lang": "rust",
            "stdio": [rmcp, "server"],
            "http": lambda a: [rmcp, "server", "--http", a],
            "driver": [rmcp],
        },
        "mcpcore-python": {
            "label": "mcpcore Python (tool and client in Python)",
            "lang": "python",
            "stdio": [py, str(ROOT / "examples/python/echo_server.py")],
            "http": lambda a: [py, str(ROOT / "examples/python/echo_server.py"), "--http", a],
            "driver": [py, str(d / "py_mcpcore.py")],
        },
        "python-sdk": {
            "label": "mcp 2.3.0 (official Python SDK)",
            "lang": "python",
            "stdio": [py, str(ROOT / "tests/interop/python/sdk_server.py")],
            "http": lambda a: [py, str(ROOT / "tests/interop/python/sdk_http_server.py"), "--port", a.rsplit(":", 1)[1]],
            "driver": [py, str(d / "py_sdk.py")],
        },
        "mcpcore-node": {
            "label": "mcpcore Node (tool and client in JS)",
            "lang": "node",
            "stdio": [node, str(BENCH / "servers/node_mcpcore_server.mjs")],
            "http": lambda a: [node, str(BENCH / "servers/node_mcpcore_server.mjs"), "--http", a],
            "driver": [node, str(d / "node_mcpcore.mjs")],
        },
        "ts-v2": {
            "label": "TypeScript SDK v2 2.4.0 (official)",
            "lang": "node",
            "stdio": [node, str(BENCH / "servers/ts_v2_server.mjs")],
            "http": lambda a: [node, str(BENCH / "servers/ts_v2_server.mjs"), "--http", a],
            "driver": [node, str(d / "ts_v2.mjs")],
        },
        "ts-v1": {
            "label": "TypeScript SDK v1 1.32.2 (official)",
            "lang": "node",
            "stdio": [node, str(BENCH / "servers/ts_v1_server.mjs")],
            "http": lambda a: [node, str(BENCH / "servers/ts_v1_server.mjs"), "--http", a],
            "driver": [node, str(d / "ts_v1.mjs")],
            "no_modern": "n/a (not supported by peer v1.32.2: initialize-based lineage only)",
        },
    }


# Pairs whose ratio is reported: (ours, theirs).
PAIRS = [
    ("mcpcore-rust", "rmcp"),
    ("mcpcore-rust", "raw"),
    ("mcpcore-python", "python-sdk"),
    ("mcpcore-node", "ts-v2"),
    ("mcpcore-node", "ts-v1"),
]

# ---------------------------------------------------------------- processes


def run_json(cmd: List[str], timeout: float, what: str) -> Dict[str, Any]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=BENCH / "drivers", stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Fail(f"{what}: timed out after {timeout:.0f}s")
    if p.returncode != 0:
        raise Fail(f"{what}: exit {p.returncode}: {p.stderr.strip()[-1500:]}")
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise Fail(f"{what}: no JSON output: {p.stdout[-500:]} {p.stderr[-500:]}")
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
    def __init__(self, cmd_for, name: str):
        self.port = free_port()
        self.addr = f"127.0.0.1:{self.port}"
        self.url = f"http://{self.addr}/mcp"
        self.name = name
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            cmd_for(self.addr), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err, start_new_session=True,
            cwd=BENCH / "servers",
        )
        CHILDREN.append(self.proc)
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
    return run_json(cmd, cfg["timeout"], f"{name} stdio")


def http_workload(s: Dict[str, Any], cfg: Dict[str, Any], name: str) -> Dict[str, Any]:
    srv = HttpServer(s["http"], name)
    out: Dict[str, Any] = {}
    try:
        time.sleep(0.3)  # let the server settle before the idle reading
        out["rss_idle_mb"] = rss_mb(srv.proc.pid)
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
        out["rss_after_mb"] = rss_mb(srv.proc.pid)
        if srv.proc.poll() is not None:
            raise Fail(f"{name} HTTP server died: {srv.stderr()}")
    finally:
        srv.stop()
    return out


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
    """Flat metrics of one subject in one round (None when not run or n/a)."""
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
    h = r.get("http")
    if h:
        m["w4_idle_mb"] = h["rss_idle_mb"]
        m["w4_after_mb"] = h["rss_after_mb"]
        for v in (LEGACY, MODERN):
            w = h.get(f"wrk_{v}")
            m[f"w2_wrk_{v}"] = w.get("rps") if w else None
            c = h.get(f"client_{v}")
            m[f"w2_cseq_{v}"] = c["seq"]["n"] / c["seq"]["secs"] if c and "seq" in c else None
            m[f"w2_cconc_{v}"] = c["conc"]["n"] / c["conc"]["secs"] if c and "conc" in c else None
    if r.get("w6"):
        m["w6_us"] = r["w6"]["us_per_call"]
    return m


def fmt(x: Optional[Dict[str, float]], digits: int = 0, scale: float = 1.0) -> str:
    if not x:
        return "—"
    f = lambda v: f"{v * scale:,.{digits}f}"  # noqa: E731
    if x["n"] == 1:
        return f(x["median"])
    return f"{f(x['median'])} ({f(x['min'])}–{f(x['max'])})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small N, 1 round, short wrk: proves it works")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated subjects")
    ap.add_argument("--label", default="release")
    ap.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    args = ap.parse_args()
    env = dict(os.environ)
    cfg = dict(n=2000, n_http=1000, payload=1 << 20, payload_n=20, starts=5, wrk_secs=10, wrk_conns=32, rounds=3, timeout=300)
    if args.quick:
        cfg.update(n=50, n_http=30, payload_n=2, starts=1, wrk_secs=1, rounds=1, timeout=120)
    if args.rounds:
        cfg["rounds"] = args.rounds
    subs = subjects(env)
    if not env.get("BENCH_RMCP_BIN"):
        subs.pop("rmcp")
    if args.only:
        keep = set(args.only.split(","))
        subs = {k: v for k, v in subs.items() if k in keep}
    rbin = Path(env["BENCH_RUST_BIN"])
    started = dt.datetime.now(dt.timezone.utc)
    load_before = os.getloadavg()
    rounds: List[Dict[str, Dict[str, Any]]] = []
    errors: List[str] = []
    names = list(subs)
    for r in range(cfg["rounds"]):
        order = names if r % 2 == 0 else names[::-1]
        res: Dict[str, Dict[str, Any]] = {n: {} for n in names}
        for phase in ("stdio", "http", "w6"):
            for name in order:
                s = subs[name]
                if phase == "w6" and not name.startswith("mcpcore-"):
                    continue
                log(f"[round {r + 1}/{cfg['rounds']}] {phase:5} {name}")
                try:
                    if phase == "stdio":
                        res[name]["stdio"] = stdio_workload(s, cfg, name)
                    elif phase == "http":
                        res[name]["http"] = http_workload(s, cfg, name)
                    else:
                        res[name]["w6"] = w6_workload(s, cfg, name, rbin)
                except Fail as e:
                    log(f"  FAILED: {e}")
                    errors.append(f"round {r + 1} {phase} {name}: {e}")
        rounds.append(res)
    finished = dt.datetime.now(dt.timezone.utc)
    per_round = [{n: metrics(res[n]) for n in names} for res in rounds]
    summary = {n: {k: med([pr[n].get(k) for pr in per_round]) for k in per_round[0][n]} for n in names} if per_round else {}
    ratios: Dict[str, Dict[str, Any]] = {}
    for ours, theirs in PAIRS:
        if ours not in names or theirs not in names:
            continue
        keys = set(per_round[0][ours]) & set(per_round[0][theirs])
        rr: Dict[str, Any] = {}
        for k in sorted(keys):
            vals = []
            for pr in per_round:
                a, b = pr[ours].get(k), pr[theirs].get(k)
                if a and b:
                    lower_better = k.endswith(("_p50", "_p99", "_ms", "_mb", "_us"))
                    vals.append(b / a if lower_better else a / b)
            rr[k] = med(vals)
        ratios[f"{ours} vs {theirs}"] = rr
    # W6: µs added by the host callback = per-call time with a Python/JS tool minus the Rust tool, per round
    w6 = {}
    for lang in ("python", "node"):
        vals = []
        for pr in per_round:
            a, b = pr.get(f"mcpcore-{lang}", {}).get("w6_us"), pr.get("mcpcore-rust", {}).get("w6_us")
            if a is not None and b is not None:
                vals.append(a - b)
        w6[lang] = med(vals)
    info = machine_info(env)
    info.update(started=started.isoformat(timespec="seconds"), finished=finished.isoformat(timespec="seconds"),
                load_before=load_before, load_after=os.getloadavg(), config=cfg, label=args.label, quick=args.quick)
    doc = {"info": info, "rounds": rounds, "metrics_per_round": per_round, "summary": summary, "ratios": ratios,
           "w6_added_us": w6, "errors": errors, "subjects": {n: subs[n]["label"] for n in names}}
    outdir = BENCH / "results"
    outdir.mkdir(exist_ok=True)
    stem = started.strftime("%Y-%m-%dT%H%M%SZ") + ("-quick" if args.quick else "")
    (outdir / f"{stem}.json").write_text(json.dumps(doc, indent=1))
    md = render(doc, names, subs)
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


def render(doc: Dict[str, Any], names: List[str], subs: Dict[str, Any]) -> str:
    i, s, ratios = doc["info"], doc["summary"], doc["ratios"]
    cfg = i["config"]
    L: List[str] = []
    title = "# mcpcore benchmarks vs the official MCP SDKs"
    if i["quick"]:
        title += f" — {i['label']}, QUICK: proves it works, not a measurement"
    L += [title, ""]
    L += [f"Run {i['started']} → {i['finished']} (UTC); {i['cpu']}, {i['cores']} cores, {i['memory']}; Linux {i['kernel']}; "
          f"load average before {i['load_before'][0]:.2f} / after {i['load_after'][0]:.2f} (1 min). "
          f"{i['rustc']}; {i['python']}; Node {i['node']}; {i['wrk']}. mcpcore {i['mcpcore']} ({i['build']}). "
          "Peers: " + ", ".join(f"{k} {v}" for k, v in i["peers"].items()) + ".", ""]
    L += [f"Method: {cfg['rounds']} round(s); every round runs every subject (forward on even rounds, backward on odd), "
          "so pairs alternate A B … B A; cells are the median over rounds (min–max); ratios are taken pair by pair within a round, "
          f"then the median. Each peer runs its own server and its own client. stdio: lineage {STDIO_VERSION} (every peer speaks it), "
          f"N={cfg['n']} sequential calls, then N with 8 in flight; W3: {cfg['payload'] >> 20} MiB text echoed {cfg['payload_n']}× "
          f"(MB/s of payload one way); W5: spawn → first successful tools/call, median of {cfg['starts']} starts. "
          f"HTTP on 127.0.0.1: wrk -t2 -c{cfg['wrk_conns']} -d{cfg['wrk_secs']}s with a tools/call echo POST (unique ids, every reply "
          "checked for a result: failed requests abort the cell), 2025-11-25 on one session after initialize, 2026-07-28 stateless "
          f"with _meta and Mcp-* headers; then the SDK's own client: {cfg['n_http']} sequential calls and {cfg['n_http']} with 16 in flight. "
          "W4: RSS of the HTTP server idle (just started) and after W2.", ""]
    rows = [n for n in names]

    def table(header: List[str], cells) -> None:
        L.append("| " + " | ".join(header) + " |")
        L.append("|" + "---|" * len(header))
        for n in rows:
            c = cells(n)
            if c is not None:
                L.append("| " + " | ".join([subs[n]["label"]] + c) + " |")
        L.append("")

    g = lambda n, k: s.get(n, {}).get(k)  # noqa: E731
    L += ["## W1 stdio (calls/s; latency µs)", ""]
    table(["subject", "sequential calls/s", "seq p50 / p99 µs", "8 in flight calls/s", "8-in-flight p50 / p99 µs"],
          lambda n: [fmt(g(n, "w1_seq_cps")), f"{fmt(g(n, 'w1_seq_p50'))} / {fmt(g(n, 'w1_seq_p99'))}",
                     fmt(g(n, "w1_conc_cps")), f"{fmt(g(n, 'w1_conc_p50'))} / {fmt(g(n, 'w1_conc_p99'))}"])
    L += ["## W2 HTTP: server capacity under wrk (requests/s, all checked)", ""]

    def wrkcell(n: str, v: str) -> str:
        rr = doc["rounds"][0].get(n, {}).get("http", {}).get(f"wrk_{v}", {})
        if rr.get("na"):
            return rr["na"]
        if n == "raw" and v == LEGACY:
            return "(same fixed reply)"
        return fmt(g(n, f"w2_wrk_{v}"))

    table(["subject", f"{LEGACY} req/s", f"{MODERN} req/s"], lambda n: [wrkcell(n, LEGACY), wrkcell(n, MODERN)])
    L += ["## W2 HTTP: the SDK's own client (calls/s)", ""]

    def ccell(n: str, k: str, v: str) -> str:
        rr = doc["rounds"][0].get(n, {}).get("http", {}).get(f"client_{v}", {})
        return rr["na"] if rr.get("na") else fmt(g(n, f"{k}_{v}"))

    table(["subject", f"{LEGACY} sequential", f"{LEGACY} 16 in flight", f"{MODERN} sequential", f"{MODERN} 16 in flight"],
          lambda n: None if n == "raw" else [ccell(n, "w2_cseq", LEGACY), ccell(n, "w2_cconc", LEGACY), ccell(n, "w2_cseq", MODERN), ccell(n, "w2_cconc", MODERN)])
    L += ["## W3 payload, W4 memory, W5 start-up", ""]
    table(["subject", "W3 1 MiB echo MB/s", "W4 RSS idle MB", "W4 RSS after W2 MB", "W5 start-up ms"],
          lambda n: [fmt(g(n, "w3_mbs")), fmt(g(n, "w4_idle_mb"), 1), fmt(g(n, "w4_after_mb"), 1), fmt(g(n, "w5_ms"), 1)])
    L += ["## W6 binding overhead (the same echo tool served by mcpcore, one Rust client, stdio, sequential)", ""]
    L += ["| tool written in | µs per call | µs added by the host callback |", "|---|---|---|"]
    for lang, label in (("rust", "Rust"), ("python", "Python"), ("node", "JS (Node)")):
        n = f"mcpcore-{lang}"
        if n in names:
            added = "0 (reference)" if lang == "rust" else fmt(doc["w6_added_us"].get(lang), 1)
            L.append(f"| {label} | {fmt(g(n, 'w6_us'), 1)} | {added} |")
    L.append("")
    L += ["## Ratios (median of per-round ratios; >1 means mcpcore is better: faster, or smaller for memory/latency/start-up)", ""]
    keys = [("w1_seq_cps", "W1 seq"), ("w1_conc_cps", "W1 8-flight"), (f"w2_wrk_{LEGACY}", "W2 server 2025"), (f"w2_wrk_{MODERN}", "W2 server 2026"),
            (f"w2_cseq_{LEGACY}", "W2 client seq 2025"), (f"w2_cconc_{LEGACY}", "W2 client 16 2025"), (f"w2_cseq_{MODERN}", "W2 client seq 2026"),
            (f"w2_cconc_{MODERN}", "W2 client 16 2026"), ("w3_mbs", "W3"), ("w4_idle_mb", "W4 idle"), ("w4_after_mb", "W4 after"), ("w5_ms", "W5")]
    L.append("| pair | " + " | ".join(k[1] for k in keys) + " |")
    L.append("|" + "---|" * (len(keys) + 1))
    for pair, rr in ratios.items():
        cells = []
        for k, _ in keys:
            x = rr.get(k)
            cells.append(f"{x['median']:.2f}×" + (f" ({x['min']:.2f}–{x['max']:.2f})" if x and x["n"] > 1 else "") if x else "—")
        L.append(f"| {pair} | " + " | ".join(cells) + " |")
    L.append("")
    L += targets(doc, names)
    if doc["errors"]:
        L += ["## Errors", ""] + [f"- {e}" for e in doc["errors"]] + [""]
    return "\n".join(L)


def targets(doc: Dict[str, Any], names: List[str]) -> List[str]:
    s, ratios = doc["summary"], doc["ratios"]
    out = ["## Targets (issue 8)", "", "| target | measured | met |", "|---|---|---|"]

    def val(n: str, k: str) -> Optional[float]:
        x = s.get(n, {}).get(k)
        return x["median"] if x else None

    def ratio(pair: str, k: str) -> Optional[float]:
        x = ratios.get(pair, {}).get(k)
        return x["median"] if x else None

    def row(what: str, x: Optional[float], ok, unit: str = "") -> None:
        if x is None:
            out.append(f"| {what} | — | — |")
        else:
            out.append(f"| {what} | {x:,.2f}{unit} | {'yes' if ok(x) else 'NO'} |")

    rr = "mcpcore-rust vs rmcp"
    row("Rust W1 seq ≥ 3× rmcp", ratio(rr, "w1_seq_cps"), lambda x: x >= 3, "×")
    row("Rust W1 8-in-flight ≥ 3× rmcp", ratio(rr, "w1_conc_cps"), lambda x: x >= 3, "×")
    for v in (LEGACY, MODERN):
        row(f"Rust W2 server {v} ≥ 1.5× rmcp", ratio(rr, f"w2_wrk_{v}"), lambda x: x >= 1.5, "×")
        a, b = val("mcpcore-rust", f"w2_wrk_{v}"), val("raw", f"w2_wrk_{MODERN}")
        row(f"Rust W2 server {v} ≥ 65% of raw hyper", a / b * 100 if a and b else None, lambda x: x >= 65, "%")
    row("Rust W3 ≥ 200 MB/s", val("mcpcore-rust", "w3_mbs"), lambda x: x >= 200, " MB/s")
    row("Rust W4 idle ≤ 4 MB", val("mcpcore-rust", "w4_idle_mb"), lambda x: x <= 4, " MB")
    row("Rust W5 ≤ 3 ms", val("mcpcore-rust", "w5_ms"), lambda x: x <= 3, " ms")
    pr = "mcpcore-python vs python-sdk"
    for k, what in (("w1_seq_cps", "W1 seq"), ("w1_conc_cps", "W1 8-in-flight"), (f"w2_wrk_{LEGACY}", "W2 server 2025-11-25"),
                    (f"w2_wrk_{MODERN}", "W2 server 2026-07-28"), (f"w2_cseq_{LEGACY}", "W2 client seq 2025-11-25"),
                    (f"w2_cconc_{LEGACY}", "W2 client 16 2025-11-25"), (f"w2_cseq_{MODERN}", "W2 client seq 2026-07-28"),
                    (f"w2_cconc_{MODERN}", "W2 client 16 2026-07-28")):
        row(f"Python {what} ≥ 10× Python SDK", ratio(pr, k), lambda x: x >= 10, "×")
    row("Python W4 idle ≤ 25 MB", val("mcpcore-python", "w4_idle_mb"), lambda x: x <= 25, " MB")
    row("Python W5 ≤ 100 ms", val("mcpcore-python", "w5_ms"), lambda x: x <= 100, " ms")
    nr = "mcpcore-node vs ts-v2"
    for k, what in (("w1_seq_cps", "W1 seq"), ("w1_conc_cps", "W1 8-in-flight"), (f"w2_wrk_{LEGACY}", "W2 server 2025-11-25"),
                    (f"w2_wrk_{MODERN}", "W2 server 2026-07-28"), (f"w2_cseq_{LEGACY}", "W2 client seq 2025-11-25"),
                    (f"w2_cconc_{LEGACY}", "W2 client 16 2025-11-25"), (f"w2_cseq_{MODERN}", "W2 client seq 2026-07-28"),
                    (f"w2_cconc_{MODERN}", "W2 client 16 2026-07-28")):
        row(f"Node {what} ≥ 5× TS SDK v2", ratio(nr, k), lambda x: x >= 5, "×")
    row("Node W4 idle ≤ 40 MB", val("mcpcore-node", "w4_idle_mb"), lambda x: x <= 40, " MB")
    w6 = doc["w6_added_us"]
    row("W6 Python tool ≤ 20 µs/call added", w6.get("python", {}) and w6["python"]["median"] if w6.get("python") else None, lambda x: x <= 20, " µs")
    row("W6 JS tool ≤ 10 µs/call added", w6["node"]["median"] if w6.get("node") else None, lambda x: x <= 10, " µs")
    out.append("")
    return out


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
