"""Tool specifications: JSON Schemas (draft 2020-12) derived from a function's type hints.

``tool_spec(fn)`` reads the signature, type hints and docstring of ``fn`` and returns a
``ToolSpec`` with its ``inputSchema`` and ``outputSchema``. Pydantic is optional: its models
and ``Field`` metadata are understood when pydantic has been imported by the caller.
"""

from __future__ import annotations

import collections.abc as cabc
import enum
import inspect
import json
import re
import sys
import types
import typing
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple

from . import _stdtypes
from ._jsonable import to_jsonable
from ._stdtypes import is_pydantic_model
from .content import CONTENT_TYPES

__all__ = ["ToolSpec", "inline_refs", "output_schema_for", "resolve_parameters", "tool_spec", "type_schema"]

Schema = Dict[str, Any]

_UNION_TYPE: Optional[type] = getattr(types, "UnionType", None)
_NONE_TYPE: type = type(None)
_NO_DEFAULT: Any = object()  # a default exists (a pydantic default_factory) but has no value
_REQ_NAMES = ("Required", "NotRequired", "ReadOnly")
_REQ_WRAPPERS = frozenset(getattr(typing, n) for n in _REQ_NAMES if hasattr(typing, n))


def is_literal(origin: Any) -> bool:
    """``origin`` is ``Literal`` (typing's or typing_extensions')."""
    return origin is typing.Literal or origin in _stdtypes.extension_forms("Literal")


def is_required_wrapper(origin: Any) -> bool:
    """``origin`` is ``Required``, ``NotRequired`` or ``ReadOnly`` (typing's or typing_extensions')."""
    return origin in _REQ_WRAPPERS or origin in _stdtypes.extension_forms(*_REQ_NAMES)


# origins (and bare classes) that map to JSON arrays, unique arrays and objects
ARRAYS = {list, cabc.Sequence, cabc.MutableSequence, cabc.Iterable, cabc.Collection}
SETS = {set, frozenset, cabc.Set, cabc.MutableSet}
MAPPINGS = {dict, cabc.Mapping, cabc.MutableMapping}
_SCALARS: Dict[Any, Schema] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    _NONE_TYPE: {"type": "null"},
    bytes: {"type": "string", "contentEncoding": "base64"},
    bytearray: {"type": "string", "contentEncoding": "base64"},
}


@dataclass
class ToolSpec:
    """Everything a binding needs to register a Python function as an MCP tool."""

    name: str
    description: str
    input_schema: Schema
    output_schema: Optional[Schema]
    context_param: Optional[str]
    is_async: bool
    wraps_result: bool
    fn: Optional[Callable[..., Any]] = field(default=None, repr=False, compare=False)
    param_types: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Annotation of each schema parameter (context parameter excluded), for coercion."""
    field_defaults: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Parameters whose Python default is a pydantic ``FieldInfo``: the FieldInfo, by name."""

    def to_tool(self) -> Dict[str, Any]:
        """Return the MCP ``Tool`` object (``name``, ``description``, ``inputSchema``, ``outputSchema``)."""
        tool: Dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.output_schema is not None:
            tool["outputSchema"] = self.output_schema
        return tool


# ---------------------------------------------------------------------------------------------
# helpers over typing


def is_union(tp: Any) -> bool:
    """True for ``Union[...]``/``Optional[...]`` and (Python 3.10+) ``X | Y``."""
    return typing.get_origin(tp) is typing.Union or (_UNION_TYPE is not None and isinstance(tp, _UNION_TYPE))


def _is_annotated(tp: Any) -> bool:
    """True for ``Annotated[...]``."""
    return typing.get_origin(tp) is typing.Annotated


def is_typeddict(tp: Any) -> bool:
    """True for a ``TypedDict`` class (from ``typing`` or ``typing_extensions``)."""
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def is_field_info(obj: Any) -> bool:
    """True for a pydantic ``FieldInfo`` (what ``pydantic.Field(...)`` returns)."""
    cls = type(obj)
    return cls.__name__ == "FieldInfo" and cls.__module__.startswith("pydantic")


