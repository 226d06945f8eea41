"""The client: connect to any MCP server (stdio or HTTP, either lineage), call its tools, read its
resources and prompts, answer its requests for input, and receive its notifications."""

from __future__ import annotations

import inspect
import json
import os
from typing import (
    Any,
    AsyncIterator,
    Awaitable,
    Callable,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Union,
    overload,
)

from . import _convert, _native
from ._auth import OAuth
from ._client_events import _ClientEvents
from ._pages import pages
from .types import CallToolResult, Root, Tool

__all__ = ["Client", "Task", "ElicitationHandler", "SamplingHandler", "RootsSource"]

ElicitationHandler = Callable[[Dict[str, Any]], Any]
"""``on_elicitation(params)``: ``params`` is the ``elicitation/create`` request (``message``, and
``requestedSchema`` for a form or ``mode: "url"`` with ``url``); return (or await) a dict of the
form's values (accepted), ``{"action": ..., "content": ...}``, ``"decline"``/``"cancel"``, or
None (decline)."""

SamplingHandler = Callable[[Dict[str, Any]], Any]
"""``on_sampling(params)``: ``params`` is the ``sampling/createMessage`` request (``messages``,
``maxTokens``, ``systemPrompt``...); return (or await) the reply text, or a
``CreateMessageResult`` dict (``role`` and ``model`` may be left out)."""

RootsSource = Union[Sequence[Union[str, Root, Mapping[str, Any]]], Callable[[], Any]]
"""Roots: a list of URIs, :class:`Root`\\ s or ``{"uri", "name"}`` dicts (kept by the client;
change them with :meth:`Client.set_roots`), or a function returning (or awaiting) such a list
(call :meth:`Client.roots_changed` when its answer changes)."""


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def _roots_json(roots: Sequence[Union[str, Root, Mapping[str, Any]]]) -> str:
    out = []
    for r in roots:
        if isinstance(r, str):
            out.append({"uri": r})
        elif isinstance(r, Root):
            out.append({"uri": r.uri, **({"name": r.name} if r.name is not None else {})})
        else:
            out.append(dict(r))
    return json.dumps(out)


def _input(
    on_elicitation: Optional[ElicitationHandler],
    on_sampling: Optional[SamplingHandler],
    roots: Optional[RootsSource],
    url_elicitation: bool,
) -> Optional[_native.ClientInput]:
    """The native handlers: each host function is called with the request params (JSON-shaped)
    and its value becomes the answer by the core's rules (``mcpcore::host::answers``)."""
    if on_elicitation is None and on_sampling is None and roots is None:
        return None

    def wrap(fn: Callable[..., Any], with_params: bool = True) -> Callable[[Any, Any], Any]:
        def call(params: Any, _call: Any) -> Any:
            value = fn(params) if with_params else fn()
            return _jsonable_later(value) if inspect.isawaitable(value) else _jsonable(value)

        return call

    kwargs: Dict[str, Any] = {"url": url_elicitation}
    if on_elicitation is not None:
        kwargs.update(elicitation=wrap(on_elicitation), elicitation_async=_is_async(on_elicitation))
    if on_sampling is not None:
        kwargs.update(sampling=wrap(on_sampling), sampling_async=_is_async(on_sampling))
    if callable(roots):
        kwargs.update(roots_callback=wrap(roots, with_params=False), roots_async=_is_async(roots))
    elif roots is not None:
        kwargs["roots"] = _roots_json(roots)
    return _native.ClientInput(**kwargs)


async def _jsonable_later(value: Awaitable[Any]) -> Any:
    return _jsonable(await value)


def _jsonable(value: Any) -> Any:
    """A handler's answer as JSON-shaped values (:class:`Root` items as ``{"uri", "name"}``)."""
    if isinstance(value, list):
        value = [{"uri": r.uri, **({"name": r.name} if r.name else {})} if isinstance(r, Root) else r for r in value]
    return _convert.to_jsonable(value)


def _on_loop(handler: Callable[..., Any]) -> Callable[..., None]:
    """Runs ``handler`` (sync or ``async def``) on the event loop running now, from the engine's
    threads; without a running loop, in the engine's thread."""
    import asyncio

    try:
        loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    is_async = _is_async(handler)

    def relay(*args: Any) -> None:
        if loop is None or loop.is_closed():
            if not is_async:
                handler(*args)
            return
        if is_async:
            asyncio.run_coroutine_threadsafe(handler(*args), loop)
        else:
            loop.call_soon_threadsafe(lambda: handler(*args))

    return relay


