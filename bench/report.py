"""bench/report.py: ratios, targets and RESULTS.md for bench/harness.py.

Metric keys of HTTP and scale workloads end in `@defaults` or `@best` (a peer's two
configurations); mcpcore and the raw ceilings run one configuration, recorded as `@defaults`.
Ratios and targets are taken against each peer's best configuration; the defaults ratios are
information.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import fleet
import gateway
import soak_report
import scale
import stateless

LEGACY, MODERN = "2025-11-25", "2026-07-28"

# Pairs whose ratio is reported: (ours, theirs).
PAIRS = [
    ("mcpcore-rust", "rmcp"),
    ("mcpcore-rust", "raw"),
    ("mcpcore-rust-spin", "raw"),
    ("mcpcore-python", "python-sdk"),
    ("mcpcore-node", "ts-v2"),
    ("mcpcore-node", "ts-v1"),
]

LOWER_BETTER = ("_p50", "_p99", "_ms", "_mb", "_us", "_stream")


def med(xs: List[Optional[float]]) -> Optional[Dict[str, float]]:
    import statistics

    ys = [x for x in xs if x is not None]
    if not ys:
        return None
    return {"median": statistics.median(ys), "min": min(ys), "max": max(ys), "n": len(ys)}


def split(k: str) -> tuple:
    base, _, config = k.partition("@")
    return base, config


def pair_key(k: str, config: str, theirs: Dict[str, Any]) -> Optional[str]:
    """The key of the other subject that `k` (ours) compares with, in configuration `config`."""
    base, at = split(k)
    if not at:
        return k if k in theirs else None
    for cand in (f"{base}@{config}", f"{base}@defaults"):
        if cand in theirs:
            # a single-configuration subject (the raw ceilings) answers for both
            if cand.endswith("@defaults") and config == "best" and any(x.endswith("@best") for x in theirs):
                continue
            return cand
    return None


def ratios(per_round: List[Dict[str, Dict[str, Any]]], names: List[str]) -> Dict[str, Dict[str, Any]]:
    """Per pair and configuration, the median over rounds of ours/theirs (>1: mcpcore better)."""
    out: Dict[str, Dict[str, Any]] = {}
    for ours, theirs in PAIRS:
        if ours not in names or theirs not in names or not per_round:
            continue
        peer_configs = ["best", "defaults"] if any(k.endswith("@best") for pr in per_round for k in pr[theirs]) else ["defaults"]
        for config in peer_configs:
            rr: Dict[str, Any] = {}
            for k in sorted({k for pr in per_round for k in pr[ours]}):
                if split(k)[1] not in ("", "defaults"):
                    continue
                vals = []
                for pr in per_round:
                    tk = pair_key(k, config, pr[theirs])
                    a, b = pr[ours].get(k), pr[theirs].get(tk) if tk else None
                    if a and b:
                        vals.append(b / a if split(k)[0].endswith(LOWER_BETTER) else a / b)
                rr[split(k)[0]] = med(vals)
            label = f"{ours} vs {theirs}" + (f" ({config})" if len(peer_configs) > 1 else "")
            out[label] = rr
    return out


def w6_added(per_round: List[Dict[str, Dict[str, Any]]]) -> Dict[str, Any]:
    """W6: µs added by the host callback = per-call time with a Python/JS tool minus the Rust tool."""
    w6 = {}
    for lang in ("python", "node"):
        vals = []
        for pr in per_round:
            a, b = pr.get(f"mcpcore-{lang}", {}).get("w6_us"), pr.get("mcpcore-rust", {}).get("w6_us")
            if a is not None and b is not None:
                vals.append(a - b)
        w6[lang] = med(vals)
    return w6


def fmt(x: Optional[Dict[str, float]], digits: int = 0) -> str:
    if not x:
        return "—"
    f = lambda v: f"{v:,.{digits}f}"  # noqa: E731
    if x["n"] == 1:
        return f(x["median"])
    return f"{f(x['median'])} ({f(x['min'])}–{f(x['max'])})"


def render(doc: Dict[str, Any], names: List[str], subs: Dict[str, Any]) -> str:
    i, s, rat = doc["info"], doc["summary"], doc["ratios"]
    cfg = i["config"]
    L: List[str] = []
    title = "# mcpcore benchmarks vs the official MCP SDKs"
    if i["quick"]:
        title += f" — {i['label']}, QUICK: proves it works, not a measurement"
    L += [title, ""]
    L += [f"Run {i['started']} → {i['finished']} (UTC); {i['cpu']}, {i['cores']} cores, {i['memory']}; Linux {i['kernel']}; "
          f"load average before {i['load_before'][0]:.2f} / after {i['load_after'][0]:.2f} (1 min). "
          f"{i['rustc']}; {i['python']}; Node {i['node']}; {i['wrk']}. mcpcore {i['mcpcore']} ({i['build']}). "
          "Peers: " + ", ".join(f"{k} {v}" for k, v in i["peers"].items()) + f". Open-file limit {cfg.get('fd_limit', '?')}.", ""]
    L += [f"Method: {cfg['rounds']} round(s); every round runs every subject (forward on even rounds, backward on odd), "
          "so pairs alternate A B … B A, and a peer's two HTTP configurations alternate the same way; cells are the median "
          "over rounds (min–max); ratios are taken pair by pair within a round, then the median. Each peer runs its own server "
          f"and its own client. stdio: lineage {LEGACY} (every peer speaks it), N={cfg['n']} sequential calls, then N with 8 in "
          f"flight; W3: {cfg['payload'] >> 20} MiB text echoed {cfg['payload_n']}× (MB/s of payload one way); W5: spawn → first "
          f"successful tools/call, median of {cfg['starts']} starts. HTTP on 127.0.0.1: wrk -t2 -c{cfg['wrk_conns']} "
          f"-d{cfg['wrk_secs']}s with a tools/call echo POST (unique ids, every reply checked for a result: failed requests "
          f"abort the cell), {LEGACY} on one session after initialize, {MODERN} stateless with _meta and Mcp-* headers; then "
          f"the SDK's own client: {cfg['n_http']} sequential calls and {cfg['n_http']} with 16 in flight. W4: RSS of the HTTP "
          "server idle (just started) and after W2. W9–W12: see their sections.", ""]
    L += ["## Configurations", "",
          "Every peer's HTTP server runs twice: with its defaults (what a naive user gets) and with its best documented "
          "configuration for these workloads. **Targets and ratios are taken against the best configuration**; the defaults "
          "columns are information. stdio has no such setting (one configuration). mcpcore and the raw ceilings run one "
          "configuration (mcpcore's defaults: JSON answers unless a tool streams); their figure stands in both columns.", "",
          "| subject | defaults | best |", "|---|---|---|"]
    for n in names:
        c = doc["configurations"].get(n, {})
        L.append(f"| {subs[n]['label']} | {c.get('defaults') or 'its defaults'} | {c.get('best') or '(one configuration)'} |")
    L.append("")

    def g(n: str, k: str) -> Optional[Dict[str, float]]:
        return s.get(n, {}).get(k)

    def cell(n: str, k: str, digits: int = 0) -> str:
        return fmt(g(n, k), digits)

    def conf_of(n: str) -> List[str]:
        return ["defaults", "best"] if subs[n].get("best") else ["defaults"]

    def at(n: str, base: str, config: str) -> str:
        """`base` in `config` (a one-configuration subject answers for both)."""
        return f"{base}@{config}" if config in conf_of(n) else f"{base}@defaults"

    def table(header: List[str], cells) -> None:
        L.append("| " + " | ".join(header) + " |")
        L.append("|" + "---|" * len(header))
        for n in names:
            c = cells(n)
            if c is not None:
                L.append("| " + " | ".join([subs[n]["label"]] + c) + " |")
        L.append("")

    def na(n: str, path: List[str]) -> Optional[str]:
        return scale.na_of(doc, n, path)

    L += ["## W1 stdio (calls/s; latency µs)", ""]
    table(["subject", "sequential calls/s", "seq p50 / p99 µs", "8 in flight calls/s", "8-in-flight p50 / p99 µs"],
          lambda n: [cell(n, "w1_seq_cps"), f"{cell(n, 'w1_seq_p50')} / {cell(n, 'w1_seq_p99')}",
                     cell(n, "w1_conc_cps"), f"{cell(n, 'w1_conc_p50')} / {cell(n, 'w1_conc_p99')}"])

    def w2cell(n: str, kind: str, v: str, config: str) -> str:
        c = config if config in conf_of(n) else "defaults"
        reason = na(n, ["http", c, f"{kind}_{v}"])
        if reason:
            return reason
        if n == "raw" and kind == "wrk" and v == LEGACY:
            return "(same fixed reply)"
        key = {"wrk": "w2_wrk", "cseq": "w2_cseq", "cconc": "w2_cconc"}[kind]
        return cell(n, at(n, f"{key}_{v}", config))

    L += ["## W2 HTTP: server capacity under wrk (requests/s, all checked)", ""]
    table(["subject", f"{LEGACY} defaults", f"{LEGACY} best", f"{MODERN} defaults", f"{MODERN} best"],
          lambda n: [w2cell(n, "wrk", v, c) for v in (LEGACY, MODERN) for c in ("defaults", "best")])
    L += ["## W2 HTTP: the SDK's own client (calls/s)", ""]
    table(["subject"] + [f"{v} {kind} {c}" for v in (LEGACY, MODERN) for kind in ("seq", "16 in flight") for c in ("defaults", "best")],
          lambda n: None if n == "raw" else [w2cell(n, kind, v, c) for v in (LEGACY, MODERN) for kind in ("cseq", "cconc")
                                              for c in ("defaults", "best")])
    L += ["## W3 payload, W4 memory, W5 start-up", ""]
    table(["subject", "W3 1 MiB echo MB/s", "W4 RSS idle MB defaults", "W4 RSS idle MB best", "W4 RSS after W2 MB defaults",
           "W4 RSS after W2 MB best", "W5 start-up ms"],
          lambda n: [cell(n, "w3_mbs"), cell(n, at(n, "w4_idle_mb", "defaults"), 1), cell(n, at(n, "w4_idle_mb", "best"), 1),
                     cell(n, at(n, "w4_after_mb", "defaults"), 1), cell(n, at(n, "w4_after_mb", "best"), 1), cell(n, "w5_ms", 1)])
    if "mcpcore-node" in names:
        L += [f"Node: a bare `node` idles at {cell('mcpcore-node', 'node_bare_mb', 1)} MB; the mcpcore Node server's RSS after a "
              f"second W2 run is {cell('mcpcore-node', 'w4_after2_mb@defaults', 1)} MB.", ""]
    L += ["## W6 binding overhead (the same echo tool served by mcpcore, one Rust client, stdio, sequential)", ""]
    L += ["| tool written in | µs per call | µs added by the host callback |", "|---|---|---|"]
    for lang, label in (("rust", "Rust"), ("python", "Python"), ("node", "JS (Node)")):
        n = f"mcpcore-{lang}"
        if n in names:
            added = "0 (reference)" if lang == "rust" else fmt(doc["w6_added_us"].get(lang), 1)
            L.append(f"| {label} | {fmt(g(n, 'w6_us'), 1)} | {added} |")
    L.append("")
    L += fleet.render(doc, cell)
    L += gateway.render(doc, cell)
    L += scale.render(doc, names, subs, cell, conf_of)
    L += stateless.render(doc, names, subs, cell)
    L += ratio_tables(rat)
    L += targets(doc, names)
    L += speed_targets(doc)
    L += design_targets(doc)
    if doc["errors"]:
        L += ["## Errors", ""] + [f"- {e}" for e in doc["errors"]] + [""]
    L += soak_report.section(Path(__file__).resolve().parent / "results")
    return "\n".join(L)


def ratio_tables(rat: Dict[str, Dict[str, Any]]) -> List[str]:
    L: List[str] = []
    sizes = [str(x) for x in scale.SIZES_FULL]
    groups = [
        ("W1–W6", [("w1_seq_cps", "W1 seq"), ("w1_conc_cps", "W1 8-flight"), (f"w2_wrk_{LEGACY}", "W2 server 2025"),
                   (f"w2_wrk_{MODERN}", "W2 server 2026"), (f"w2_cseq_{LEGACY}", "W2 client seq 2025"),
                   (f"w2_cconc_{LEGACY}", "W2 client 16 2025"), (f"w2_cseq_{MODERN}", "W2 client seq 2026"),
                   (f"w2_cconc_{MODERN}", "W2 client 16 2026"), ("w3_mbs", "W3"), ("w4_idle_mb", "W4 idle"),
                   ("w4_after_mb", "W4 after"), ("w5_ms", "W5")]),
        ("W9–W12", [("w9_startup_ms", "W9 start-up"), ("w9_tools_ms", "W9 tools/list"), ("w9_resources_ms", "W9 resources/list"),
                    ("w9_rss_mb", "W9 RSS"), ("w10_modern_kb_per_stream", "W10 listen KB"), ("w10_modern_fanout_ms", "W10 listen fan-out"),
                    ("w10_legacy_kb_per_stream", "W10 GET KB"), ("w10_legacy_fanout_ms", "W10 GET fan-out")]
         + [(f"w11_stdio_{x}_mbs", f"W11 stdio {scale.size_label(int(x))}") for x in sizes]
         + [(f"w11_http_{x}_mbs", f"W11 HTTP {scale.size_label(int(x))}") for x in sizes]
         + [("w12_stateless_rps", "W12 60 tools"), ("w12_kept", "W12 kept")]),
    ]
    for title, keys in groups:
        L += [f"## Ratios {title} (median of per-round ratios; >1 means mcpcore is better: faster, or smaller for "
              "memory/latency/start-up; \"(best)\" rows are the targets' basis, \"(defaults)\" rows information)", ""]
        L.append("| pair | " + " | ".join(k[1] for k in keys) + " |")
        L.append("|" + "---|" * (len(keys) + 1))
        for pair, rr in rat.items():
            cells = []
            for k, _ in keys:
                x = rr.get(k)
                cells.append(f"{x['median']:.2f}×" + (f" ({x['min']:.2f}–{x['max']:.2f})" if x["n"] > 1 else "") if x else "—")
            L.append(f"| {pair} | " + " | ".join(cells) + " |")
        L.append("")
    return L


class _Targets:
    """A targets table over a run's summary and ratios: `row` adds a target, `lines` ends it."""

    def __init__(self, doc: Dict[str, Any], title: str) -> None:
        self.s, self.rat, self.w6 = doc["summary"], doc["ratios"], doc["w6_added_us"]
        self.out = [title, "", "| target | measured | met |", "|---|---|---|"]

    def val(self, n: str, k: str) -> Optional[float]:
        x = self.s.get(n, {}).get(k)
        return x["median"] if x else None

    def ratio(self, pair: str, k: str) -> Optional[float]:
        x = self.rat.get(pair, {}).get(k)
        return x["median"] if x else None

    def added(self, lang: str) -> Optional[float]:
        """W6: µs a call the host callback of `lang` adds over the Rust tool."""
        x = self.w6.get(lang)
        return x["median"] if x else None

    def row(self, what: str, x: Optional[float], ok, unit: str = "") -> None:
        if x is None:
            self.out.append(f"| {what} | — | — |")
        else:
            met = "(published, no target)" if ok is None else "yes" if ok(x) else "NO"
            self.out.append(f"| {what} | {x:,.2f}{unit} | {met} |")


