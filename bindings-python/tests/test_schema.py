"""Tests of mcpcore._schema: JSON Schemas from type hints, tool specs, output schemas."""

import dataclasses
import datetime
import decimal
import enum
import pathlib
import sys
import uuid
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    List,
    Literal,
    Mapping,
    NewType,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypedDict,
    Union,
)
from typing import Annotated

import pytest
from jsonschema import Draft202012Validator

from _schema_support import check, content, fn_taking, tool_spec, type_schema, validator


# --------------------------------------------------------------------------------------------
# types used below (module level so their hints resolve)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    A = "a"
    B = 2


class Movie(TypedDict):
    title: str
    year: int


class PartialMovie(TypedDict, total=False):
    title: str
    year: int


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0
    tags: List[str] = dataclasses.field(default_factory=list)
    color: Color = Color.RED


@dataclasses.dataclass
class Node:
    value: int
    children: List["Node"] = dataclasses.field(default_factory=list)


class TreeTD(TypedDict):
    name: str
    kids: List["TreeTD"]


@dataclasses.dataclass
class Ping:
    pong: Optional["Pong"] = None


@dataclasses.dataclass
class Pong:
    ping: Optional[Ping] = None


class Plain:
    pass


UserId = NewType("UserId", int)


TYPE_CASES = [
    # (annotation, expected schema or None to skip the exact check, valid, invalid)
    (str, {"type": "string"}, ["a", ""], [1, None]),
    (int, {"type": "integer"}, [1, -5], [1.5, "1", True]),
    (float, {"type": "number"}, [1.5, 2], ["1.5", None]),
    (bool, {"type": "boolean"}, [True, False], [1, "true"]),
    (None, {"type": "null"}, [None], [0, ""]),
    (type(None), {"type": "null"}, [None], [False]),
    (bytes, {"type": "string", "contentEncoding": "base64"}, ["aGk="], [b"x", 1]),
    (List[int], {"type": "array", "items": {"type": "integer"}}, [[], [1, 2]], [["a"], {}]),
    (list, {"type": "array"}, [[1, "a"]], ["a"]),
    (Sequence[str], {"type": "array", "items": {"type": "string"}}, [["a"]], [[1]]),
    (Set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, [[1, 2]], [[1, 1]]),
    (FrozenSet[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}, [["a"]], [["a", "a"]]),
    (
        Tuple[int, str],
        {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        [[1, "a"]],
        [[1], [1, "a", 2], ["a", 1]],
    ),
    (Tuple[int, ...], {"type": "array", "items": {"type": "integer"}}, [[], [1, 2, 3]], [[1, "a"]]),
    (Dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}, [{"a": 1}], [{"a": "b"}, []]),
    (dict, {"type": "object"}, [{"a": [1]}], [[]]),
    (Mapping[str, bool], {"type": "object", "additionalProperties": {"type": "boolean"}}, [{}], [{"a": 1}]),
    (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}, [1, None], ["1"]),
    (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}, [1, "a"], [1.5, None]),
    (Literal["a", "b"], {"enum": ["a", "b"], "type": "string"}, ["a", "b"], ["c", 1]),
    (Literal["only"], {"const": "only", "type": "string"}, ["only"], ["other"]),
    (Literal[1, "x"], {"enum": [1, "x"]}, [1, "x"], [2]),
    (Literal[Color.RED], {"const": "red", "type": "string"}, ["red"], ["green"]),
    (Color, {"enum": ["red", "green"], "type": "string"}, ["red"], ["RED", 1]),
    (Level, {"enum": [1, 2], "type": "integer"}, [1, 2], [3, "1"]),
    (Mixed, {"enum": ["a", 2]}, ["a", 2], ["b"]),
    (
        Movie,
        {
            "type": "object",
            "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
            "required": ["title", "year"],
        },
        [{"title": "x", "year": 1}],
        [{"title": "x"}, {"title": "x", "year": "1"}],
    ),
    (
        PartialMovie,
        {"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}}},
        [{}, {"year": 1}],
        [{"year": "1"}],
    ),
    (
        Point,
        {
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "y": {"type": "number", "default": 0.0},
                "tags": {"type": "array", "items": {"type": "string"}},
                "color": {"enum": ["red", "green"], "type": "string", "default": "red"},
            },
            "required": ["x"],
        },
        [{"x": 1}, {"x": 1, "y": 2, "tags": ["a"], "color": "green"}],
        [{}, {"x": "1"}, {"x": 1, "color": "blue"}],
    ),
    (Any, {}, [1, "a", None, {}], []),
    (object, {}, [1], []),
    (UserId, {"type": "integer"}, [1], ["1"]),
    (datetime.datetime, {"type": "string", "format": "date-time"}, ["2024-01-01T00:00:00Z"], [1]),
    (datetime.date, {"type": "string", "format": "date"}, ["2024-01-01"], [1]),
    (uuid.UUID, {"type": "string", "format": "uuid"}, [str(uuid.uuid4())], [1]),
    (decimal.Decimal, {"anyOf": [{"type": "number"}, {"type": "string"}]}, [1.5, "1.5"], [None]),
    (pathlib.Path, {"type": "string"}, ["/tmp"], [1]),
    (
        List[Dict[str, Optional[Point]]],
        None,
        [[{"a": {"x": 1}, "b": None}]],
        [[{"a": {"y": 1}}], [{"a": 1}]],
    ),
    (Annotated[int, "a count"], {"type": "integer", "description": "a count"}, [1], ["1"]),
]


