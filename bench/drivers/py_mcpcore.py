"""The client side of the benchmark for mcpcore in Python (driver format: _common.py)."""

from __future__ import annotations

import time
from typing import Any, Dict, List

from _common import check, conc, main, payload, seq

from mcpcore import Client


def lineage(version: str) -> str:
    return "modern" if version >= "2026-07-28" else "legacy"


def caller(client: Client):
    async def call(text: str) -> None:
        r = await client.call_tool("echo", {"text": text})
        check(text, r.text, r.is_error)

    return call


async def stdio(n: int, inflight: int, pbytes: int, pn: int, starts: int, version: str, cmd: List[str]) -> Dict[str, Any]:
    startup = []
    for _ in range(starts):
        t = time.perf_counter()
        async with await Client.connect_stdio(cmd, protocol_version=version, lineage=lineage(version)) as c:
            await caller(c)("hello")
            startup.append((time.perf_counter() - t) * 1e3)
    async with await Client.connect_stdio(cmd, protocol_version=version, lineage=lineage(version)) as c:
        call = caller(c)
        for _ in range(20):
            await call("warm-up")
        return {
            "protocol": c.protocol_version,
            "startup_ms": startup,
            "seq": await seq(call, n),
            "conc": await conc(call, n, inflight),
            "payload": await payload(call, pbytes, pn),
        }


async def http(url: str, version: str, n: int, inflight: int, pbytes: int = 0, pn: int = 0) -> Dict[str, Any]:
    async with await Client.connect_http(url, protocol_version=version, lineage=lineage(version)) as c:
        call = caller(c)
        for _ in range(20):
            await call("warm-up")
        return {"protocol": c.protocol_version, "seq": await seq(call, n), "conc": await conc(call, n, inflight),
                "payload": await payload(call, pbytes, pn)}


if __name__ == "__main__":
    main(stdio, http)
