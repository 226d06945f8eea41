"""The shared host-results vectors (tests/vectors/host-results): a Python value returned by a
tool, a resource reader, a prompt or a completer becomes exactly the result every other binding
sends for the same value."""

from __future__ import annotations

import asyncio
import base64
import json
import pathlib
from typing import Any, Dict, List, Union

import pytest

import mcpcore
from mcpcore import _native
from mcpcore.errors import KIND_CLASSES, AuthError, McpError

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vectors" / "host-results"


def cases(name: str) -> List[Dict[str, Any]]:
    return json.loads((VECTORS / f"{name}.json").read_text())["cases"]


def python_value(v: Any) -> Any:
    """A vector's value as Python: ``{"$bytes": b64}`` is ``bytes``."""
    if isinstance(v, dict) and list(v) == ["$bytes"]:
        return base64.b64decode(v["$bytes"])
    if isinstance(v, list):
        return [python_value(i) for i in v]
    return v


def ids(name: str) -> List[str]:
    return [c["name"] for c in cases(name)]


@pytest.mark.parametrize("case", cases("tool"), ids=ids("tool"))
def test_a_tool_returning_the_value(case: Dict[str, Any]) -> None:
    """Through a real registry call (the engine settles the tool's return value)."""
    registry = mcpcore.Registry()
    value = python_value(case["value"])

    def tool():  # type: ignore[no-untyped-def]
        return value

    if case.get("wrapped"):
        # A return annotation that is not an object wraps the value as {"result": …}.
        wrap = {int: int, str: Union[str, int], list: List[int]}[type(value)]
        tool.__annotations__["return"] = wrap
    registry.add_tool(tool, name="t")
    result = asyncio.run(registry.call_tool("t", {}))
    assert result.raw == case["expect"], case["name"]


@pytest.mark.parametrize("case", cases("resource"), ids=ids("resource"))
def test_a_resource_reader_returning_the_value(case: Dict[str, Any]) -> None:
    value = python_value(case["value"])
    if case["expect"] == {"error": True}:
        with pytest.raises(mcpcore.errors.InvalidInput):
            _native.resource_contents(value, case["uri"], case["mime"])
        return
    assert json.loads(_native.resource_contents(value, case["uri"], case["mime"])) == case["expect"]


@pytest.mark.parametrize("case", cases("prompt"), ids=ids("prompt"))
def test_a_prompt_returning_the_value(case: Dict[str, Any]) -> None:
    value = python_value(case["value"])
    if case["expect"] == {"error": True}:
        with pytest.raises(mcpcore.errors.InvalidInput):
            _native.prompt_result(value)
        return
    assert json.loads(_native.prompt_result(value)) == case["expect"]


@pytest.mark.parametrize("case", cases("completion"), ids=ids("completion"))
def test_a_completer_returning_the_value(case: Dict[str, Any]) -> None:
    value = python_value(case["value"])
    if case["expect"] == {"error": True}:
        with pytest.raises(mcpcore.errors.InvalidInput):
            _native.completion(value)
        return
    assert json.loads(_native.completion(value)) == case["expect"]


def test_every_engine_error_kind_has_its_own_exception_with_code_and_data() -> None:
    kinds = _native.error_kinds()
    assert set(kinds) == set(KIND_CLASSES), "every kind of the engine is mapped, and nothing else"
    for kind in kinds:
        with pytest.raises(McpError) as raised:
            _native.raise_example(kind)
        assert type(raised.value) is KIND_CLASSES[kind], kind
        assert raised.value.code != 0, kind
        if kind in ("rpc", "resource_not_found", "http"):
            assert raised.value.data == {"kind": kind}, kind
    with pytest.raises(McpError) as raised:
        _native.raise_example("resource_not_found")
    assert raised.value.code == -32002
    with pytest.raises(McpError) as raised:
        _native.raise_example("http")
    assert raised.value.http_status == 401
    with pytest.raises(AuthError) as auth:
        _native.raise_example("auth")
    assert (auth.value.error, auth.value.error_description, auth.value.error_uri) == (
        "invalid_grant", "auth example", "https://as.example/errors#invalid_grant")
    assert auth.value.http_status == 400
