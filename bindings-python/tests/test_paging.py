"""Paging for tools that list records (issue 35, "list methods page 20 items by default with a
cap of 200"): ``mcpcore.page(items, limit, cursor)`` in a tool, called through a real client over
HTTP: 20 by default, 200 at most, cursors followed to the end, and an invalid cursor refused with
-32602."""

from __future__ import annotations

from typing import Any, List, Optional

import pytest

from mcpcore import Client, InvalidInput, McpError, Server, page

from conftest import bounded, run_async

INVOICES = [{"id": f"inv-{i:04}", "amount": i} for i in range(450)]


@run_async(timeout=60)
async def test_a_list_tool_pages_by_default_caps_and_follows_cursors() -> None:
    server = Server("billing", "1.0")

    @server.tool()
    def list_invoices(limit: Optional[int] = None, cursor: Optional[str] = None) -> Any:
        """Lists invoices, oldest first."""
        return page(INVOICES, limit, cursor)

    serving = await server.serve_http(port=0)
    try:
        async with await bounded(Client.connect_http(serving.url)) as c:
            first = (await c.call_tool("list_invoices", {})).structured_content
            assert first is not None and len(first["items"]) == 20 and "nextCursor" in first
            seen: List[str] = []
            cursor: Optional[str] = None
            while True:
                args: dict = {"limit": 1000}
                if cursor is not None:
                    args["cursor"] = cursor
                got = (await c.call_tool("list_invoices", args)).structured_content
                assert got is not None and len(got["items"]) <= 200
                seen += [i["id"] for i in got["items"]]
                cursor = got.get("nextCursor")
                if cursor is None:
                    break
            assert seen == [i["id"] for i in INVOICES]
            # An invalid cursor is -32602, as for MCP's own list methods (2026-07-28 pagination).
            with pytest.raises(McpError) as bad:
                await c.call_tool("list_invoices", {"cursor": "forged"})
            assert bad.value.code == -32602 and "invalid cursor" in bad.value.message
    finally:
        await serving.shutdown()


def test_page_checks_its_policy() -> None:
    assert page([1, 2, 3], 2) == {"items": [1, 2], "nextCursor": page([1, 2, 3], 2)["nextCursor"]}
    assert page([], None) == {"items": []}
    with pytest.raises(McpError, match="limit must be at least 1") as zero:
        page([1], 0)
    assert zero.value.code == -32602
    with pytest.raises(InvalidInput, match="default"):
        page([1], default_limit=300, cap=200)
