"""Typing: the stubs of the native module match it (mypy.stubtest), and a user script written
against the facade passes ``mypy --strict`` (the package ships py.typed and full annotations)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import PY, describe, run

pytest.importorskip("mypy", reason="mypy is not installed")

USER_SCRIPT = textwrap.dedent(
    '''
    """A typed user of the mcpcore facade."""

    import asyncio
    import sys
    from dataclasses import dataclass
    from typing import List, Optional, TypedDict

    from mcpcore import (
        CallToolResult,
        Client,
        Context,
        ElicitResult,
        HttpServing,
        Image,
        InputRequired,
        McpError,
        Message,
        Registry,
        RequestTimeout,
        Root,
        SamplingResult,
        Server,
        Tool,
    )
    from mcpcore.errors import ConnectionClosed

    server = Server("typed", "1.0", instructions="typed tools")


    class Sum(TypedDict):
        sum: float


    @dataclass
    class Point:
        x: int
        y: int


    @server.tool()
    def add(a: float, b: float) -> Sum:
        """Adds."""
        return {"sum": a + b}


    @server.tool(name="point", title="A point")
    async def make_point(x: int, y: int, ctx: Context) -> Point:
        """Makes a point."""
        ctx.report_progress(1.0, 1.0, "done")
        rid: Optional[str] = ctx.request_id
        return Point(x, y) if rid is not None or ctx.wants_progress else Point(0, 0)


    def pixel() -> Image:
        return Image(b"\\x89PNG")


    @server.resource("users://{id}", mime_type="application/json", complete={"id": ["ann"]})
    async def user(id: str, ctx: Context) -> dict[str, str]:
        """A user."""
        return {"id": id}


    @server.prompt(complete={"topic": lambda value: [value + "!"]})
    def chat(topic: str, mood: str = "calm") -> List[Message]:
        """A chat."""
        return [Message("user", topic), Message("assistant", mood)]


    @server.completion(prompt="chat", argument="mood")
    async def moods(value: str, context: dict[str, str]) -> List[str]:
        return ["calm", "cheerful"]


    @server.tool()
    async def ask(ctx: Context) -> str:
        try:
            answer: ElicitResult = await ctx.elicit("k", "Name?", {"type": "object", "properties": {}})
        except InputRequired:
            raise
        reply: SamplingResult = await ctx.sample("s", "hi", max_tokens=10)
        roots: List[Root] = await ctx.list_roots("r")
        ctx.set_request_state({"n": 1})
        print(ctx.request_state, ctx.client_capabilities)
        return f"{answer.accepted} {answer.data} {reply.text} {len(roots)}"


    @server.tool()
    def ask_sync(ctx: Context) -> str:
        return ctx.elicit_sync("k", "Name?", {"type": "object", "properties": {}}).action


    server.notify_resource_updated("users://ann")
    removed: bool = server.remove_resource("users://{id}") and server.remove_prompt("chat")


    tool: Tool = server.add_tool(pixel, name="pixel")
    names: List[str] = server.registry.names


    def on_progress(progress: float, total: Optional[float], message: Optional[str]) -> None:
        print(progress, total, message)


    async def main() -> int:
        serving: HttpServing = await server.serve_http("127.0.0.1", 0, response_mode="json")
        url: str = serving.url
        port: int = serving.port
        try:
            async with await Client.connect_http(url, headers={"X-A": "b"}, bearer_token="t", lineage="legacy") as c:
                version: str = c.protocol_version
                tools: List[Tool] = await c.list_tools()
                result: CallToolResult = await c.call_tool("add", {"a": 1, "b": 2}, timeout=5.0, progress=on_progress)
                text: str = result.text
                is_error: bool = result.is_error
                print(version, len(tools), text, is_error, result.data, result.structured_content, port)
        except RequestTimeout as e:
            code: int = e.code
            print(code, e.data, e.http_status)
        except McpError as e:
            print(e.message)
        finally:
            await serving.shutdown()
        client = await Client.connect_stdio([sys.executable, "-c", "pass"], env={"A": "1"}, timeout=1.0)
        try:
            await client.request("ping")
        except ConnectionClosed:
            pass
        await client.close()
        registry = Registry()
        registry.add_tool(pixel)
        outcome = await registry.connect("s", client, collision="prefix")
        for entry in outcome:
            print(entry["status"], entry["name"])
        removed: List[str] = await registry.disconnect("s")
        local: CallToolResult = await registry.call_tool("pixel", {}, timeout=1.0)
        print(removed, local.content, registry.servers, registry.list_tools())
        return 0


    if __name__ == "__main__":
        sys.exit(asyncio.run(main()))
    '''
)

BAD_SCRIPT = textwrap.dedent(
    """
    from mcpcore import Client

    async def main() -> None:
        client = await Client.connect_http(42)
        n: int = client.protocol_version
    """
)


def test_stubtest_native_module(tmp_path: Path) -> None:
    # cwd outside the source tree: the installed package is what is checked
    proc = run([PY, "-m", "mypy.stubtest", "mcpcore._native"], timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)


def test_mypy_strict_on_a_typed_user_script(tmp_path: Path) -> None:
    script = tmp_path / "typed_user.py"
    script.write_text(USER_SCRIPT)
    proc = run([PY, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                str(script)], timeout=180, cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    assert "Success" in proc.stdout


def test_mypy_strict_catches_misuse(tmp_path: Path) -> None:
    """The annotations are really used: wrong types are reported (not silently Any)."""
    script = tmp_path / "misuse.py"
    script.write_text(BAD_SCRIPT)
    proc = run([PY, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                str(script)], timeout=180, cwd=str(tmp_path))
    assert proc.returncode == 1, describe(proc)
    assert 'Argument 1 to "connect_http" of "Client" has incompatible type "int"' in proc.stdout, describe(proc)
    assert "Incompatible types in assignment" in proc.stdout, describe(proc)
