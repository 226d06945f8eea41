"""bench/gateway.py: W8, what `mcpcore gateway` (issue 17) costs per call and per upstream.

The same mcpcore client (mcpcore_driver) calls the Rust echo_server's `echo` directly and through
a gateway fronting it with `"prefix": ""` (so the tool keeps its name), in each lineage:

- stdio: the driver spawns `echo_server` (direct) or `mcpcore gateway --config` whose one upstream
  is `echo_server` as a stdio child (through): N sequential calls (p50/p99), then N with 8 in
  flight (calls/s);
- HTTP: `echo_server --http` (direct) and `mcpcore gateway --listen` whose upstream is that same
  server over Streamable HTTP (through): N sequential calls, then N with 16 in flight.

Added latency = through p50 − direct p50; throughput cost = through calls/s ÷ direct calls/s.
Memory per upstream: the RSS of the gateway process alone (its upstreams are other processes)
with 11 stdio `echo_server` upstreams less with 1, divided by 10, after one listing through it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

LEGACY, MODERN = "2025-11-25", "2026-07-28"
_FILES: List[str] = []


def _config(servers: Dict[str, Any]) -> str:
    """Writes an mcpServers config to a temporary file; returns its path."""
    f = tempfile.NamedTemporaryFile("w", suffix=".json", prefix="mcpcore-w8-", delete=False)
    json.dump({"mcpServers": servers}, f)
    f.close()
    _FILES.append(f.name)
    return f.name


def _own_rss_mb(pid: int) -> float:
    """VmRSS of one process (not its children)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def w8(h: Any, cfg: Dict[str, Any]) -> Dict[str, Any]:
    """One round of W8 (see the module docs)."""
    rbin = h.RBIN
    echo, gw, drv = str(rbin / "echo_server"), str(rbin / "mcpcore"), str(rbin / "mcpcore_driver")
    out: Dict[str, Any] = {}
    try:
        stdio_cfg = _config({"echo": {"command": echo, "prefix": ""}})
        for v in (LEGACY, MODERN):
            base = [drv, "stdio", str(cfg["n"]), "8", "1", "0", "1", v, "--"]
            out[f"stdio_direct_{v}"] = h.run_json(base + [echo], cfg["timeout"], f"W8 stdio direct {v}")
            out[f"stdio_gateway_{v}"] = h.run_json(base + [gw, "gateway", "--config", stdio_cfg], cfg["timeout"],
                                                   f"W8 stdio through the gateway {v}")
        up = h.HttpServer(lambda a: [echo, "--http", a], "W8 echo_server")
        try:
            http_cfg = _config({"echo": {"url": up.url, "type": "http", "prefix": ""}})
            front = h.HttpServer(lambda a: [gw, "gateway", "--config", http_cfg, "--listen", a], "W8 gateway")
            try:
                for v in (LEGACY, MODERN):
                    for kind, url in (("direct", up.url), ("gateway", front.url)):
                        cmd = [drv, "http", url, v, str(cfg["n_http"]), "16"]
                        out[f"http_{kind}_{v}"] = h.run_json(cmd, cfg["timeout"], f"W8 http {kind} {v}")
            finally:
                front.stop()
        finally:
            up.stop()
        rss = {}
        for k in (1, 11):
            # The first keeps the name `echo` (no prefix) for the listing call; the rest `eNN__echo`.
            many = _config({f"e{i:02}": {"command": echo, **({"prefix": ""} if i == 0 else {})} for i in range(k)})
            g = h.HttpServer(lambda a: [gw, "gateway", "--config", many, "--listen", a], f"W8 gateway with {k} upstreams")
            try:
                h.run_json([drv, "http", g.url, MODERN, "1", "1"], cfg["timeout"], f"W8 gateway with {k} upstreams")
                rss[k] = _own_rss_mb(g.proc.pid)
            finally:
                g.stop()
        out["rss_1_mb"] = rss[1]
        out["mb_per_upstream"] = (rss[11] - rss[1]) / 10
    finally:
        for f in _FILES:
            Path(f).unlink(missing_ok=True)
        _FILES.clear()
    return out


def metrics(r: Dict[str, Any], m: Dict[str, Optional[float]]) -> None:
    """W8's flat metrics of one round."""
    w = r.get("w8")
    if not w:
        return
    for t in ("stdio", "http"):
        for v in (LEGACY, MODERN):
            d, g = w[f"{t}_direct_{v}"], w[f"{t}_gateway_{v}"]
            for kind, x in (("direct", d), ("gateway", g)):
                m[f"w8_{t}_{kind}_{v}_p50"] = x["seq"]["p50_us"]
                m[f"w8_{t}_{kind}_{v}_p99"] = x["seq"]["p99_us"]
                m[f"w8_{t}_{kind}_{v}_cps"] = x["conc"]["n"] / x["conc"]["secs"]
            m[f"w8_{t}_added_{v}_us"] = g["seq"]["p50_us"] - d["seq"]["p50_us"]
            m[f"w8_{t}_ratio_{v}"] = m[f"w8_{t}_gateway_{v}_cps"] / m[f"w8_{t}_direct_{v}_cps"]
    m["w8_rss_1_mb"] = w["rss_1_mb"]
    m["w8_mb_per_upstream"] = w["mb_per_upstream"]


def render(doc: Dict[str, Any], cell) -> List[str]:
    """The W8 section of RESULTS.md (`cell(subject, key, digits)` formats a summary cell)."""
    if not any(k.startswith("w8_") for k in doc["summary"].get("mcpcore-rust", {})):
        return []
    n = "mcpcore-rust"
    cfg = doc["info"]["config"]
    L = ["## W8 gateway: the cost of `mcpcore gateway` per call and per upstream", "",
         f"The mcpcore Rust client calls the Rust `echo_server` directly and through `mcpcore gateway` fronting it (`\"prefix\": \"\"`): "
         f"stdio — the gateway on stdio with the echo server as its stdio child, N={cfg['n']} sequential calls, then N with 8 in "
         f"flight; HTTP — the echo server on 127.0.0.1 and the gateway on another port with it as a Streamable HTTP upstream, "
         f"N={cfg['n_http']} sequential calls, then N with 16 in flight. Added = through p50 − direct p50; ratio = calls/s through "
         "÷ calls/s direct (in flight).", "",
         "| transport, lineage | direct p50 / p99 µs | through p50 / p99 µs | added µs (p50) | direct calls/s | through calls/s | ratio |",
         "|---|---|---|---|---|---|---|"]
    for t, label in (("stdio", "stdio"), ("http", "HTTP")):
        for v in (LEGACY, MODERN):
            k = f"w8_{t}"
            L.append(f"| {label} {v} | {cell(n, f'{k}_direct_{v}_p50')} / {cell(n, f'{k}_direct_{v}_p99')} | "
                     f"{cell(n, f'{k}_gateway_{v}_p50')} / {cell(n, f'{k}_gateway_{v}_p99')} | {cell(n, f'{k}_added_{v}_us')} | "
                     f"{cell(n, f'{k}_direct_{v}_cps')} | {cell(n, f'{k}_gateway_{v}_cps')} | {cell(n, f'{k}_ratio_{v}', 2)} |")
    L += ["", f"Memory: the gateway process with one stdio upstream {cell(n, 'w8_rss_1_mb', 1)} MB RSS; each further upstream adds "
          f"{cell(n, 'w8_mb_per_upstream', 2)} MB (11 upstreams less 1, ÷ 10; the upstreams' own processes not counted).", ""]
    return L
