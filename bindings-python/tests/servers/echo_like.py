"""A facade-written server shaped like tests/interop/python/sdk_server.py, so the official SDK's
interop scripts (sdk_client.py, sdk_http_client.py) can drive it: ``echo{text}`` and
``add{a, b} -> {"sum": a + b}``.

    python echo_like.py           # stdio
    python echo_like.py --http    # HTTP on 127.0.0.1, free port; prints "listening on URL"
"""

import asyncio
import sys
from typing import TypedDict

from mcpcore import Server

server = Server("echo-like", "0.1.0")


class Sum(TypedDict):
    sum: float


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool()
async def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    await asyncio.sleep(0)
    return {"sum": a + b}


if __name__ == "__main__":
    if "--http" in sys.argv:
        server.run("http", port=0)
    else:
        server.run()
