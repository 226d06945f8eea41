"""Every Python snippet of bindings-python/README.md runs, in order, in one namespace (later
snippets use what earlier ones defined), with top-level ``await``. What a ``print(...)  # value``
line says it prints is what it prints.

The snippets run against real peers: ``url`` is the features server (tests/servers/features.py
over HTTP), or for the OAuth snippet the official SDK's protected server behind the mock
authorization server (as in test_oauth.py), whose user step ``my_webview`` follows. Only the
calls that would serve forever are held back: ``Server.run`` and ``Server.serve_stdio`` return
at once (recorded), and ``serve_http`` binds a free port instead of the one written."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import os
import re
import shutil
import sys
import types
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import mcpcore
from mcpcore import MemoryTokenStore, Server

from conftest import BINDING, INTEROP, PY, REPO, SERVERS, Spawned, run_async

README = BINDING / "README.md"


def snippets() -> List[Tuple[int, str]]:
    """The ```python blocks of the README, with their line numbers."""
    text = README.read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S):
        out.append((text[: m.start()].count("\n") + 1, m.group(1)))
    return out


def expected_prints(code: str) -> List[str]:
    """The values the ``print(...)  # value`` lines say they print."""
    return [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s+#\s*(.+)$", code, re.M)]


@pytest.fixture(scope="module")
def features_http() -> Iterator[str]:
    child = Spawned([PY, SERVERS / "features.py", "--http"], "listening on ")
    yield child.url
    child.stop()


@pytest.fixture(scope="module")
def protected() -> Iterator[str]:
    pytest.importorskip("mcp", reason="the official SDK (mcp==2.3.0) is not installed")
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed for the OAuth authorization server (tests/interop/oauth)")
    asrv = Spawned([node, REPO / "tests" / "interop" / "oauth" / "mock_as.mjs"], "READY ")
    server = Spawned([PY, INTEROP / "sdk_auth_server.py", "--issuer", asrv.url, "--scope", "mcp:read"],
                     "READY ", timeout=60)
    yield server.url
    server.stop()
    asrv.stop()


@pytest.fixture
def held_back(monkeypatch: pytest.MonkeyPatch) -> Iterator[Dict[str, Any]]:
    """Server.run / serve_stdio return at once; serve_http binds port 0; servings are stopped."""
    seen: Dict[str, Any] = {"run": 0, "serve_stdio": 0, "servings": []}
    original = Server.serve_http

    def run(self: Server, *args: Any, **kwargs: Any) -> None:
        seen["run"] += 1

    async def serve_stdio(self: Server) -> None:
        seen["serve_stdio"] += 1

    async def serve_http(self: Server, host: str = "127.0.0.1", port: int = 0, **kwargs: Any) -> Any:
        serving = await original(self, host, 0, **kwargs)
        seen["servings"].append(serving)
        return serving

    monkeypatch.setattr(Server, "run", run)
    monkeypatch.setattr(Server, "serve_stdio", serve_stdio)
    monkeypatch.setattr(Server, "serve_http", serve_http)
    yield seen


def test_the_readme_has_python_snippets() -> None:
    assert len(snippets()) >= 10


@run_async(timeout=120)
async def test_every_python_snippet_runs(features_http: str, protected: str, held_back: Dict[str, Any],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from test_oauth import _location  # the scripted browser of the OAuth tests

    async def my_webview(url: str) -> str:
        return await asyncio.to_thread(_location, url)

    # "python examples/python/echo_server.py" from the repository root, with this venv's python.
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("PATH", os.path.dirname(PY) + os.pathsep + os.environ.get("PATH", ""))
    # A real module: dataclasses and typing look their class's module up in sys.modules.
    module = types.ModuleType("readme_snippets")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    ns: Dict[str, Any] = module.__dict__
    ns.update(my_webview=my_webview, my_store=MemoryTokenStore())
    for line, code in snippets():
        ns["url"] = protected if "OAuth(" in code else features_http
        out = io.StringIO()
        compiled = compile(code, f"README.md:{line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        with contextlib.redirect_stdout(out):
            result = eval(compiled, ns)
            if asyncio.iscoroutine(result):
                await asyncio.wait_for(result, 30)
        printed = out.getvalue()
        for value in expected_prints(code):
            assert value in printed, f"README.md:{line}: {value!r} not printed; got:\n{printed}"
    assert held_back["run"] >= 1 and held_back["serve_stdio"] >= 1
    for serving in held_back["servings"]:
        await serving.shutdown()
    assert isinstance(ns.get("client"), mcpcore.Client)
