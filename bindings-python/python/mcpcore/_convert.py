"""Values in and out of handlers: JSON arguments to annotated Python values, and Python's own
types to plain values. What a return value becomes on the wire is the engine's rule set
(``mcpcore::host::results``, the same in every binding); the native module converts plain values
itself and asks :func:`to_builtin` about everything else."""

from __future__ import annotations

import base64
import binascii
import collections
import collections.abc as cabc
import dataclasses
import enum
import json
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from . import _schema, _stdtypes
from ._jsonable import to_jsonable
from ._schema import ToolSpec
from .content import CONTENT_TYPES, Message

__all__ = ["BYTES_URI", "coerce_arguments", "coerce_value", "to_builtin", "to_jsonable"]

BYTES_URI = "mcpcore://bytes"
"""The resource URI under which a returned ``bytes`` value is embedded."""

_NONE_TYPE = type(None)


# ---------------------------------------------------------------------------------------------
# out: Python values to JSON


def to_builtin(value: Any) -> Any:
    """``value`` as a plain value the native module converts itself (dict, list, str, int,
    float, bool, None, bytes), one level deep: content objects become their MCP content dict, a
    ``Message`` its message dict, dataclasses dicts of their fields, pydantic models
    ``model_dump(mode="json")``, enums their value, sets sorted lists, other mappings dicts and
    other iterables lists, dates and times ISO 8601 text, UUID, Decimal and paths ``str``.
    Raises ``TypeError`` naming a type that has none of these forms."""
    if isinstance(value, CONTENT_TYPES):
        return value.to_content()
    if isinstance(value, Message):
        return value.to_message()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if _stdtypes.is_pydantic_model(type(value)):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, cabc.Mapping):
        return dict(value)
    if isinstance(value, collections.deque):
        return list(value)
    if isinstance(value, _stdtypes.dates()):
        return value.isoformat()
    if isinstance(value, _stdtypes.as_str()):
        return str(value)
    if isinstance(value, int):  # int subclasses (bool is handled natively)
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    raise TypeError(f"cannot convert a value of type {type(value).__qualname__} to JSON")


# ---------------------------------------------------------------------------------------------
# in: JSON arguments to annotated Python values


class _NoMatch(Exception):
    """The JSON value does not have the shape of the annotation."""


def coerce_arguments(
    spec_or_fn: Union[ToolSpec, Callable[..., Any]], arguments: Mapping[str, Any]
) -> Dict[str, Any]:
    """Return the keyword arguments for calling the tool, converted to its annotations.

    Dataclasses are built (recursively, keys they do not declare are dropped), TypedDicts stay
    dicts, enums are looked up by value, lists become tuples/sets/frozensets as annotated,
    base64 text becomes ``bytes``, pydantic models are validated with ``model_validate``,
    ISO text becomes dates/times, and ``Optional``/``Union`` take the first member that fits.
    Arguments without a parameter, and values that fit no annotation, are passed through
    unchanged (the JSON Schema was checked before the call). Parameters whose default is a
    pydantic ``Field`` get that field's default when missing. The context parameter is never
    filled here."""
    if isinstance(spec_or_fn, ToolSpec):
        param_types, field_defaults = spec_or_fn.param_types, spec_or_fn.field_defaults
    else:
        sig, hints = _schema.resolve_parameters(spec_or_fn)
        param_types = {n: hints.get(n, Any) for n in sig.parameters}
        field_defaults = {n: p.default for n, p in sig.parameters.items() if _schema.is_field_info(p.default)}
    out = dict(arguments)
    for name, value in arguments.items():
        if name in param_types:
            try:
                out[name] = _coerce(value, param_types[name])
            except _NoMatch:
                pass
    for name, info in field_defaults.items():
        if name not in out and not info.is_required():
            out[name] = info.get_default(call_default_factory=True)
    return out


def coerce_value(value: Any, tp: Any) -> Any:
    """Return JSON ``value`` converted to annotation ``tp`` as :func:`coerce_arguments` does
    for one argument (unchanged when it does not have the annotation's shape)."""
    try:
        return _coerce(value, tp)
    except _NoMatch:
        return value


def _coerce(value: Any, tp: Any) -> Any:
    """Convert JSON ``value`` to annotation ``tp``; ``_NoMatch`` when the shape is wrong."""
    tp = _schema.split_annotated(tp)[0]
    if tp is Any or tp is object or isinstance(tp, (str, typing.ForwardRef, typing.TypeVar)):
        return value
    if tp is None or tp is _NONE_TYPE:
        if value is not None:
            raise _NoMatch
        return None
    if hasattr(tp, "__supertype__"):  # NewType
        return _coerce(value, tp.__supertype__)
    if _schema.is_union(tp):
        return _coerce_union(value, typing.get_args(tp))
    origin = typing.get_origin(tp)
    if origin is not None:
        return _coerce_generic(value, tp, origin, typing.get_args(tp))
    if isinstance(tp, type):
        return _coerce_class(value, tp)
    return value


