"""Sequential `echo` tool calls over stdio, side by side in one run: an mcpcore Python client and
server (examples/python/echo_server.py) vs the official Python SDK client and server
(tests/interop/python/sdk_server.py). Prints one JSON line with the per-call times and the ratio.

    python bench/python_stdio_echo.py [CALLS]     # with mcpcore (release build) and mcp==2.3.0 installed

A seed for the benchmark issue; measurements, never assertions.
"""

import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = int(sys.argv[1]) if len(sys.argv) > 1 else 500


async def mcpcore_calls() -> float:
    from mcpcore import Client

    async with await Client.connect_stdio([sys.executable, str(ROOT / "examples/python/echo_server.py")]) as c:
        await c.call_tool("echo", {"text": "warm-up"})
        start = time.perf_counter()
        for _ in range(N):
            await c.call_tool("echo", {"text": "x"})
        return time.perf_counter() - start


async def sdk_calls() -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(ROOT / "tests/interop/python/sdk_server.py")])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("echo", {"text": "warm-up"})
            start = time.perf_counter()
            for _ in range(N):
                await session.call_tool("echo", {"text": "x"})
            return time.perf_counter() - start


ours = asyncio.run(mcpcore_calls())
theirs = asyncio.run(sdk_calls())
print(json.dumps({
    "calls": N,
    "mcpcore_us_per_call": round(ours / N * 1e6),
    "official_sdk_us_per_call": round(theirs / N * 1e6),
    "sdk_over_mcpcore": round(theirs / ours, 2),
}))