def split_annotated(tp: Any) -> Tuple[Any, List[Any]]:
    """Strip ``Annotated`` (also inside ``Optional``) and return ``(type, metadata)``."""
    if _is_annotated(tp):
        inner, meta = split_annotated(typing.get_args(tp)[0])
        return inner, list(tp.__metadata__) + meta
    if is_union(tp):
        args = typing.get_args(tp)
        rest = [a for a in args if a is not _NONE_TYPE]
        if len(rest) == 1 and len(args) == 2 and _is_annotated(rest[0]):
            inner, meta = split_annotated(rest[0])
            return Optional[inner], meta
    return tp, []


def _jsonable_default(value: Any) -> Tuple[bool, Any]:
    try:
        out = to_jsonable(value)
        json.dumps(out, allow_nan=False)
    except (TypeError, ValueError):
        return False, None
    return True, out


def _json_type(value: Any) -> Optional[str]:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _enum_schema(members: List[Any], what: str) -> Schema:
    values = []
    for member in members:
        ok, value = _jsonable_default(member)
        if not ok:
            raise TypeError(f"{what}: value {member!r} has no JSON representation")
        values.append(value)
    if not values:
        raise TypeError(f"{what} has no values")
    kinds = {_json_type(v) for v in values}
    schema: Schema = {"const": values[0]} if len(values) == 1 else {"enum": values}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


_CONSTRAINTS = {
    "gt": "exclusiveMinimum",
    "ge": "minimum",
    "lt": "exclusiveMaximum",
    "le": "maximum",
    "multiple_of": "multipleOf",
    "pattern": "pattern",
}
_LENGTHS = {"string": "Length", "array": "Items", "object": "Properties"}


def apply_metadata(schema: Schema, metadata: List[Any]) -> Schema:
    """Apply ``Annotated`` metadata to ``schema``: a str is a description; pydantic ``Field``
    and annotated-types constraints (``Ge``, ``MaxLen``, ...) add their keywords."""
    for meta in metadata:
        if isinstance(meta, str):
            schema.setdefault("description", meta)
        elif is_field_info(meta):
            for attr, key in (("description", "description"), ("title", "title"), ("examples", "examples")):
                if getattr(meta, attr, None) is not None:
                    schema[key] = getattr(meta, attr)
            extra = getattr(meta, "json_schema_extra", None)
            if isinstance(extra, dict):
                schema.update(extra)
            apply_metadata(schema, list(getattr(meta, "metadata", [])))
        elif type(meta).__module__.split(".")[0] in ("annotated_types", "pydantic"):
            for attr, key in _CONSTRAINTS.items():
                if getattr(meta, attr, None) is not None:
                    schema[key] = getattr(meta, attr)
            suffix = _LENGTHS.get(schema.get("type", ""), "")
            for attr, prefix in (("min_length", "min"), ("max_length", "max")):
                if suffix and getattr(meta, attr, None) is not None:
                    schema[prefix + suffix] = getattr(meta, attr)
    return schema


# ---------------------------------------------------------------------------------------------
# the schema builder


