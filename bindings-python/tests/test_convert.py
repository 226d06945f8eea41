"""Tests of mcpcore._convert (arguments in, results out) and mcpcore.content."""

import base64
import dataclasses
import datetime
import decimal
import enum
import importlib
import json
import pathlib
import uuid
from typing import Annotated, Any, Dict, FrozenSet, List, Literal, Optional, Set, Tuple, TypedDict, Union

import pytest
from jsonschema import Draft202012Validator



def _load(module: str) -> Any:
    """``mcpcore.<module>`` (the installed package: results are the native engine's)."""
    return importlib.import_module(f"mcpcore.{module}")


_schema = _load("_schema")
_convert = _load("_convert")
content = _load("content")
tool_spec = _schema.tool_spec
_native = importlib.import_module("mcpcore._native")


def to_call_tool_result(value: Any, spec: Any = None) -> Dict[str, Any]:
    """What a tool returning ``value`` answers with: the engine's rules (mcpcore::host::results)."""
    return json.loads(_native.tool_result(value, bool(spec is not None and spec.wraps_result)))


coerce_arguments = _convert.coerce_arguments
to_jsonable = _convert.to_jsonable
Image, Audio, EmbeddedResource, Text = content.Image, content.Audio, content.EmbeddedResource, content.Text

PNG = b"\x89PNG\r\n\x1a\nfake"


def _mcp_validator(name: str) -> Optional[Draft202012Validator]:
    spec_file = pathlib.Path(__file__).resolve().parents[2] / "tests" / "spec" / "2025-11-25" / "schema.json"
    if not spec_file.exists():
        return None
    defs = json.loads(spec_file.read_text())["$defs"]
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": defs})


CALL_TOOL_RESULT = _mcp_validator("CallToolResult")


def result_of(fn: Any, value: Any) -> Dict[str, Any]:
    """The CallToolResult of ``value`` returned by ``fn``, checked against the MCP schema and
    (for structured content) against the tool's output schema."""
    spec = tool_spec(fn)
    result = to_call_tool_result(value, spec)
    json.dumps(result, allow_nan=False)
    if CALL_TOOL_RESULT is not None:
        assert CALL_TOOL_RESULT.is_valid(result), [e.message for e in CALL_TOOL_RESULT.iter_errors(result)]
    if spec.output_schema is not None:
        assert "structuredContent" in result
        v = Draft202012Validator(spec.output_schema)
        assert v.is_valid(result["structuredContent"]), [e.message for e in v.iter_errors(result["structuredContent"])]
    return result


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float = 0.0


@dataclasses.dataclass
class Shape:
    name: str
    points: List[Point]
    color: Color = Color.RED
    origin: Optional[Point] = None
    size: Tuple[int, int] = (1, 1)
    labels: Set[str] = dataclasses.field(default_factory=set)
    raw: bytes = b""
    when: Optional[datetime.datetime] = None


@dataclasses.dataclass
class Tree:
    value: int
    children: List["Tree"] = dataclasses.field(default_factory=list)


class Movie(TypedDict):
    title: str
    year: int
    shape: Point


# --------------------------------------------------------------------------------------------
# content types


def test_content_blocks() -> None:
    b64 = base64.b64encode(PNG).decode()
    assert Text("hi").to_content() == {"type": "text", "text": "hi"}
    assert Image(PNG).to_content() == {"type": "image", "data": b64, "mimeType": "image/png"}
    assert Image(PNG, "image/jpeg").to_content()["mimeType"] == "image/jpeg"
    assert Audio(b"RIFF").to_content() == {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
    assert EmbeddedResource("file:///a.txt", text="hello", mime_type="text/plain").to_content() == {
        "type": "resource",
        "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"},
    }
    assert EmbeddedResource("file:///a.bin", blob=b"\x00\x01").to_content() == {
        "type": "resource",
        "resource": {"uri": "file:///a.bin", "blob": "AAE="},
    }


def test_content_validation() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        EmbeddedResource("x://y")
    with pytest.raises(ValueError, match="exactly one"):
        EmbeddedResource("x://y", text="a", blob=b"b")
    with pytest.raises(TypeError, match="bytes"):
        Image("not bytes")  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Text("a").text = "b"  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# to_jsonable