def at_least(t: float):
    return lambda x: x >= t


def at_most(t: float):
    return lambda x: x <= t


def targets(doc: Dict[str, Any], names: List[str]) -> List[str]:
    t = _Targets(doc, "## Targets (issue 19; against each peer's best configuration)")
    out, val, ratio, row = t.out, t.val, t.ratio, t.row

    rr, raw = "mcpcore-rust vs rmcp (best)", "mcpcore-rust vs raw"
    row("Rust W1 seq ≥ 3× rmcp", ratio(rr, "w1_seq_cps"), at_least(3), "×")
    row("Rust W1 8-in-flight ≥ 3× rmcp", ratio(rr, "w1_conc_cps"), at_least(3), "×")
    for v in (LEGACY, MODERN):
        row(f"Rust W2 server {v} ≥ 2× rmcp", ratio(rr, f"w2_wrk_{v}"), at_least(2), "×")
        a, b = val("mcpcore-rust", f"w2_wrk_{v}@defaults"), val("raw", f"w2_wrk_{MODERN}@defaults")
        row(f"Rust W2 server {v} ≥ 75% of raw hyper", a / b * 100 if a and b else None, at_least(75), "%")
    row("Rust W5 start-up ≤ rmcp (ratio ≥ 1)", ratio(rr, "w5_ms"), at_least(1), "×")
    row("Rust W4 idle RSS ≤ rmcp (ratio ≥ 1)", ratio(rr, "w4_idle_mb"), at_least(1), "×")
    row("Rust W3 ≥ 1.5× the serde_json line-echo ceiling", ratio(raw, "w3_mbs"), at_least(1.5), "×")
    for x in scale.SIZES_FULL:
        row(f"Rust W11 stdio {scale.size_label(x)} ≥ 1.5× the ceiling", ratio(raw, f"w11_stdio_{x}_mbs"), at_least(1.5), "×")
    pr = "mcpcore-python vs python-sdk (best)"
    row("Python W6 ≤ 25 µs/call added", t.added("python"), at_most(25), " µs")
    row("Python W1 seq ≥ 10× Python SDK", ratio(pr, "w1_seq_cps"), at_least(10), "×")
    row("Python W1 8-in-flight ≥ 10× Python SDK", ratio(pr, "w1_conc_cps"), at_least(10), "×")
    row("Python W3 ≥ 1.5× Python SDK", ratio(pr, "w3_mbs"), at_least(1.5), "×")
    row("Python W5 ≤ 100 ms", val("mcpcore-python", "w5_ms"), lambda x: x <= 100, " ms")
    row("Python W4 idle ≤ 25 MB", val("mcpcore-python", "w4_idle_mb@defaults"), lambda x: x <= 25, " MB")
    nr = "mcpcore-node vs ts-v2 (best)"
    row("Node W6 ≤ 15 µs/call added", t.added("node"), at_most(15), " µs")
    row("Node W1 seq ≥ 5× TS SDK v2", ratio(nr, "w1_seq_cps"), at_least(5), "×")
    row("Node W1 8-in-flight ≥ 5× TS SDK v2", ratio(nr, "w1_conc_cps"), at_least(5), "×")
    row("Node W1 8-in-flight p99 ≤ TS SDK v2's (ratio ≥ 1)", ratio(nr, "w1_conc_p99"), at_least(1), "×")
    row("Node W3 ≥ 1.5× TS SDK v2", ratio(nr, "w3_mbs"), at_least(1.5), "×")
    idle, bare = val("mcpcore-node", "w4_idle_mb@defaults"), val("mcpcore-node", "node_bare_mb")
    row("Node W4 idle ≤ bare node + 10 MB (MB over bare node)", idle - bare if idle and bare else None, lambda x: x <= 10, " MB")
    a1, a2 = val("mcpcore-node", "w4_after_mb@defaults"), val("mcpcore-node", "w4_after2_mb@defaults")
    row("Node RSS after a 2nd W2 within 10% of after the 1st", (a2 / a1 - 1) * 100 if a1 and a2 else None, lambda x: x <= 10, "%")
    out += ["", "Still in force from issue 8 (no regression), now against the best configuration:", "",
            "| target | measured | met |", "|---|---|---|"]
    for pair, lang, times in ((pr, "Python", 10), (nr, "Node", 5)):
        for k, what in ((f"w2_wrk_{LEGACY}", "W2 server 2025-11-25"), (f"w2_wrk_{MODERN}", "W2 server 2026-07-28"),
                        (f"w2_cseq_{LEGACY}", "W2 client seq 2025-11-25"), (f"w2_cconc_{LEGACY}", "W2 client 16 2025-11-25"),
                        (f"w2_cseq_{MODERN}", "W2 client seq 2026-07-28"), (f"w2_cconc_{MODERN}", "W2 client 16 2026-07-28")):
            row(f"{lang} {what} ≥ {times}× the SDK", ratio(pair, k), at_least(times), "×")
    out.append("")
    return out


