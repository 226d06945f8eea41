"""``Registry``: tools by name, Python functions and the tools of connected servers alike; and
``HttpServing``, a running HTTP server (both re-exported from ``mcpcore``)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Mapping, Optional, TypeVar, Union, overload

from . import _convert, _features, _native, _schema
from ._context import Context, _context
from .types import CallToolResult, Tool

if TYPE_CHECKING:  # pragma: no cover
    from ._client import Client

F = TypeVar("F", bound=Callable[..., Any])


def _callback(fn: Callable[..., Any], spec: _schema.ToolSpec, owner: Any) -> _features.Callback:
    """Wraps a user function as the native callback: the arguments in, the function's value (or
    its awaitable) out; the engine turns the value into the CallToolResult."""

    def invoke(arguments: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
        kwargs = _convert.coerce_arguments(spec, arguments)
        if spec.context_param:
            kwargs[spec.context_param] = _context(call, owner)
        return fn(**kwargs)

    return invoke


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
