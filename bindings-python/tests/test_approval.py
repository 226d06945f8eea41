"""Asking before acting (issue 35, "pending approval"): ``ctx.approve(action)`` asks the user with
a confirmation form through the real client (Python ``Client`` with ``on_elicitation``) on both
lineages: 2026-07-28 as an MRTR round the client retries, legacy as an ``elicitation/create``
request. Approved acts, declined does not; a client that cannot be asked gets ``"pending"``, and
the tool answers ``pending_approval(...)``."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from mcpcore import Client, Context, Server, pending_approval

from conftest import LINEAGES, bounded, run_async


def approval_server(deleted: List[str], asked: List[Dict[str, Any]]) -> Server:
    server = Server("approvals", "1.0")

    @server.tool()
    async def delete_invoice(invoice_id: str, ctx: Context) -> Any:
        """Deletes an invoice, once a person approves."""
        verdict = await ctx.approve(f"Delete invoice {invoice_id}")
        if verdict == "pending":
            return pending_approval(f"Deleting {invoice_id} waits for a manager's approval.",
                                    approval_id=f"apr-{invoice_id}")
        if verdict == "declined":
            return {"deleted": False}
        deleted.append(invoice_id)
        return {"deleted": True}

    return server


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=[l for l, _ in LINEAGES])
@run_async(timeout=60)
async def test_approve_asks_the_user_and_pending_when_nobody_can_be_asked(lineage: str, version: str) -> None:
    deleted: List[str] = []
    asked: List[Dict[str, Any]] = []
    serving = await approval_server(deleted, asked).serve_http(port=0)
    try:
        answers = iter([{"approve": True}, "decline", {"approve": False}])

        def on_elicitation(params: Dict[str, Any]) -> Any:
            asked.append(params)
            return next(answers)

        async with await bounded(Client.connect_http(serving.url, lineage=lineage,
                                                     on_elicitation=on_elicitation)) as c:
            r = await c.call_tool("delete_invoice", {"invoice_id": "42"})
            assert r.structured_content == {"deleted": True}, r
            assert deleted == ["42"]
            form = asked[0]
            assert form["message"] == "Delete invoice 42"
            assert form["requestedSchema"]["properties"]["approve"]["type"] == "boolean"
            for _ in range(2):  # declined, then accepted with the box unticked
                r = await c.call_tool("delete_invoice", {"invoice_id": "43"})
                assert r.structured_content == {"deleted": False}, r
            assert deleted == ["42"] and len(asked) == 3

        async with await bounded(Client.connect_http(serving.url, lineage=lineage)) as c:
            r = await c.call_tool("delete_invoice", {"invoice_id": "44"})
            assert not r.is_error
            assert r.structured_content == {"status": "pending_approval", "approval_id": "apr-44"}, r
            assert r.text == "Deleting 44 waits for a manager's approval."
        assert deleted == ["42"] and len(asked) == 3, "nobody was asked"
    finally:
        await serving.shutdown()


def test_pending_approval_is_a_result_not_an_error() -> None:
    r = pending_approval("Waiting for finance.", approval_id="apr-1", approver="finance")
    assert r["isError"] is False
    assert r["structuredContent"] == {"status": "pending_approval", "approval_id": "apr-1", "approver": "finance"}
    assert r["content"] == [{"type": "text", "text": "Waiting for finance."}]
