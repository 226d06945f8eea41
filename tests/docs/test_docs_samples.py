"""Every Python and JavaScript sample of docs/ runs (the Rust ones are doctests of the mcpcore
crate, `core/src/lib.rs`). Each fenced ```python block runs in a fresh interpreter (the venv's,
with the mcpcore package installed), each ```js block as an ES module beside a node_modules that
has the mcpcore package (examples/node's); a sample passes when it exits 0 within its time.

    .venv/bin/python -m pytest tests/docs -q        (scripts/test.sh runs it)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def samples() -> List[Tuple[str, str, str]]:
    out = []
    for page in sorted(DOCS.rglob("*.md")):
        for n, m in enumerate(FENCE.finditer(page.read_text()), 1):
            lang = m.group(1)
            if lang in ("python", "js"):
                out.append((f"{page.relative_to(DOCS)}#{n}-{lang}", lang, m.group(2)))
    return out


SAMPLES = samples()


def test_the_docs_have_samples_in_both_languages() -> None:
    langs = {lang for _, lang, _ in SAMPLES}
    assert langs == {"python", "js"}, SAMPLES


@pytest.mark.parametrize("name,lang,code", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_sample_runs(name: str, lang: str, code: str, tmp_path: Path) -> None:
    if lang == "python":
        script = tmp_path / "sample.py"
        script.write_text(code)
        argv = [sys.executable, str(script)]
        cwd = tmp_path
    else:
        node = shutil.which("node")
        modules = REPO / "examples" / "node" / "node_modules"
        if node is None or not (modules / "mcpcore").exists():
            pytest.skip("node, or examples/node/node_modules (npm ci there), is missing")
        # A directory of its own whose node_modules is examples/node's (mcpcore) plus the
        # binding's devDependencies (zod and the frameworks the samples name).
        cwd = TARGET / "docs-samples" / re.sub(r"[^\w.-]", "_", name)
        shutil.rmtree(cwd, ignore_errors=True)
        (cwd / "node_modules").mkdir(parents=True)
        for source in (REPO / "bindings-node" / "node_modules", modules):
            for entry in source.iterdir() if source.exists() else []:
                link = cwd / "node_modules" / entry.name
                if not link.exists():
                    link.symlink_to(entry)
        (cwd / "package.json").write_text('{"type": "module"}\n')
        script = cwd / "sample.mjs"
        script.write_text(code)
        argv = [node, str(script)]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