def test_to_jsonable() -> None:
    uid = uuid.uuid4()
    value = {
        "shape": Shape("s", [Point(1, 2)], labels={"b", "a"}, raw=b"hi", when=datetime.datetime(2024, 1, 2, 3, 4, 5)),
        "enum": Color.GREEN,
        "int_enum": Level.HIGH,
        "tuple": (1, "a"),
        "frozenset": frozenset([3, 1, 2]),
        "date": datetime.date(2024, 1, 2),
        "time": datetime.time(1, 2, 3),
        "uuid": uid,
        "decimal": decimal.Decimal("1.10"),
        "path": pathlib.PurePosixPath("/tmp/x"),
        1: "int key",
        Color.RED: "enum key",
    }
    assert to_jsonable(value) == {
        "shape": {
            "name": "s",
            "points": [{"x": 1, "y": 2}],
            "color": "red",
            "origin": None,
            "size": [1, 1],
            "labels": ["a", "b"],
            "raw": "aGk=",
            "when": "2024-01-02T03:04:05",
        },
        "enum": "green",
        "int_enum": 2,
        "tuple": [1, "a"],
        "frozenset": [1, 2, 3],
        "date": "2024-01-02",
        "time": "01:02:03",
        "uuid": str(uid),
        "decimal": "1.10",
        "path": "/tmp/x",
        "1": "int key",
        "red": "enum key",
    }
    assert type(to_jsonable(Level.LOW)) is int


def test_to_jsonable_errors() -> None:
    class Opaque:
        pass

    with pytest.raises(TypeError, match="Opaque"):
        to_jsonable({"a": [Opaque()]})
    with pytest.raises(TypeError, match="key of type tuple"):
        to_jsonable({(1, 2): "x"})
    with pytest.raises(ValueError):
        to_jsonable(float("inf"))


# --------------------------------------------------------------------------------------------
# to_call_tool_result


def test_result_str_none_and_content() -> None:
    def text() -> str:
        return ""

    def nothing() -> None:
        pass

    def image() -> Image:
        return Image(PNG)

    def mixed() -> List[Union[str, Image, Audio, EmbeddedResource, Text]]:
        return []

    assert result_of(text, "hello") == {"content": [{"type": "text", "text": "hello"}]}
    assert result_of(nothing, None) == {"content": []}
    assert result_of(image, Image(PNG)) == {"content": [Image(PNG).to_content()]}
    items = ["caption", Image(PNG), Audio(b"a", "audio/mpeg"), EmbeddedResource("r://x", text="t"), Text("t2")]
    assert result_of(mixed, items) == {"content": [{"type": "text", "text": "caption"}] + [i.to_content() for i in items[1:]]}
    assert result_of(mixed, tuple(items))["content"][0] == {"type": "text", "text": "caption"}
    assert [b["type"] for b in result_of(mixed, items)["content"]] == ["text", "image", "audio", "resource", "text"]


def test_result_bytes() -> None:
    def raw() -> bytes:
        return b""

    assert result_of(raw, b"\x00\xff") == {
        "content": [
            {
                "type": "resource",
                "resource": {"uri": "mcpcore://bytes", "mimeType": "application/octet-stream", "blob": "AP8="},
            }
        ]
    }


def test_result_objects_are_structured() -> None:
    def as_dict() -> Dict[str, int]:
        return {}

    def as_typeddict() -> Movie:
        return {"title": "", "year": 0, "shape": Point(0)}

    def as_dataclass() -> Shape:
        return Shape("", [])

    def as_tree() -> Tree:
        return Tree(0)

    r = result_of(as_dict, {"b": 2, "a": 1})
    assert r == {"content": [{"type": "text", "text": '{"a":1,"b":2}'}], "structuredContent": {"a": 1, "b": 2}}
    movie = {"title": "Ñu", "year": 2000, "shape": Point(1)}
    r = result_of(as_typeddict, movie)
    assert r["structuredContent"] == {"title": "Ñu", "year": 2000, "shape": {"x": 1, "y": 0.0}}
    assert json.loads(r["content"][0]["text"]) == r["structuredContent"]
    assert "Ñu" in r["content"][0]["text"]  # not ASCII-escaped
    shape = Shape("tri", [Point(0, 0), Point(1, 0)], Color.GREEN, labels={"x"}, raw=b"\x01")
    r = result_of(as_dataclass, shape)
    assert r["structuredContent"]["color"] == "green" and r["structuredContent"]["raw"] == "AQ=="
    r = result_of(as_tree, Tree(1, [Tree(2, [Tree(3)])]))
    assert r["structuredContent"]["children"][0]["children"][0] == {"value": 3, "children": []}


