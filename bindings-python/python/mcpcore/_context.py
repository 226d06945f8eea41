"""The per-call ``Context`` handed to tools, resource readers and prompts: call info, logging,
progress, and asking the client for input (elicitation, sampling, roots)."""

from __future__ import annotations

import json
import sys
from typing import Any, Awaitable, Dict, Generator, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from . import _convert, _native, _schema
from ._server_auth import Identity
from .content import Message
from .errors import InvalidInput
from .types import ElicitResult, Root, SamplingResult


class _Sent:
    """What the logging and progress methods return: the notification is already sent, so
    awaiting it (``await ctx.info(...)``, as fastmcp code does) completes at once; leaving it
    unawaited is fine too."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return iter(())

    def __repr__(self) -> str:
        return "<sent>"


_SENT = _Sent()


class Context:
    """What a running tool, resource reader or prompt may ask of its call. Declare a parameter
    annotated ``Context`` to receive it (it is not part of the tool's input schema, nor a prompt
    argument or template variable).

    Client input (``elicit``, ``sample``, ``list_roots``, ``input``) works on both lineages: a
    legacy session sends the client a real request and awaits its answer; on 2026-07-28 the
    answer comes with the client's retry, and until then the call raises :class:`InputRequired`,
    which you must let propagate (the handler then runs again from the start, with the answers).
    So ask in a deterministic order, under stable ``key``\\ s, and keep side effects after the last
    question. ``async def`` handlers await these; sync handlers use the ``*_sync`` forms."""

    def __init__(self, call: _native.ToolCall, owner: Any = None) -> None:
        self._call = call
        self._owner = owner

    @property
    def lifespan(self) -> Any:
        """What the server's ``lifespan`` yielded (``Server(lifespan=...)``), while it serves;
        None without one."""
        return getattr(self._owner, "_lifespan_state", None)

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

    @property
    def client_capabilities(self) -> Optional[Dict[str, Any]]:
        """What the client declared (legacy: in ``initialize``; 2026-07-28: with this request),
        e.g. ``{"elicitation": {}, "sampling": {}}``; None for an in-process call."""
        caps = self._call.client_capabilities
        return json.loads(caps) if caps is not None else None

    @property
    def auth(self) -> Optional[Identity]:
        """The authenticated caller (subject, scopes, client_id, claims) when the server is
        protected (``serve_http(auth=...)``); None otherwise. The bearer token itself is not
        exposed (the spec forbids passing it on)."""
        return Identity._from_json(self._call.identity)

    @property
    def client_info(self) -> Optional[Dict[str, Any]]:
        """The client's ``clientInfo`` (``name``, ``version``…) when it sent one."""
        info = self._call.client_info
        return json.loads(info) if info is not None else None

    def header(self, name: str) -> Optional[str]:
        """The HTTP request header ``name`` (case-insensitive), over HTTP; None otherwise."""
        return self._call.header(name)

    @property
    def request_state(self) -> Any:
        """What :meth:`set_request_state` stored in the previous round of this 2026-07-28
        request (None in the first round, and always on legacy sessions)."""
        state = self._call.request_state
        return json.loads(state) if state is not None else None

    def set_request_state(self, state: Any) -> None:
        """Keeps ``state`` (any JSON value; keep it small) for the next round of this 2026-07-28
        request; it travels sealed, so the client cannot alter it. A no-op on legacy sessions."""
        self._call.set_request_state(json.dumps(_convert.to_jsonable(state)))

    def log(self, level: str, data: Any, logger: Optional[str] = None) -> Awaitable[None]:
        """Sends a log message (``notifications/message``) to the caller, if it asked for
        ``level`` or lower: legacy sessions via ``logging/setLevel`` (every level until set),
        2026-07-28 requests only with a ``_meta`` logLevel. ``data`` is any JSON value. Sent at
        once; ``await`` it or not (it returns a finished awaitable)."""
        self._call.log(level, json.dumps(data, default=str), logger)
        return _SENT

    def debug(self, data: Any, logger: Optional[str] = None) -> Awaitable[None]:
        """``log("debug", data, logger)``."""
        return self.log("debug", data, logger)

    def info(self, data: Any, logger: Optional[str] = None) -> Awaitable[None]:
        """``log("info", data, logger)``."""
        return self.log("info", data, logger)

    def warning(self, data: Any, logger: Optional[str] = None) -> Awaitable[None]:
        """``log("warning", data, logger)``."""
        return self.log("warning", data, logger)

    def error(self, data: Any, logger: Optional[str] = None) -> Awaitable[None]:
        """``log("error", data, logger)``."""
        return self.log("error", data, logger)

    def report_progress(
        self, progress: float, total: Optional[float] = None, message: Optional[str] = None
    ) -> Awaitable[None]:
        """Sends a progress notification (a no-op when the caller did not ask for progress).
        Sent at once; ``await`` it or not."""
        self._call.report_progress(progress, total, message)
        return _SENT

    # -- client input ---------------------------------------------------------------------

    async def input(self, requests: Mapping[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """Asks the client several things in one round: ``requests`` maps your keys to MCP
        input requests (``{"method": "elicitation/create" | "sampling/createMessage" |
        "roots/list", "params": {...}}``); returns the answers (MCP result dicts) by key.
        Raises :class:`InputRequired` (let it propagate), or ``McpError`` -32021 when the client
        did not declare a capability a request needs."""
        return dict(json.loads(await self._call.input(json.dumps(dict(requests)))))

    def input_sync(self, requests: Mapping[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """:meth:`input` for sync handlers: blocks this worker thread until answered."""
        _not_on_loop("input")
        return dict(json.loads(self._call.input_blocking(json.dumps(dict(requests)))))

    async def approve(self, action: str, key: str = "approval") -> Literal["approved", "declined", "pending"]:
        """Asks the user to approve ``action`` (a sentence saying what will happen) with a
        confirmation form under the input key ``key``; same rules as :meth:`elicit` (on
        2026-07-28 let :class:`InputRequired` propagate). ``"approved"``: act; ``"declined"``:
        do not; ``"pending"``: the caller cannot be asked (no elicitation): return
        :func:`mcpcore.pending_approval` and let the approval happen elsewhere."""
        verdict = await self._call.approve(key, action)
        assert verdict in ("approved", "declined", "pending"), verdict
        return verdict  # type: ignore[return-value]

    async def elicit(self, key: str, message: str, schema: Union[Mapping[str, Any], type]) -> ElicitResult:
        """Asks the user to fill a form (``elicitation/create``) under ``key``. ``schema`` is a
        flat JSON Schema object, or a dataclass, TypedDict or pydantic model (whose schema is
        sent, and whose instance is the answer's ``data``)."""
        request, tp = _elicit_request(message, schema)
        answers = await self.input({key: request})
        return _elicit_result(answers[key], tp)

    def elicit_sync(self, key: str, message: str, schema: Union[Mapping[str, Any], type]) -> ElicitResult:
        """:meth:`elicit` for sync handlers."""
        request, tp = _elicit_request(message, schema)
        return _elicit_result(self.input_sync({key: request})[key], tp)

    async def sample(
        self,
        key: str,
        messages: Union[str, Sequence[Union[str, Message, Mapping[str, Any]]]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        stop_sequences: Optional[Sequence[str]] = None,
        model_preferences: Optional[Mapping[str, Any]] = None,
    ) -> SamplingResult:
        """Asks the client's model for a completion (``sampling/createMessage``) under ``key``.
        ``messages`` is a prompt (one user message) or a list of ``str`` (user), ``Message`` or
        MCP message dicts."""
        request = _sampling_request(messages, max_tokens, system_prompt, temperature, stop_sequences, model_preferences)
        answers = await self.input({key: request})
        return SamplingResult.from_json(answers[key])

    def sample_sync(
        self,
        key: str,
        messages: Union[str, Sequence[Union[str, Message, Mapping[str, Any]]]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        stop_sequences: Optional[Sequence[str]] = None,
        model_preferences: Optional[Mapping[str, Any]] = None,
    ) -> SamplingResult:
        """:meth:`sample` for sync handlers."""
        request = _sampling_request(messages, max_tokens, system_prompt, temperature, stop_sequences, model_preferences)
        return SamplingResult.from_json(self.input_sync({key: request})[key])

    async def list_roots(self, key: str) -> List[Root]:
        """Asks the client for its roots (``roots/list``) under ``key``."""
        answers = await self.input({key: {"method": "roots/list"}})
        return [Root.from_json(r) for r in answers[key].get("roots", [])]

    def list_roots_sync(self, key: str) -> List[Root]:
        """:meth:`list_roots` for sync handlers."""
        return [Root.from_json(r) for r in self.input_sync({key: {"method": "roots/list"}})[key].get("roots", [])]


def _not_on_loop(what: str) -> None:
    asyncio = sys.modules.get("asyncio")  # (no loop can run before asyncio is imported)
    if asyncio is None:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise InvalidInput(f"Context.{what}_sync would block the event loop: use `await ctx.{what}(...)` in async handlers")


def _elicit_request(message: str, schema: Union[Mapping[str, Any], type]) -> Tuple[Dict[str, Any], Optional[type]]:
    if isinstance(schema, type):
        requested = _schema.type_schema(schema)
        requested.pop("title", None)
        tp: Optional[type] = schema
    else:
        requested, tp = dict(schema), None
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": requested}}, tp


def _elicit_result(answer: Dict[str, Any], tp: Optional[type]) -> ElicitResult:
    action = answer.get("action", "cancel")
    content = answer.get("content")
    data: Any = None
    if action == "accept":
        data = content
        if tp is not None and content is not None:
            data = _convert.coerce_value(content, tp)
    return ElicitResult(action=action, content=content, data=data, raw=answer)


def _sampling_request(
    messages: Union[str, Sequence[Union[str, Message, Mapping[str, Any]]]],
    max_tokens: int,
    system_prompt: Optional[str],
    temperature: Optional[float],
    stop_sequences: Optional[Sequence[str]],
    model_preferences: Optional[Mapping[str, Any]],
) -> Dict[str, Any]:
    items = [messages] if isinstance(messages, str) else list(messages)
    params: Dict[str, Any] = {"messages": [json.loads(_native.prompt_result(m))["messages"][0] for m in items],
                              "maxTokens": max_tokens}
    for key, value in (("systemPrompt", system_prompt), ("temperature", temperature),
                       ("stopSequences", list(stop_sequences) if stop_sequences is not None else None),
                       ("modelPreferences", dict(model_preferences) if model_preferences is not None else None)):
        if value is not None:
            params[key] = value
    return {"method": "sampling/createMessage", "params": params}


def _context(call: Optional[_native.ToolCall], owner: Any = None) -> Context:
    """The Context of ``call``; ``owner`` (a Registry) holds the lifespan state."""
    if call is None:  # only completers run without a call, and they get no Context
        raise RuntimeError("this handler runs outside any request")
    return Context(call, owner)
