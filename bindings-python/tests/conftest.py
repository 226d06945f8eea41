"""Shared fixtures and helpers of the mcpcore binding tests.

The tests use the *installed* ``mcpcore`` package (never the source tree) and no pytest plugins:
an ``async def`` test body is run with ``asyncio.run`` by the :func:`run_async` decorator, under an
overall deadline. Test peers live in ``tests/servers`` and are spawned with ``sys.executable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest

# A runner that starts the suite in the background of a non-interactive shell leaves SIGINT
# ignored, and children inherit that: the servers the tests stop with Ctrl-C would not see it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

sys.path.insert(0, str(Path(__file__).resolve().parent / "servers"))  # tests/servers/*.py importable

from mcpcore import Client  # noqa: E402  (the installed package)

TESTS = Path(__file__).resolve().parent
SERVERS = TESTS / "servers"
BINDING = TESTS.parent
REPO = BINDING.parent
EXAMPLES = REPO / "examples" / "python"
INTEROP = REPO / "tests" / "interop" / "python"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
RUST_BIN = TARGET / "debug"

PY = sys.executable
TOOLBOX = SERVERS / "toolbox.py"
ECHO_LIKE = SERVERS / "echo_like.py"

MODERN = "2026-07-28"
LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
ALL_VERSIONS = [MODERN, *LEGACY_VERSIONS]

# (lineage=, protocol_version=) → (expected protocol_version, expected lineage): automatic
# negotiation, each lineage forced, and every revision pinned.
NEGOTIATIONS: List[Tuple[Optional[str], Optional[str], str, str]] = [
    (None, None, MODERN, "modern"),
    ("modern", None, MODERN, "modern"),
    ("legacy", None, "2025-11-25", "legacy"),
    *[(None, v, v, "modern" if v == MODERN else "legacy") for v in ALL_VERSIONS],
]
NEGOTIATION_IDS = [
    "auto" if lin is None and pin is None else (lin or f"pin-{pin}") for lin, pin, _, _ in NEGOTIATIONS
]
# The two lineages, as (lineage=, expected version).
LINEAGES = [("modern", MODERN), ("legacy", "2025-11-25")]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: builds the package in a fresh venv (minutes); deselect with -m 'not slow'")


# --------------------------------------------------------------------------- async tests


def run_async(fn: Optional[Callable[..., Awaitable[Any]]] = None, *, timeout: float = 30.0) -> Any:
    """Decorator: runs an ``async def`` test in a fresh event loop with ``asyncio.run``, bounded
    by ``timeout`` seconds. Usable bare (``@run_async``) or with arguments."""

    def wrap(f: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        assert inspect.iscoroutinefunction(f), f"{f.__name__} must be async def"

        @functools.wraps(f)
        def test(*args: Any, **kwargs: Any) -> Any:
            return asyncio.run(asyncio.wait_for(f(*args, **kwargs), timeout))

        return test

    return wrap(fn) if fn is not None else wrap


async def bounded(aw: Awaitable[Any], seconds: float = 10.0) -> Any:
    """Awaits ``aw`` for at most ``seconds`` (asyncio.TimeoutError otherwise)."""
    return await asyncio.wait_for(aw, seconds)


# --------------------------------------------------------------------------- processes


def run(argv: Sequence[str], *, timeout: float = 60.0, env: Optional[Dict[str, str]] = None,
        cwd: Optional[str] = None) -> subprocess.CompletedProcess:
    """Runs a command to completion (bounded), capturing text output."""
    return subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
        env=env, cwd=cwd, stdin=subprocess.DEVNULL,
    )


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


class Spawned:
    """A child process that announced a URL on stdout (``READY URL`` or ``listening on URL``)."""

    def __init__(self, argv: Sequence[str], marker: str, *, timeout: float = 20.0,
                 env: Optional[Dict[str, str]] = None) -> None:
        self.argv = [str(a) for a in argv]
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env,
        )
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.stderr_lines: List[str] = []
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()
        self.url = self._wait_for(marker, timeout)

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def _wait_for(self, marker: str, timeout: float) -> str:
        try:
            while True:
                line = self._lines.get(timeout=timeout)
                if line is None:
                    break
                if line.startswith(marker):
                    return line[len(marker):].strip()
        except queue.Empty:
            pass
        self.stop()
        raise AssertionError(
            f"{self.argv} did not print {marker!r} within {timeout}s; stderr:\n{''.join(self.stderr_lines)}"
        )

    def interrupt(self, timeout: float = 10.0) -> int:
        """SIGINT, then the exit status (bounded)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


@pytest.fixture
def spawn() -> Iterator[Callable[..., Spawned]]:
    """Spawns URL-announcing children; every one is stopped at teardown."""
    children: List[Spawned] = []

    def start(argv: Sequence[str], marker: str = "listening on ", **kw: Any) -> Spawned:
        child = Spawned(argv, marker, **kw)
        children.append(child)
        return child

    yield start
    for child in children:
        child.stop()


@pytest.fixture(scope="module")
def toolbox_http() -> Iterator[str]:
    """tests/servers/toolbox.py served over HTTP by ``Server.run("http")`` in a child process
    (one per module); yields its URL."""
    child = Spawned([PY, TOOLBOX, "--http"], "listening on ")
    yield child.url
    child.stop()


def rust_bin(name: str) -> Path:
    """A Rust binary of the workspace (``cargo build --workspace --bins``), or skip."""
    path = RUST_BIN / name
    if not path.exists():
        pytest.skip(f"{path} is missing: run `cargo build --workspace --bins`")
    return path


def events_env(path: Path) -> Dict[str, str]:
    """The extra environment that makes toolbox.py record tool events in ``path`` (for
    ``Client.connect_stdio(env=...)``, which adds it to the inherited environment)."""
    return {"MCPCORE_TEST_EVENTS": str(path)}


def read_events(path: Path) -> List[str]:
    return path.read_text().split() if path.exists() else []


async def wait_until(predicate: Callable[[], bool], seconds: float = 5.0, step: float = 0.02) -> bool:
    """Polls ``predicate`` until true or ``seconds`` pass; returns its last value."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(step)
    return True


# --------------------------------------------------------------------------- the toolbox server

TRANSPORTS = ["stdio", "http", "http-inproc"]
"""stdio: toolbox.py spawned by Client.connect_stdio; http: toolbox.py --http in a child process
(Server.run("http")); http-inproc: toolbox.build().serve_http() in the test's own loop."""


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def toolbox(transport: str, request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``async with toolbox(**connect_kwargs) as client`` connects to the toolbox server over the
    parametrized transport (extra kwargs: lineage=, protocol_version=, timeout=, env= for stdio)."""
    url = request.getfixturevalue("toolbox_http") if transport == "http" else None

    @contextlib.asynccontextmanager
    async def connect(**kw: Any) -> Any:
        env = kw.pop("env", None)
        if transport == "stdio":
            client = await bounded(Client.connect_stdio([PY, str(TOOLBOX)], env=env, **kw))
            async with client:
                yield client
        elif transport == "http":
            assert url is not None
            async with await bounded(Client.connect_http(url, **kw)) as client:
                yield client
        else:
            import toolbox as toolbox_module

            serving = await toolbox_module.build().serve_http()
            try:
                async with await bounded(Client.connect_http(serving.url, **kw)) as client:
                    yield client
            finally:
                await bounded(serving.shutdown())

    return connect
