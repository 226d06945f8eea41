"""A fresh virtual environment: ``pip install ./bindings-python`` builds the package and it
imports and works. Slow (a build); deselect with ``-m 'not slow'``.

It reuses the workspace's CARGO_TARGET_DIR and builds with MATURIN_PEP517_ARGS="--profile dev",
so an up-to-date target directory makes it an incremental build.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import BINDING, PY, TARGET, describe, run

pytestmark = pytest.mark.slow

CHECK = textwrap.dedent(
    """
    import asyncio, json, sys
    import mcpcore
    from mcpcore import Registry

    reg = Registry()

    @reg.tool()
    async def add(a: int, b: int) -> int:
        '''Adds.'''
        return a + b

    @reg.tool()
    def greet(name: str) -> str:
        return f"hello {name}"

    async def main():
        r = await reg.call_tool("add", {"a": 2, "b": 40})
        g = await reg.call_tool("greet", {"name": "venv"})
        print(json.dumps({"file": mcpcore.__file__, "version": mcpcore.__version__,
                          "add": r.structured_content, "greet": g.text, "prefix": sys.prefix}))

    asyncio.run(main())
    """
)


def test_pip_install_in_a_fresh_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    proc = run([PY, "-m", "venv", venv], timeout=120)  # no --system-site-packages
    assert proc.returncode == 0, describe(proc)
    cfg = (venv / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in cfg
    vpy = venv / "bin" / "python"

    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "CARGO_TARGET_DIR": str(TARGET),
        "MATURIN_PEP517_ARGS": "--profile dev",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)

    proc = run([vpy, "-m", "pip", "install", "-q", "maturin==1.16.0"], timeout=300, env=env)
    assert proc.returncode == 0, describe(proc)
    # no mcpcore before the install
    proc = run([vpy, "-c", "import mcpcore"], timeout=60, env=env, cwd=str(tmp_path))
    assert proc.returncode != 0

    proc = run([vpy, "-m", "pip", "install", "--no-build-isolation", str(BINDING)], timeout=900, env=env,
               cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)

    script = tmp_path / "check.py"
    script.write_text(CHECK)
    proc = run([vpy, script], timeout=60, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, describe(proc)
    import json

    out = json.loads(proc.stdout)
    assert Path(out["file"]).resolve().is_relative_to(venv.resolve()), out
    assert Path(out["prefix"]).resolve() == venv.resolve()
    assert out["add"] == {"result": 42} and out["greet"] == "hello venv"
    assert out["version"].count(".") == 2
