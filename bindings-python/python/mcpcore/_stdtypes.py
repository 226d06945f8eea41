"""The standard library's value types mcpcore converts (dates and times, UUIDs, decimals, paths)
and ``typing_extensions``' special forms, looked up among the modules imported so far.

A value or an annotation of one of these types can only exist once its module has been imported
(by the host, or a library it uses), so ``import mcpcore`` need not import them: it saves a few
milliseconds of start-up (``python -X importtime``; bench/NOTES.md)."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Tuple

Schema = Dict[str, Any]


def _types(module: str, *names: str) -> Tuple[Any, ...]:
    found = sys.modules.get(module)
    return tuple(getattr(found, n) for n in names) if found is not None else ()


def dates() -> Tuple[Any, ...]:
    """``datetime.date`` (so also ``datetime.datetime``) and ``datetime.time``."""
    return _types("datetime", "date", "time")


def date() -> Tuple[Any, ...]:
    """``datetime.date`` alone."""
    return _types("datetime", "date")


def as_str() -> Tuple[Any, ...]:
    """The types whose JSON form is their ``str()``: UUID, Decimal, paths."""
    return _types("uuid", "UUID") + _types("decimal", "Decimal") + _types("pathlib", "PurePath")


def uuids() -> Tuple[Any, ...]:
    """``uuid.UUID``."""
    return _types("uuid", "UUID")


def decimals() -> Tuple[Any, ...]:
    """``decimal.Decimal``."""
    return _types("decimal", "Decimal")


def parsed_from_text() -> Tuple[Any, ...]:
    """The types read from JSON text by their constructor: UUID and paths."""
    return _types("uuid", "UUID") + _types("pathlib", "PurePath")


def schemas() -> List[Tuple[type, Schema]]:
    """Each type's JSON Schema, most specific first (``datetime`` before ``date``)."""
    out: List[Tuple[type, Schema]] = []
    dt = sys.modules.get("datetime")
    if dt is not None:
        out += [
            (dt.datetime, {"type": "string", "format": "date-time"}),
            (dt.date, {"type": "string", "format": "date"}),
            (dt.time, {"type": "string", "format": "time"}),
        ]
    out += [(t, {"type": "string", "format": "uuid"}) for t in uuids()]
    out += [(t, {"type": "string"}) for t in _types("pathlib", "PurePath")]
    out += [(t, {"anyOf": [{"type": "number"}, {"type": "string"}]}) for t in decimals()]
    return out


def extension_forms(*names: str) -> List[Any]:
    """The special forms ``names`` of ``typing_extensions``, when it is imported (its aliases may
    differ from ``typing``'s on older Pythons)."""
    te = sys.modules.get("typing_extensions")
    return [getattr(te, n) for n in names if hasattr(te, n)] if te is not None else []


def is_pydantic_model(tp: Any) -> bool:
    """True for a pydantic v2 ``BaseModel`` subclass (pydantic is never imported here)."""
    pyd = sys.modules.get("pydantic")
    base = getattr(pyd, "BaseModel", None)
    return (
        base is not None
        and isinstance(tp, type)
        and issubclass(tp, base)
        and hasattr(tp, "model_json_schema")
    )
