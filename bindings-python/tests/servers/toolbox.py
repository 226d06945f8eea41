"""Test server written with the mcpcore facade: one tool per behaviour the suite checks.

    python toolbox.py            # stdio, both lineages
    python toolbox.py --http     # Server.run("http", port=0): prints "listening on URL", Ctrl-C stops

With MCPCORE_TEST_EVENTS=FILE, the ``slow`` tool appends ``start:TAG``, ``tick:TAG``,
``cancelled:TAG`` and ``finished:TAG`` lines to FILE, so a test can see from outside what the tool
went through. Importable: :func:`build` returns a fresh server with the same tools.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import struct
import time
import zlib
from dataclasses import dataclass
from typing import List, Optional, TypedDict

from mcpcore import Context, Image, McpError, Server


def _png() -> bytes:
    """A valid 1x1 grey PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b"")


PNG = _png()


class Sum(TypedDict):
    sum: float


class Info(TypedDict):
    pid: int
    protocol_version: str
    request_id: str
    wants_progress: bool


@dataclass
class Point:
    x: int
    y: int
    label: str


def _record(event: str) -> None:
    path = os.environ.get("MCPCORE_TEST_EVENTS")
    if path:
        with open(path, "a") as f:
            f.write(event + "\n")


def build(name: str = "toolbox") -> Server:
    server = Server(name, "1.2.3", instructions="Tools for the mcpcore test suite.")

    @server.tool()
    def echo(text: str) -> str:
        """Returns the text unchanged."""
        return text

    @server.tool()
    async def add(a: float, b: float) -> Sum:
        """Adds two numbers."""
        await asyncio.sleep(0)
        return {"sum": a + b}

    @server.tool()
    def double(n: int) -> int:
        """Doubles an integer."""
        return n * 2

    @server.tool()
    def point(x: int, y: int, label: str = "p") -> Point:
        """Makes a point."""
        return Point(x, y, label)

    @server.tool()
    def pixel() -> Image:
        """A 1x1 PNG image."""
        return Image(PNG)

    @server.tool()
    def tags(words: List[str], upper: bool = False) -> List[str]:
        """Returns the words, upper-cased on request."""
        return [w.upper() if upper else w for w in words]

    @server.tool()
    def fail(message: str) -> str:
        """Always raises ValueError(message)."""
        raise ValueError(message)

    @server.tool()
    def rpc_fail(reason: str) -> str:
        """Raises McpError(code=-32050) with data."""
        raise McpError("custom failure", code=-32050, data={"reason": reason, "retry": False})

    @server.tool()
    async def slow(seconds: float, tag: str = "x") -> str:
        """Sleeps asynchronously in 0.05 s ticks, recording its life in MCPCORE_TEST_EVENTS."""
        _record(f"start:{tag}")
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                _record(f"tick:{tag}")
        except asyncio.CancelledError:
            _record(f"cancelled:{tag}")
            raise
        _record(f"finished:{tag}")
        return f"slept {seconds}"

    @server.tool()
    def sleep_sync(seconds: float) -> str:
        """Sleeps synchronously (time.sleep)."""
        time.sleep(seconds)
        return f"slept {seconds}"

    @server.tool()
    async def progress(ctx: Context, steps: int = 3) -> str:
        """Reports progress ``steps`` times, then says whether progress was asked for."""
        for i in range(1, steps + 1):
            ctx.report_progress(i, steps, f"step {i}")
            await asyncio.sleep(0.01)
        return f"wants_progress={ctx.wants_progress}"

    @server.tool()
    def whoami(ctx: Context) -> Info:
        """The server's pid and what the call's context knows."""
        return {
            "pid": os.getpid(),
            "protocol_version": ctx.protocol_version or "",
            "request_id": ctx.request_id or "",
            "wants_progress": ctx.wants_progress,
        }

    @server.tool()
    def thread_name() -> str:
        """The name of the thread a sync tool runs on."""
        return threading.current_thread().name

    @server.tool()
    def die(code: int = 3) -> str:
        """Kills the server process in the middle of the call."""
        sys.stdout.flush()
        os._exit(code)

    @server.tool(name="optional-arg", title="Optional argument")
    def optional_arg(value: Optional[int] = None) -> str:
        """Says what it got."""
        return "none" if value is None else str(value)

    return server


if __name__ == "__main__":
    name = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else "toolbox"
    if "--http" in sys.argv:
        build(name).run("http", port=0)
    else:
        build(name).run()
