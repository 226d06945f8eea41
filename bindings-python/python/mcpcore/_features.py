"""Resources, prompts and completers: Python functions as native callbacks. The engine does the
protocol (matching templates, checking required arguments, turning return values into results,
filtering and capping completions, paging, notifications); this only describes and calls."""

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
    "prompt_descriptor",
    "resource_descriptor",
    "template_variables",
]

Callback = Callable[[Any, Optional[_native.ToolCall]], Any]
"""What the native side calls: ``callback(input, call)`` → the handler's value (or an
awaitable of it); the engine turns the value into the result (``mcpcore::host::results``)."""

CompletionSource = Union[Sequence[str], Callable[..., Any]]
"""Completion values for an argument: a fixed list (filtered by prefix by the engine), or a
function ``(value)`` or ``(value, context)`` (sync or async) returning a list of strings or a
``{"values", "total", "hasMore"}`` dict."""


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


# ---------------------------------------------------------------------------------------------
# completion


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

    return None, invoke, is_async
