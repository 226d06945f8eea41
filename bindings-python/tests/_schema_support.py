"""Shared by the tests of mcpcore._schema: the pure modules loaded from the source tree (no
native extension), and JSON Schema checks."""

import dataclasses
import importlib
import pathlib
import sys
import types
from typing import Any, Callable, Dict, List

from jsonschema import Draft202012Validator

_PY_DIR = pathlib.Path(__file__).resolve().parents[1] / "python"


def _load(module: str) -> Any:
    """Import ``mcpcore.<module>`` from the source tree without running the package
    ``__init__`` (which needs the native extension)."""
    pkg_name = "_mcpcore_pure_under_test"
    if pkg_name not in sys.modules:
        pkg = types.ModuleType(pkg_name)
        pkg.__path__ = [str(_PY_DIR / "mcpcore")]
        sys.modules[pkg_name] = pkg
    return importlib.import_module(f"{pkg_name}.{module}")


_schema = _load("_schema")
content = _load("content")
tool_spec = _schema.tool_spec
type_schema = _schema.type_schema


def validator(schema: Dict[str, Any]) -> Draft202012Validator:
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def check(schema: Dict[str, Any], valid: List[Any], invalid: List[Any]) -> None:
    v = validator(schema)
    for instance in valid:
        assert v.is_valid(instance), (schema, instance, [e.message for e in v.iter_errors(instance)])
    for instance in invalid:
        assert not v.is_valid(instance), (schema, instance)


def fn_taking(annotation: Any, default: Any = dataclasses.MISSING) -> Callable[..., Any]:
    """A function ``f(x: annotation [= default])``."""
    if default is dataclasses.MISSING:

        def f(x):  # type: ignore[no-untyped-def]
            return x

    else:

        def f(x=default):  # type: ignore[no-untyped-def]
            return x

    f.__annotations__ = {"x": annotation}
    return f
