#!/usr/bin/env python3
"""Fails when a hand-written source file is over 800 lines (issue 51): a file that long holds
more than one responsibility, and is split by them. Generated files are exempt: uniffi's
bindings (bindings-uniffi/generated, the Swift package's copy), napi's loader and types
(bindings-node/index.js, index.d.ts), the spec's schemas (tests/spec) and lockfiles.

Checks the files git tracks; prints each offender with its length and exits 1 if any."""

import pathlib
import subprocess
import sys

LIMIT = 800
SOURCES = (".rs", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".kt", ".swift", ".sh")
GENERATED = (
    "bindings-uniffi/generated/",
    "bindings-uniffi/swift/Sources/Mcpcore/Mcpcore.swift",
    "bindings-node/index.js",
    "bindings-node/index.d.ts",
    "tests/spec/",
)

repo = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    over = []
    for f in files:
        if not f.endswith(SOURCES) or f.startswith(GENERATED) or f.endswith("package-lock.json"):
            continue
        path = repo / f
        if not path.is_file():
            continue
        n = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if n > LIMIT:
            over.append((n, f))
    for n, f in sorted(over, reverse=True):
        print(f"{f}: {n} lines (at most {LIMIT}; split it by responsibility)")
    print(f"{len(over)} hand-written file(s) over {LIMIT} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
