"""Refusals with a cause and a remedy (issue 35): a Python tool returns ``refusal(...)``; our
client, over HTTP on both lineages, gets ``isError`` with the message as text and
``{reason, remedy, ...}`` as structured content, even from a tool whose outputSchema it breaks."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from mcpcore import Client, Server, refusal

from conftest import LINEAGES, run_async


class Closed(TypedDict):
    closed: bool


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_a_refusal_says_its_reason_and_remedy(mode: str, version: str) -> None:
    server = Server("refusals", "1")

    @server.tool()
    def close_invoice(invoice_id: str) -> Closed:
        """Closes an invoice."""
        return refusal("record_read_only", "reopen the invoice first", invoice_id=invoice_id)  # type: ignore[return-value]

    @run_async
    async def go() -> None:
        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(serving.url, protocol_version=version) as client:
                r = await client.call_tool("close_invoice", {"invoice_id": "inv-7"})
                assert r.is_error
                assert r.text == "Refused (record_read_only): reopen the invoice first"
                assert r.structured_content == {"reason": "record_read_only", "remedy": "reopen the invoice first",
                                                "invoice_id": "inv-7"}
        finally:
            await serving.shutdown()

    go()


def test_refusal_shape() -> None:
    r: Any = refusal("scope_not_granted", "ask for mcp:write", "You may not write.", scope="mcp:write")
    assert r == {"content": [{"type": "text", "text": "You may not write."}], "isError": True,
                 "structuredContent": {"reason": "scope_not_granted", "remedy": "ask for mcp:write",
                                       "scope": "mcp:write"}}
