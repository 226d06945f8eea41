"""The event types a ``Server`` offers and the occurrences it emits (the Events extension,
SEP-3415; docs/events.md): a part of :class:`mcpcore.Server`. Declarations and payloads cross
to the core as JSON; the schemas, retention and size rules are the core's."""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, TypeVar, Union

from . import _native
from ._jsonable import to_jsonable
from ._schema import type_schema

T = TypeVar("T")

#: How an event type can be delivered: ``"poll"`` (``events/poll``), ``"push"`` (``events/stream``),
#: ``"webhook"`` (``events/subscribe``; not in the default).
DELIVERY = ("poll", "push")


def _schema_of(spec: Any) -> Optional[Dict[str, Any]]:
    """A JSON Schema given as a mapping, or made from a type (TypedDict, dataclass, pydantic)."""
    if spec is None:
        return None
    if isinstance(spec, Mapping):
        return dict(spec)
    return type_schema(spec)


class _ServerEvents:
    """The event types of :class:`mcpcore.Server` (``events/list``, ``events/poll``,
    ``events/stream``)."""

    _events: Optional[_native.Events]

    def _event_set(self) -> _native.Events:
        if self._events is None:
            self._events = _native.Events()
        return self._events

    def add_event(
        self,
        name: str,
        description: Optional[str] = None,
        *,
        payload: Any = None,
        arguments: Any = None,
        delivery: Sequence[str] = DELIVERY,
        retain: int = 256,
        poll_interval_ms: int = 5000,
        filter_on: Sequence[str] = (),
    ) -> None:
        """Declares the event type ``name``: clients list it (``events/list``), poll it and
        stream it. ``payload`` is the JSON Schema of an occurrence's data, or a type it is made
        from (a ``TypedDict``, dataclass or pydantic model; default: any object); ``arguments``
        the schema (or type) of a subscription's arguments. The last ``retain`` occurrences are
        kept so that a client resumes from its cursor; ``poll_interval_ms`` is the
        ``nextPollMs`` its polls suggest. ``filter_on`` names subscription arguments that filter
        occurrences: a subscription giving one receives only the occurrences whose data has
        the same value there (polls, streams and webhooks alike). Raises :class:`InvalidInput`
        for a schema that does not compile or an unknown delivery mode."""
        decl: Dict[str, Any] = {"name": name, "delivery": list(delivery), "retain": retain,
                                "pollIntervalMs": poll_interval_ms, "filterOn": list(filter_on)}
        if description is not None:
            decl["description"] = description
        for key, spec in (("payloadSchema", payload), ("inputSchema", arguments)):
            schema = _schema_of(spec)
            if schema is not None:
                decl[key] = schema
        self._event_set().declare(json.dumps(decl))

    def event(
        self,
        name: Optional[str] = None,
        *,
        description: Optional[str] = None,
        arguments: Any = None,
        delivery: Sequence[str] = DELIVERY,
        retain: int = 256,
        poll_interval_ms: int = 5000,
        filter_on: Sequence[str] = (),
    ) -> Callable[[T], T]:
        """Decorator form of :meth:`add_event` for the payload's type: the class (a
        ``TypedDict``, dataclass or pydantic model) gives the payload schema, its docstring the
        description, and its name the event type's unless ``name`` is given::

            @server.event("build.finished")
            class BuildFinished(TypedDict):
                \"\"\"A CI build finished.\"\"\"
                ok: bool
                branch: str

            await server.emit("build.finished", BuildFinished(ok=True, branch="main"))
        """

        def register(cls: T) -> T:
            doc = description if description is not None else inspect.getdoc(cls)
            self.add_event(name or getattr(cls, "__name__", str(cls)), doc, payload=cls, arguments=arguments,
                           delivery=delivery, retain=retain, poll_interval_ms=poll_interval_ms,
                           filter_on=filter_on)
            return cls

        return register

    async def emit(self, name: str, data: Union[Mapping[str, Any], Any]) -> Dict[str, Any]:
        """Records an occurrence of ``name`` with ``data`` (a mapping, dataclass or pydantic
        model) and delivers it to every open stream; returns it (``eventId``, ``timestamp``…).
        Raises :class:`InvalidInput` for an undeclared type, data failing its payload schema, or
        an occurrence over 256 KiB; nothing is recorded then."""
        return self.emit_nowait(name, data)

    def emit_nowait(self, name: str, data: Union[Mapping[str, Any], Any]) -> Dict[str, Any]:
        """:meth:`emit` from synchronous code (a sync tool, a thread): the same, at once."""
        return dict(json.loads(self._event_set().emit(name, json.dumps(to_jsonable(data)))))

    def event_heartbeat(self, seconds: float) -> None:
        """Streams opened from now on hear ``notifications/events/heartbeat`` every ``seconds``
        while quiet (default 15; between 0.01 and 30)."""
        self._event_set().set_heartbeat(max(0, int(seconds * 1000)))

    def webhook_policy(self, *, allow_http_loopback: bool = False, allow_anonymous: bool = False) -> None:
        """How webhook subscriptions (``events/subscribe``, for types declared with ``"webhook"``
        in ``delivery``) are accepted. By default a callback must be ``https`` to a public
        address and the subscriber authenticated. **Development only:** ``allow_http_loopback``
        accepts ``http`` callbacks on loopback addresses, ``allow_anonymous`` subscribers
        without a token (they share one principal). Existing subscriptions are dropped."""
        self._event_set().set_webhook_policy(allow_http_loopback, allow_anonymous)

    def remove_event(self, name: str) -> bool:
        """Stops offering ``name`` (its kept occurrences go too); False when it was not declared."""
        return self._events is not None and self._events.remove(name)