class Task:
    """A task the server runs for a tool call (:meth:`Client.call_tool` with ``task=True``)."""

    def __init__(self, native: _native.Task) -> None:
        self._native = native

    @property
    def id(self) -> Optional[str]:
        """The task id; None when the server answered at once instead of creating a task."""
        return self._native.id

    async def status(self) -> Dict[str, Any]:
        """The task's state: ``taskId``, ``status`` ("working", "input_required", "completed",
        "failed", "cancelled"), ``statusMessage``, ``pollIntervalMs``, ``ttlMs``."""
        return dict(json.loads(await self._native.status()))

    async def result(self) -> CallToolResult:
        """Waits for the task to end and returns the tool's result (input the task asks for is
        answered by the client's handlers); a failed task raises its error, a cancelled one
        :class:`~mcpcore.RequestCancelled`."""
        return CallToolResult.from_json(json.loads(await self._native.result()))

    async def cancel(self) -> None:
        """Asks the server to cancel the task."""
        await self._native.cancel()


class Client(_ClientEvents):
    """A connection to an MCP server, with automatic lineage negotiation. Use
    :meth:`connect_stdio` or :meth:`connect_http`; ``async with`` closes it.

    The server's requests for input are answered by the handlers given at connect (only those
    capabilities are declared): ``on_elicitation``, ``on_sampling``, ``roots``. Its
    notifications reach ``on_log``, ``on_tools_changed``, ``on_prompts_changed``,
    ``on_resources_changed``, ``on_resource_updated`` and ``on_notification``."""

    def __init__(self, native: _native.Client) -> None:
        self._native = native
        self._listeners: Dict[str, Callable[..., None]] = {}

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
        probe_timeout: Optional[float] = None,
        on_elicitation: Optional[ElicitationHandler] = None,
        on_sampling: Optional[SamplingHandler] = None,
        roots: Optional[RootsSource] = None,
        url_elicitation: bool = True,
    ) -> "Client":
        """Spawns ``command`` and connects over its stdio. ``command`` is a program (with
        ``args``), ``[program, *args]``, or one command line such as ``"node server.js --x"``
        (split like a shell would, without expansion). ``timeout`` bounds the whole connect and
        is the default per-request timeout, in seconds (60); ``probe_timeout`` how long the
        2026-07-28 probe waits before assuming a legacy server (5, at most half ``timeout``). ``on_elicitation``, ``on_sampling`` and ``roots`` answer
        the server's requests (sync or ``async def``; see :data:`ElicitationHandler`,
        :data:`SamplingHandler`, :data:`RootsSource`); ``url_elicitation=False`` declares form
        elicitation only."""
        argv = [command] if isinstance(command, str) else list(command)
        argv += list(args)
        native = await _native.Client.connect_stdio(
            argv[0], argv[1:], list((env or {}).items()), cwd, protocol_version, lineage, timeout,
            probe_timeout, _input(on_elicitation, on_sampling, roots, url_elicitation),
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
        probe_timeout: Optional[float] = None,
        auth: Optional[OAuth] = None,
        ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
        client_cert: Optional[Union[str, "os.PathLike[str]"]] = None,
        client_key: Optional[Union[str, "os.PathLike[str]"]] = None,
        on_elicitation: Optional[ElicitationHandler] = None,
        on_sampling: Optional[SamplingHandler] = None,
        roots: Optional[RootsSource] = None,
        url_elicitation: bool = True,
    ) -> "Client":
        """Connects to an HTTP or HTTPS endpoint. ``transport`` is "auto" (Streamable HTTP,
        falling back to the 2024-11-05 SSE transport), "streamable" or "sse". ``auth``
        authorizes with OAuth 2.1 when the server asks (see :class:`OAuth`); a 401 without it
        raises :class:`AuthError` (``http_status``, ``challenge``). HTTPS trusts the platform's
        root certificates plus ``ca_file`` (PEM); ``client_cert`` and ``client_key`` (PEM)
        answer servers that require a client certificate. The other options are those of
        :meth:`connect_stdio`."""
        native = await _native.Client.connect_http(
            url,
            list((headers or {}).items()),
            bearer_token,
            transport,
            protocol_version,
            lineage,
            timeout,
            auth._native if auth is not None else None,
            None if ca_file is None else os.fspath(ca_file),
            None if client_cert is None else os.fspath(client_cert),
            None if client_key is None else os.fspath(client_key),
            probe_timeout,
            _input(on_elicitation, on_sampling, roots, url_elicitation),
        )
        return cls(native)

    @staticmethod
    async def server_card(
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        bearer_token: Optional[str] = None,
        ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> Dict[str, Any]:
        """The Server Card of the endpoint ``url`` (``GET <url>/server-card``, SEP-2127), read
        before connecting: the server's name, version, description and the ``remotes`` to reach
        it. Unverified (prefer what the connection reports). ``unix:PATH`` URLs work too. A
        server without one raises :class:`HttpError` (404)."""
        text = await _native.Client.server_card(
            url, list((headers or {}).items()), bearer_token, None if ca_file is None else os.fspath(ca_file)
        )
        card: Dict[str, Any] = json.loads(text)
        return card

    # -- what negotiation settled (readable after close) --------------------------------------

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
    def server_capabilities(self) -> Dict[str, Any]:
        """What the server declared (``tools``, ``resources``, ``prompts``, ``logging``...)."""
        return dict(json.loads(self._native.server_capabilities))

    @property
    def instructions(self) -> Optional[str]:
        """The server's instructions, if any."""
        return self._native.instructions

    # -- tools ------------------------------------------------------------------------------

    async def list_tools(self) -> List[Tool]:
        """The server's tools (every page; cached while the server says they are fresh)."""
        return [t async for t in self.iter_tools()]

    async def iter_tools(self) -> AsyncIterator[Tool]:
        """The server's tools, one page at a time."""
        async for t in self._pages("tools/list", "tools"):
            yield Tool.from_json(t)

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        progress: Optional[Callable[[float, Optional[float], Optional[str]], None]] = None,
        log_level: Optional[str] = None,
        task: Literal[False] = False,
        ttl: Optional[float] = None,
    ) -> CallToolResult: ...

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        progress: Optional[Callable[[float, Optional[float], Optional[str]], None]] = None,
        log_level: Optional[str] = None,
        task: Literal[True],
        ttl: Optional[float] = None,
    ) -> Task: ...

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        progress: Optional[Callable[[float, Optional[float], Optional[str]], None]] = None,
        log_level: Optional[str] = None,
        task: bool = False,
        ttl: Optional[float] = None,
    ) -> Union[CallToolResult, Task]:
        """Calls a tool. A failing tool gives a result with ``is_error`` (arguments the tool's
        schema refuses too, from 2025-11-25 on); protocol failures raise McpError subclasses.
        Cancelling the awaiting task cancels the request on the wire. ``log_level`` (2026-07-28)
        asks for the tool's log messages at that level and above (see :meth:`on_log`).

        ``task=True`` runs it as a task and returns its :class:`Task` (``ttl``: seconds the
        server keeps it; ``timeout``: how long :meth:`Task.result` waits). A tool that runs only
        as a task is run as one without asking, and its result returned."""
        if task:
            args = json.dumps(_convert.to_jsonable(dict(arguments or {})))
            return Task(await self._native.call_tool_task(name, args, ttl, timeout))
        # Arguments and result cross as Python objects, converted in Rust.
        out = await self._native.call_tool(name, dict(arguments or {}), timeout, progress, log_level)
        return CallToolResult.from_json(out)

    # -- resources ----------------------------------------------------------------------------

    async def list_resources(self) -> List[Dict[str, Any]]:
        """The server's resources (MCP ``Resource`` dicts, every page)."""
        return [r async for r in self.iter_resources()]

    def iter_resources(self) -> AsyncIterator[Dict[str, Any]]:
        """The server's resources, one page at a time."""
        return self._pages("resources/list", "resources")

    async def list_resource_templates(self) -> List[Dict[str, Any]]:
        """The server's resource templates (MCP ``ResourceTemplate`` dicts, every page)."""
        return [r async for r in self.iter_resource_templates()]

    def iter_resource_templates(self) -> AsyncIterator[Dict[str, Any]]:
        """The server's resource templates, one page at a time."""
        return self._pages("resources/templates/list", "resourceTemplates")

    async def read_resource(self, uri: str) -> List[Dict[str, Any]]:
        """The contents of ``uri`` (``{"uri", "mimeType", "text"}`` or ``... "blob"}`` dicts).
        A missing resource raises :class:`~mcpcore.ResourceNotFound`."""
        return list(json.loads(await self._native.read_resource(uri))["contents"])

    async def subscribe(self, uri: str) -> None:
        """Asks for ``notifications/resources/updated`` about ``uri``, delivered to
        :meth:`on_resource_updated`: legacy ``resources/subscribe``; on 2026-07-28 the URI joins
        the filter of the client's listen stream (see :meth:`notifications_ready`), and this
        returns once the server acknowledged it. An unknown (or hidden) resource raises
        :class:`~mcpcore.ResourceNotFound`."""
        await self._native.subscribe(uri)

    async def unsubscribe(self, uri: str) -> None:
        """Stops :meth:`subscribe`."""
        await self._native.unsubscribe(uri)

    # -- prompts and completion -------------------------------------------------------------

    async def list_prompts(self) -> List[Dict[str, Any]]:
        """The server's prompts (MCP ``Prompt`` dicts, every page)."""
        return [p async for p in self.iter_prompts()]

    def iter_prompts(self) -> AsyncIterator[Dict[str, Any]]:
        """The server's prompts, one page at a time."""
        return self._pages("prompts/list", "prompts")

    async def get_prompt(self, name: str, arguments: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
        """Renders prompt ``name``: the ``GetPromptResult`` dict (``description``, ``messages``)."""
        args = json.dumps(dict(arguments)) if arguments is not None else None
        return dict(json.loads(await self._native.get_prompt(name, args)))

    async def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: Optional[str] = None,
        resource: Optional[str] = None,
        context: Optional[Mapping[str, str]] = None,
    ) -> List[str]:
        """Suggestions for ``argument`` of ``prompt`` (a name) or of the resource template
        ``resource`` (its URI template), given what was typed (``value``) and the other
        arguments' values (``context``)."""
        if (prompt is None) == (resource is None):
            raise ValueError("complete needs exactly one of prompt= or resource=")
        ref = {"type": "ref/prompt", "name": prompt} if prompt is not None else {"type": "ref/resource", "uri": resource}
        ctx = json.dumps(dict(context)) if context is not None else None
        out = json.loads(await self._native.complete(json.dumps(ref), argument, value, ctx))
        return list(out["completion"]["values"])

    # -- apps (MCP Apps, SEP-1865) ------------------------------------------------------------

    def offers_apps(self) -> bool:
        """True when the server declared MCP Apps (``io.modelcontextprotocol/ui``)."""
        return bool(self._native.offers_apps())

    async def read_app(self, uri: str) -> Dict[str, Any]:
        """The app at ``uri`` (a tool's ``tool.ui["resourceUri"]``): ``{"uri", "html", "meta"}``,
        ``meta`` its ``_meta.ui`` (``csp``, ``permissions``, ``domain``, ``prefersBorder``) for
        the host's sandbox. What is not ``text/html;profile=mcp-app`` raises
        :class:`~mcpcore.ProtocolError`; rendering it is the host's."""
        return dict(json.loads(await self._native.read_app(uri)))

    # -- skills (SEP-2640) ------------------------------------------------------------------

    def skills_support(self) -> Optional[Dict[str, Any]]:
        """The server's Skills extension settings (``{"directoryRead": bool}``), or None when it
        did not declare the extension (call the skill methods only when it did)."""
        text = self._native.skills_support()
        return None if text is None else dict(json.loads(text))

    async def list_skills(self) -> List[Dict[str, Any]]:
        """Every skill entry the server lists (``uri``, ``frontmatter``, ``resources``: each
        file's ``digest`` and ``size``). Reads no file: a listing may be partial, and
        :meth:`get_skill` finds a skill by URI."""
        return [s async for s in pages(self._native.list_skills_page, "skills", "skills/list")]

    async def get_skill(self, uri: str) -> Dict[str, Any]:
        """The entry of the skill whose ``SKILL.md`` is at ``uri`` (an unknown one raises
        :class:`~mcpcore.RpcError` with code -32602)."""
        return dict(json.loads(await self._native.get_skill(uri)))

    async def load_skill(self, entry: Mapping[str, Any]) -> str:
        """Loads the skill of ``entry``: its ``SKILL.md`` text, returned only once its size,
        sha256 digest and frontmatter match the entry. A mismatch raises
        :class:`~mcpcore.ProtocolError` and the content is not returned: refresh the entry with
        :meth:`get_skill` (and ask the user again)."""
        return str(await self._native.load_skill(json.dumps(entry)))

    async def read_skill_file(self, entry: Mapping[str, Any], uri: str) -> bytes:
        """The bytes of the skill file ``uri``, once they match ``entry``'s size and digest. A
        file the entry does not list raises :class:`~mcpcore.ProtocolError` without a read."""
        return bytes(await self._native.read_skill_file(json.dumps(entry), uri))

    async def read_directory(self, uri: str) -> List[Dict[str, Any]]:
        """The direct children of the directory resource ``uri`` (every page): files, and
        subdirectories with ``mimeType`` ``inode/directory``. Only when the server declared
        ``directoryRead`` (raises :class:`~mcpcore.InvalidInput` otherwise, without a request)."""
        return list(json.loads(await self._native.read_directory(uri)))

    def _pages(self, method: str, key: str) -> AsyncIterator[Dict[str, Any]]:
        return pages(lambda cursor: self._native.list_page(method, cursor), key, method)

    # -- session utilities ------------------------------------------------------------------

    async def ping(self) -> None:
        """Checks the server answers (``ping``; ``server/discover`` on 2026-07-28)."""
        await self._native.ping()

    async def set_log_level(self, level: str) -> None:
        """Asks for log messages at ``level`` ("debug" ... "emergency") and above, delivered to
        :meth:`on_log`."""
        await self._native.set_log_level(level)

    def set_roots(self, roots: Sequence[Union[str, Root, Mapping[str, Any]]]) -> None:
        """Replaces the roots given as a list at connect, and tells the server
        (``notifications/roots/list_changed`` on legacy sessions)."""
        self._native.set_roots(_roots_json(roots))

    def roots_changed(self) -> None:
        """Tells the server that the roots a ``roots=`` function answers changed."""
        self._native.roots_changed()

    # -- notifications ----------------------------------------------------------------------

    def on_log(self, handler: Callable[[str, Any, Optional[str]], Any]) -> None:
        """Calls ``handler(level, data, logger)`` (sync or ``async def``, on this event loop) for
        every log message the server sends (see :meth:`set_log_level`)."""
        relay = _on_loop(handler)

        def native(level: str, logger: Optional[str], data: str) -> None:
            relay(level, json.loads(data), logger)

        self._native.on_log(native)

    def on_notification(self, handler: Callable[[str, Dict[str, Any]], Any]) -> None:
        """Calls ``handler(method, params)`` for every other notification of the server (list
        changes, resource updates...). Replaces the ``on_tools_changed``... handlers.

        On 2026-07-28, where these notifications travel only on a ``subscriptions/listen``
        stream, registering a handler makes the client open one asking for what the handlers
        want (and the resources given to :meth:`subscribe`), keep it open, and close it with the
        client; :meth:`notifications_ready` waits for the server's acknowledgement."""
        self._listeners = {"*": _on_loop(handler)}
        self._native.on_notification(self._dispatch)

    def on_tools_changed(self, handler: Callable[[], Any]) -> None:
        """Calls ``handler()`` when the server's tool list changed."""
        self._listen("notifications/tools/list_changed", handler)

    def on_prompts_changed(self, handler: Callable[[], Any]) -> None:
        """Calls ``handler()`` when the server's prompt list changed."""
        self._listen("notifications/prompts/list_changed", handler)

    def on_resources_changed(self, handler: Callable[[], Any]) -> None:
        """Calls ``handler()`` when the server's resource list changed."""
        self._listen("notifications/resources/list_changed", handler)

    def on_resource_updated(self, handler: Callable[[str], Any]) -> None:
        """Calls ``handler(uri)`` when a resource :meth:`subscribe`\\ d to changed."""
        self._listen("notifications/resources/updated", handler, uri=True)

    def _listen(self, method: str, handler: Callable[..., Any], uri: bool = False) -> None:
        relay = _on_loop(handler)
        self._listeners.pop("*", None)
        self._listeners[method] = (lambda params: relay(params.get("uri"))) if uri else (lambda _p: relay())
        self._native.on_notification(self._dispatch, list(self._listeners))

    async def notifications_ready(self) -> Optional[Dict[str, Any]]:
        """2026-07-28: waits until the server acknowledged the client's listen stream as the
        handlers and subscriptions want it now, and returns the filter it agreed to (e.g.
        ``{"toolsListChanged": True}``; a server leaves out what it does not support). None when
        no stream is needed, and on legacy sessions. Raises when the stream could not be opened
        (the client keeps trying in the background)."""
        acked = await self._native.notifications_ready()
        return None if acked is None else dict(json.loads(acked))

    def _dispatch(self, method: str, params: str) -> None:
        if "*" in self._listeners:
            self._listeners["*"](method, json.loads(params))
        elif method in self._listeners:
            self._listeners[method](json.loads(params))

    # -- anything else ------------------------------------------------------------------------

    async def request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Sends any request and returns its result (a dict)."""
        return json.loads(await self._native.request(method, json.dumps(dict(params or {}))))

    async def close(self) -> None:
        """Closes the connection (a spawned server is stopped). ``protocol_version`` and the
        other negotiated values stay readable."""
        await self._native.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
