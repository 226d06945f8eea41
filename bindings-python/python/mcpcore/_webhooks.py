"""The receiving end of MCP Events webhooks (SEP-3415; docs/events.md): check each delivery
(Standard Webhooks signature and timestamp), answer the verification challenge, drop retries,
and hand occurrences, gaps and terminations to your code; as a function, or as an ASGI app to
mount in Starlette, FastAPI or any ASGI server. The rules are the core's."""

from __future__ import annotations

import inspect
import json
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native

#: What ``asgi_app`` calls for each delivery worth handling: the delivery (``type`` "event" with
#: the occurrence's members, "gap" with ``cursor``, "terminated" with ``error``) and the
#: subscription id.
DeliveryHandler = Callable[[Dict[str, Any], Optional[str]], Union[None, Awaitable[None]]]


class WebhookReceiver:
    """Checks webhook deliveries signed with ``secret`` (and with each of ``also_accept``, while
    a refresh rotates the secret)::

        receiver = WebhookReceiver(secret)
        app.mount("/hooks/mcp", receiver.asgi_app(on_delivery))
    """

    def __init__(self, secret: str, *also_accept: str) -> None:
        self._native = _native.WebhookReceiver([secret, *also_accept])

    def receive(self, headers: Mapping[str, str], body: bytes) -> Tuple[int, bytes, Optional[Dict[str, Any]], Optional[str]]:
        """Checks one POST: the status and body to answer with, the delivery (None when it was
        refused: a bad signature or timestamp, 401; malformed, 400) and the subscription id. A
        ``verification`` is answered in the body; a ``duplicate`` (a retry) needs nothing more."""
        status, answer, delivery, subscription = self._native.receive(
            {k.lower(): v for k, v in headers.items()}, bytes(body))
        return status, answer, (None if delivery is None else dict(json.loads(delivery))), subscription

    def asgi_app(self, on_delivery: DeliveryHandler) -> Callable[..., Awaitable[None]]:
        """An ASGI app answering POSTs with :meth:`receive`; each occurrence, gap or termination
        goes to ``on_delivery(delivery, subscription_id)`` (sync or async) before the 200."""

        async def app(scope: Dict[str, Any], receive: Callable[[], Awaitable[Dict[str, Any]]],
                      send: Callable[[Dict[str, Any]], Awaitable[None]]) -> None:
            if scope["type"] != "http":
                return
            if scope.get("method") != "POST":
                await _answer(send, 405, b"")
                return
            chunks: List[bytes] = []
            more = True
            while more:
                message = await receive()
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            status, answer, delivery, subscription = self.receive(headers, b"".join(chunks))
            if delivery is not None and delivery["type"] in ("event", "gap", "terminated"):
                handled = on_delivery(delivery, subscription)
                if inspect.isawaitable(handled):
                    await handled
            await _answer(send, status, answer if delivery is not None else b"")

        return app


async def _answer(send: Callable[[Dict[str, Any]], Awaitable[None]], status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
