"""Middleware: code around every request the server dispatches, on both lineages and every
transport (stdio, HTTP, ASGI mounts), run by the engine's one chain.

A middleware is an ``async def`` taking the :class:`Request` and ``call_next``::

    @server.middleware
    async def audit(request: Request, call_next: CallNext) -> dict:
        started = time.monotonic()
        result = await call_next(request)          # the rest of the chain, then the handler
        log.info("%s took %.1f ms", request.method, (time.monotonic() - started) * 1e3)
        return result

It may change the request before passing it on (``request.params``), answer it itself (return a
result dict without calling ``call_next``), refuse it (raise :class:`~mcpcore.McpError` with a
code and data: the client gets exactly that error), or change the result on the way back. An
error the rest of the chain answered is raised by ``call_next`` as an ``McpError`` whose
``code`` and ``data`` are the wire's.

What passes through the chain: ``server/discover``, ``ping``, the list, call, read and get
methods, completion, ``tasks/*`` and the Skills methods. The requests that change the
connection itself (``initialize``, ``logging/setLevel``, subscriptions) and notifications do not.

Ready-made middleware, configured here and run by the engine: :class:`RateLimit`,
:class:`Timeouts`, :class:`ResponseLimit`, :class:`ListCache`, :class:`RequestLog`, :class:`Idempotency`.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Sequence, Union

from . import _native
from ._context import Context
from .errors import InvalidInput

__all__ = [
    "Request",
    "CallNext",
    "MiddlewareFunction",
    "RateLimit",
    "Timeouts",
    "ResponseLimit",
    "ListCache",
    "RequestLog",
    "Idempotency",
    "AnyMiddleware",
]


@dataclass
class Request:
    """A request on its way through the middleware chain."""

    #: The JSON-RPC method, e.g. ``"tools/call"``.
    method: str
    #: Its params (for ``tools/call``: ``name``, ``arguments``, ``_meta``); change them in place
    #: or replace them before ``call_next``.
    params: Dict[str, Any] = field(default_factory=dict)
    #: The call: revision, client, identity, headers (see :class:`~mcpcore.Context`).
    context: Optional[Context] = None

    @property
    def tool(self) -> Optional[str]:
        """The tool a ``tools/call`` names; None for other methods."""
        name = self.params.get("name") if self.method == "tools/call" else None
        return name if isinstance(name, str) else None


#: Passes a request on and resolves to its result.
CallNext = Callable[[Request], Awaitable[Dict[str, Any]]]
#: A middleware function.
MiddlewareFunction = Callable[[Request, CallNext], Awaitable[Dict[str, Any]]]


@dataclass(frozen=True)
class RateLimit:
    """At most ``burst`` requests at once per client, refilled at ``per_second`` (a token
    bucket per client: the token's subject, else the peer's address, else the session, else the
    client's name). One more is refused with ``-32603`` and ``data`` ``{"limit": "rate", "max",
    "retryAfter"}``; over HTTP with status 429 and ``Retry-After``. ``methods`` limits which
    methods count (default: all). ``store``: a ``redis://`` URL whose buckets every instance
    behind one load balancer shares; in memory otherwise."""

    per_second: float
    burst: int
    methods: Optional[Sequence[str]] = None
    store: Optional[str] = None


@dataclass(frozen=True)
class Timeouts:
    """A bound in seconds on how long a tool runs: ``default`` for every tool, ``per_tool`` by
    name. A call over its bound is cancelled and answered with ``-32001`` and ``data``
    ``{"tool", "timeoutMs"}``."""

    default: Optional[float] = None
    per_tool: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ResponseLimit:
    """Results over ``max_bytes`` (serialized JSON) are refused with ``-32603`` and ``data``
    ``{"limit": "response_size", "size", "max"}`` instead of being sent."""

    max_bytes: int


@dataclass(frozen=True)
class ListCache:
    """Answers repeated ``tools/list``, ``resources/list``, ``resources/templates/list`` and
    ``prompts/list`` pages from memory: each kept for its own ``ttlMs`` hint (legacy results,
    which carry none: ``ttl`` seconds), never with ``ttlMs: 0``, per caller when the result is
    ``cacheScope: "private"`` or the catalogue is per identity; any list change empties it at
    once. At most ``max_entries`` results."""

    ttl: float = 60.0
    max_entries: int = 1000


@dataclass(frozen=True)
class RequestLog:
    """Logs each request when answered, at INFO on the ``mcpcore.requests`` logger: method,
    tool, client, revision, microseconds, and the error code of a refusal."""


@dataclass(frozen=True)
class Idempotency:
    """Idempotent writes: a ``tools/call`` whose arguments carry a non-empty ``idempotency_key``
    (declare it in the tool's parameters) acts once per client, tool and key. A repeat gets the
    first call's result (kept ``ttl`` seconds) without running the tool; a repeat while the
    first runs waits for it (at most ``lease`` seconds); the key with other arguments is refused
    with ``-32602`` and ``data`` ``{"reason": "idempotency_key_reused", "idempotencyKey"}``; a
    call that raised a JSON-RPC error keeps nothing. ``store``: a ``redis://`` URL shared by
    every instance behind one load balancer (they then act once between them); in memory
    otherwise."""

    ttl: float = 24 * 3600.0
    lease: float = 300.0
    store: Optional[str] = None


AnyMiddleware = Union[MiddlewareFunction, RateLimit, Timeouts, ResponseLimit, ListCache, RequestLog, Idempotency]


def _host(fn: MiddlewareFunction, owner: Any) -> Callable[[Dict[str, Any], Any], Awaitable[Any]]:
    """``fn`` as the engine calls it: ``(input, call)`` with ``input`` ``{"method", "params"}``."""

    async def invoke(given: Dict[str, Any], call: _native.ToolCall) -> Any:
        request = Request(given["method"], given.get("params") or {}, Context(call, owner))

        async def call_next(req: Request) -> Dict[str, Any]:
            out = await call.next(json.dumps({"method": req.method, "params": req.params}))
            result: Dict[str, Any] = json.loads(out)
            return result

        result = await fn(request, call_next)
        if not isinstance(result, dict):
            raise TypeError(f"a middleware returns the result dict, not {type(result).__name__}")
        return result

    return invoke


def _add(chain: _native.Middleware, middleware: AnyMiddleware, owner: Any) -> None:
    """Adds ``middleware`` innermost to ``chain``."""
    if isinstance(middleware, RateLimit):
        methods = list(middleware.methods) if middleware.methods is not None else None
        chain.add_rate_limit(middleware.per_second, middleware.burst, methods, middleware.store)
    elif isinstance(middleware, Timeouts):
        chain.add_timeouts(middleware.default, dict(middleware.per_tool))
    elif isinstance(middleware, ResponseLimit):
        chain.add_response_limit(middleware.max_bytes)
    elif isinstance(middleware, ListCache):
        chain.add_list_cache(middleware.ttl, middleware.max_entries)
    elif isinstance(middleware, RequestLog):
        chain.add_request_log()
    elif isinstance(middleware, Idempotency):
        chain.add_idempotency(middleware.ttl, middleware.lease, middleware.store)
    elif callable(middleware):
        if not inspect.iscoroutinefunction(middleware):
            raise InvalidInput(
                f"middleware {getattr(middleware, '__name__', middleware)!r} must be an async def "
                "(request, call_next)"
            )
        chain.add_callback(_host(middleware, owner), True)
    else:
        raise InvalidInput(f"not a middleware: {middleware!r}")