class _Builder:
    """Builds schemas for one document; recursive named types go to ``$defs``."""

    def __init__(self, mode: str = "validation") -> None:
        self.mode = mode  # pydantic's JSON Schema mode: "validation" (input) or "serialization"
        self.defs: Dict[str, Schema] = {}
        self._names: Dict[Any, str] = {}
        self._stack: List[Any] = []
        self._recursive: Set[Any] = set()

    def schema(self, tp: Any) -> Schema:
        """Return the schema of annotation ``tp`` (a fresh dict)."""
        if tp is Any or tp is object or tp is inspect.Parameter.empty:
            return {}
        if tp is None:
            tp = _NONE_TYPE
        if isinstance(tp, (str, typing.ForwardRef)):
            raise TypeError(f"unresolved forward reference {tp!r}: define the type at module level")
        if _is_annotated(tp):
            inner, meta = split_annotated(tp)
            return apply_metadata(self.schema(inner), meta)
        if hasattr(tp, "__supertype__"):  # typing.NewType
            return self.schema(tp.__supertype__)
        if isinstance(tp, typing.TypeVar):
            return self.schema(tp.__bound__) if tp.__bound__ is not None else {}
        if is_union(tp):
            return {"anyOf": [self.schema(a) for a in typing.get_args(tp)]}
        origin = typing.get_origin(tp)
        if origin is not None:
            return self._generic(tp, origin, typing.get_args(tp))
        if not isinstance(tp, type):
            raise TypeError(f"unsupported type annotation {tp!r}")
        return self._class(tp)

    def _generic(self, tp: Any, origin: Any, args: Tuple[Any, ...]) -> Schema:
        if is_literal(origin):
            return _enum_schema(list(args), repr(tp))
        if origin in ARRAYS or origin in SETS:
            schema: Schema = {"type": "array"}
            if args:
                schema["items"] = self.schema(args[0])
            if origin in SETS:
                schema["uniqueItems"] = True
            return schema
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.schema(args[0])}
            if args == ((),):  # Tuple[()] on older Pythons
                args = ()
            return {
                "type": "array",
                "prefixItems": [self.schema(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        if origin in MAPPINGS:
            schema = {"type": "object"}
            if args:
                key = split_annotated(args[0])[0]
                if key not in (str, Any):
                    raise TypeError(f"unsupported type annotation {tp!r}: JSON object keys must be str")
                schema["additionalProperties"] = self.schema(args[1])
            return schema
        if isinstance(origin, type) and (is_dataclass(origin) or is_pydantic_model(origin)):
            return self._class(tp if is_pydantic_model(tp) else origin)
        raise TypeError(f"unsupported type annotation {tp!r}")

    def _class(self, tp: Any) -> Schema:
        if issubclass(tp, enum.Enum):
            return _enum_schema([m.value for m in tp], tp.__qualname__)
        for cls, fmt in (*_SCALARS.items(), *_stdtypes.schemas()):
            if issubclass(tp, cls):
                return dict(fmt)
        if is_pydantic_model(tp):
            return self._pydantic(tp)
        if is_typeddict(tp):
            return self._named(tp, self._typeddict)
        if is_dataclass(tp) and isinstance(tp, type):
            return self._named(tp, self._dataclass)
        if tp in ARRAYS or tp is tuple or tp in SETS or tp in MAPPINGS:
            return self._generic(tp, tp, ())
        raise TypeError(
            f"unsupported type annotation {tp.__qualname__!r}: use a dataclass, TypedDict, "
            "pydantic model, Enum, or a builtin JSON type"
        )

    def _named(self, tp: type, build: Callable[[type], Schema]) -> Schema:
        name = self._names.get(tp)
        if name is not None and name in self.defs:
            return {"$ref": f"#/$defs/{name}"}
        if tp in self._stack:
            self._recursive.add(tp)
            return {"$ref": f"#/$defs/{self._name_for(tp)}"}
        self._stack.append(tp)
        try:
            body = build(tp)
        finally:
            self._stack.pop()
        if tp not in self._recursive:
            return body
        name = self._name_for(tp)
        self.defs[name] = body
        return {"$ref": f"#/$defs/{name}"}

    def _name_for(self, tp: Any) -> str:
        if tp not in self._names:
            self._names[tp] = self._unique(getattr(tp, "__name__", "Type"))
        return self._names[tp]

    def _unique(self, base: str) -> str:
        taken = set(self.defs) | set(self._names.values())
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}{n}"
        return name

    def _hints(self, tp: type) -> Dict[str, Any]:
        try:
            return typing.get_type_hints(tp, include_extras=True)
        except Exception as e:  # NameError and friends from unresolvable annotations
            raise TypeError(f"cannot resolve type hints of {tp.__qualname__}: {e}") from e

    def _typeddict(self, tp: type) -> Schema:
        props: Schema = {}
        for key, hint in self._hints(tp).items():
            while is_required_wrapper(typing.get_origin(hint)):
                hint = typing.get_args(hint)[0]
            props[key] = self.schema(hint)
        required = [k for k in props if k in getattr(tp, "__required_keys__", ())]
        schema: Schema = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        return schema

    def _dataclass(self, tp: type) -> Schema:
        hints = self._hints(tp)
        props: Schema = {}
        required: List[str] = []
        for f in fields(tp):
            if not f.init:
                continue
            prop = self.schema(hints.get(f.name, Any))
            if f.default is not MISSING:
                ok, default = _jsonable_default(f.default)
                if ok:
                    prop["default"] = default
            elif f.default_factory is MISSING:
                required.append(f.name)
            props[f.name] = prop
        schema: Schema = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        return schema

    def _pydantic(self, tp: Any) -> Schema:
        import copy  # only for pydantic models

        schema: Schema = copy.deepcopy(tp.model_json_schema(ref_template="#/$defs/{model}", mode=self.mode))
        defs: Dict[str, Schema] = schema.pop("$defs", {})
        renames: Dict[str, str] = {}
        for name, body in defs.items():
            if name in self.defs and self.defs[name] != body or name in self._names.values():
                renames[name] = self._unique(name)
        for name, body in defs.items():
            self.defs[renames.get(name, name)] = _rename_refs(body, renames)
        return _rename_refs(schema, renames)  # type: ignore[no-any-return]

    def root_body(self, schema: Schema) -> Schema:
        """The schema a top-level ``{"$ref": "#/$defs/X"}`` stands for (else ``schema``)."""
        name = _local_ref(schema)
        return self.defs[name] if name is not None else schema

    def document(self, schema: Schema) -> Schema:
        """Return ``schema`` as a standalone document with the collected ``$defs``; a
        top-level ``$ref`` is replaced by its definition, whose references become ``#``."""
        defs = self.defs
        name = _local_ref(schema)
        if name is not None:
            defs = {k: v for k, v in defs.items() if k != name}
            renames = {name: ""}
            schema = _rename_refs(self.defs[name], renames)
            defs = {k: _rename_refs(v, renames) for k, v in defs.items()}
        schema = dict(schema)
        if defs:
            schema["$defs"] = defs
        return schema


def _local_ref(schema: Schema) -> Optional[str]:
    """``X`` when ``schema`` is exactly ``{"$ref": "#/$defs/X"}``."""
    ref = schema.get("$ref")
    if len(schema) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/"):
        return ref[len("#/$defs/"):]
    return None


def _rename_refs(node: Any, renames: Mapping[str, str]) -> Any:
    """Copy of ``node`` with ``#/$defs/`` references renamed (to ``#`` for an empty name)."""
    if not renames:
        return node
    if isinstance(node, dict):
        out = {k: _rename_refs(v, renames) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in renames:
            new = renames[ref[8:]]
            out["$ref"] = "#/$defs/" + new if new else "#"
        return out
    if isinstance(node, list):
        return [_rename_refs(v, renames) for v in node]
    return node


def inline_refs(schema: Schema) -> Schema:
    """``schema`` with every ``$ref`` to a non-recursive definition replaced by the definition
    (the engine's rule, ``mcpcore::registry::inline_refs``): LLM clients break on ``$ref``. Only
    a recursive type keeps its reference, and ``$defs`` only what those still name."""
    if "$defs" not in schema and "definitions" not in schema:
        return schema
    import importlib  # the engine's module (absolute: this file is also loaded on its own by tests)

    native = importlib.import_module("mcpcore._native")
    inlined: Schema = json.loads(native.inline_refs(json.dumps(schema)))
    return inlined


def type_schema(tp: Any, *, refs: bool = False) -> Schema:
    """Return a standalone JSON Schema for the annotation ``tp``: ``$defs`` inlined except for
    recursive types, unless ``refs=True`` keeps every named type as a ``$ref``.

    Raises ``TypeError`` for annotations that have no JSON representation."""
    builder = _Builder()
    schema = builder.document(builder.schema(tp))
    return schema if refs else inline_refs(schema)


# ---------------------------------------------------------------------------------------------
# docstrings

_GOOGLE_HEADER = re.compile(r"^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ENTRY = re.compile(r"^(\w+)\s*(?::.*)?$")


def docstring_params(doc: Optional[str]) -> Dict[str, str]:
    """Return parameter descriptions from a Google-style ``Args:`` or NumPy-style
    ``Parameters`` section of a (dedented) docstring."""
    if not doc:
        return {}
    lines = doc.expandtabs().splitlines()
    out: Dict[str, str] = {}
    for i, line in enumerate(lines):
        m = _GOOGLE_HEADER.match(line)
        if m:
            _google_section(lines[i + 1:], len(m.group(1)), out)
        elif line.strip() == "Parameters" and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            _numpy_section(lines[i + 2:], len(line) - len(line.lstrip()), out)
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _google_section(lines: List[str], header_indent: int, out: Dict[str, str]) -> None:
    entry_indent: Optional[int] = None
    current: Optional[str] = None
    for line in lines:
        if not line.strip():
            continue
        indent = _indent(line)
        if indent <= header_indent:
            return
        if entry_indent is None:
            entry_indent = indent
        m = _GOOGLE_ENTRY.match(line.strip())
        if indent == entry_indent and m:
            current = m.group(1)
            out[current] = m.group(2).strip()
        elif indent > entry_indent and current is not None:
            out[current] = (out[current] + " " + line.strip()).strip()


def _numpy_section(lines: List[str], base: int, out: Dict[str, str]) -> None:
    current: Optional[str] = None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        indent = _indent(line)
        if indent <= base:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            m = _NUMPY_ENTRY.match(line.strip())
            if (nxt and set(nxt) == {"-"}) or not m:
                return
            current = m.group(1)
            out[current] = ""
        elif current is not None:
            out[current] = (out[current] + " " + line.strip()).strip()


# ---------------------------------------------------------------------------------------------
# tool specs


def _hint_target(fn: Callable[..., Any]) -> Any:
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        return fn
    inner = getattr(fn, "func", None)  # functools.partial
    if inner is not None and callable(inner):
        return _hint_target(inner)
    call = getattr(type(fn), "__call__", None)
    return call if inspect.isfunction(call) else fn


def resolve_parameters(fn: Callable[..., Any]) -> Tuple[inspect.Signature, Dict[str, Any]]:
    """Return the signature of ``fn`` and its resolved type hints (``Annotated`` kept).

    A parameter whose default is ``None`` always admits ``None`` (as ``typing`` does before
    Python 3.11), so schemas are the same on every Python version."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot read the signature of {fn!r}: {e}") from e
    try:
        hints = typing.get_type_hints(_hint_target(fn), include_extras=True)
    except Exception as e:  # NameError for unresolvable forward references, ...
        raise TypeError(f"cannot resolve type hints of {_name_of(fn)}: {e}") from e
    for name, param in sig.parameters.items():
        hint = hints.get(name)
        if param.default is None and hint is not None and not _admits_none(hint):
            hints[name] = Optional[hint]
    return sig, hints


def _admits_none(tp: Any) -> bool:
    tp = split_annotated(tp)[0]
    if tp in (Any, object, None, _NONE_TYPE):
        return True
    return is_union(tp) and any(_admits_none(a) for a in typing.get_args(tp))


def _name_of(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", None)
    if name is None:
        name = getattr(getattr(fn, "func", None), "__name__", None)
    return str(name) if name is not None else type(fn).__name__


def _is_context(hint: Any, context_type: Optional[type]) -> bool:
    if context_type is None or hint is None:
        return False
    tp = split_annotated(hint)[0]
    if is_union(tp):
        rest = [a for a in typing.get_args(tp) if a is not _NONE_TYPE]
        tp = rest[0] if len(rest) == 1 else tp
    return tp is context_type or (isinstance(tp, type) and issubclass(tp, context_type))


def tool_spec(
    fn: Callable[..., Any],
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    context_type: Optional[type] = None,
    refs: bool = False,
) -> ToolSpec:
    """Derive the ``ToolSpec`` of ``fn``. Its schemas have no ``$ref`` but for recursive types
    (definitions inlined) unless ``refs=True``.

    ``name`` defaults to ``fn.__name__`` and ``description`` to its docstring. A parameter
    annotated with ``context_type`` (or a subclass, or ``Optional`` of it) is left out of the
    schema and named in ``context_param``. The schema allows no other arguments
    (``additionalProperties: false``) unless ``fn`` takes ``**kwargs``, which then receives them
    (checked against its annotation, when it has one). Raises ``TypeError`` for ``*args``,
    positional-only parameters and annotations without a JSON representation."""
    sig, hints = resolve_parameters(fn)
    tool_name = name if name is not None else _name_of(fn)
    doc = inspect.getdoc(fn) or ""
    doc_params = docstring_params(doc)
    builder = _Builder()
    props: Schema = {}
    required: List[str] = []
    context_param: Optional[str] = None
    param_types: Dict[str, Any] = {}
    field_defaults: Dict[str, Any] = {}
    extra: Any = False  # additionalProperties: none without **kwargs
    for pname, param in sig.parameters.items():
        hint = hints.get(pname, Any)
        if param.kind == param.VAR_KEYWORD:
            try:
                extra = True if hint is Any else builder.schema(hint)
            except TypeError as e:
                raise TypeError(f"tool {tool_name!r}, parameter **{pname}: {e}") from e
            continue
        if param.kind in (param.VAR_POSITIONAL, param.POSITIONAL_ONLY):
            raise TypeError(f"tool {tool_name!r}: parameter {pname!r} must be a keyword-capable parameter")
        if _is_context(hints.get(pname), context_type):
            if context_param is not None:
                raise TypeError(f"tool {tool_name!r} has two context parameters: {context_param!r}, {pname!r}")
            context_param = pname
            continue
        default = param.default
        inner, meta = split_annotated(hint)
        if is_field_info(default):
            field_defaults[pname] = default
            meta.append(default)
            if default.is_required():
                default = param.empty
            else:
                default = _NO_DEFAULT if default.default_factory is not None else default.default
        try:
            prop = apply_metadata(builder.schema(inner), meta)
        except TypeError as e:
            raise TypeError(f"tool {tool_name!r}, parameter {pname!r}: {e}") from e
        if "description" not in prop and doc_params.get(pname):
            prop["description"] = doc_params[pname]
        if default is param.empty:
            required.append(pname)
        elif default is not _NO_DEFAULT:
            ok, value = _jsonable_default(default)
            if ok:
                prop["default"] = value
        props[pname] = prop
        param_types[pname] = hint
    input_schema: Schema = {"type": "object", "properties": props, "required": required}
    if extra is not True:
        input_schema["additionalProperties"] = extra
    if builder.defs:
        input_schema["$defs"] = builder.defs
    try:
        output_schema, wraps = output_schema_for(hints.get("return", inspect.Signature.empty))
    except TypeError as e:
        raise TypeError(f"tool {tool_name!r}, return type: {e}") from e
    if not refs:
        input_schema = inline_refs(input_schema)
        output_schema = inline_refs(output_schema) if output_schema is not None else None
    return ToolSpec(
        name=tool_name,
        description=description if description is not None else doc,
        input_schema=input_schema,
        output_schema=output_schema,
        context_param=context_param,
        is_async=inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)),
        wraps_result=wraps,
        fn=fn,
        param_types=param_types,
        field_defaults=field_defaults,
    )


def _renders_as_content(tp: Any) -> bool:
    """True when every value of ``tp`` becomes content blocks (text, image, ...), not JSON."""
    tp = split_annotated(tp)[0]
    if tp in CONTENT_TYPES or tp in (str, bytes, bytearray, None, _NONE_TYPE):
        return True
    args = typing.get_args(tp)
    if is_union(tp):
        return all(_renders_as_content(a) for a in args)
    origin = typing.get_origin(tp)
    if origin in ARRAYS or origin is tuple:
        items = [a for a in args if a is not Ellipsis]
        return bool(items) and all(_renders_as_content(a) for a in items) and any(_has_content_class(a) for a in items)
    return False


def _has_content_class(tp: Any) -> bool:
    tp = split_annotated(tp)[0]
    return tp in CONTENT_TYPES or any(_has_content_class(a) for a in typing.get_args(tp))


def output_schema_for(annotation: Any) -> Tuple[Optional[Schema], bool]:
    """Return ``(outputSchema, wraps_result)`` for a return annotation.

    No schema for a missing annotation, ``None``, ``Any``, ``str``, ``bytes`` and content
    types (or sequences of them). Object schemas are used as they are; any other schema is
    wrapped as ``{"result": ...}``."""
    if annotation is inspect.Signature.empty or annotation in (Any, object) or _renders_as_content(annotation):
        return None, False
    builder = _Builder(mode="serialization")
    schema = builder.schema(annotation)
    if builder.root_body(schema).get("type") == "object":
        return builder.document(schema), False
    wrapped: Schema = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if builder.defs:
        wrapped["$defs"] = builder.defs
    return wrapped, True
