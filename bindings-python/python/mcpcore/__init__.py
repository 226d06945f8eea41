"""mcpcore: the Model Context Protocol for asyncio Python, on one Rust engine.

Both protocol lineages (stateless 2026-07-28 and the ``initialize``-based 2025-11-25 ...
2024-11-05), stdio and HTTP, one registry for local and remote tools::

    from mcpcore import Server

    server = Server("demo", "1.0")

    @server.tool()
    async def add(a: int, b: int) -> int:
        \"\"\"Adds two numbers.\"\"\"
        return a + b

    @server.resource("users://{id}/profile", mime_type="application/json")
    def profile(id: str) -> dict:
        return {"id": id}

    @server.prompt()
    def review(code: str) -> str:
        \"\"\"Asks for a review.\"\"\"
        return f"Please review:\\n{code}"

    server.run()                      # stdio; server.run("http", port=8000) for HTTP

    # elsewhere
    async with await Client.connect_stdio(["python", "demo.py"]) as client:
        print((await client.call_tool("add", {"a": 1, "b": 2})).data)
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import time
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncContextManager,
    Awaitable,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    TypeVar,
    Union,
    overload,
)

from . import _native
from ._auth import MemoryTokenStore, OAuth, TokenStore
from ._client import Client, Task
from ._client_events import EventStream
from ._webhooks import WebhookReceiver
from ._server_auth import Auth, Identity, TokenRefused
from ._features import CompletionSource
from .content import Audio, EmbeddedResource, Image, Message, Text
from .errors import (
    AuthError,
    ConnectionClosed,
    HttpError,
    InputRequired,
    InvalidInput,
    McpError,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    ToolError,
    TransportError,
)
from .types import CallToolResult, ElicitResult, Root, SamplingResult, Tool

if TYPE_CHECKING:  # pragma: no cover
    from . import middleware as _middleware
    from .asgi import AsgiApp

__version__: str = _native.__version__

__all__ = [
    "Server",
    "Gateway",
    "Client",
    "EventStream",
    "WebhookReceiver",
    "Task",
    "Registry",
    "HttpServing",
    "Context",
    "Tool",
    "CallToolResult",
    "Image",
    "Audio",
    "EmbeddedResource",
    "Text",
    "Message",
    "ElicitResult",
    "SamplingResult",
    "Root",
    "CompletionSource",
    "McpError",
    "RequestTimeout",
    "RequestCancelled",
    "ConnectionClosed",
    "ProtocolError",
    "TransportError",
    "InvalidInput",
    "ResourceNotFound",
    "ToolError",
    "HttpError",
    "InputRequired",
    "AuthError",
    "OAuth",
    "TokenStore",
    "Auth",
    "Identity",
    "TokenRefused",
    "MemoryTokenStore",
    "apps_meta",
    "refusal",
    "pending_approval",
    "page",
    "refresh_logging",
]

F = TypeVar("F", bound=Callable[..., Any])


def _settle_engine_threads() -> None:
    """Lets the engine's work in Python finish before the interpreter finalizes (at most 50 ms).

    A tokio thread that takes the GIL while the main thread finalizes is ended mid-frame
    (pthread_exit): its Rust frames unwind without the GIL, a segfault or a "PyGILState_Release
    ... must be current" abort at exit (pyo3-async-runtimes has no shutdown hook,
    PyO3/pyo3-async-runtimes#40). The engine counts its work that is in, or on its way into,
    Python (a handler call from when it is scheduled, every entry into Python); sleeping releases
    the GIL so that work can finish, and a process with none exits at once (atexit handlers run
    before finalization starts). A loop without ``add_reader`` (Windows' default proactor) has
    its awaited calls completed from tokio threads, uncounted: once that happened, the count
    stays above zero and the wait is the whole 50 ms, as it is on Windows always."""
    deadline = time.monotonic() + 0.05
    try:
        if sys.platform == "win32":
            time.sleep(0.05)
        while _native.engine_work_in_python() and time.monotonic() < deadline:
            time.sleep(0.001)
    except KeyboardInterrupt:  # a second Ctrl-C while exiting
        pass


atexit.register(_settle_engine_threads)


def refresh_logging() -> None:
    """Makes the engine see changed levels of the ``mcpcore`` loggers. The engine's log records
    (the HTTP server logs each request at DEBUG on ``mcpcore.http``: JSON-RPC method and id,
    status, time) go to Python's :mod:`logging`; their loggers and levels are cached on first
    use, so call this after ``logging.getLogger("mcpcore").setLevel(...)`` at run time."""
    _native.reset_logging()


from ._context import Context  # noqa: E402  (re-exported)
from ._registry import HttpServing, Registry  # noqa: E402
from ._results import apps_meta, page, pending_approval, refusal  # noqa: E402
from ._server_events import _ServerEvents  # noqa: E402
from ._server_features import _ServerFeatures  # noqa: E402


def _add_middleware(chain: _native.Middleware, middleware: Any, owner: Any) -> None:
    """Adds ``middleware`` to ``chain`` (:mod:`mcpcore.middleware`, imported on first use: it
    is not part of the package's import time)."""
    from .middleware import _add

    _add(chain, middleware, owner)
    if callable(middleware) and isinstance(owner, Server):
        owner._loop_middleware = True  # a Python middleware runs on the loop


class Server(_ServerFeatures, _ServerEvents):
    """An MCP server: both lineages, on stdio or HTTP, serving a :class:`Registry` of tools,
    and the resources, prompts and completions registered with its decorators."""

    def __init__(
        self,
        name: str = "mcpcore-python",
        version: str = __version__,
        *,
        registry: Optional[Registry] = None,
        instructions: Optional[str] = None,
        lifespan: Optional[Callable[["Server"], AsyncContextManager[Any]]] = None,
        middleware: Sequence["_middleware.AnyMiddleware"] = (),
        telemetry: Optional[bool] = None,
    ) -> None:
        """``middleware`` (outermost first) runs around every dispatched request: ``async def``
        functions ``(request, call_next)`` and the ready-made :mod:`mcpcore.middleware` ones
        (``RateLimit``, ``Timeouts``, ``ResponseLimit``, ``RequestLog``); see
        :meth:`Server.middleware`.

        ``telemetry``: record a SERVER span per request and ``mcp.server.operation.duration``
        with the global OpenTelemetry providers (the OpenTelemetry conventions for MCP; the span's
        parent is the context the client sent in ``params._meta``). Default: on when
        ``opentelemetry-api`` is installed and an SDK tracer provider is set when serving starts
        (``opentelemetry-instrument``), off otherwise.

        ``lifespan`` (an async context manager factory, e.g. an ``@asynccontextmanager``
        function taking the server) is entered when serving starts and left when it stops; what
        it yields is ``ctx.lifespan`` in every handler::

            @contextlib.asynccontextmanager
            async def lifespan(server):
                db = await connect_db()
                try:
                    yield {"db": db}
                finally:
                    await db.close()

            server = Server("app", "1.0", lifespan=lifespan)
        """
        self.registry = registry if registry is not None else Registry()
        self._lifespan = lifespan
        self._info = (name, version, instructions)
        self._resources = _native.Resources()
        self._prompts = _native.Prompts()
        self._templates: Dict[str, str] = {}  # uriTemplate -> template name
        self._skills: Optional[_native.Skills] = None
        self._events: Optional[_native.Events] = None
        self._tool_search: Optional[_native.ToolSearch] = None
        self._middleware = _native.Middleware()
        self._telemetry = telemetry
        self._telemetry_on = False
        # What serving needs an asyncio loop for (see `_sync_only`).
        self._async_handlers = False
        self._loop_middleware = False
        for m in middleware:
            _add_middleware(self._middleware, m, self)

    def _native_server(self) -> _native.Server:
        """The engine's server. Resources and prompts (and completion) are served, and declared
        in the capabilities, when at least one is registered when serving starts."""
        name, version, instructions = self._info
        resources = None if self._resources.is_empty() else self._resources
        prompts = None if self._prompts.is_empty() else self._prompts
        skills = None if self._skills is None or self._skills.is_empty() else self._skills
        events = None if self._events is None or self._events.is_empty() else self._events
        from . import _telemetry  # imported when serving starts, not with the package

        if not self._telemetry_on and _telemetry.wanted(self._telemetry):
            # Outermost: the span covers the other middleware too.
            from .middleware import _host

            self._middleware.add_callback(_host(_telemetry.middleware(), self), True, True, True)
            self._telemetry_on = True
            self._loop_middleware = True
        middleware = self._middleware if len(self._middleware) else None
        return _native.Server(
            self.registry._native,
            name,
            version,
            instructions,
            resources,
            prompts,
            skills,
            self._tool_search,
            middleware,
            events,
        )

    def middleware(self, fn: F) -> F:
        """Registers ``fn`` (``async def fn(request, call_next)``) as middleware, inside those
        added before; also takes the ready-made ones of :mod:`mcpcore.middleware`. Add
        middleware before serving starts::

            @server.middleware
            async def only_tenants(request, call_next):
                if request.context.header("x-tenant") is None:
                    raise McpError("Unauthorized: no tenant", -32042, data={"remedy": "send X-Tenant"})
                return await call_next(request)
        """
        _add_middleware(self._middleware, fn, self)
        return fn

    def add_middleware(self, middleware: "_middleware.AnyMiddleware") -> None:
        """Adds ``middleware`` (a function as :meth:`middleware` takes, or a ready-made one:
        ``RateLimit``, ``Timeouts``, ``ResponseLimit``, ``RequestLog``, ``Idempotency``) inside
        those added before. Add middleware before serving."""
        _add_middleware(self._middleware, middleware, self)

    def tool_search(self, pinned: Sequence[str] = ()) -> None:
        """Tool search for a large catalogue: ``tools/list`` shows only the ``pinned`` tools and
        ``search_tools``, which ranks every tool for a query (BM25 over names, descriptions and
        argument names; ``regex: true`` for a regular expression) and answers the best matches
        with their schemas. Every tool stays callable by name, listed or not. Call it once,
        before serving."""
        if self._tool_search is not None:
            raise InvalidInput("tool search is already on")
        self._tool_search = self.registry._native.tool_search(list(pinned))

    @overload
    def tool(self, name: F) -> F: ...

    @overload
    def tool(
        self,
        name: Optional[str] = None,
        *,
        description: Optional[str] = None,
        title: Optional[str] = None,
        refs: bool = False,
        inline: bool = False,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        name: Union[str, F, None] = None,
        *,
        description: Optional[str] = None,
        title: Optional[str] = None,
        refs: bool = False,
        inline: bool = False,
    ) -> Union[F, Callable[[F], F]]:
        """Registers the decorated function as a tool (see :meth:`Registry.add_tool`), bare
        (``@server.tool``) or called (``@server.tool(name=...)``)."""
        if callable(name):
            return self.registry.tool(name)
        return self.registry.tool(name, description=description, title=title, refs=refs, inline=inline)

    def add_tool(self, fn: Callable[..., Any], **kwargs: Any) -> Tool:
        """Registers ``fn`` as a tool (see :meth:`Registry.add_tool`)."""
        return self.registry.add_tool(fn, **kwargs)

    # -- serving ------------------------------------------------------------------------------

    def _sync_only(self) -> bool:
        """True when nothing served needs an asyncio loop: no ``lifespan``, no middleware
        written in Python (telemetry's included), and no ``async def`` handler (tool, resource,
        prompt, completion). :meth:`run` then serves stdio without asyncio, whose import is a
        third of a Python server's start-up (an ``async def`` tool added while serving runs on
        a private loop)."""
        from . import _telemetry

        return (
            self._lifespan is None
            and not self._loop_middleware
            and not self._async_handlers
            and not self.registry._async_tools
            and not _telemetry.wanted(self._telemetry)
        )

    async def _enter_lifespan(self) -> Optional[Callable[[], Awaitable[None]]]:
        """Enters ``lifespan``; returns what leaves it (None without one)."""
        if self._lifespan is None:
            return None
        stack = contextlib.AsyncExitStack()
        self.registry._lifespan_state = await stack.enter_async_context(self._lifespan(self))

        async def leave() -> None:
            try:
                await stack.aclose()
            finally:
                self.registry._lifespan_state = None

        return leave

    async def serve_stdio(self, *, auth: Optional[Auth] = None) -> None:
        """Serves on this process's stdin/stdout until stdin closes (inside ``lifespan``).

        With ``auth`` (the same :class:`Auth` as for HTTP) the caller's access token is read
        from the environment variable ``MCP_ACCESS_TOKEN``, as the spec asks of stdio servers,
        and checked once before serving: every request is then served as that identity
        (``ctx.auth``) with its catalogue. Without a valid token it raises :class:`AuthError`.
        """
        leave = await self._enter_lifespan()
        try:
            await self._native_server().serve_stdio(auth._native if auth is not None else None)
        finally:
            if leave is not None:
                await leave()

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        path: str = "/mcp",
        response_mode: str = "auto",
        unix: Optional[Union[str, "os.PathLike[str]"]] = None,
        unix_mode: Optional[int] = None,
        max_body: Optional[int] = None,
        body_budget: Optional[int] = None,
        allowed_hosts: Optional[Sequence[str]] = None,
        allowed_origins: Optional[Sequence[str]] = None,
        any_host: bool = False,
        shutdown_grace: Optional[float] = None,
        header_timeout: Optional[float] = None,
        body_timeout: Optional[float] = None,
        max_connections: Optional[int] = None,
        max_sessions: Optional[int] = None,
        max_sessions_per_client: Optional[int] = None,
        session_idle: Optional[float] = None,
        max_backlog: Optional[int] = None,
        max_in_flight: Optional[int] = None,
        max_tasks_per_client: Optional[int] = None,
        peer_request_timeout: Optional[float] = None,
        state_encryption: Optional[bool] = None,
        state_single_use: Optional[bool] = None,
        tls_cert: Optional[Union[str, "os.PathLike[str]"]] = None,
        tls_key: Optional[Union[str, "os.PathLike[str]"]] = None,
        tls_client_ca: Optional[Union[str, "os.PathLike[str]"]] = None,
        store: Optional[str] = None,
        state_keys: Optional[Union[str, Sequence[str]]] = None,
        auth: Optional[Auth] = None,
    ) -> HttpServing:
        """Starts serving HTTP: both lineages on ``path``, the 2024-11-05 SSE transport on
        ``/sse``. Returns once bound (``port=0`` picks a free port), inside ``lifespan``, which
        :meth:`HttpServing.shutdown` leaves.

        - ``response_mode``: "auto" (SSE only when a tool sends progress first), "json" or "sse".
        - ``unix``: serve on this Unix domain socket instead of ``host``/``port`` (file mode
          ``unix_mode``, default ``0o600``: only this user may connect; a stale socket is
          replaced, a live one refused; removed at shutdown). ``url`` is then
          ``http+unix://%2F...%2Fx.sock/mcp``, which :meth:`Client.connect_http` takes, as it
          takes ``unix:/path/x.sock``.
        - ``max_body``: the largest request body in bytes (default 4 MiB; larger: 413).
        - ``body_budget``: the most bytes of request bodies being received at once, all
          connections together (default 64 MiB; past it: 503 with ``Retry-After``).
        - ``allowed_hosts`` / ``allowed_origins``: the accepted ``Host`` and ``Origin`` values
          (default: the loopback names when bound to loopback; elsewhere ``localhost`` and IP
          addresses as ``Host`` (a DNS name must be listed: DNS-rebinding protection), and an
          ``Origin`` only when it names the request's own host). ``any_host=True``: no check.
        - ``shutdown_grace``: seconds in-flight requests get at shutdown (default 30).
        - ``header_timeout``: seconds a client may take to send a request head, which also closes
          idle keep-alive connections (default 30); ``body_timeout``: seconds for a request
          body (default 30; slower: 408).
        - ``max_connections``: connections open at once (default 10,000, or the open-file limit
          less 64); past it a new connection gets 503 with ``Retry-After``.
        - ``max_sessions``: legacy sessions at once (default 10,000); when full a new one ends an
          idle session (unused for ``session_idle`` seconds, default 60), else the least
          recently used one of the client holding the most; all busy: 503 with ``Retry-After``.
          ``max_sessions_per_client``: sessions of one client (its token's subject, else its
          IP address; default 1,000): past it the client's own least recently used idle one
          ends; all busy: 429 with ``Retry-After``.
        - ``max_backlog``: bytes waiting for one slow reader of a stream (default 8 MiB); a
          reader further behind is disconnected.
        - ``max_in_flight``: requests in flight per session or connection (default 1,000);
          past it ``-32603`` with ``data.limit == "in_flight"`` (HTTP 429).
        - ``max_tasks_per_client``: running tasks per client (default 1,000); past it an
          optional-task tool runs synchronously, a task-only tool gets ``-32603``.
        - ``peer_request_timeout``: seconds a legacy elicitation, sampling or roots request waits
          for the client (default 600); then the handler gets a timeout error.
        - ``tls_cert`` and ``tls_key`` (PEM files) serve HTTPS; with ``tls_client_ca`` every
          client must present a certificate that CA signed (mutual TLS).
        - ``store``: ``"redis://HOST:PORT[/DB]"`` keeps legacy sessions in Redis, so several
          instances behind one load balancer serve any message of any session (default: in
          this process's memory). ``state_keys``: the hex keys (at least 32 bytes, newest
          first; one comma-separated string or a list) sealing ``requestState``, the same on
          every instance; default: the environment variable ``MCPCORE_STATE_KEY``. A store
          without keys is refused (:class:`InvalidInput`). ``state_encryption=True`` encrypts
          ``requestState`` (XChaCha20-Poly1305), so clients cannot read the handlers' state;
          ``state_single_use=True`` accepts each state once (in this process: instances behind
          one load balancer would need a shared ledger).
        - ``auth`` makes it a protected server (an OAuth resource server, see :class:`Auth`).
        """

        def ms(seconds: Optional[float]) -> Optional[int]:
            return None if seconds is None else round(seconds * 1000)

        settings = {
            "host": host,
            "port": port,
            "path": path,
            "response_mode": response_mode,
            "unix": os.fspath(unix) if unix is not None else None,
            "unix_mode": unix_mode,
            "max_body": max_body,
            "body_budget": body_budget,
            "allowed_hosts": list(allowed_hosts) if allowed_hosts is not None else None,
            "allowed_origins": list(allowed_origins) if allowed_origins is not None else None,
            "any_host": any_host,
            "shutdown_grace_ms": ms(shutdown_grace),
            "header_timeout_ms": ms(header_timeout),
            "body_timeout_ms": ms(body_timeout),
            "max_connections": max_connections,
            "max_sessions": max_sessions,
            "max_sessions_per_client": max_sessions_per_client,
            "session_idle_ms": ms(session_idle),
            "max_backlog": max_backlog,
            "max_in_flight": max_in_flight,
            "max_tasks_per_client": max_tasks_per_client,
            "peer_request_timeout_ms": ms(peer_request_timeout),
            "state_encryption": state_encryption,
            "state_single_use": state_single_use,
            "tls_cert_file": None if tls_cert is None else os.fspath(tls_cert),
            "tls_key_file": None if tls_key is None else os.fspath(tls_key),
            "tls_client_ca_file": None if tls_client_ca is None else os.fspath(tls_client_ca),
            "store": store,
            "state_keys": state_keys if state_keys is None or isinstance(state_keys, str) else list(state_keys),
        }
        leave = await self._enter_lifespan()
        try:
            native = await self._native_server().serve_http(
                json.dumps(settings), auth._native if auth is not None else None
            )
        except BaseException:
            if leave is not None:
                await leave()
            raise
        return HttpServing(native, leave)

    def asgi_app(self, **options: Any) -> "AsgiApp":
        """This server as an ASGI app, answering through the engine in process: mount it with
        ``app.mount("/mcp", server.asgi_app())`` in Starlette or FastAPI (and pass its
        ``lifespan``), or serve it with uvicorn. Options as :meth:`serve_http` (``path``,
        ``response_mode``, ``max_body``, ``allowed_hosts``, ``allowed_origins``, ``any_host``,
        ``store``, ``state_keys``, ``auth``); see :mod:`mcpcore.asgi`."""
        from .asgi import AsgiApp

        return AsgiApp(self, **options)

    def run(
        self,
        transport: str = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        auth: Optional[Auth] = None,
        **http: Any,
    ) -> None:
        """Serves until stdin closes (stdio) or Ctrl-C (http), then stops cleanly. ``auth`` makes
        it a protected server (on stdio the token comes from ``MCP_ACCESS_TOKEN``); ``http``
        holds the other options of :meth:`serve_http`."""

        if transport == "stdio" and auth is None and self._sync_only():
            try:
                self._native_server().serve_stdio_blocking()
            except KeyboardInterrupt:
                pass
            return
        import asyncio

        async def main() -> None:
            if transport == "stdio":
                await self.serve_stdio(auth=auth)
                return
            if transport != "http":
                raise InvalidInput(f"transport must be 'stdio' or 'http', not {transport!r}")
            serving = await self.serve_http(host, port, auth=auth, **http)
            print(f"listening on {serving.url}", flush=True)
            try:
                await serving.wait()
            finally:
                await serving.shutdown()

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            pass


class Gateway(Server):
    """A gateway: every server of an ``mcpServers`` config (the Claude Desktop / Cursor / VS Code
    shape, plus the gateway's per-entry options: ``prefix``, ``uriPrefix``, ``protocolVersion``
    or ``lineage``, ``include`` / ``exclude``, ``timeoutMs``, ``start``, ``restart``;
    see ``mcpcore gateway --help``) connected as an upstream and served as one server, on both
    lineages, beside the tools, resources and prompts registered here with the
    :class:`Server` decorators::

        gateway = Gateway({"mcpServers": {"everything": {"command": "npx",
                                                         "args": ["@modelcontextprotocol/server-everything"]}}})

        @gateway.tool()
        def local_time() -> str:
            return "noon"

        async with gateway:  # start(): connects the upstreams; shutdown() on exit
            serving = await gateway.serve_http(port=8080)
            ...

    ``config`` is a mapping, JSON text, or the path of a JSON file.
    """

    def __init__(
        self,
        config: Union[Mapping[str, Any], str, "os.PathLike[str]"],
        name: str = "mcpcore-gateway",
        version: str = __version__,
        *,
        registry: Optional[Registry] = None,
        instructions: Optional[str] = None,
    ) -> None:
        super().__init__(name, version, registry=registry, instructions=instructions)
        if isinstance(config, Mapping):
            self._config = json.dumps(config)
        elif isinstance(config, str) and config.lstrip().startswith("{"):
            self._config = config
        else:
            with open(os.fspath(config), encoding="utf-8") as f:
                self._config = f.read()
        self._gateway: Optional[_native.Gateway] = None

    async def start(self) -> "Gateway":
        """Connects the upstreams (eager ones before returning) and mounts their entries
        beside the local ones. Raises (with every upstream closed again) when one cannot be
        reached or a name collides under the ``"error"`` policy."""
        if self._gateway is None:
            self._gateway = await _native.Gateway.start(
                self._config, self.registry._native, self._resources, self._prompts
            )
        return self

    def _started(self) -> _native.Gateway:
        if self._gateway is None:
            raise InvalidInput("the gateway is not started: await gateway.start() first")
        return self._gateway

    def _native_server(self) -> _native.Server:
        name, version, instructions = self._info
        return self._started().server(
            self.registry._native, self._resources, self._prompts, name, version, instructions
        )

    def upstreams(self) -> List[str]:
        """The mounted upstreams, sorted (a lazy one once it connected)."""
        return self._started().upstreams()

    def status(self, name: str) -> Optional[Dict[str, Any]]:
        """The state of the configured upstream ``name``: ``{"state": "starting" | "up" |
        "restarting" | "failed", "restarts": int, "last_error": str | None}``."""
        text = self._started().status(name)
        return None if text is None else json.loads(text)

    async def shutdown(self) -> None:
        """Closes every upstream (stdio children are stopped); the local entries stay."""
        if self._gateway is not None:
            await self._gateway.shutdown()

    async def __aenter__(self) -> "Gateway":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()
