"""mcpcore: the Model Context Protocol for asyncio Python, on one Rust engine.

Both protocol lineages (stateless 2026-07-28 and the ``initialize``-based 2025-11-25 ...
2024-11-05), stdio and HTTP, one registry for local and remote tools::

    from mcpcore import Server

    server = Server("demo", "1.0")

    @server.tool()
    async def add(a: int, b: int) -> int:
        \"\"\"Adds two numbers.\"\"\"
        return a + b

    server.run()                      # stdio; server.run("http", port=8000) for HTTP

    # elsewhere
    async with await Client.connect_stdio(["python", "demo.py"]) as client:
        print((await client.call_tool("add", {"a": 1, "b": 2})).data)
"""

from __future__ import annotations

import asyncio
import atexit
import json
import time
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _convert, _native, _schema
from .content import Audio, EmbeddedResource, Image, Text
from .errors import (
    ConnectionClosed,
    HttpError,
    InvalidInput,
    McpError,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    ToolError,
    TransportError,
)
from .types import CallToolResult, Tool

__version__: str = _native.__version__

__all__ = [
    "Server",
    "Client",
    "Registry",
    "HttpServing",
    "Context",
    "Tool",
    "CallToolResult",
    "Image",
    "Audio",
    "EmbeddedResource",
    "Text",
    "McpError",
    "RequestTimeout",
    "RequestCancelled",
    "ConnectionClosed",
    "ProtocolError",
    "TransportError",
    "InvalidInput",
    "ToolError",
    "HttpError",
]

F = TypeVar("F", bound=Callable[..., Any])


def _settle_engine_threads() -> None:
    """Gives the engine's tokio threads a moment to leave Python before the interpreter finalizes.

    A tokio worker that completes an awaitable calls ``loop.call_soon_threadsafe``, which drops the
    GIL while it writes to the loop's self-pipe. If the main thread finalizes in that window, the
    worker's GIL re-acquire ends the thread (pthread_exit) and its Rust frames unwind without the
    GIL: a segfault or "PyGILState_Release ... must be current" abort at exit (pyo3-async-runtimes
    has no shutdown hook, PyO3/pyo3-async-runtimes#40). Sleeping here releases the GIL so they can
    finish; atexit handlers run before finalization starts."""
    try:
        time.sleep(0.05)
    except KeyboardInterrupt:  # a second Ctrl-C while exiting
        pass


atexit.register(_settle_engine_threads)


class Context:
    """What a running tool may ask of its call. Declare a parameter annotated ``Context`` to
    receive it (it is not part of the tool's input schema)."""

    def __init__(self, call: _native.ToolCall) -> None:
        self._call = call

    @property
    def request_id(self) -> Optional[str]:
        """The JSON-RPC id of the request, or None for an in-process call."""
        return self._call.request_id

    @property
    def protocol_version(self) -> Optional[str]:
        """The protocol revision of the request, or None for an in-process call."""
        return self._call.protocol_version

    @property
    def wants_progress(self) -> bool:
        """True when the caller asked for progress notifications."""
        return self._call.wants_progress

    def log(self, level: str, data: Any, logger: Optional[str] = None) -> None:
        """Sends a log message (``notifications/message``) to the caller, if it asked for
        ``level`` or lower: legacy sessions via ``logging/setLevel`` (every level until set),
        2026-07-28 requests only with a ``_meta`` logLevel. ``data`` is any JSON value."""
        self._call.log(level, json.dumps(data, default=str), logger)

    def info(self, data: Any, logger: Optional[str] = None) -> None:
        """``log("info", data, logger)``."""
        self.log("info", data, logger)

    def warning(self, data: Any, logger: Optional[str] = None) -> None:
        """``log("warning", data, logger)``."""
        self.log("warning", data, logger)

    def error(self, data: Any, logger: Optional[str] = None) -> None:
        """``log("error", data, logger)``."""
        self.log("error", data, logger)

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> None:
        """Sends a progress notification (a no-op when the caller did not ask for progress)."""
        self._call.report_progress(progress, total, message)