def _coerce_union(value: Any, args: Any) -> Any:
    members = [a for a in args if a is not _NONE_TYPE]
    if value is None and len(members) < len(args):
        return None
    if len(members) == 1:  # Optional[T]: errors of T's constructor surface
        return _coerce(value, members[0])
    for member in members:
        try:
            return _coerce(value, member)
        except (_NoMatch, TypeError, ValueError):
            continue
    raise _NoMatch


def _items(value: Any, item_type: Any) -> List[Any]:
    if not isinstance(value, list):
        raise _NoMatch
    return [_coerce(v, item_type) for v in value]


def _coerce_generic(value: Any, tp: Any, origin: Any, args: Any) -> Any:
    if _schema.is_literal(origin):
        for option in args:
            plain = option.value if isinstance(option, enum.Enum) else option
            if value == plain and type(value) is type(plain):
                return option
        raise _NoMatch
    item = args[0] if args else Any
    if origin in _schema.ARRAYS:
        return _items(value, item)
    if origin in (set, cabc.Set, cabc.MutableSet):
        return set(_items(value, item))
    if origin is frozenset:
        return frozenset(_items(value, item))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_items(value, item))
        args = () if args == ((),) else args
        if not isinstance(value, list) or len(value) != len(args):
            raise _NoMatch
        return tuple(_coerce(v, a) for v, a in zip(value, args))
    if origin in _schema.MAPPINGS:
        if not isinstance(value, dict):
            raise _NoMatch
        item = args[1] if args else Any
        return {k: _coerce(v, item) for k, v in value.items()}
    if isinstance(origin, type):
        return _coerce_class(value, tp if _stdtypes.is_pydantic_model(tp) else origin)
    return value


_SCALAR_CHECKS: Dict[type, Callable[[Any], bool]] = {
    str: lambda v: isinstance(v, str),
    bool: lambda v: isinstance(v, bool),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def _coerce_class(value: Any, tp: type) -> Any:
    if issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            raise _NoMatch from None
    for base, check in _SCALAR_CHECKS.items():
        if issubclass(tp, base):
            if not check(value):
                raise _NoMatch
            return float(value) if base is float and not isinstance(value, float) else value
    if issubclass(tp, (bytes, bytearray)):
        if not isinstance(value, str):
            raise _NoMatch
        try:
            return tp(base64.b64decode(value, validate=True))
        except binascii.Error as e:
            raise ValueError(f"not valid base64: {e}") from None
    if _stdtypes.is_pydantic_model(tp):
        return tp.model_validate(value)  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(tp) or _schema.is_typeddict(tp):
        return _coerce_record(value, tp)
    if tp in (tuple, set, frozenset) or tp in _schema.ARRAYS:
        if not isinstance(value, list):
            raise _NoMatch
        return tuple(value) if tp is tuple else set(value) if tp is set else frozenset(value) if tp is frozenset else value
    if tp in _schema.MAPPINGS and not isinstance(value, dict):
        raise _NoMatch
    return _coerce_text_type(value, tp)


def _coerce_record(value: Any, tp: type) -> Any:
    if not isinstance(value, dict):
        raise _NoMatch
    try:
        hints = typing.get_type_hints(tp, include_extras=True)
    except Exception:  # unresolvable hints: keep values as they are
        hints = {}
    if _schema.is_typeddict(tp):
        out = dict(value)
        for key, v in value.items():
            hint = hints.get(key, Any)
            while _schema.is_required_wrapper(typing.get_origin(hint)):
                hint = typing.get_args(hint)[0]
            try:
                out[key] = _coerce(v, hint)
            except _NoMatch:
                pass
        return out
    kwargs = {}
    for f in dataclasses.fields(tp):
        if f.init and f.name in value:
            try:
                kwargs[f.name] = _coerce(value[f.name], hints.get(f.name, Any))
            except _NoMatch:
                kwargs[f.name] = value[f.name]
    return tp(**kwargs)


def _coerce_text_type(value: Any, tp: type) -> Any:
    """Dates, times, UUIDs, decimals and paths from their JSON text (or number)."""
    if issubclass(tp, _stdtypes.decimals()):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise _NoMatch
        return tp(str(value))
    if not isinstance(value, str):
        if issubclass(tp, _stdtypes.dates() + _stdtypes.parsed_from_text()):
            raise _NoMatch
        return value
    if issubclass(tp, _stdtypes.dates()):
        text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) and tp not in _stdtypes.date() else value
        parse: Any = tp.fromisoformat  # type: ignore[attr-defined]  # a date or time class
        return parse(text)
    if issubclass(tp, _stdtypes.parsed_from_text()):
        return tp(value)
    return value
