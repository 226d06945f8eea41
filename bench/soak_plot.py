#!/usr/bin/env python3
"""bench/soak_plot.py SOAK.jsonl OUT.svg: the soak's plot (issue 50), in plain SVG (no plotting
library needed): each server process's RSS (MiB) per minute above, each load's p99 latency
(ms) per minute below."""

from __future__ import annotations

import json
import sys
from typing import Dict, List

PROCS = ["conformance_server", "gateway_process", "stdio_echo"]
LOADS = ["modern", "legacy", "list_changes", "task", "stdio", "gateway"]
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
W, H, PAD = 760, 250, 50


def panel(series: Dict[str, List[float]], top: int, title: str, unit: str) -> List[str]:
    """One panel: a polyline per series, a y axis from 0 to the largest value."""
    out = [f'<text x="{PAD}" y="{top - 8}" font-size="13">{title}</text>']
    n = max((len(v) for v in series.values()), default=0)
    peak = max((max(v) for v in series.values() if v), default=1.0) or 1.0
    x0, y0, w, h = PAD, top, W - 2 * PAD - 150, H - 40
    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>')
    for frac in (0, 0.5, 1):
        y = y0 + h - frac * h
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.0f}" font-size="10" text-anchor="end">{peak * frac:.1f}</text>')
    out.append(f'<text x="{x0 + w}" y="{y0 + h + 16}" font-size="10" text-anchor="end">minute {n}</text>')
    out.append(f'<text x="{x0 - 40}" y="{y0 + h / 2:.0f}" font-size="10">{unit}</text>')
    for i, (name, ys) in enumerate(series.items()):
        if not ys:
            continue
        step = w / max(len(ys) - 1, 1)
        pts = " ".join(f"{x0 + j * step:.1f},{y0 + h - (y / peak) * h:.1f}" for j, y in enumerate(ys))
        colour = COLOURS[i % len(COLOURS)]
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        out.append(f'<text x="{x0 + w + 10}" y="{y0 + 14 + 14 * i}" font-size="11" fill="{colour}">{name}</text>')
    return out


def main() -> None:
    lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    minutes = [l for l in lines if "minute" in l]
    rss = {p: [m[p]["rss_kib"] / 1024 for m in minutes if p in m] for p in PROCS}
    p99 = {l: [m[l]["p99_us"] / 1000 for m in minutes if l in m] for l in LOADS}
    body = panel(rss, 40, "RSS of each server process", "MiB") + panel(p99, 40 + H + 30, "p99 of each load", "ms")
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{2 * H + 80}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>', *body, "</svg>"]
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
