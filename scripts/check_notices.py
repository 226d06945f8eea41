#!/usr/bin/env python3
"""Checks that THIRD_PARTY_NOTICES.txt (made by scripts/notices.sh with cargo-about, committed
like a lockfile) names every third-party crate the shipped crates link: mcpcore (the CLI),
mcpcore-python, mcpcore-node and mcpcore-uniffi, with their normal (not build, not dev)
dependencies on every target, as `cargo tree` resolves them from Cargo.lock. Exits 1 and names what is missing
(run scripts/notices.sh after a dependency change). Fast: it reads metadata, it does not scan
licence texts as cargo-about does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["mcpcore", "mcpcore-python", "mcpcore-node", "mcpcore-uniffi"]


def linked() -> set[tuple[str, str]]:
    """(name, version) of every third-party crate a shipped crate links, on any target."""
    out: set[tuple[str, str]] = set()
    for package in SHIPPED:
        features = ["--features", "mcpcore/cli"] if package == "mcpcore" else []
        tree = subprocess.run(
            ["cargo", "tree", "--locked", "-e", "normal", "--prefix", "none", "--target", "all",
             "--format", "{p}", "-p", package, *features],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout
        for line in tree.splitlines():
            m = re.match(r"(\S+) v(\S+)( \((.*)\))?", line)
            # Path crates (the workspace's own) carry their directory in parentheses.
            if m and not (m.group(4) or "").startswith("/"):
                out.add((m.group(1), m.group(2)))
    return out


def main() -> int:
    notices = ROOT / "THIRD_PARTY_NOTICES.txt"
    if not notices.exists():
        print("THIRD_PARTY_NOTICES.txt is missing: run scripts/notices.sh", file=sys.stderr)
        return 1
    named = set(re.findall(r"^  (\S+) (\S+)", notices.read_text(), re.M))
    linked_set = linked()
    missing = sorted(linked_set - named)
    if missing:
        print("THIRD_PARTY_NOTICES.txt does not name these linked crates (run scripts/notices.sh):",
              file=sys.stderr)
        for name, version in missing:
            print(f"  {name} {version}", file=sys.stderr)
        return 1
    print(f"THIRD_PARTY_NOTICES.txt names all {len(named & linked_set)} linked third-party crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