def _callback(fn: Callable[..., Any], spec: _schema.ToolSpec) -> Callable[[str, _native.ToolCall], Any]:
    """Wraps a user function as the native callback: JSON in, CallToolResult JSON out."""

    def arguments(args_json: str, call: _native.ToolCall) -> Dict[str, Any]:
        kwargs = _convert.coerce_arguments(spec, json.loads(args_json))
        if spec.context_param:
            kwargs[spec.context_param] = Context(call)
        return kwargs

    if spec.is_async:

        async def run_async(args_json: str, call: _native.ToolCall) -> str:
            value = await fn(**arguments(args_json, call))
            return json.dumps(_convert.to_call_tool_result(value, spec))

        return run_async

    def run(args_json: str, call: _native.ToolCall) -> str:
        value = fn(**arguments(args_json, call))
        return json.dumps(_convert.to_call_tool_result(value, spec))

    return run


class Registry:
    """Tools by name: Python functions and the tools of connected servers, called alike."""

    def __init__(self) -> None:
        self._native = _native.Registry()

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
    ) -> Tool:
        """Registers ``fn`` (sync or ``async def``) as a tool. The input schema comes from its
        type hints, the description from its docstring, the output schema from its return type.
        Raises InvalidInput for a bad or taken name."""
        spec = _schema.tool_spec(fn, name=name, description=description, context_type=Context)
        output = json.dumps(spec.output_schema) if spec.output_schema is not None else None
        self._native.add_tool(
            spec.name, spec.description, json.dumps(spec.input_schema), _callback(fn, spec), spec.is_async,
            output, title,
        )
        return Tool(spec.name, spec.description, spec.input_schema, spec.output_schema, title)

    def tool(
        self, name: Optional[str] = None, *, description: Optional[str] = None, title: Optional[str] = None
    ) -> Callable[[F], F]:
        """Decorator form of :meth:`add_tool`; returns the function unchanged."""

        def register(fn: F) -> F:
            self.add_tool(fn, name=name, description=description, title=title)
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

    @property
    def servers(self) -> List[str]:
        """The ids of connected servers."""
        return self._native.servers()


class HttpServing:
    """A running HTTP server (returned by :meth:`Server.serve_http`)."""

    def __init__(self, native: _native.HttpServing) -> None:
        self._native = native

    @property
    def url(self) -> str:
        """The endpoint URL, e.g. ``http://127.0.0.1:8000/mcp``."""
        return self._native.url

    @property
    def port(self) -> int:
        """The bound port."""
        return self._native.port

    async def shutdown(self) -> None:
        """Stops gracefully: in-flight requests finish within the grace period (30 s)."""
        await self._native.shutdown()

    async def wait(self) -> None:
        """Completes when the server has stopped."""
        await self._native.wait()


class Server:
    """An MCP server: both lineages, on stdio or HTTP, serving a :class:`Registry`."""

    def __init__(
        self,
        name: str = "mcpcore-python",
        version: str = __version__,
        *,
        registry: Optional[Registry] = None,
        instructions: Optional[str] = None,
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self._native = _native.Server(self.registry._native, name, version, instructions)

    def tool(
        self, name: Optional[str] = None, *, description: Optional[str] = None, title: Optional[str] = None
    ) -> Callable[[F], F]:
        """Registers the decorated function as a tool (see :meth:`Registry.add_tool`)."""
        return self.registry.tool(name, description=description, title=title)

    def add_tool(self, fn: Callable[..., Any], **kwargs: Any) -> Tool:
        """Registers ``fn`` as a tool (see :meth:`Registry.add_tool`)."""
        return self.registry.add_tool(fn, **kwargs)

    async def serve_stdio(self) -> None:
        """Serves on this process's stdin/stdout until stdin closes."""
        await self._native.serve_stdio()

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        path: str = "/mcp",
        response_mode: str = "auto",
        max_body: Optional[int] = None,
        allowed_hosts: Optional[Sequence[str]] = None,
        allowed_origins: Optional[Sequence[str]] = None,
    ) -> HttpServing:
        """Starts serving HTTP: both lineages on ``path``, the 2024-11-05 SSE transport on
        ``/sse``. ``response_mode`` is "auto" (SSE only when a tool sends progress first), "json"
        or "sse". Returns once bound (``port=0`` picks a free port)."""
        native = await self._native.serve_http(
            host, port, path, response_mode, max_body,
            list(allowed_hosts) if allowed_hosts is not None else None,
            list(allowed_origins) if allowed_origins is not None else None,
        )
        return HttpServing(native)

    def run(self, transport: str = "stdio", *, host: str = "127.0.0.1", port: int = 8000, **http: Any) -> None:
        """Serves until stdin closes (stdio) or Ctrl-C (http), then stops cleanly."""

        async def main() -> None:
            if transport == "stdio":
                await self.serve_stdio()
                return
            if transport != "http":
                raise InvalidInput(f"transport must be 'stdio' or 'http', not {transport!r}")
            serving = await self.serve_http(host, port, **http)
            print(f"listening on {serving.url}", flush=True)
            try:
                await serving.wait()
            finally:
                await serving.shutdown()

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            pass


