"""Tests of mcpcore._schema with pydantic models (optional), and the library's static typing
(mypy --strict over the pure modules)."""

import pathlib
import subprocess
import sys
from typing import Annotated, Any, List, Optional

import pytest

from _schema_support import _PY_DIR, check, tool_spec, type_schema


# --------------------------------------------------------------------------------------------
# pydantic (optional)


def test_pydantic_models() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Address(pydantic.BaseModel):
        city: str
        zip: Optional[str] = None

    class Person(pydantic.BaseModel):
        name: str = pydantic.Field(description="full name")
        age: int = pydantic.Field(ge=0)
        address: Address
        friends: List["Person"] = []

    Person.model_rebuild()

    def register(person: Person, backup: Optional[Address] = None) -> Person:
        return person

    spec = tool_spec(register)
    schema = spec.input_schema
    assert schema["required"] == ["person"]
    assert list(schema["$defs"]) == ["Person"], "Address inlined; only the recursive Person stays a $ref"
    assert schema["properties"]["backup"]["anyOf"][0]["properties"]["city"] == {"title": "City", "type": "string"}
    good = {"person": {"name": "a", "age": 1, "address": {"city": "x"}, "friends": []}}
    bad = {"person": {"name": "a", "age": -1, "address": {"city": "x"}}}
    check(schema, [good, {**good, "backup": {"city": "y"}}], [bad, {"person": {"name": "a"}}])
    assert schema["$defs"]["Person"]["properties"]["name"]["description"] == "full name"

    assert not spec.wraps_result
    check(spec.output_schema, [good["person"]], [{"name": "a"}])
    assert spec.output_schema["type"] == "object"


def test_pydantic_model_as_simple_schema() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Flat(pydantic.BaseModel):
        a: int
        b: List[str] = []

    schema = type_schema(Flat)
    assert schema["type"] == "object" and schema["required"] == ["a"]
    check(schema, [{"a": 1}], [{"b": []}])


def test_pydantic_def_name_collision_is_renamed() -> None:
    pydantic = pytest.importorskip("pydantic")

    def make(field_type: Any) -> Any:
        inner = pydantic.create_model("Inner", v=(field_type, ...))
        return pydantic.create_model("Outer", inner=(inner, ...))

    OuterA, OuterB = make(int), make(str)

    def f(a: OuterA, b: OuterB) -> None:  # type: ignore[valid-type]
        pass

    schema = tool_spec(f).input_schema
    check(schema, [{"a": {"inner": {"v": 1}}, "b": {"inner": {"v": "s"}}}], [{"a": {"inner": {"v": "s"}}, "b": {"inner": {"v": "s"}}}, {"a": {"inner": {"v": 1}}, "b": {"inner": {"v": 1}}}])


def test_pydantic_field_metadata() -> None:
    pydantic = pytest.importorskip("pydantic")
    Field = pydantic.Field

    def f(
        n: Annotated[int, Field(description="how many", ge=1, le=10)],
        name: Annotated[str, Field(min_length=2, max_length=5)] = "ab",
        items: Annotated[List[int], Field(max_length=2)] = [],  # noqa: B006
        q: str = Field("hi", description="the query"),
        r: int = Field(description="required r"),
        s: List[int] = Field(default_factory=list),
    ) -> None:
        pass

    spec = tool_spec(f)
    props = spec.input_schema["properties"]
    assert props["n"] == {"type": "integer", "description": "how many", "minimum": 1, "maximum": 10}
    assert props["name"]["minLength"] == 2 and props["name"]["maxLength"] == 5
    assert props["items"]["maxItems"] == 2
    assert props["q"] == {"type": "string", "description": "the query", "default": "hi"}
    assert props["r"]["description"] == "required r"
    assert "default" not in props["s"]
    assert spec.input_schema["required"] == ["n", "r"]
    check(spec.input_schema, [{"n": 1, "r": 1}], [{"n": 0, "r": 1}, {"n": 1, "r": 1, "name": "a"}, {"n": 1}])


def test_annotated_types_without_field() -> None:
    at = pytest.importorskip("annotated_types")
    assert type_schema(Annotated[float, at.Gt(0), at.Lt(1)]) == {
        "type": "number",
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 1,
    }
    assert type_schema(Annotated[str, at.Len(1, 3)]) == {"type": "string", "minLength": 1, "maxLength": 3}


# --------------------------------------------------------------------------------------------
# static typing of the library


def test_mypy_strict_is_clean(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("mypy")
    files = [f"mcpcore/{name}" for name in ("_schema.py", "_convert.py", "_jsonable.py", "_stdtypes.py", "content.py", "middleware.py", "_telemetry.py")]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path), *files],
        cwd=_PY_DIR,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_schemas_have_no_ref_unless_asked() -> None:
    pydantic = pytest.importorskip("pydantic")
    import dataclasses
    import enum
    from typing import Annotated, Literal, TypedDict

    class Geo(pydantic.BaseModel):
        lat: float
        lon: float

    class Place(pydantic.BaseModel):
        name: str = pydantic.Field(description="what it is called")
        geo: Geo
        also: Optional[Geo] = None

    class Color(enum.Enum):
        RED = "red"
        BLUE = "blue"

    @dataclasses.dataclass
    class Window:
        start: int
        end: int

    class Options(TypedDict, total=False):
        verbose: bool

    def plan(
        place: Place,
        color: Color,
        mode: Literal["fast", "slow"],
        window: Window,
        options: Options,
        note: Annotated[str, pydantic.Field(description="a note", max_length=20)] = "",
    ) -> Place:
        return place

    import json

    spec = tool_spec(plan)
    for schema in (spec.input_schema, spec.output_schema):
        assert "$ref" not in json.dumps(schema) and "$defs" not in schema, schema
    props = spec.input_schema["properties"]
    assert props["place"]["properties"]["name"]["description"] == "what it is called"
    assert props["place"]["properties"]["geo"]["required"] == ["lat", "lon"]
    assert props["color"]["enum"] == ["red", "blue"] and props["mode"]["enum"] == ["fast", "slow"]
    assert props["window"]["required"] == ["start", "end"] and "verbose" in props["options"]["properties"]
    assert props["note"]["description"] == "a note" and props["note"]["maxLength"] == 20
    check(spec.input_schema,
          [{"place": {"name": "x", "geo": {"lat": 1, "lon": 2}}, "color": "red", "mode": "fast",
            "window": {"start": 1, "end": 2}, "options": {}}],
          [{"place": {"name": "x", "geo": {"lat": 1}}, "color": "red", "mode": "fast",
            "window": {"start": 1, "end": 2}, "options": {}}])
    kept = tool_spec(plan, refs=True)
    assert "Geo" in kept.input_schema["$defs"], "refs=True keeps the named definitions"
