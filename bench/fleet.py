"""bench/fleet.py: W7, mcpcore as N instances behind nginx with no affinity (issue 16).

The Rust `echo_server` runs as one instance with sessions in memory, one with `--store
redis://…`, and N instances with the store (`BENCH_W7_INSTANCES`, default `3`; one row per
count), each set behind nginx round-robin (`worker_processes auto`, upstream keep-alive), on
loopback ports, with one `redis-server` (no persistence). In each lineage (2025-11-25: one
session after initialize, every POST landing on the next instance; 2026-07-28: stateless):

- wrk (`-t2 -c32 -d10s` as W2; `BENCH_W7_THREADS`, `BENCH_W7_CONNS` to change) through nginx:
  requests/s and p50/p99, every reply checked;
- CPU per request: the CPU time (user + system, `/proc/<pid>/stat`) the instances, Redis and
  nginx spent during the wrk run, divided by its requests, so the cost of a request can be read
  on a machine with fewer cores than processes;
- the mcpcore Rust client's N sequential calls through nginx: p50/p99, so the latency Redis adds
  to a legacy request = p50 (1 instance, Redis) − p50 (1 instance, memory).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

LEGACY, MODERN = "2025-11-25", "2026-07-28"
STATE_KEY = "4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21"
TICK = os.sysconf("SC_CLK_TCK")


def setups() -> List[Dict[str, Any]]:
    """(label, instances, store) of each row."""
    counts = [int(x) for x in os.environ.get("BENCH_W7_INSTANCES", "3").split(",") if x.strip()]
    rows = [{"key": "mem_1", "n": 1, "store": False}, {"key": "redis_1", "n": 1, "store": True}]
    rows += [{"key": f"redis_{n}", "n": n, "store": True} for n in counts if n != 1]
    return rows


def _cpu_ticks(pids: List[int]) -> int:
    total = 0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])  # utime, stime (fields 14 and 15)
        except (OSError, IndexError, ValueError):
            pass
    return total


def _children(pid: int) -> List[int]:
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        return [int(p) for p in out]
    except OSError:
        return []


def _nginx_exe() -> Optional[str]:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def _listening(h: Any, port: int, proc: subprocess.Popen, what: str, err) -> None:
    """Waits (30 s at most) until `port` accepts connections."""
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise h.Fail(f"W7 {what} exited: {err()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise h.Fail(f"W7 {what} not listening after 30 s: {err()}")
            time.sleep(0.02)


class _Process:
    """A child in its own process group, stderr kept, listening on `port`."""

    def __init__(self, h: Any, cmd: List[str], port: int, what: str, env: Optional[Dict[str, str]] = None):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err,
                                     start_new_session=True, env=env)
        h.CHILDREN.append(self.proc)
        _listening(h, port, self.proc, what, self.stderr)

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode(errors="replace")[-1500:]

    def pids(self) -> List[int]:
        return [self.proc.pid] + _children(self.proc.pid)


def _nginx(h: Any, exe: str, port: int, ports: List[int], d: str) -> _Process:
    """nginx on `port`, round-robin over `ports`."""
    servers = " ".join(f"server 127.0.0.1:{p};" for p in ports)
    conf = (
        f"worker_processes auto; error_log {d}/error.log warn; pid {d}/nginx.pid; daemon off;\n"
        f"events {{ worker_connections 4096; }}\n"
        f"http {{ access_log off; client_body_temp_path {d}/b; proxy_temp_path {d}/p; fastcgi_temp_path {d}/f;\n"
        f"  uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;\n"
        f"  upstream mcp {{ {servers} keepalive 64; }}\n"
        f"  server {{ listen 127.0.0.1:{port}; location / {{ proxy_pass http://mcp; proxy_http_version 1.1;\n"
        f"    proxy_set_header Connection \"\"; proxy_set_header Host $http_host; proxy_buffering off; }} }} }}\n"
    )
    Path(d, "nginx.conf").write_text(conf)
    return _Process(h, [exe, "-p", d, "-e", f"{d}/error.log", "-c", f"{d}/nginx.conf"], port, "nginx")


def w7(h: Any, cfg: Dict[str, Any]) -> Dict[str, Any]:
    """One round of W7 (see the module docs)."""
    redis, nginx = shutil.which("redis-server"), _nginx_exe()
    if not redis or not nginx:
        raise h.Fail("W7 needs redis-server and nginx (apt-get install redis-server nginx)")
    echo, drv = str(h.RBIN / "echo_server"), str(h.RBIN / "mcpcore_driver")
    threads = os.environ.get("BENCH_W7_THREADS", "2")
    conns = int(os.environ.get("BENCH_W7_CONNS", str(cfg["wrk_conns"])))
    out: Dict[str, Any] = {"threads": threads, "conns": conns}
    with tempfile.TemporaryDirectory(prefix="mcpcore-w7-") as d:
        rport = h.free_port()
        cmd = [redis, "--port", str(rport), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", d]
        rproc = _Process(h, cmd, rport, "redis-server")
        try:
            for row in setups():
                out[row["key"]] = _row(h, cfg, row, echo, drv, nginx, d, rport, rproc.proc.pid, threads, conns)
        finally:
            h.stop(rproc.proc)
    return out


def _row(h: Any, cfg: Dict[str, Any], row: Dict[str, Any], echo: str, drv: str, nginx: str, d: str, rport: int,
         rpid: int, threads: str, conns: int) -> Dict[str, Any]:
    """One setup: its instances and nginx, wrk and the sequential client in both lineages."""
    env = dict(os.environ, MCPCORE_STATE_KEY=STATE_KEY)
    lb = h.free_port()
    url = f"http://127.0.0.1:{lb}/mcp"
    running: List[_Process] = []
    res: Dict[str, Any] = {}
    try:
        ports = [h.free_port() for _ in range(row["n"])]
        for p in ports:
            cmd = [echo, "--http", f"127.0.0.1:{p}", "--allowed-host", f"127.0.0.1:{lb}"]
            if row["store"]:
                cmd += ["--store", f"redis://127.0.0.1:{rport}/0"]
            running.append(_Process(h, cmd, p, f"{row['key']} instance", env))
        instances = list(running)
        proxy = _nginx(h, nginx, lb, ports, d)
        running.append(proxy)
        for v in (LEGACY, MODERN):
            headers, pre, post_ = h.wire_request(url, v)
            watched = [i.proc.pid for i in instances]
            before = (_cpu_ticks(watched), _cpu_ticks([rpid]), _cpu_ticks(proxy.pids()))
            if threads == "2":
                w = h.run_wrk(url, headers, pre, post_, cfg["wrk_secs"], conns)
            else:
                w = _run_wrk_threads(h, url, headers, pre, post_, cfg["wrk_secs"], conns, threads)
            after = (_cpu_ticks(watched), _cpu_ticks([rpid]), _cpu_ticks(proxy.pids()))
            if w["failed"]:
                raise h.Fail(f"W7 {row['key']} wrk {v}: {w['failed']} failed of {w['requests']}: {w.get('failed_sample', '')}")
            per = lambda i: (after[i] - before[i]) / TICK * 1e6 / max(w["requests"], 1)  # noqa: E731
            w.update(cpu_server_us=per(0), cpu_redis_us=per(1), cpu_nginx_us=per(2))
            res[f"wrk_{v}"] = w
            res[f"client_{v}"] = h.run_json([drv, "http", url, v, str(cfg["n_http"]), "16"], cfg["timeout"],
                                            f"W7 {row['key']} client {v}")
        for i in instances:
            if i.proc.poll() is not None:
                raise h.Fail(f"W7 {row['key']} instance died: {i.stderr()}")
    finally:
        for p in reversed(running):
            h.stop(p.proc)
    return res


def _run_wrk_threads(h: Any, url: str, headers: Dict[str, str], pre: str, post_: str, secs: int, conns: int,
                     threads: str) -> Dict[str, Any]:
    """run_wrk with another thread count (a bigger machine)."""
    real = shutil.which("wrk")
    wrapper = Path(tempfile.mkdtemp(prefix="mcpcore-w7-wrk-"), "wrk")
    wrapper.write_text(f"#!/bin/sh\nshift\nexec {real} -t{threads} \"$@\"\n")
    wrapper.chmod(0o755)
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{wrapper.parent}:{path}"
    try:
        return h.run_wrk(url, headers, pre, post_, secs, conns)
    finally:
        os.environ["PATH"] = path
        shutil.rmtree(wrapper.parent, ignore_errors=True)


def metrics(r: Dict[str, Any], m: Dict[str, Optional[float]]) -> None:
    """W7's flat metrics of one round."""
    w = r.get("w7")
    if not w:
        return
    for row in setups():
        x = w.get(row["key"])
        if not x:
            continue
        for v in (LEGACY, MODERN):
            k = f"w7_{row['key']}_{v}"
            wrk = x[f"wrk_{v}"]
            m[f"{k}_rps"] = wrk["rps"]
            m[f"{k}_p50"] = wrk["p50_us"]
            m[f"{k}_p99"] = wrk["p99_us"]
            m[f"{k}_cpu_server"] = wrk["cpu_server_us"]
            m[f"{k}_cpu_redis"] = wrk["cpu_redis_us"]
            m[f"{k}_cpu_nginx"] = wrk["cpu_nginx_us"]
            c = x[f"client_{v}"]
            m[f"{k}_seq_p50"] = c["seq"]["p50_us"]
            m[f"{k}_seq_p99"] = c["seq"]["p99_us"]
    for v in (LEGACY, MODERN):
        a, b = m.get(f"w7_redis_1_{v}_seq_p50"), m.get(f"w7_mem_1_{v}_seq_p50")
        if a is not None and b is not None:
            m[f"w7_added_{v}_us"] = a - b