class Client:
    """A connection to an MCP server, with automatic lineage negotiation. Use
    :meth:`connect_stdio` or :meth:`connect_http`; ``async with`` closes it."""

    def __init__(self, native: _native.Client) -> None:
        self._native = native

    @classmethod
    async def connect_stdio(
        cls,
        command: Union[str, Sequence[str]],
        args: Sequence[str] = (),
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        protocol_version: Optional[str] = None,
        lineage: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> "Client":
        """Spawns ``command`` (a program, or ``[program, *args]``) and connects over its stdio.
        ``timeout`` is the default per-request timeout in seconds (60)."""
        argv = [command] if isinstance(command, str) else list(command)
        argv += list(args)
        native = await _native.Client.connect_stdio(
            argv[0], argv[1:], list((env or {}).items()), cwd, protocol_version, lineage, timeout
        )
        return cls(native)

    @classmethod
    async def connect_http(
        cls,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        bearer_token: Optional[str] = None,
        transport: str = "auto",
        protocol_version: Optional[str] = None,
        lineage: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> "Client":
        """Connects to an HTTP endpoint. ``transport`` is "auto" (Streamable HTTP, falling back
        to the 2024-11-05 SSE transport), "streamable" or "sse"."""
        native = await _native.Client.connect_http(
            url, list((headers or {}).items()), bearer_token, transport, protocol_version, lineage, timeout
        )
        return cls(native)

    @property
    def protocol_version(self) -> str:
        """The negotiated revision, e.g. "2026-07-28"."""
        return self._native.protocol_version

    @property
    def lineage(self) -> str:
        """ "modern" or "legacy". """
        return self._native.lineage

    @property
    def server_info(self) -> Optional[Dict[str, Any]]:
        """The server's name and version (and more), when it sent them."""
        info = self._native.server_info
        return json.loads(info) if info is not None else None

    @property
    def instructions(self) -> Optional[str]:
        """The server's instructions, if any."""
        return self._native.instructions

    async def list_tools(self) -> List[Tool]:
        """The server's tools (every page)."""
        return [Tool.from_json(t) for t in json.loads(await self._native.list_tools())]

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        progress: Optional[Callable[[float, Optional[float], Optional[str]], None]] = None,
        log_level: Optional[str] = None,
    ) -> CallToolResult:
        """Calls a tool. A failing tool gives a result with ``is_error``; protocol failures raise
        McpError subclasses. Cancelling the awaiting task cancels the request on the wire.
        ``log_level`` (2026-07-28) asks for the tool's log messages at that level and above; they
        go to the :meth:`on_log` handler (legacy sessions use ``logging/setLevel`` instead)."""
        out = await self._native.call_tool(
            name, json.dumps(dict(arguments or {})), timeout, progress, log_level
        )
        return CallToolResult.from_json(json.loads(out))

    def on_log(self, handler: Callable[[str, Any, Optional[str]], None]) -> None:
        """Calls ``handler(level, data, logger)`` for every log message the server sends."""

        def relay(level: str, logger: Optional[str], data: str) -> None:
            handler(level, json.loads(data), logger)

        self._native.on_log(relay)

    async def request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Sends any request and returns its result (a dict)."""
        return json.loads(await self._native.request(method, json.dumps(dict(params or {}))))

    async def close(self) -> None:
        """Closes the connection (a spawned server is stopped)."""
        await self._native.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
