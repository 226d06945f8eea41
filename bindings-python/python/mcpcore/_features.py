"""Resources, prompts and completers: Python functions as native callbacks, and their return
values as MCP results. The engine does the protocol (matching templates, checking required
arguments, filtering and capping completions, paging, notifications); this only converts."""

from __future__ import annotations

import collections.abc as cabc
import inspect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native, _schema
from ._convert import to_jsonable
from .content import CONTENT_TYPES, EmbeddedResource, Message, Text, b64encode

__all__ = [
    "CompletionSource",
    "Callback",
    "HandlerSpec",
    "completer_parts",
    "handler_spec",
    "native_callback",
    "prompt_descriptor",
    "resource_descriptor",
    "template_variables",
    "to_prompt_result",
    "to_resource_contents",
]

Callback = Callable[[str, Optional[_native.ToolCall]], Any]
"""What the native side calls: ``callback(input_json, call)`` → output JSON (or an awaitable)."""

CompletionSource = Union[Sequence[str], Callable[..., Any]]
"""Completion values for an argument: a fixed list (filtered by prefix by the engine), or a
function ``(value)`` or ``(value, context)`` (sync or async) returning a list of strings or a
``{"values", "total", "hasMore"}`` dict."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def native_callback(
    invoke: Callable[[Dict[str, Any], Optional[_native.ToolCall]], Any],
    is_async: bool,
    render: Callable[[Any, Dict[str, Any]], Any],
) -> Callback:
    """The native callback of a handler: decodes the request, runs ``invoke(request, call)``
    (awaiting it when ``is_async``) and encodes ``render(value, request)``."""
    if is_async:

        async def run_async(input_json: str, call: Optional[_native.ToolCall]) -> str:
            request = json.loads(input_json)
            value = await invoke(request, call)
            return _dumps(render(value, request))

        return run_async

    def run(input_json: str, call: Optional[_native.ToolCall]) -> str:
        request = json.loads(input_json)
        return _dumps(render(invoke(request, call), request))

    return run


# ---------------------------------------------------------------------------------------------
# handler signatures: string parameters (template variables, prompt arguments) and a context


@dataclass
class HandlerSpec:
    """The parameters of a resource or prompt function."""

    name: str
    description: Optional[str]
    params: Dict[str, Any]
    """Annotation of each string parameter (the context parameter excluded), in order."""
    required: List[str]
    """The parameters without a default."""
    context_param: Optional[str]
    is_async: bool
    doc_params: Dict[str, str] = field(default_factory=dict)

    def kwargs(self, values: Mapping[str, str]) -> Dict[str, Any]:
        """The keyword arguments for ``values`` (strings), converted to ``int``, ``float`` or
        ``bool`` where annotated so; values without a parameter are left out."""
        return {k: _from_text(v, self.params[k]) for k, v in values.items() if k in self.params}


def handler_spec(fn: Callable[..., Any], what: str, context_type: type, name: Optional[str] = None) -> HandlerSpec:
    """The :class:`HandlerSpec` of ``fn``; ``TypeError`` for ``*args``/``**kwargs`` or
    positional-only parameters."""
    sig, hints = _schema.resolve_parameters(fn)
    label = name if name is not None else getattr(fn, "__name__", type(fn).__name__)
    params: Dict[str, Any] = {}
    required: List[str] = []
    context_param: Optional[str] = None
    for pname, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"{what} {label!r}: parameter {pname!r} must be a keyword-capable parameter")
        if _schema._is_context(hints.get(pname), context_type):
            context_param = pname
            continue
        params[pname] = hints.get(pname, Any)
        if param.default is param.empty:
            required.append(pname)
    doc = inspect.getdoc(fn)
    return HandlerSpec(
        name=str(label),
        description=doc or None,
        params=params,
        required=required,
        context_param=context_param,
        is_async=inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)),
        doc_params=_schema.docstring_params(doc),
    )


def _from_text(value: str, hint: Any) -> Any:
    tp = _schema.split_annotated(hint)[0]
    if _schema.is_union(tp):
        members = [a for a in getattr(tp, "__args__", ()) if a is not type(None)]
        tp = members[0] if len(members) == 1 else tp
    if tp is bool:
        return value.lower() in ("1", "true", "yes", "on")
    if tp in (int, float):
        return tp(value)
    return value


# ---------------------------------------------------------------------------------------------
# resources

_EXPRESSION = re.compile(r"\{([^}]*)\}")


def template_variables(uri_template: str) -> List[str]:
    """The variable names of an RFC 6570 template, in order (``{+path}``, ``{?q,lang}`` and
    ``{list*}`` give ``path``, ``q``, ``lang``, ``list``)."""
    names: List[str] = []
    for expr in _EXPRESSION.findall(uri_template):
        for spec in expr.lstrip("+#./;?&").split(","):
            spec = spec.split(":", 1)[0].rstrip("*").strip()
            if spec and spec not in names:
                names.append(spec)
    return names


def resource_descriptor(
    uri: str,
    spec: HandlerSpec,
    *,
    name: Optional[str],
    title: Optional[str],
    description: Optional[str],
    mime_type: Optional[str],
    is_template: bool,
) -> Dict[str, Any]:
    """The MCP ``Resource`` or ``ResourceTemplate`` object."""
    d: Dict[str, Any] = {"uriTemplate" if is_template else "uri": uri, "name": name or spec.name}
    for key, value in (("title", title), ("description", description or spec.description), ("mimeType", mime_type)):
        if value is not None:
            d[key] = value
    return d


def _is_contents(value: Any) -> bool:
    return isinstance(value, cabc.Mapping) and ("text" in value or "blob" in value)


def to_resource_contents(value: Any, uri: str, mime_type: Optional[str]) -> List[Dict[str, Any]]:
    """The ``contents`` of a ``resources/read`` of ``uri`` for a reader's return ``value``:

    - ``str``: text; ``bytes``: a base64 blob (both with ``mime_type`` when given);
    - ``Text``: text; ``EmbeddedResource``: its own URI, MIME type and text or blob;
    - a mapping with ``text`` or ``blob``: an MCP ResourceContents dict (``uri`` and ``mimeType``
      filled in when missing);
    - a list or tuple: one contents per item;
    - anything else JSON-able (dicts, dataclasses, models, numbers...): its JSON as text,
      ``application/json`` unless ``mime_type`` says otherwise.
    """
    if isinstance(value, (list, tuple)):
        return [c for item in value for c in to_resource_contents(item, uri, mime_type)]
    out: Dict[str, Any] = {"uri": uri}
    if mime_type is not None:
        out["mimeType"] = mime_type
    if isinstance(value, str):
        out["text"] = value
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out["blob"] = b64encode(bytes(value))
    elif isinstance(value, Text):
        out["text"] = value.text
    elif isinstance(value, EmbeddedResource):
        return [value.to_content()["resource"]]
    elif isinstance(value, CONTENT_TYPES):
        raise TypeError(f"a resource cannot hold a {type(value).__name__}: return bytes or an EmbeddedResource")
    elif _is_contents(value):
        return [{**out, **dict(value)}]
    else:
        out.setdefault("mimeType", "application/json")
        out["text"] = _dumps(to_jsonable(value))
    return [out]


# ---------------------------------------------------------------------------------------------
# prompts


def prompt_descriptor(spec: HandlerSpec, *, title: Optional[str], description: Optional[str]) -> Dict[str, Any]:
    """The MCP ``Prompt`` object: one argument per string parameter, required when it has no
    default, described by the docstring's parameter section."""
    arguments = []
    for pname in spec.params:
        arg: Dict[str, Any] = {"name": pname, "required": pname in spec.required}
        if spec.doc_params.get(pname):
            arg["description"] = spec.doc_params[pname]
        arguments.append(arg)
    d: Dict[str, Any] = {"name": spec.name, "arguments": arguments}
    if title is not None:
        d["title"] = title
    desc = description if description is not None else spec.description
    if desc is not None:
        d["description"] = desc
    return d