def speed_targets(doc: Dict[str, Any]) -> List[str]:
    """Issue 36's targets: the Node, Python and gateway paths, Redis sessions, Rust W2."""
    t = _Targets(doc, "## Targets (issue 36, speed where users feel it; against each peer's best configuration)")
    nr2, nr1 = "mcpcore-node vs ts-v2 (best)", "mcpcore-node vs ts-v1 (best)"
    pr, rr, rust = "mcpcore-python vs python-sdk (best)", "mcpcore-rust vs rmcp (best)", "mcpcore-rust"
    for k, what in (("w1_seq_cps", "seq"), ("w1_conc_cps", "8-in-flight")):
        for pair, peer in ((nr2, "v2"), (nr1, "v1")):
            t.row(f"Node W1 {what} ≥ 3× TS SDK {peer}", t.ratio(pair, k), at_least(3), "×")
    t.row("Node W6 ≤ 15 µs/call added", t.added("node"), at_most(15), " µs")
    t.row("Node W3 ≥ 1.5× TS SDK v2", t.ratio(nr2, "w3_mbs"), at_least(1.5), "×")
    idle, bare = t.val("mcpcore-node", "w4_idle_mb@defaults"), t.val("mcpcore-node", "node_bare_mb")
    t.row("Node W4 idle ≤ bare node + 10 MB (MB over bare node)", idle - bare if idle and bare else None, at_most(10), " MB")
    t.row("Python W6 ≤ 20 µs/call added", t.added("python"), at_most(20), " µs")
    t.row("Python W1 seq ≥ 10× Python SDK", t.ratio(pr, "w1_seq_cps"), at_least(10), "×")
    t.row("Python W1 8-in-flight ≥ 10× Python SDK", t.ratio(pr, "w1_conc_cps"), at_least(10), "×")
    t.row("Python W5 ≤ 60 ms", t.val("mcpcore-python", "w5_ms"), at_most(60), " ms")
    for tr, limit in (("stdio", 40), ("http", 80)):
        for v in (LEGACY, MODERN):
            t.row(f"W8 gateway {tr} {v}: added p50 ≤ {limit} µs", t.val(rust, f"w8_{tr}_added_{v}_us"), at_most(limit), " µs")
            t.row(f"W8 gateway {tr} {v}: calls/s through ≥ 0.8 of direct", t.val(rust, f"w8_{tr}_ratio_{v}"), at_least(0.8))
    t.row("W7 Redis-backed legacy request: added p50 ≤ 60 µs", t.val(rust, f"w7_added_{LEGACY}_us"), at_most(60), " µs")
    for v in (LEGACY, MODERN):
        t.row(f"Rust W2 server {v} ≥ 2× rmcp", t.ratio(rr, f"w2_wrk_{v}"), at_least(2), "×")
        a, b = t.val(rust, f"w2_wrk_{v}@defaults"), t.val("raw", f"w2_wrk_{MODERN}@defaults")
        t.row(f"Rust W2 server {v} ≥ 65% of raw hyper", a / b * 100 if a and b else None, at_least(65), "%")
    t.out.append("")
    return t.out


