"""bench/scale.py: the scale workloads of bench/harness.py (issue 19).

W9  catalogue: 1,000 tools and 10,000 resources registered; start-up (spawn -> first complete
    tools/list + resources/list), the latency of a complete listing (every page), the server's RSS
    with the catalogue; and for mcpcore the in-process cost of registering 1,000 tools.
W10 many streams: N subscriptions/listen streams (2026-07-28) and N legacy GET streams (one per
    2025-11-25 session) held open on one server: RSS per stream and the time for one
    notifications/tools/list_changed to reach every stream.
W11 payload scale: W3's echo at 64 KiB, 1 MiB and 16 MiB on stdio and HTTP; the payload goes to the
    server and back in every call (MB/s of payload one way, as W3).

The same client measures every server in W9 and W10 (mcpcore_driver: the mcpcore Rust client for
W9, raw HTTP/1.1 for W10), so those columns compare servers. W11 uses each peer's own client, as W3.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional

LEGACY, MODERN = "2025-11-25", "2026-07-28"
SIZES_FULL = [64 << 10, 1 << 20, 16 << 20]
SIZES_QUICK = [64 << 10, 1 << 20]


def size_label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def w9(h: Any, s: Dict[str, Any], cfg: Dict[str, Any], name: str, config: str) -> Dict[str, Any]:
    """One server with the catalogue: start-up, listing latency, RSS."""
    srv = h.HttpServer(lambda a: s["scale_http"](a, config == "best", True), name, wait=False)
    try:
        cmd = [str(h.RBIN / "mcpcore_driver"), "catalogue", srv.url, LEGACY, str(cfg["w9_rounds"]), "1000", "10000"]
        r = h.run_json(cmd, cfg["timeout"], f"W9 {name} {config}")
        r["startup_ms"] = (r["ready_unix"] - srv.spawned) * 1e3
        r["rss_mb"] = h.rss_mb(srv.proc.pid)
        if srv.proc.poll() is not None:
            raise h.Fail(f"{name} W9 server died: {srv.stderr()}")
        return r
    finally:
        srv.stop()


def w9_register(h: Any, cfg: Dict[str, Any]) -> Dict[str, Any]:
    return h.run_json([str(h.RBIN / "mcpcore_driver"), "register", "1000"], cfg["timeout"], "W9 registration")


def w10(h: Any, s: Dict[str, Any], cfg: Dict[str, Any], name: str, config: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for mode in ("modern", "legacy"):
        na = s.get("w10_na", {}).get(f"{mode}@{config}")
        if na:
            out[mode] = {"na": na}
            continue
        srv = h.HttpServer(lambda a: s["scale_http"](a, config == "best", False), name)
        try:
            time.sleep(0.3)
            cmd = [str(h.RBIN / "mcpcore_driver"), "streams", srv.url, mode, str(cfg["w10_streams"]), str(srv.proc.pid)]
            out[mode] = h.run_json(cmd, cfg["timeout"], f"W10 {name} {config} {mode}")
            if srv.proc.poll() is not None:
                raise h.Fail(f"{name} W10 server died: {srv.stderr()}")
        finally:
            srv.stop()
    return out


def w11_stdio(h: Any, s: Dict[str, Any], cfg: Dict[str, Any], name: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for size in cfg["w11_sizes"]:
        limit = s.get("w11_limit")
        if limit and size >= limit[0]:
            out[str(size)] = {"na": limit[1]}
            continue
        mode = s.get("stdio_mode", "stdio")
        cmd = s["driver"] + [mode, "0", "1", str(size), str(cfg["w11_reps"]), "0", h.STDIO_VERSION, "--"] + s["scale_stdio"]
        out[str(size)] = h.run_json(cmd, cfg["timeout"], f"W11 stdio {name} {size_label(size)}")["payload"]
    return out


def w11_http(h: Any, s: Dict[str, Any], cfg: Dict[str, Any], name: str, config: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if not s.get("scale_http"):
        return {"na": "no HTTP echo (the raw HTTP ceiling is a fixed reply)"}
    srv = h.HttpServer(lambda a: s["scale_http"](a, config == "best", False), name)
    try:
        for size in cfg["w11_sizes"]:
            limit = s.get("w11_limit")
            if limit and size >= limit[0]:
                out[str(size)] = {"na": limit[1]}
                continue
            cmd = s["driver"] + ["http", srv.url, LEGACY, "0", "1", str(size), str(cfg["w11_reps"])]
            out[str(size)] = h.run_json(cmd, cfg["timeout"], f"W11 http {name} {config} {size_label(size)}")["payload"]
        if srv.proc.poll() is not None:
            raise h.Fail(f"{name} W11 server died: {srv.stderr()}")
    finally:
        srv.stop()
    return out


def mbs(p: Dict[str, Any]) -> Optional[float]:
    if not p or p.get("na") or not p.get("n"):
        return None
    return p["bytes"] * p["n"] / p["secs"] / 1e6


def metrics(r: Dict[str, Any], m: Dict[str, Optional[float]]) -> None:
    """Adds the flat W9-W11 metrics of one subject in one round to `m` (keys end in @config)."""
    for config, w in (r.get("w9") or {}).items():
        m[f"w9_startup_ms@{config}"] = w["startup_ms"]
        m[f"w9_tools_ms@{config}"] = w["tools"]["median_ms"]
        m[f"w9_resources_ms@{config}"] = w["resources"]["median_ms"]
        m[f"w9_rss_mb@{config}"] = w["rss_mb"]
    if r.get("w9_register"):
        m["w9_register_simple_ms"] = r["w9_register"]["simple_ms"]
        m["w9_register_full_ms"] = r["w9_register"]["full_ms"]
    for config, w in (r.get("w10") or {}).items():
        for mode, x in w.items():
            if x.get("na"):
                continue
            m[f"w10_{mode}_kb_per_stream@{config}"] = x["kb_per_stream"]
            m[f"w10_{mode}_fanout_ms@{config}"] = x["fanout_all_ms"]
    for size, p in (r.get("w11_stdio") or {}).items():
        m[f"w11_stdio_{size}_mbs"] = mbs(p)
    for config, w in (r.get("w11_http") or {}).items():
        for size, p in w.items():
            if isinstance(p, dict):
                m[f"w11_http_{size}_mbs@{config}"] = mbs(p)


def na_of(doc: Dict[str, Any], n: str, path: List[str]) -> Optional[str]:
    """The n/a reason recorded for subject n at path (first round), if any."""
    x: Any = doc["rounds"][0].get(n, {}) if doc["rounds"] else {}
    for p in path:
        if not isinstance(x, dict):
            return None
        x = x.get(p)
    return x.get("na") if isinstance(x, dict) else None


def render(doc: Dict[str, Any], rows: List[str], subs: Dict[str, Any], cell: Callable[..., str], configs: Callable[[str], List[str]]) -> List[str]:
    """The W9-W11 sections of RESULTS.md. `cell(n, key)` formats a summary cell; configs(n) lists
    the configurations subject n ran."""
    cfg = doc["info"]["config"]
    L: List[str] = []

    def header(cols: List[str]) -> None:
        L.append("| " + " | ".join(cols) + " |")
        L.append("|" + "---|" * len(cols))

    def label(n: str, config: str) -> str:
        base = subs[n]["label"]
        if len(configs(n)) == 1:
            return base
        return f"{base} — {'best' if config == 'best' else 'defaults'}"

    L += ["## W9 catalogue scale: 1,000 tools + 10,000 resources (HTTP, 2025-11-25; the mcpcore Rust client lists for every server)", ""]
    header(["subject (configuration)", "start-up to first complete listing ms", "tools/list, all pages ms",
            "resources/list, all pages ms", "RSS with the catalogue MB"])
    for n in rows:
        if n == "raw":
            continue
        for config in configs(n):
            L.append(f"| {label(n, config)} | {cell(n, f'w9_startup_ms@{config}', 1)} | {cell(n, f'w9_tools_ms@{config}', 1)} | "
                     f"{cell(n, f'w9_resources_ms@{config}', 1)} | {cell(n, f'w9_rss_mb@{config}', 1)} |")
    L.append("")
    if "mcpcore-rust" in rows:
        L += [f"Registration of 1,000 tools in-process (mcpcore, `mcpcore_driver register 1000`): the catalogue's schemas "
              f"(checked by the simple-schema path) {cell('mcpcore-rust', 'w9_register_simple_ms', 1)} ms; the same schemas plus "
              f"`format` (jsonschema, meta-schema check included) {cell('mcpcore-rust', 'w9_register_full_ms', 1)} ms.", ""]
    L += [f"## W10 many streams: {cfg['w10_streams']:,} streams on one server (raw HTTP/1.1 client, one connection per stream)", ""]
    header(["subject (configuration)", "listen: KB RSS per stream", "listen: list_changed to all ms",
            "GET: KB RSS per stream", "GET: list_changed to all ms"])
    for n in rows:
        if n == "raw":
            continue
        for config in configs(n):
            cells = []
            for mode in ("modern", "legacy"):
                na = na_of(doc, n, ["w10", config, mode])
                if na:
                    cells += [f"n/a ({na})", "n/a"]
                else:
                    cells += [cell(n, f"w10_{mode}_kb_per_stream@{config}", 1), cell(n, f"w10_{mode}_fanout_ms@{config}", 1)]
            L.append(f"| {label(n, config)} | " + " | ".join(cells) + " |")
    L.append("")
    sizes = [str(x) for x in cfg["w11_sizes"]]
    L += [f"## W11 payload scale: echo of one text argument, {cfg['w11_reps']}× per size (MB/s of payload one way)", ""]
    header(["subject (configuration)"] + [f"stdio {size_label(int(x))}" for x in sizes] + [f"HTTP {size_label(int(x))}" for x in sizes])
    for n in rows:
        for i, config in enumerate(configs(n)):
            cells = []
            for x in sizes:
                if i > 0:
                    cells.append("(as above)")  # stdio has one configuration
                    continue
                na = na_of(doc, n, ["w11_stdio", x])
                cells.append(f"n/a ({na})" if na else cell(n, f"w11_stdio_{x}_mbs", 0))
            for x in sizes:
                na = na_of(doc, n, ["w11_http", config, x]) or na_of(doc, n, ["w11_http", config])
                cells.append(f"n/a ({na})" if na else cell(n, f"w11_http_{x}_mbs@{config}", 0))
            L.append(f"| {label(n, config)} | " + " | ".join(cells) + " |")
    L.append("")
    return L
