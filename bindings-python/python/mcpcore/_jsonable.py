"""Python values as plain JSON data: ``to_jsonable``, what a tool's structured output, a
request state and a client's arguments are made of. Below ``_schema`` and ``_convert``, which
both use it (a module of its own so that neither imports the other)."""

from __future__ import annotations

import collections
import collections.abc as cabc
import dataclasses
import enum
import math
from typing import Any

from . import _stdtypes
from .content import b64encode

__all__ = ["to_jsonable"]


def to_jsonable(value: Any) -> Any:
    """Return ``value`` as plain JSON data (dict, list, str, int, float, bool, None).

    Dataclasses become dicts of their fields, enums their values, tuples and sets lists,
    bytes base64 text, pydantic models ``model_dump(mode="json")``, dates and times ISO 8601
    text, and UUID, Decimal and paths ``str``. Raises ``TypeError`` naming the type of a value
    that has none of these forms, and ``ValueError`` for NaN and infinite floats."""
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number")
        return float(value)
    if isinstance(value, cabc.Mapping):
        return {_json_key(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, collections.deque)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b64encode(bytes(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if _stdtypes.is_pydantic_model(type(value)):
        return value.model_dump(mode="json")
    if isinstance(value, _stdtypes.dates()):
        return value.isoformat()
    if isinstance(value, _stdtypes.as_str()):
        return str(value)
    raise TypeError(f"cannot convert a value of type {type(value).__qualname__} to JSON")


def _json_key(key: Any) -> str:
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, str):
        return key
    if isinstance(key, (int, float, *_stdtypes.uuids())) and not isinstance(key, bool):
        return str(key)
    raise TypeError(f"cannot use a key of type {type(key).__qualname__} in a JSON object")
