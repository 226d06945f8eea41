"""Tool search (issue 35) in Python: the Python example server with ``--tool-search
--synthetic-tools 1000`` (a real child on stdio) lists its pinned tools and ``search_tools`` only,
on both lineages; a search finds a generated tool, which is callable by name; the regex mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpcore import Client, InvalidInput, Server

from conftest import LINEAGES, PY, run_async

ECHO = Path(__file__).resolve().parents[2] / "examples" / "python" / "echo_server.py"


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_a_thousand_python_tools_are_searched_not_listed(mode: str, version: str) -> None:
    @run_async(timeout=60)
    async def go() -> None:
        args = [str(ECHO), "--tool-search", "--synthetic-tools", "1000"]
        async with await Client.connect_stdio(PY, args, protocol_version=version) as client:
            assert [t.name for t in await client.list_tools()] == ["add", "echo", "search_tools"]
            found = await client.call_tool("search_tools", {"query": "approve an expense", "limit": 3})
            tools = found.structured_content["tools"]
            assert len(tools) == 3 and tools[0]["name"].startswith("approve_expense_"), tools
            assert tools[0]["inputSchema"]["properties"]["id"]["type"] == "string"
            top = tools[0]["name"]
            assert (await client.call_tool(top, {"id": "e-1"})).text == f"{top} done"
            bulk = await client.call_tool("search_tools", {"query": "_in_bulk$", "regex": True, "limit": 50})
            assert len(bulk.structured_content["tools"]) == 50

    go()


def test_tool_search_is_turned_on_once() -> None:
    server = Server("s", "1")
    server.tool_search(["echo"])
    with pytest.raises(InvalidInput):
        server.tool_search(["echo"])
