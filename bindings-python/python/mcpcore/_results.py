"""The result helpers a tool returns: a refusal, a pending approval, one page of a list, and
the ``_meta`` binding a tool to an app (re-exported from ``mcpcore``)."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Sequence

from . import _native

def refusal(reason: str, remedy: str, message: Optional[str] = None, **details: Any) -> Dict[str, Any]:
    """A tool result that refuses and says why and what would help: ``isError``, ``message`` as
    text for the model (default ``"Refused (<reason>): <remedy>"``) and ``structuredContent``
    ``{"reason", "remedy", **details}`` for the host. ``reason`` is a stable code
    (``"scope_not_granted"``, ``"profile"``, ``"module_off"``, ``"record_read_only"``…). Return it
    from a tool::

        @server.tool()
        def close_invoice(invoice_id: str) -> Any:
            return refusal("record_read_only", "reopen the invoice first", invoice_id=invoice_id)
    """
    text = message if message is not None else f"Refused ({reason}): {remedy}"
    result: Dict[str, Any] = json.loads(_native.refusal(reason, remedy, text, json.dumps(details)))
    return result


def pending_approval(message: str, **details: Any) -> Dict[str, Any]:
    """A tool result saying the action waits for someone's approval: not an error;
    ``message`` as text for the model and ``structuredContent``
    ``{"status": "pending_approval", **details}`` (an approval id, who must approve)::

        @server.tool()
        async def delete_invoice(invoice_id: str, ctx: Context) -> Any:
            verdict = await ctx.approve(f"Delete invoice {invoice_id}")
            if verdict == "pending":
                return pending_approval("Waiting for a manager.", approval_id=queue(invoice_id))
            ...
    """
    result: Dict[str, Any] = json.loads(_native.pending_approval(message, json.dumps(details)))
    return result


def page(
    items: Sequence[Any], limit: Optional[int] = None, cursor: Optional[str] = None, *,
    default_limit: int = 20, cap: int = 200,
) -> Dict[str, Any]:
    """One page of ``items`` for a tool that lists records: ``{"items": [...], "nextCursor"?}``
    (the cursor only when more follow). ``limit`` absent is ``default_limit`` (20), above ``cap``
    (200) is ``cap``; ``cursor`` is the previous page's ``nextCursor`` (opaque). An invalid
    cursor or a ``limit`` below 1 raises :class:`McpError` -32602, which reaches the caller as
    that JSON-RPC error. Items must be JSON-serializable::

        @server.tool()
        def list_invoices(limit: Optional[int] = None, cursor: Optional[str] = None) -> Any:
            return page(all_invoices(), limit, cursor)
    """
    result: Dict[str, Any] = json.loads(
        _native.page(json.dumps(list(items)), limit, cursor, default_limit, cap))
    return result


def apps_meta(resource_uri: str, visibility: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """A tool's ``_meta`` binding it to the app at ``resource_uri`` (MCP Apps ``_meta.ui``;
    ``visibility``: who may call it, ``"model"`` and/or ``"app"``, both by default)."""
    ui: Dict[str, Any] = {"resourceUri": resource_uri}
    if visibility is not None:
        ui["visibility"] = list(visibility)
    return {"ui": ui}
