"""The client side of the benchmark for the official Python SDK (mcp==2.3.0; format: _common.py).

Legacy versions connect with ``initialize`` (``ClientSession.initialize``), 2026-07-28 with
``server/discover`` (``ClientSession.discover``), as tests/interop/python/sdk_client.py does.
"""

from __future__ import annotations

import os
import time
from typing import Any, Dict, List

import mcp_types as types
from _common import check, conc, main, payload, seq
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

INFO = types.Implementation(name="bench-python-sdk-client", version="0.1.0")
LIMIT = 64 << 20


async def connect(session: ClientSession, version: str) -> None:
    if version >= "2026-07-28":
        await session.discover()
    else:
        await session.initialize()
    if session.protocol_version != version:
        raise RuntimeError(f"negotiated {session.protocol_version}, wanted {version}")


def caller(session: ClientSession):
    async def call(text: str) -> None:
        r = await session.call_tool("echo", {"text": text})
        got = r.content[0].text if r.content and isinstance(r.content[0], types.TextContent) else None
        check(text, got, bool(r.is_error))

    return call


async def stdio(n: int, inflight: int, pbytes: int, pn: int, starts: int, version: str, cmd: List[str]) -> Dict[str, Any]:
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    startup = []
    for _ in range(starts):
        t = time.perf_counter()
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=INFO) as s:
            await connect(s, version)
            await caller(s)("hello")
            startup.append((time.perf_counter() - t) * 1e3)
    async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=INFO) as s:
        await connect(s, version)
        call = caller(s)
        for _ in range(20):
            await call("warm-up")
        return {
            "protocol": s.protocol_version,
            "startup_ms": startup,
            "seq": await seq(call, n),
            "conc": await conc(call, n, inflight),
            "payload": await payload(call, pbytes, pn),
        }


async def http(url: str, version: str, n: int, inflight: int, pbytes: int = 0, pn: int = 0) -> Dict[str, Any]:
    # the SDK's 1 MiB SSE event limit raised for W11's payloads (as every bench client's limits)
    async with streamable_http_client(url, max_sse_event_size=LIMIT) as (r, w), ClientSession(r, w, client_info=INFO) as s:
        await connect(s, version)
        call = caller(s)
        for _ in range(20):
            await call("warm-up")
        return {"protocol": s.protocol_version, "seq": await seq(call, n), "conc": await conc(call, n, inflight),
                "payload": await payload(call, pbytes, pn)}


if __name__ == "__main__":
    main(stdio, http)