@pytest.mark.parametrize("annotation,expected,valid,invalid", TYPE_CASES, ids=[repr(c[0]) for c in TYPE_CASES])
def test_type_schema(annotation: Any, expected: Any, valid: List[Any], invalid: List[Any]) -> None:
    schema = type_schema(annotation)
    if expected is not None:
        assert schema == expected
    check(schema, valid, invalid)


@pytest.mark.parametrize("annotation,expected,valid,invalid", TYPE_CASES, ids=[repr(c[0]) for c in TYPE_CASES])
def test_parameter_schema_in_tool(annotation: Any, expected: Any, valid: List[Any], invalid: List[Any]) -> None:
    spec = tool_spec(fn_taking(annotation))
    assert spec.input_schema["required"] == ["x"]
    if expected is not None:
        assert spec.input_schema["properties"]["x"] == expected
    check(spec.input_schema, [{"x": v} for v in valid], [{"x": v} for v in invalid] + [{}])


def test_builtin_generics() -> None:
    assert type_schema(list[int]) == type_schema(List[int])
    assert type_schema(dict[str, float]) == {"type": "object", "additionalProperties": {"type": "number"}}
    assert type_schema(set[str])["uniqueItems"] is True
    assert type_schema(frozenset[str])["uniqueItems"] is True
    assert type_schema(tuple[int, ...]) == {"type": "array", "items": {"type": "integer"}}
    assert type_schema(Tuple[()]) == {"type": "array", "prefixItems": [], "minItems": 0, "maxItems": 0}


@pytest.mark.skipif(sys.version_info < (3, 10), reason="X | Y needs Python 3.10")
def test_pep604_union() -> None:
    tp = eval("int | None")
    assert type_schema(tp) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    spec = tool_spec(fn_taking(eval("list[str] | None"), None))
    assert spec.input_schema["required"] == []
    check(spec.input_schema, [{}, {"x": None}, {"x": ["a"]}], [{"x": "a"}])


def test_typeddict_required_and_not_required() -> None:
    te = pytest.importorskip("typing_extensions")

    class Item(te.TypedDict, total=False):
        id: te.Required[int]
        note: str

    class Item2(te.TypedDict):
        id: int
        note: te.NotRequired[str]

    for td in (Item, Item2):
        schema = type_schema(td)
        assert schema == {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "note": {"type": "string"}},
            "required": ["id"],
        }
        check(schema, [{"id": 1}, {"id": 1, "note": "n"}], [{"note": "n"}])


