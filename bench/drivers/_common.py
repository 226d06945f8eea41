"""Shared by the Python drivers: argument parsing, timing and the one-line JSON output.

Driver format (every language prints the same):
  DRIVER stdio N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
  DRIVER http URL VERSION N CONC [PAYLOAD_BYTES PAYLOAD_N]
  -> {"protocol", "startup_ms": [..], "seq": {n, secs, p50_us, p99_us}, "conc": {..., inflight},
      "payload": {bytes, n, secs}}   (stdio), or {"protocol", "seq", "conc", "payload"} (http)
Every echo result is checked (text equal to the input, no isError); any failure exits 1.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any, Awaitable, Callable, Dict, List

Call = Callable[[str], Awaitable[None]]


def stats(lat: List[float], secs: float, inflight: int | None = None) -> Dict[str, Any]:
    lat.sort()
    pick = lambda q: lat[round((len(lat) - 1) * q)] if lat else 0.0  # noqa: E731
    out: Dict[str, Any] = {"n": len(lat), "secs": secs, "p50_us": pick(0.5), "p99_us": pick(0.99)}
    if inflight is not None:
        out["inflight"] = inflight
    return out


async def seq(call: Call, n: int) -> Dict[str, Any]:
    lat = []
    t0 = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        await call("x")
        lat.append((time.perf_counter() - t) * 1e6)
    return stats(lat, time.perf_counter() - t0)


async def conc(call: Call, n: int, inflight: int) -> Dict[str, Any]:
    lat: List[float] = []

    async def worker(count: int) -> None:
        for _ in range(count):
            t = time.perf_counter()
            await call("x")
            lat.append((time.perf_counter() - t) * 1e6)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(n // inflight + (1 if w < n % inflight else 0)) for w in range(inflight)))
    return stats(lat, time.perf_counter() - t0, inflight)


async def payload(call: Call, nbytes: int, n: int) -> Dict[str, Any]:
    big = "x" * nbytes
    t0 = time.perf_counter()
    for _ in range(n):
        await call(big)
    return {"bytes": nbytes, "n": n, "secs": time.perf_counter() - t0}


def check(text: str, got: str | None, is_error: bool) -> None:
    if is_error or got != text:
        raise RuntimeError(f"bad echo result: is_error={is_error} text={str(got)[:100]!r}")


def main(stdio: Callable[..., Awaitable[Dict[str, Any]]], http: Callable[..., Awaitable[Dict[str, Any]]]) -> None:
    argv = sys.argv[1:]
    try:
        if argv[0] == "stdio":
            dash = argv.index("--")
            n, inflight, pbytes, pn, starts = (int(x) for x in argv[1:6])
            out = asyncio.run(asyncio.wait_for(stdio(n, inflight, pbytes, pn, starts, argv[6], argv[dash + 1 :]), 600))
        elif argv[0] == "http":
            url, version, n, inflight = argv[1], argv[2], int(argv[3]), int(argv[4])
            pbytes, pn = (int(argv[5]), int(argv[6])) if len(argv) > 6 else (0, 0)
            out = asyncio.run(asyncio.wait_for(http(url, version, n, inflight, pbytes, pn), 600))
        else:
            raise SystemExit("usage: DRIVER stdio N CONC PBYTES PN STARTS VERSION -- CMD | http URL VERSION N CONC [PBYTES PN]")
    except Exception as e:  # noqa: BLE001 - any failure is the driver's failure
        print(f"{sys.argv[0]}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(out))