def test_result_wrapped() -> None:
    def count() -> int:
        return 0

    def names() -> List[str]:
        return []

    def maybe() -> Optional[float]:
        return None

    def pair() -> Tuple[int, Color]:
        return (0, Color.RED)

    def either() -> Union[str, int]:
        return 0

    assert result_of(count, 3) == {"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}}
    r = result_of(names, ["a", "b"])
    assert r == {"content": [{"type": "text", "text": '["a","b"]'}], "structuredContent": {"result": ["a", "b"]}}
    assert result_of(maybe, None)["structuredContent"] == {"result": None}
    assert result_of(maybe, 1.5)["content"] == [{"type": "text", "text": "1.5"}]
    assert result_of(pair, (1, Color.GREEN))["structuredContent"] == {"result": [1, "green"]}
    assert result_of(either, "plain")["content"] == [{"type": "text", "text": "plain"}]


def test_result_without_annotation_follows_the_value() -> None:
    def untyped():  # type: ignore[no-untyped-def]
        return None

    assert result_of(untyped, 5) == {"content": [{"type": "text", "text": "5"}]}
    assert result_of(untyped, [1, "a", None]) == {"content": [{"type": "text", "text": '[1,"a",null]'}]}
    assert result_of(untyped, {"k": Color.RED})["structuredContent"] == {"k": "red"}
    assert result_of(untyped, Point(1))["structuredContent"] == {"x": 1, "y": 0.0}
    assert to_call_tool_result("x") == {"content": [{"type": "text", "text": "x"}]}  # spec is optional


def test_result_of_unconvertible_value() -> None:
    def untyped():  # type: ignore[no-untyped-def]
        return None

    with pytest.raises(TypeError, match="object"):
        to_call_tool_result(object(), tool_spec(untyped))


# --------------------------------------------------------------------------------------------
# coerce_arguments


def draw(
    shape: Shape,
    color: Color,
    level: Level,
    box: Tuple[int, str],
    many: Tuple[float, ...],
    tags: Set[str],
    frozen: FrozenSet[int],
    data: bytes,
    movie: Movie,
    tree: Tree,
    when: datetime.datetime,
    day: datetime.date,
    uid: uuid.UUID,
    amount: decimal.Decimal,
    path: pathlib.Path,
    ratio: float,
    mode: Literal["fast", "slow"],
    colors: Dict[str, Color],
    maybe: Optional[Point] = None,
    either: Union[int, Point, str] = 0,
    annotated: Annotated[List[Point], "points"] = [],  # noqa: B006
    anything: Any = None,
) -> None:
    pass


def test_coerce_round_trip() -> None:
    original = dict(
        shape=Shape("s", [Point(1, 2)], Color.GREEN, Point(0, 0), (3, 4), {"a"}, b"\x00", datetime.datetime(2024, 1, 1)),
        color=Color.RED,
        level=Level.HIGH,
        box=(1, "a"),
        many=(1.5, 2.5),
        tags={"x", "y"},
        frozen=frozenset({1, 2}),
        data=b"\x00\x01binary",
        movie={"title": "t", "year": 1, "shape": Point(1, 1)},
        tree=Tree(1, [Tree(2, [Tree(3)])]),
        when=datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
        day=datetime.date(2024, 5, 6),
        uid=uuid.uuid4(),
        amount=decimal.Decimal("12.34"),
        path=pathlib.Path("/tmp/x"),
        ratio=2.0,
        mode="slow",
        colors={"a": Color.GREEN},
        maybe=Point(5, 6),
        either=Point(7, 8),
        annotated=[Point(1, 1)],
        anything={"free": [1]},
    )
    arguments = json.loads(json.dumps(to_jsonable(original)))
    spec = tool_spec(draw)
    from jsonschema import Draft202012Validator as V

    assert V(spec.input_schema).is_valid(arguments), [e.message for e in V(spec.input_schema).iter_errors(arguments)]
    for target in (spec, draw):
        coerced = coerce_arguments(target, arguments)
        assert coerced == original
        assert type(coerced["movie"]) is dict  # a TypedDict stays a dict; its values are typed
        assert type(coerced["box"]) is tuple and type(coerced["frozen"]) is frozenset
        assert type(coerced["ratio"]) is float
        assert coerced["shape"].points[0] == Point(1, 2)


def test_coerce_details() -> None:
    spec = tool_spec(draw)
    c = coerce_arguments(spec, {"ratio": 2, "either": 3, "maybe": None, "unknown": [1], "when": "2024-01-01T00:00:00Z"})
    assert c["ratio"] == 2.0 and isinstance(c["ratio"], float)
    assert c["either"] == 3 and c["maybe"] is None and c["unknown"] == [1]
    assert c["when"] == datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    assert coerce_arguments(spec, {"either": "text"})["either"] == "text"
    # a value that fits no annotation is left for the function (the schema was checked before)
    assert coerce_arguments(spec, {"color": "purple", "box": [1]}) == {"color": "purple", "box": [1]}
    with pytest.raises(ValueError, match="base64"):
        coerce_arguments(spec, {"data": "!!!"})
    # dataclass keys the class does not declare are dropped; missing required ones raise
    assert coerce_arguments(spec, {"maybe": {"x": 1, "z": 9}})["maybe"] == Point(1)
    with pytest.raises(TypeError):
        coerce_arguments(spec, {"maybe": {"y": 1}})
    # the input dict is not modified
    args = {"color": "red"}
    coerce_arguments(spec, args)
    assert args == {"color": "red"}


def test_coerce_literal_enum_and_context() -> None:
    class Ctx:
        pass

    def f(kind: Literal[Color.RED, "other"], ctx: Ctx, n: Optional[int] = None) -> None:
        pass

    spec = tool_spec(f, context_type=Ctx)
    assert coerce_arguments(spec, {"kind": "red"}) == {"kind": Color.RED}
    assert coerce_arguments(spec, {"kind": "other", "n": 2}) == {"kind": "other", "n": 2}
    assert "ctx" not in coerce_arguments(spec, {"kind": "other"})


def test_coerce_pydantic() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Item(pydantic.BaseModel):
        name: str
        price: decimal.Decimal
        tags: List[str] = []

    def buy(item: Item, items: Optional[List[Item]] = None, qty: int = pydantic.Field(1, ge=1)) -> Item:
        return item

    spec = tool_spec(buy)
    item = Item(name="a", price=decimal.Decimal("1.5"), tags=["x"])
    arguments = json.loads(json.dumps({"item": to_jsonable(item), "items": [to_jsonable(item)]}))
    assert Draft202012Validator(spec.input_schema).is_valid(arguments)
    coerced = coerce_arguments(spec, arguments)
    assert coerced == {"item": item, "items": [item], "qty": 1}
    assert coerce_arguments(buy, {"item": arguments["item"], "qty": 3})["qty"] == 3
    with pytest.raises(pydantic.ValidationError):
        coerce_arguments(spec, {"item": {"name": "a"}})

    r = result_of(buy, item)
    assert r["structuredContent"] == {"name": "a", "price": "1.5", "tags": ["x"]}


def test_pydantic_field_default_factory_is_filled() -> None:
    pydantic = pytest.importorskip("pydantic")

    def f(tags: List[str] = pydantic.Field(default_factory=lambda: ["d"])) -> None:
        pass

    assert coerce_arguments(tool_spec(f), {}) == {"tags": ["d"]}
    assert coerce_arguments(f, {"tags": []}) == {"tags": []}


def test_pydantic_result_kinds() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Out(pydantic.BaseModel):
        when: datetime.date
        values: List[int]

    def many() -> List[Out]:
        return []

    outs = [Out(when=datetime.date(2024, 1, 1), values=[1])]
    r = result_of(many, outs)
    assert r["structuredContent"] == {"result": [{"when": "2024-01-01", "values": [1]}]}

    def untyped():  # type: ignore[no-untyped-def]
        return None

    assert result_of(untyped, outs[0])["structuredContent"] == {"when": "2024-01-01", "values": [1]}