# --------------------------------------------------------------------------------------------
# recursion


def test_recursive_dataclass_uses_defs() -> None:
    schema = type_schema(Node)  # the root is inlined; its self-references point at "#"
    assert schema["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
    assert schema["type"] == "object" and schema["required"] == ["value"] and "$defs" not in schema
    check(schema, [{"value": 1, "children": [{"value": 2, "children": []}]}], [{"value": 1, "children": [{"v": 2}]}])


def test_recursive_typeddict_in_tool() -> None:
    def build(tree: TreeTD, extra: Optional[TreeTD] = None) -> int:
        return 0

    spec = tool_spec(build)
    assert spec.input_schema["properties"]["tree"] == {"$ref": "#/$defs/TreeTD"}
    assert spec.input_schema["properties"]["extra"]["anyOf"][0] == {"$ref": "#/$defs/TreeTD"}
    check(
        spec.input_schema,
        [{"tree": {"name": "a", "kids": [{"name": "b", "kids": []}]}}],
        [{"tree": {"name": "a", "kids": [{"name": "b"}]}}],
    )


def test_mutual_recursion() -> None:
    schema = type_schema(Ping)
    check(schema, [{"pong": {"ping": {"pong": None}}}, {}], [{"pong": {"ping": {"pong": 1}}}])
    assert schema["properties"]["pong"]["anyOf"][0]["properties"]["ping"]["anyOf"][0] == {"$ref": "#"}

    def f(p: Ping, q: Pong) -> None:
        pass

    spec = tool_spec(f)
    assert list(spec.input_schema["$defs"]) == ["Ping"]  # Pong reaches Ping by reference
    check(spec.input_schema, [{"p": {"pong": {"ping": {}}}, "q": {"ping": {"pong": {}}}}], [{"p": {"pong": {"ping": 1}}, "q": {}}])


# --------------------------------------------------------------------------------------------
# tool specs


def test_required_optional_and_defaults() -> None:
    def search(
        query: str,
        limit: int = 10,
        exact: Optional[bool] = None,
        tags: Optional[List[str]] = None,
        mode: Color = Color.GREEN,
        when: Optional[datetime.date] = None,
        cutoff: float = float("nan"),
    ) -> List[str]:
        """Searches things."""
        return []

    spec = tool_spec(search)
    props = spec.input_schema["properties"]
    assert spec.input_schema["required"] == ["query"]
    assert spec.input_schema["type"] == "object"
    assert spec.input_schema["additionalProperties"] is False, "no **kwargs: nothing else"
    assert props["limit"] == {"type": "integer", "default": 10}
    assert props["exact"] == {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None}
    assert props["mode"]["default"] == "green"
    assert "default" not in props["cutoff"]  # NaN is not JSON
    check(spec.input_schema, [{"query": "q"}, {"query": "q", "limit": 1, "tags": None}],
          [{"limit": 1}, {"query": "q", "stray": 1}])


def test_kwargs_take_the_other_arguments() -> None:
    def any_extra(x: int, **rest: Any) -> None:
        pass

    def int_extra(x: int, **rest: int) -> None:
        pass

    assert "additionalProperties" not in tool_spec(any_extra).input_schema
    spec = tool_spec(int_extra)
    assert spec.input_schema["additionalProperties"] == {"type": "integer"}
    check(spec.input_schema, [{"x": 1, "y": 2}], [{"x": 1, "y": "two"}])


def test_none_default_always_admits_null() -> None:
    def f(x: int = None) -> None:  # type: ignore[assignment]
        pass

    spec = tool_spec(f)
    assert spec.input_schema["properties"]["x"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}


def test_names_descriptions_and_docstrings() -> None:
    def add(a: Annotated[int, "first"], b: int, c: int = 0) -> int:
        """Adds numbers.

        Args:
            a: ignored, Annotated wins.
            b (int): the second
                number.
            c: the third.

        Returns:
            The sum.
        """
        return a + b + c

    spec = tool_spec(add)
    assert spec.name == "add"
    assert spec.description.startswith("Adds numbers.")
    props = spec.input_schema["properties"]
    assert props["a"]["description"] == "first"
    assert props["b"]["description"] == "the second number."
    assert props["c"]["description"] == "the third."

    renamed = tool_spec(add, name="plus", description="Sum.")
    assert (renamed.name, renamed.description) == ("plus", "Sum.")

    def bare(x: int) -> int:
        return x

    assert tool_spec(bare).description == ""


def test_numpy_docstring() -> None:
    def f(alpha: int, beta: str) -> None:
        """Does f.

        Parameters
        ----------
        alpha : int
            The alpha
            value.
        beta : str
            The beta.

        Returns
        -------
        None
        """

    props = tool_spec(f).input_schema["properties"]
    assert props["alpha"]["description"] == "The alpha value."
    assert props["beta"]["description"] == "The beta."


def test_missing_annotation_is_any() -> None:
    def f(a, b: int = 1):  # type: ignore[no-untyped-def]
        return a

    spec = tool_spec(f)
    assert spec.input_schema["properties"]["a"] == {}
    assert spec.output_schema is None and not spec.wraps_result


class Ctx:
    pass


class SubCtx(Ctx):
    pass


def test_context_parameter_is_excluded() -> None:
    def f(x: int, ctx: Ctx) -> int:
        return x

    def g(ctx: Optional[SubCtx] = None, *, y: str) -> str:
        return y

    spec = tool_spec(f, context_type=Ctx)
    assert spec.context_param == "ctx"
    assert list(spec.input_schema["properties"]) == ["x"]
    assert spec.input_schema["required"] == ["x"]
    assert "ctx" not in spec.param_types

    spec_g = tool_spec(g, context_type=Ctx)
    assert spec_g.context_param == "ctx"
    assert spec_g.input_schema["required"] == ["y"]

    assert tool_spec(lambda x: x, context_type=Ctx).context_param is None
    with pytest.raises(TypeError, match="unsupported"):
        tool_spec(f)  # without context_type, Ctx is just an unsupported class

    def two(a: Ctx, b: Ctx) -> None:
        pass

    with pytest.raises(TypeError, match="two context parameters"):
        tool_spec(two, context_type=Ctx)


def test_async_detection() -> None:
    async def a(x: int) -> int:
        return x

    def s(x: int) -> int:
        return x

    class Callable_:
        async def __call__(self, x: int) -> int:
            return x

    assert tool_spec(a).is_async
    assert not tool_spec(s).is_async
    spec = tool_spec(Callable_(), name="c")
    assert spec.is_async and spec.input_schema["required"] == ["x"]


def test_methods_and_partials() -> None:
    import functools

    class Tools:
        def scale(self, x: float, factor: float = 2.0) -> float:
            return x * factor

    spec = tool_spec(Tools().scale)
    assert list(spec.input_schema["properties"]) == ["x", "factor"]
    assert spec.wraps_result

    def g(a: int, b: str) -> str:
        return b * a

    part = tool_spec(functools.partial(g, b="x"))
    assert part.name == "g"
    assert part.input_schema["properties"]["b"]["default"] == "x"


def test_to_tool() -> None:
    def f(x: int) -> int:
        """F."""
        return x

    tool = tool_spec(f).to_tool()
    assert tool["name"] == "f" and tool["description"] == "F."
    assert tool["inputSchema"]["properties"] == {"x": {"type": "integer"}}
    assert tool["outputSchema"]["properties"]["result"] == {"type": "integer"}


def test_tool_objects_match_the_mcp_schema() -> None:
    import json

    spec_file = pathlib.Path(__file__).resolve().parents[2] / "tests" / "spec" / "2025-11-25" / "schema.json"
    if not spec_file.exists():
        pytest.skip("MCP schema.json not found")
    defs = json.loads(spec_file.read_text())["$defs"]
    v = Draft202012Validator({"$ref": "#/$defs/Tool", "$defs": defs})

    def f(p: Point, n: Node, tags: Set[str]) -> Dict[str, Node]:
        return {}

    for fn in (f, fn_taking(Movie)):
        tool = tool_spec(fn).to_tool()
        assert v.is_valid(tool), [e.message for e in v.iter_errors(tool)]


# --------------------------------------------------------------------------------------------
# unsupported


def test_unsupported_annotations() -> None:
    for bad in (Plain, Callable[[int], int], Dict[int, str], type, List[Plain]):
        with pytest.raises(TypeError, match="unsupported"):
            tool_spec(fn_taking(bad))

    def args(*xs: int) -> None:
        pass

    def posonly(x: int, /) -> None:  # noqa: E225
        pass

    for fn in (args, posonly):
        with pytest.raises(TypeError, match="keyword-capable"):
            tool_spec(fn)

    def unresolved(x: "DoesNotExist") -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(TypeError, match="cannot resolve"):
        tool_spec(unresolved)

    def bad_return(x: int) -> Plain:
        return Plain()

    with pytest.raises(TypeError, match="return type"):
        tool_spec(bad_return)


def test_error_names_the_parameter() -> None:
    def f(good: int, bad: Plain) -> None:
        pass

    with pytest.raises(TypeError, match="'bad'.*Plain"):
        tool_spec(f)


# --------------------------------------------------------------------------------------------
# output schemas


def returning(annotation: Any) -> Callable[..., Any]:
    def f():  # type: ignore[no-untyped-def]
        return None

    if annotation is not inspect_empty:
        f.__annotations__ = {"return": annotation}
    return f


inspect_empty = object()

OUTPUT_CASES = [
    (inspect_empty, None, False),
    (None, None, False),
    (str, None, False),
    (bytes, None, False),
    (Any, None, False),
    (content.Image, None, False),
    (content.Audio, None, False),
    (content.EmbeddedResource, None, False),
    (content.Text, None, False),
    (List[content.Image], None, False),
    (List[Union[str, content.Image]], None, False),
    (Union[str, content.Image], None, False),
    (Dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}, False),
    (Movie, type_schema(Movie), False),
    (Point, type_schema(Point), False),
    (int, {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}, True),
    (float, {"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]}, True),
    (bool, {"type": "object", "properties": {"result": {"type": "boolean"}}, "required": ["result"]}, True),
    (List[str], {"type": "object", "properties": {"result": type_schema(List[str])}, "required": ["result"]}, True),
    (
        Optional[int],
        {"type": "object", "properties": {"result": type_schema(Optional[int])}, "required": ["result"]},
        True,
    ),
    (Color, {"type": "object", "properties": {"result": type_schema(Color)}, "required": ["result"]}, True),
    (
        Optional[Point],
        {"type": "object", "properties": {"result": type_schema(Optional[Point])}, "required": ["result"]},
        True,
    ),
]


@pytest.mark.parametrize("annotation,expected,wraps", OUTPUT_CASES, ids=[repr(c[0]) for c in OUTPUT_CASES])
def test_output_schema(annotation: Any, expected: Any, wraps: bool) -> None:
    spec = tool_spec(returning(annotation))
    assert spec.output_schema == expected
    assert spec.wraps_result is wraps
    if expected is not None:
        validator(spec.output_schema)
        assert spec.output_schema["type"] == "object"


def test_recursive_output_schema() -> None:
    spec = tool_spec(returning(Node))
    schema = spec.output_schema
    assert not spec.wraps_result
    assert schema["type"] == "object" and schema["required"] == ["value"]
    check(schema, [{"value": 1, "children": [{"value": 2}]}], [{"value": 1, "children": [{}]}])

    wrapped = tool_spec(returning(List[Node]))
    assert wrapped.wraps_result and "$defs" in wrapped.output_schema
    check(wrapped.output_schema, [{"result": [{"value": 1, "children": [{"value": 2}]}]}], [{"result": [{}]}])
