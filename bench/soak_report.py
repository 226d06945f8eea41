"""bench/soak_report.py: the soak's section of RESULTS.md (issue 50), from the newest
``results/soak-*.jsonl`` that ``soak.sh`` wrote (one JSON line a minute, then a summary).
``report.py`` appends it, so RESULTS.md keeps it when it is written again from a run's JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

PROCS = ["conformance_server", "gateway_process", "stdio_echo"]
LOADS = ["modern", "legacy", "list_changes", "task", "stdio", "gateway"]


def slope(ys: List[float]) -> float:
    """Least-squares slope of ``ys`` over their index (per minute)."""
    n = len(ys)
    if n < 2:
        return 0.0
    mx, my = (n - 1) / 2, sum(ys) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / den


def newest(results: Path) -> Optional[Path]:
    runs = sorted(results.glob("soak-*.jsonl"))
    return runs[-1] if runs else None


def section(results: Path) -> List[str]:
    """The Markdown lines of the newest soak, or none when there is none."""
    path = newest(results)
    if path is None:
        return []
    lines = [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    minutes: List[Dict[str, Any]] = [l for l in lines if "minute" in l]
    if not minutes:
        return []
    n = len(minutes)
    L = [f"## Soak: {n} minutes of mixed load (issue 50; `bench/soak.sh`, `{path.name}`)", "",
         "Six loads at once on loopback (stateless 2026-07-28 and a 2025-11-25 session to `mcpcore conformance-server`, "
         "a session triggering tools list changes, task calls awaited to their result, `echo` on a stdio `echo_server`, "
         "`echo` through `mcpcore gateway` over HTTP), sampled each minute. Plot: "
         f"[`{path.with_suffix('.svg').name}`](results/{path.with_suffix('.svg').name}).", "",
         "| process | RSS first → last (MiB) | peak | slope, last 40 min | slope, last 25 min | open fds |",
         "|---|---|---|---|---|---|"]
    for p in PROCS:
        rss = [m[p]["rss_kib"] for m in minutes if p in m]
        fds = [m[p]["fds"] for m in minutes if p in m]
        if not rss:
            continue
        s40, s25 = slope(rss[-40:]), slope(rss[-25:])
        L.append(f"| {p} | {rss[0] / 1024:.1f} → {rss[-1] / 1024:.1f} | {max(rss) / 1024:.1f} | {s40:+.0f} KiB/min | "
                 f"{s25:+.0f} KiB/min | {min(fds)}–{max(fds)} |")
    L += ["", "| load | calls | failed | p50 (median of minutes) | p99 (median of minutes) | worst minute's p99 |",
          "|---|---|---|---|---|---|"]
    for l in LOADS:
        rows = [m[l] for m in minutes if l in m]
        if not rows:
            continue
        p50 = sorted(r["p50_us"] for r in rows)
        p99 = sorted(r["p99_us"] for r in rows)
        L.append(f"| {l} | {sum(r['calls'] for r in rows):,} | {sum(r['failed'] for r in rows)} | "
                 f"{p50[len(p50) // 2] / 1000:.2f} ms | {p99[len(p99) // 2] / 1000:.2f} ms | {p99[-1] / 1000:.2f} ms |")
    L.append("")
    return L