def render(doc: Dict[str, Any], cell) -> List[str]:
    """The W7 section of RESULTS.md (`cell(subject, key, digits)` formats a summary cell)."""
    n = "mcpcore-rust"
    if not any(k.startswith("w7_") for k in doc["summary"].get(n, {})):
        return []
    cfg = doc["info"]["config"]
    keys = sorted({k.split("_20")[0][3:] for k in doc["summary"][n] if k.startswith("w7_mem_") or k.startswith("w7_redis_")},
                  key=lambda s: (s.startswith("redis"), int(s.rsplit("_", 1)[1])))
    label = {"mem_1": "1 instance, sessions in memory"}
    L = ["## W7 scale-out: N instances behind nginx, sessions in Redis", "",
         f"The Rust `echo_server` behind nginx round-robin with no affinity (`worker_processes auto`, upstream keep-alive), "
         f"one `redis-server` without persistence, all on 127.0.0.1: wrk through nginx as W2 (2025-11-25 on one session, every "
         f"POST on the next instance; 2026-07-28 stateless), every reply checked; CPU per request = CPU time (user + system) of "
         f"the instances, Redis and nginx during the wrk run ÷ its requests; then the mcpcore Rust client's N={cfg['n_http']} "
         "sequential calls through nginx. Redis's added latency per legacy request = sequential p50 with the store − in memory "
         "(1 instance each). On 2 cores the instances, Redis, nginx and wrk share the same cores: read the CPU per request to "
         "see how throughput would scale with more cores (`bench/README.md`, W7).", "",
         "| setup | lineage | requests/s | p50 / p99 µs | CPU µs per request: instances + Redis + nginx | sequential p50 / p99 µs |",
         "|---|---|---|---|---|---|"]
    for key in keys:
        count = int(key.rsplit("_", 1)[1])
        name = label.get(key, f"{count} instance{'s' if count > 1 else ''}, sessions in Redis")
        for v in (LEGACY, MODERN):
            k = f"w7_{key}_{v}"
            L.append(f"| {name} | {v} | {cell(n, f'{k}_rps')} | {cell(n, f'{k}_p50')} / {cell(n, f'{k}_p99')} | "
                     f"{cell(n, f'{k}_cpu_server')} + {cell(n, f'{k}_cpu_redis')} + {cell(n, f'{k}_cpu_nginx')} | "
                     f"{cell(n, f'{k}_seq_p50')} / {cell(n, f'{k}_seq_p99')} |")
    L += ["", f"Added latency per request with sessions in Redis (sequential p50, 1 instance, Redis − memory): 2025-11-25 "
          f"{cell(n, 'w7_added_2025-11-25_us')} µs; 2026-07-28 (stateless: no session to load) {cell(n, 'w7_added_2026-07-28_us')} µs.", ""]
    return L