def _message(item: Any) -> Dict[str, Any]:
    if isinstance(item, Message):
        return item.to_message()
    if isinstance(item, str) or isinstance(item, CONTENT_TYPES):
        return Message("user", item).to_message()
    if isinstance(item, cabc.Mapping) and "role" in item:
        content = item.get("content")
        if isinstance(content, str) or isinstance(content, CONTENT_TYPES):
            return Message(item["role"], content).to_message()
        return dict(item)
    raise TypeError(
        f"a prompt message must be a str, a Message, a content object or a dict with a role, "
        f"not {type(item).__name__}"
    )


def to_prompt_result(value: Any) -> Dict[str, Any]:
    """The ``GetPromptResult`` for a prompt's return ``value``: a ``str`` (or content object)
    is one user message; a ``Message`` or a ``{"role", "content"}`` dict one message; a list of
    those the messages in order; a dict with ``messages`` is the result itself."""
    if isinstance(value, cabc.Mapping) and "messages" in value:
        result = dict(value)
        result["messages"] = [_message(m) for m in value["messages"]]
        return result
    items = value if isinstance(value, (list, tuple)) else [value]
    return {"messages": [_message(m) for m in items]}


# ---------------------------------------------------------------------------------------------
# completion


def _to_completion(value: Any) -> Dict[str, Any]:
    if isinstance(value, cabc.Mapping):
        return dict(value)
    if isinstance(value, str) or not isinstance(value, cabc.Iterable):
        raise TypeError(f"a completer must return a list of strings or a dict, not {type(value).__name__}")
    return {"values": [str(v) for v in value]}


def completer_parts(source: CompletionSource) -> Tuple[Optional[List[str]], Optional[Callback], bool]:
    """``(values, callback, is_async)`` for the native ``complete`` of a completion source."""
    if isinstance(source, str):
        raise TypeError("completion values must be a list of strings, not one string")
    if not callable(source):
        return [str(v) for v in source], None, False
    fn = source
    try:
        positional = [
            p for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
        with_context = len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)
    except (TypeError, ValueError):
        with_context = False
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))

    def invoke(request: Dict[str, Any], _call: Optional[_native.ToolCall]) -> Union[Any, Awaitable[Any]]:
        if with_context:
            return fn(request["value"], dict(request.get("context") or {}))
        return fn(request["value"])

    return None, native_callback(invoke, is_async, lambda value, _request: _to_completion(value)), is_async