def design_targets(doc: Dict[str, Any]) -> List[str]:
    """Issue 47's targets (speed by design): each call on the thread that already has it."""
    t = _Targets(doc, "## Targets (issue 47, speed by design; against each peer's best configuration)")
    nr2, nr1 = "mcpcore-node vs ts-v2 (best)", "mcpcore-node vs ts-v1 (best)"
    pr, rr, rust = "mcpcore-python vs python-sdk (best)", "mcpcore-rust vs rmcp (best)", "mcpcore-rust"
    for k, what in (("w1_seq_cps", "seq"), ("w1_conc_cps", "8-in-flight")):
        for pair, peer in ((nr1, "v1"), (nr2, "v2")):
            t.row(f"Node W1 {what} ≥ 3× TS SDK {peer}", t.ratio(pair, k), at_least(3), "×")
    t.row("Node W6 ≤ 15 µs/call added", t.added("node"), at_most(15), " µs")
    t.row("Node W3 ≥ 1.5× TS SDK v2", t.ratio(nr2, "w3_mbs"), at_least(1.5), "×")
    idle, bare = t.val("mcpcore-node", "w4_idle_mb@defaults"), t.val("mcpcore-node", "node_bare_mb")
    t.row("Node W4 idle ≤ bare node + 10 MB (MB over bare node)", idle - bare if idle and bare else None, at_most(10), " MB")
    t.row("Python W1 seq ≥ 10× Python SDK", t.ratio(pr, "w1_seq_cps"), at_least(10), "×")
    t.row("Python W1 8-in-flight ≥ 10× Python SDK", t.ratio(pr, "w1_conc_cps"), at_least(10), "×")
    t.row("Python W6 ≤ 20 µs/call added", t.added("python"), at_most(20), " µs")
    t.row("Python W5 ≤ 60 ms", t.val("mcpcore-python", "w5_ms"), at_most(60), " ms")
    seq = t.ratio("mcpcore-rust vs raw", "w1_seq_cps")
    t.row("Rust W1 seq ≥ 90% of the raw stdio echo", seq * 100 if seq else None, at_least(90), "%")
    for v in (LEGACY, MODERN):
        a, b = t.val(rust, f"w2_wrk_{v}@defaults"), t.val("raw", f"w2_wrk_{MODERN}@defaults")
        t.row(f"Rust W2 server {v} ≥ 80% of raw hyper", a / b * 100 if a and b else None, at_least(80), "%")
        t.row(f"Rust W2 server {v} ≥ 1.5× rmcp", t.ratio(rr, f"w2_wrk_{v}"), at_least(1.5), "×")
    for tr, limit, share in (("stdio", 40, 0.8), ("http", 80, 0.6)):
        for v in (LEGACY, MODERN):
            t.row(f"W8 gateway {tr} {v}: added p50 ≤ {limit} µs", t.val(rust, f"w8_{tr}_added_{v}_us"), at_most(limit), " µs")
            t.row(f"W8 gateway {tr} {v}: calls/s through ≥ {share} of direct", t.val(rust, f"w8_{tr}_ratio_{v}"), at_least(share))
    for lang in ("rust", "python", "node"):
        kept = t.val(f"mcpcore-{lang}", "w12_kept")
        t.row(f"W12 mcpcore {lang.capitalize()} keeps ≥ 90% of its 2-tool rate with 60 tools", kept * 100 if kept else None,
              at_least(90), "%")
    for pair in (rr, pr, nr2):
        x = t.ratio(pair, "w12_stateless_rps") or t.ratio(pair.replace(" (best)", ""), "w12_stateless_rps")
        t.row(f"W12 {pair}: 60-tool requests/s ratio", x, None, "×")
    t.out.append("")
    return t.out


if __name__ == "__main__":
    # python3 bench/report.py bench/results/RUN.json [OUT.md]: RESULTS.md again from a run's JSON
    # (after a change to this file), without running anything.
    import json
    import sys

    run = json.loads(open(sys.argv[1], encoding="utf-8").read())
    labels = {n: {"label": label, "best": run["configurations"].get(n, {}).get("best")} for n, label in run["subjects"].items()}
    text = render(run, list(run["subjects"]), labels)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w", encoding="utf-8").write(text)
    else:
        print(text)
