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

from . import _convert, _features, _native, _schema
from ._auth import MemoryTokenStore, OAuth, TokenStore
from ._client import Client, Task
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


from ._context import Context, _context  # noqa: E402  (re-exported)


def _callback(fn: Callable[..., Any], spec: _schema.ToolSpec, owner: Any) -> _features.Callback:
    """Wraps a user function as the native callback: the arguments in, the function's value (or
    its awaitable) out; the engine turns the value into the CallToolResult."""

    def invoke(arguments: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
        kwargs = _convert.coerce_arguments(spec, arguments)
        if spec.context_param:
            kwargs[spec.context_param] = _context(call, owner)
        return fn(**kwargs)

    return invoke


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


class Registry:
    """Tools by name: Python functions and the tools of connected servers, called alike."""

    def __init__(self) -> None:
        self._native = _native.Registry()
        self._lifespan_state: Any = None
        # An ``async def`` tool was added: serving runs an asyncio loop for it.
        self._async_tools = False

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        refs: bool = False,
        meta: Optional[Mapping[str, Any]] = None,
        inline: bool = False,
    ) -> Tool:
        """Registers ``fn`` (sync or ``async def``) as a tool. The input schema comes from its
        type hints (pydantic models, dataclasses, TypedDict, enums, Literal, ``Annotated[...,
        Field(description=...)]``), the description from its docstring, the output schema from
        its return type; named types are written out in place (no ``$ref``, which LLM clients
        cannot follow) except recursive ones, unless ``refs=True``. Raises InvalidInput for a
        bad or taken name. ``meta`` is the tool's ``_meta`` (e.g. MCP Apps' ``{"ui": ...}``).

        A sync ``fn`` runs on a worker thread, so a slow one never holds up the server.
        ``inline=True`` runs it on the engine's own thread instead, which saves two thread
        hand-offs (about 30 µs a call, most of what a quick Python tool costs over a Rust one);
        use it for functions that return in microseconds and never block (no I/O, no sleep):
        while one runs, that engine thread serves nothing else, nothing interrupts it (a timeout
        or a cancellation takes effect when it returns), and it cannot call mcpcore's async API
        (a ``RuntimeError``)."""
        spec = _schema.tool_spec(fn, name=name, description=description, context_type=Context, refs=refs)
        output = json.dumps(spec.output_schema) if spec.output_schema is not None else None
        self._async_tools = self._async_tools or spec.is_async
        self._native.add_tool(
            spec.name, spec.description, json.dumps(spec.input_schema), _callback(fn, spec, self), spec.is_async,
            output, title, spec.wraps_result, None if meta is None else json.dumps(dict(meta)), inline,
        )
        return Tool(spec.name, spec.description, spec.input_schema, spec.output_schema, title)

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
        """Decorator form of :meth:`add_tool`, bare (``@registry.tool``) or called
        (``@registry.tool(name=...)``); returns the function unchanged."""
        if callable(name):
            self.add_tool(name)
            return name

        def register(fn: F) -> F:
            self.add_tool(fn, name=name, description=description, title=title, refs=refs, inline=inline)
            return fn

        return register

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; False when there was none."""
        return self._native.remove_tool(name)

    @property
    def names(self) -> List[str]:
        """The tool names, sorted."""
        return self._native.names()

    def list_tools(self) -> List[Tool]:
        """Every tool definition, sorted by name."""
        return [Tool.from_json(t) for t in json.loads(self._native.list_tools())]

    async def call_tool(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None
    ) -> CallToolResult:
        """Calls a tool in-process, local or remote (arguments are validated against its schema)."""
        out = await self._native.call_tool(name, json.dumps(dict(arguments or {})), timeout)
        return CallToolResult.from_json(json.loads(out))

    async def connect(self, server_id: str, client: "Client", *, collision: str = "error") -> List[Dict[str, str]]:
        """Registers every tool of ``client`` under ``server_id``. ``collision`` is "error",
        "skip" or "prefix" (rename to ``<server_id>_<name>``). Returns what happened to each."""
        out = await self._native.connect(server_id, client._native, collision)
        result: List[Dict[str, str]] = json.loads(out)
        return result

    async def disconnect(self, server_id: str) -> List[str]:
        """Unregisters a server's tools and closes its connection; returns the removed names."""
        removed: List[str] = await self._native.disconnect(server_id)
        return removed

    async def load_config(self, config: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> List[str]:
        """Connects every server of an ``mcpServers`` config and registers their tools here,
        beside the local ones: a path to the JSON file (Claude Desktop, VS Code's ``servers``,
        Cursor), or the parsed dict. ``${env:VAR}`` (and ``${VAR}``, with ``:-default``) are
        read from the environment. Each server's tools are named ``<name>__<tool>`` unless its
        entry sets ``"prefix"`` (``""`` for none); ``include``/``exclude`` filter them. Returns
        the names of the servers connected; on failure none stays connected."""
        if isinstance(config, Mapping):
            text = json.dumps(dict(config))
        else:
            with open(os.fspath(config), encoding="utf-8") as f:
                text = f.read()
        names: List[str] = json.loads(await self._native.load_config(text))
        return names

    @property
    def servers(self) -> List[str]:
        """The ids of connected servers."""
        return self._native.servers()


class HttpServing:
    """A running HTTP server (returned by :meth:`Server.serve_http`)."""

    def __init__(self, native: _native.HttpServing, on_stop: Optional[Callable[[], Awaitable[None]]] = None) -> None:
        self._native = native
        self._on_stop = on_stop

    @property
    def url(self) -> str:
        """The endpoint URL, e.g. ``http://127.0.0.1:8000/mcp``."""
        return self._native.url

    @property
    def port(self) -> int:
        """The bound port."""
        return self._native.port

    async def shutdown(self) -> None:
        """Stops gracefully: in-flight requests finish within the grace period (30 s); then the
        server's ``lifespan`` ends."""
        await self._native.shutdown()
        on_stop, self._on_stop = self._on_stop, None
        if on_stop is not None:
            await on_stop()

    async def wait(self) -> None:
        """Completes when the server has stopped."""
        await self._native.wait()


def _add_middleware(chain: _native.Middleware, middleware: Any, owner: Any) -> None:
    """Adds ``middleware`` to ``chain`` (:mod:`mcpcore.middleware`, imported on first use: it
    is not part of the package's import time)."""
    from .middleware import _add

    _add(chain, middleware, owner)
    if callable(middleware) and isinstance(owner, Server):
        owner._loop_middleware = True  # a Python middleware runs on the loop


class Server:
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

    # -- resources ----------------------------------------------------------------------------

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> None:
        """Registers ``fn`` (sync or ``async def``) as the reader of ``uri``: a fixed URI, or an
        RFC 6570 template such as ``users://{id}/profile`` whose variables ``fn`` receives as
        keyword arguments (strings; ``int``/``float``/``bool`` when annotated so). A ``Context``
        parameter receives the call. ``name`` defaults to the function's name, ``description``
        to its docstring. ``complete`` maps template variables to completion values or
        functions (see :meth:`add_completion`).

        ``fn`` returns the contents: ``str`` (text), ``bytes`` (a base64 blob), an
        ``EmbeddedResource``, an MCP contents dict (``{"text": ...}`` or ``{"blob": ...}``), a
        list of these, or any other JSON-able value (sent as ``application/json`` text). An
        exception is a ``-32603`` error (an ``McpError`` with a code is sent as that error).
        Raises InvalidInput when the URI (or template name) is taken."""
        spec = _features.handler_spec(fn, "resource", Context, name)
        is_template = "{" in uri
        variables = _features.template_variables(uri) if is_template else []
        missing = [p for p in spec.required if p not in variables]
        if missing:
            where = f"template {uri!r} has no variable" if is_template else f"resource {uri!r} has no variables:"
            raise TypeError(f"resource {spec.name!r}: {where} {', '.join(missing)} (give those parameters defaults)")
        descriptor = _features.resource_descriptor(
            uri, spec, name=name, title=title, description=description, mime_type=mime_type, is_template=is_template
        )

        def invoke(request: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
            kwargs = spec.kwargs(request.get("variables") or {})
            if spec.context_param:
                kwargs[spec.context_param] = _context(call, self.registry)
            return fn(**kwargs)

        callback = invoke
        if is_template:
            self._async_handlers = self._async_handlers or spec.is_async
            self._resources.add_template(json.dumps(descriptor), callback, spec.is_async)
            self._templates[uri] = descriptor["name"]
            for variable, source in (complete or {}).items():
                self.add_completion(source, template=uri, argument=variable)
        else:
            if complete:
                raise InvalidInput(f"resource {uri!r} is not a template: it has no variables to complete")
            self._async_handlers = self._async_handlers or spec.is_async
            self._resources.add(json.dumps(descriptor), callback, spec.is_async)

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Callable[[F], F]:
        """Decorator form of :meth:`add_resource`; returns the function unchanged::

            @server.resource("users://{id}/profile", mime_type="application/json",
                             complete={"id": ["ann", "bob"]})
            async def profile(id: str) -> dict:
                return {"id": id}
        """

        if callable(uri):
            raise TypeError(
                f"@server.resource needs the resource's URI: write @server.resource(\"scheme://...\") above "
                f"{getattr(uri, '__name__', 'the function')}, not a bare @server.resource"
            )

        def register(fn: F) -> F:
            self.add_resource(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type, complete=complete
            )
            return fn

        return register

    def remove_resource(self, uri: str) -> bool:
        """Removes the resource with ``uri``, or the template whose ``uriTemplate`` is ``uri``;
        False when there was none."""
        if uri in self._templates:
            return self._resources.remove_template(self._templates.pop(uri))
        return self._resources.remove(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Announces that the resource at ``uri`` changed: subscribed clients get
        ``notifications/resources/updated`` (legacy ``resources/subscribe``, 2026-07-28
        ``subscriptions/listen``)."""
        self._resources.notify_updated(uri)

    def list_resources(self) -> List[Dict[str, Any]]:
        """The registered resources (MCP ``Resource`` dicts, by URI)."""
        return list(json.loads(self._resources.list()))

    def list_resource_templates(self) -> List[Dict[str, Any]]:
        """The registered templates (MCP ``ResourceTemplate`` dicts, by name)."""
        return list(json.loads(self._resources.list_templates()))

    # -- apps (MCP Apps, SEP-1865) -------------------------------------------------------------

    def add_app(
        self,
        uri: str,
        html: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        csp: Optional[Mapping[str, Sequence[str]]] = None,
        permissions: Optional[Sequence[str]] = None,
        domain: Optional[str] = None,
        prefers_border: Optional[bool] = None,
    ) -> None:
        """Serves an app (MCP Apps, ``io.modelcontextprotocol/ui``): the HTML document ``html``
        at the ``ui://`` URI ``uri``, as ``text/html;profile=mcp-app``. ``csp`` lists the origins
        it may reach (``{"connectDomains": [...], "resourceDomains": [...], "frameDomains":
        [...], "baseUriDomains": [...]}``; none by default), ``permissions`` the browser features
        it asks for (``"camera"``, ``"microphone"``, ``"geolocation"``, ``"clipboardWrite"``),
        ``domain`` a dedicated sandbox origin, ``prefers_border`` whether the host draws a border.
        The server then declares the extension. Bind tools to it with :meth:`app` or
        ``tool(..., meta=apps_meta(uri))``."""
        ui: Dict[str, Any] = {}
        if csp:
            ui["csp"] = {k: list(v) for k, v in csp.items()}
        if permissions:
            ui["permissions"] = {p: {} for p in permissions}
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self._resources.add_app(uri, html, name, title, description, json.dumps(ui) if ui else None)

    def app(
        self,
        uri: str,
        html: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        visibility: Optional[Sequence[str]] = None,
        **app_options: Any,
    ) -> Callable[[F], F]:
        """Decorator: serves the app ``html`` at ``uri`` (see :meth:`add_app`, whose options
        ``app_options`` are) and registers the function as a tool bound to it
        (``_meta.ui.resourceUri``; ``visibility``: ``["model", "app"]`` by default, ``["app"]``
        for a tool only the app calls). Hosts without apps call it as any tool, so its result
        should say in text what the app shows::

            @server.app("ui://echo/view.html", VIEW_HTML, prefers_border=True)
            def show_echo(text: str) -> str:
                return text
        """

        def register(fn: F) -> F:
            self.add_app(uri, html, **app_options)
            self.registry.add_tool(fn, name=name, description=description, title=title,
                                   meta=apps_meta(uri, visibility))
            return fn

        return register

    # -- skills (SEP-2640) ---------------------------------------------------------------------

    def _skill_set(self) -> _native.Skills:
        if self._skills is None:
            self._skills = _native.Skills(self._resources)
        return self._skills

    def skills(self, root: Union[str, "os.PathLike[str]"]) -> List[Dict[str, Any]]:
        """Serves every skill under the directory ``root`` (each directory holding a
        ``SKILL.md``; the Skills extension, ``io.modelcontextprotocol/skills``): its files become
        resources ``skill://<skill-path>/<file>``, and ``skills/list``, ``skills/get`` and
        ``resources/directory/read`` are answered. Files are read once, now. Returns the skills'
        entries. Raises :class:`InvalidInput` naming the rule a skill breaks (a frontmatter
        without ``name``/``description`` or naming another directory, more than 512 files or
        16 MiB, a link leaving ``root``); then none of them is served."""
        return list(json.loads(self._skill_set().add_dir(os.fspath(root))))

    def add_skill(self, path: str, files: Mapping[str, Union[str, bytes]]) -> Dict[str, Any]:
        """Serves the skill at ``path`` (``"git-workflow"``, ``"acme/billing/refunds"``; the last
        segment is its name) made of ``files`` (path in the skill -> text or bytes; a ``SKILL.md``
        with YAML frontmatter is required). Returns its entry (frontmatter, and each file's
        ``sha256`` digest and size)."""
        encoded = [(k, v.encode() if isinstance(v, str) else bytes(v)) for k, v in files.items()]
        return dict(json.loads(self._skill_set().add(path, encoded)))

    def skill(self, fn: Optional[Callable[[], Any]] = None, *, path: Optional[str] = None) -> Any:
        """Decorator form of :meth:`add_skill`: the function is called once, now, and returns the
        ``SKILL.md`` text or a mapping of the skill's files; the skill path defaults to the
        function's name with ``_`` as ``-``::

            @server.skill
            def git_workflow() -> str:
                return "---\nname: git-workflow\ndescription: Our Git conventions\n---\n..."
        """

        def register(f: Callable[[], Any]) -> Callable[[], Any]:
            made = f()
            files = {"SKILL.md": made} if isinstance(made, (str, bytes)) else dict(made)
            self.add_skill(path or f.__name__.replace("_", "-"), files)
            return f

        return register(fn) if fn is not None else register

    def remove_skill(self, uri: str) -> bool:
        """Stops serving the skill whose ``SKILL.md`` is at ``uri``; False when there was none."""
        return self._skills is not None and self._skills.remove(uri)

    # -- prompts ------------------------------------------------------------------------------

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> None:
        """Registers ``fn`` (sync or ``async def``) as a prompt. Its parameters are the prompt's
        arguments (strings; required when they have no default; described by the docstring's
        Args section); a ``Context`` parameter receives the call. ``fn`` returns a ``str`` (one
        user message), a ``Message``, an MCP message dict, a list of those, or a full
        ``GetPromptResult`` dict. ``complete`` maps arguments to completion values or functions.
        Raises InvalidInput when the name is taken."""
        spec = _features.handler_spec(fn, "prompt", Context, name)
        descriptor = _features.prompt_descriptor(spec, title=title, description=description)

        def invoke(arguments: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
            kwargs = spec.kwargs(arguments)
            if spec.context_param:
                kwargs[spec.context_param] = _context(call, self.registry)
            return fn(**kwargs)

        self._async_handlers = self._async_handlers or spec.is_async
        self._prompts.add(json.dumps(descriptor), invoke, spec.is_async)
        for argument, source in (complete or {}).items():
            self.add_completion(source, prompt=spec.name, argument=argument)

    @overload
    def prompt(self, name: F) -> F: ...

    @overload
    def prompt(
        self,
        name: Optional[str] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        name: Union[str, F, None] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Union[F, Callable[[F], F]]:
        """Decorator form of :meth:`add_prompt`, bare (``@server.prompt``) or called; returns the
        function unchanged::

            @server.prompt(complete={"language": ["python", "rust"]})
            def review(code: str, language: str = "python") -> str:
                \"\"\"Asks for a code review.\"\"\"
                return f"Review this {language} code:\\n{code}"
        """

        if callable(name):
            self.add_prompt(name)
            return name

        def register(fn: F) -> F:
            self.add_prompt(fn, name=name, title=title, description=description, complete=complete)
            return fn

        return register

    def remove_prompt(self, name: str) -> bool:
        """Removes prompt ``name``; False when there was none."""
        return self._prompts.remove(name)

    def list_prompts(self) -> List[Dict[str, Any]]:
        """The registered prompts (MCP ``Prompt`` dicts, by name)."""
        return list(json.loads(self._prompts.list()))

    # -- completion ---------------------------------------------------------------------------

    def add_completion(
        self,
        source: CompletionSource,
        *,
        argument: str,
        prompt: Optional[str] = None,
        template: Optional[str] = None,
    ) -> None:
        """Completes ``argument`` of ``prompt`` (a prompt name), or the variable ``argument`` of
        ``template`` (a registered ``uriTemplate``), for ``completion/complete``. ``source`` is
        a list of values (the engine offers those starting with what was typed, at most 100),
        or a function ``(value)`` or ``(value, context)`` (sync or async; ``context`` holds the
        other arguments the client sent) returning a list of strings or a
        ``{"values", "total", "hasMore"}`` dict. Raises InvalidInput for an unknown prompt,
        template or argument."""
        if (prompt is None) == (template is None):
            raise InvalidInput("add_completion needs exactly one of prompt= or template=")
        values, callback, is_async = _features.completer_parts(source)
        self._async_handlers = self._async_handlers or is_async
        if prompt is not None:
            self._prompts.complete(prompt, argument, values, callback, is_async)
        else:
            assert template is not None
            self._resources.complete(template, argument, values, callback, is_async)

    def completion(
        self, *, argument: str, prompt: Optional[str] = None, template: Optional[str] = None
    ) -> Callable[[F], F]:
        """Decorator form of :meth:`add_completion` for a completion function::

            @server.completion(prompt="review", argument="language")
            def languages(value: str) -> list[str]:
                return [l for l in LANGUAGES if l.startswith(value)]
        """

        def register(fn: F) -> F:
            self.add_completion(fn, argument=argument, prompt=prompt, template=template)
            return fn

        return register

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
