"""The Events extension on the client (SEP-3415; docs/events.md): a part of
:class:`mcpcore.Client`. Listing event types, polling them (once, or on and on at the pace the
server asks), streaming them, and webhook subscriptions; the rules (the poll floor, cursors,
what a stream item is) are the core's."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional

from . import _native
from ._pages import pages


class EventStream:
    """An open ``events/stream``: ``async for item in stream`` yields dicts whose ``type`` is
    ``"active"`` (``cursor``, ``truncated``), ``"event"`` (an occurrence: ``eventId``,
    ``name``, ``timestamp``, ``data``, ``cursor``), ``"heartbeat"`` (``cursor``), ``"error"``
    or ``"terminated"`` (``error``). :attr:`cursor` is where it stands: open a new stream from
    it after this one ended to miss nothing. ``async with`` closes it."""

    def __init__(self, native: _native.EventStream) -> None:
        self._native = native

    @property
    def cursor(self) -> Optional[str]:
        """Where the stream stands."""
        return self._native.cursor

    async def next(self) -> Optional[Dict[str, Any]]:
        """The next item, or None once the stream ended."""
        text = await self._native.next()
        return None if text is None else dict(json.loads(text))

    def __aiter__(self) -> AsyncIterator[Dict[str, Any]]:
        return self._items()

    async def _items(self) -> AsyncIterator[Dict[str, Any]]:
        while (item := await self.next()) is not None:
            yield item

    async def close(self) -> None:
        """Ends the stream."""
        await self._native.close()

    async def __aenter__(self) -> "EventStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _ClientEvents:
    """The events methods of :class:`mcpcore.Client`."""

    _native: _native.Client

    def _events(self) -> _native.ClientEvents:
        return _native.ClientEvents(self._native)

    def events_support(self) -> Optional[Dict[str, Any]]:
        """The server's Events extension settings (``{"listChanged": bool}``), or None when it
        declared none: then send no ``events/*``."""
        text = self._events().support()
        return None if text is None else dict(json.loads(text))

    async def list_events(self) -> List[Dict[str, Any]]:
        """Every event type the server lists (following ``nextCursor``, at most 1000 pages)."""
        return [e async for e in pages(self._events().list_page, "events", "events/list")]

    async def poll_events(self, name: str, arguments: Optional[Mapping[str, Any]] = None,
                          cursor: Optional[str] = None, max_events: Optional[int] = None) -> Dict[str, Any]:
        """One ``events/poll``: ``{"events", "cursor", "truncated", "hasMore", "nextPollMs"}``.
        ``cursor=None`` starts from now."""
        text = await self._events().poll(name, json.dumps(dict(arguments or {})), cursor, max_events)
        return dict(json.loads(text))

    async def poller(self, name: str, arguments: Optional[Mapping[str, Any]] = None,
                     cursor: Optional[str] = None) -> AsyncIterator[Dict[str, Any]]:
        """Polls ``name`` on and on, yielding each answer: between two polls it waits as the
        server asked (``nextPollMs``, at least a second; not at all after ``hasMore``)."""
        native = self._events().poller(name, json.dumps(dict(arguments or {})), cursor)
        while True:
            yield dict(json.loads(await native.next()))

    async def stream_events(self, name: str, arguments: Optional[Mapping[str, Any]] = None,
                            cursor: Optional[str] = None) -> EventStream:
        """Opens an ``events/stream`` of ``name`` from ``cursor`` (None: from now) and returns it
        once the server says it is active (its first item). An unknown type, bad arguments or
        a bad cursor raise :class:`McpError` with the server's code."""
        native = await self._events().stream(name, json.dumps(dict(arguments or {})), cursor)
        return EventStream(native)

    async def subscribe_webhook(self, name: str, url: str, secret: str,
                                arguments: Optional[Mapping[str, Any]] = None,
                                ttl: Optional[float] = None) -> Dict[str, Any]:
        """Creates or refreshes the webhook subscription of ``name`` to ``url``, signed with
        ``secret`` (``whsec_`` and the base64 of 24 to 64 random bytes), for ``ttl`` seconds
        (None: the server's default). Returns ``{"id", "refreshBefore", "cursor", "truncated"}``;
        subscribe again before ``refreshBefore`` to keep it."""
        ttl_ms = None if ttl is None else int(ttl * 1000)
        text = await self._events().subscribe_webhook(name, json.dumps(dict(arguments or {})), url, secret, ttl_ms)
        return dict(json.loads(text))

    async def unsubscribe_webhook(self, name: str, url: str, arguments: Optional[Mapping[str, Any]] = None) -> None:
        """Ends the webhook subscription of ``name`` with ``arguments`` to ``url``."""
        await self._events().unsubscribe_webhook(name, json.dumps(dict(arguments or {})), url)
