#!/usr/bin/env python3
"""One version for every package, set in one place: `version` under `[workspace.package]` in the
root Cargo.toml. Every crate inherits it (`version.workspace = true`) and the Python package takes
it from there (`dynamic = ["version"]`, read by maturin); the files that cannot read it are stamped
by this script, and `check` fails on any drift (scripts/test.sh runs it first).

    scripts/version.py get            # prints the version
    scripts/version.py check          # exit 1 and a list when a file disagrees
    scripts/version.py set X.Y.Z      # writes X.Y.Z everywhere (and opens its CHANGELOG.md section)

Stamped: the mcpcore entry of [workspace.dependencies], the workspace crates in Cargo.lock, the npm
packages (bindings-node/package.json, its package-lock.json, the platform package
bindings-node/npm/linux-x64-gnu/package.json, the version checks of the generated loader
bindings-node/index.js, the link in examples/node/package-lock.json) and the Maven artifact
(bindings-uniffi/pom.xml), and the install lines of the READMEs. CHANGELOG.md must have a
`## [X.Y.Z]` section.
"""

from __future__ import annotations

import datetime
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")
NPM_MAIN = "bindings-node/package.json"
NPM_LOCK = "bindings-node/package-lock.json"
NPM_PLATFORM = "bindings-node/npm/linux-x64-gnu/package.json"
NPM_LOADER = "bindings-node/index.js"
EXAMPLES_LOCK = "examples/node/package-lock.json"
POM = "bindings-uniffi/pom.xml"
PYPROJECT = "bindings-python/pyproject.toml"
CHANGELOG = "CHANGELOG.md"
# The install lines of the READMEs name the files of `make dist` and the Maven coordinates.
DOCS = ["README.md", "bindings-python/README.md", "bindings-node/README.md", "bindings-uniffi/README.md"]
_V = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?"
DOC_RES = [
    re.compile(rf"(mcpcore(?:-linux-x64-gnu)?-)({_V})((?:-cp39|\.tgz|\.jar|\.pom|\.tar\.gz))"),
    re.compile(rf"(dev\.mcpcore:mcpcore:)({_V})()"),
    re.compile(rf"(<artifactId>mcpcore</artifactId>\s*<version>)({_V})(</version>)"),
]

# The generated loader's checks: `bindingPackageVersion !== 'V'` and "expected V but got".
LOADER_RES = [re.compile(r"(bindingPackageVersion !== ')([^']*)(')"), re.compile(r"(expected )(\S+)( but got)")]
# The project's own <version>, right after its <artifactId> (dependencies come later).
POM_RE = re.compile(r"(<artifactId>mcpcore</artifactId>\s*<version>)([^<]*)(</version>)")
WORKSPACE_RE = re.compile(r"(\[workspace\.package\][^\[]*?\nversion = \")([^\"]*)(\")", re.S)
DEP_RE = re.compile(r"(\nmcpcore = \{ path = \"core\", version = \")([^\"]*)(\")")


def read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def write(rel: str, text: str) -> None:
    (ROOT / rel).write_text(text, encoding="utf-8")


def source_version() -> str:
    return tomllib.loads(read("Cargo.toml"))["workspace"]["package"]["version"]


def workspace_crates() -> set[str]:
    """Names of the path packages in Cargo.lock (the workspace's own crates)."""
    lock = tomllib.loads(read("Cargo.lock"))
    return {p["name"] for p in lock["package"] if "source" not in p}


def found_versions() -> list[tuple[str, str | None]]:
    """(where, version found) for every stamped place; None when the place is missing."""
    out: list[tuple[str, str | None]] = []
    m = DEP_RE.search(read("Cargo.toml"))
    out.append(("Cargo.toml [workspace.dependencies] mcpcore", m.group(2) if m else None))
    lock = tomllib.loads(read("Cargo.lock"))
    for p in lock["package"]:
        if "source" not in p:
            out.append((f"Cargo.lock {p['name']}", p["version"]))
    for rel in (NPM_MAIN, NPM_PLATFORM):
        out.append((rel, json.loads(read(rel)).get("version")))
    lock_json = json.loads(read(NPM_LOCK))
    out.append((f"{NPM_LOCK} version", lock_json.get("version")))
    out.append((f'{NPM_LOCK} packages[""]', lock_json["packages"][""].get("version")))
    ex = json.loads(read(EXAMPLES_LOCK))["packages"].get("../../bindings-node", {})
    out.append((f"{EXAMPLES_LOCK} ../../bindings-node", ex.get("version")))
    loader = read(NPM_LOADER)
    seen = {m.group(2) for r in LOADER_RES for m in r.finditer(loader)}
    out.append((f"{NPM_LOADER} version checks", seen.pop() if len(seen) == 1 else (", ".join(sorted(seen)) or None)))
    m = POM_RE.search(read(POM))
    out.append((f"{POM} <version>", m.group(2) if m else None))
    for rel in DOCS:
        for r in DOC_RES:
            for m in r.finditer(read(rel)):
                out.append((f"{rel}: {m.group(0)!r}", m.group(2)))
    return out


def problems(version: str) -> list[str]:
    bad = [f"{where}: {got!r}, not {version!r}" for where, got in found_versions() if got != version]
    pyproject = tomllib.loads(read(PYPROJECT))["project"]
    if "version" in pyproject or "version" not in pyproject.get("dynamic", []):
        bad.append(f'{PYPROJECT}: the version must be dynamic = ["version"] (maturin reads Cargo.toml)')
    platform = json.loads(read(NPM_PLATFORM))
    main = json.loads(read(NPM_MAIN))
    if platform.get("name") != f"{main['name']}-linux-x64-gnu":
        bad.append(f"{NPM_PLATFORM}: name {platform.get('name')!r} is not {main['name']}-linux-x64-gnu")
    if not re.search(rf"^## \[{re.escape(version)}\]", read(CHANGELOG), re.M):
        bad.append(f"{CHANGELOG}: no '## [{version}]' section")
    return bad


def sub_all(rel: str, pattern: re.Pattern[str], version: str, count: int = 0) -> None:
    text, n = pattern.subn(lambda m: m.group(1) + version + m.group(3), read(rel), count=count)
    if n == 0:
        raise SystemExit(f"{rel}: nothing matched {pattern.pattern!r}")
    write(rel, text)


def edit_json(rel: str, change: Callable[[dict], None]) -> None:
    data = json.loads(read(rel))
    change(data)
    write(rel, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def set_version(version: str) -> None:
    if not SEMVER.match(version):
        raise SystemExit(f"not a semantic version: {version!r}")
    sub_all("Cargo.toml", WORKSPACE_RE, version, count=1)
    sub_all("Cargo.toml", DEP_RE, version, count=1)
    crates = workspace_crates()
    lock = re.sub(
        r'(\[\[package\]\]\nname = "([^"]+)"\nversion = ")([^"]*)(")',
        lambda m: m.group(1) + (version if m.group(2) in crates else m.group(3)) + m.group(4),
        read("Cargo.lock"),
    )
    write("Cargo.lock", lock)

    def bump(data: dict) -> None:
        data["version"] = version

    edit_json(NPM_MAIN, bump)
    edit_json(NPM_PLATFORM, bump)

    def bump_lock(data: dict) -> None:
        data["version"] = version
        data["packages"][""]["version"] = version

    edit_json(NPM_LOCK, bump_lock)
    edit_json(EXAMPLES_LOCK, lambda d: d["packages"]["../../bindings-node"].__setitem__("version", version))
    for r in LOADER_RES:
        sub_all(NPM_LOADER, r, version)
    sub_all(POM, POM_RE, version, count=1)
    for rel in DOCS:
        text = read(rel)
        for r in DOC_RES:
            text = r.sub(lambda m: m.group(1) + version + m.group(3), text)
        write(rel, text)
    log = read(CHANGELOG)
    if not re.search(rf"^## \[{re.escape(version)}\]", log, re.M):
        today = datetime.date.today().isoformat()
        log, n = re.subn(r"^## \[Unreleased\]\n", f"## [Unreleased]\n\n## [{version}] - {today}\n", log, count=1, flags=re.M)
        if n == 0:
            raise SystemExit(f"{CHANGELOG}: no '## [Unreleased]' heading to open the {version} section under")
        write(CHANGELOG, log)


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "check"
    if cmd == "get":
        print(source_version())
        return 0
    if cmd == "set" and len(argv) == 2:
        set_version(argv[1])
        bad = problems(argv[1])
        for b in bad:
            print(f"still wrong: {b}", file=sys.stderr)
        print(f"version {argv[1]} written")
        return 1 if bad else 0
    if cmd == "check":
        version = source_version()
        bad = problems(version)
        for b in bad:
            print(f"version drift: {b}", file=sys.stderr)
        if bad:
            print(f"fix with: scripts/version.py set {version}", file=sys.stderr)
            return 1
        print(f"version {version}: Cargo workspace, pyproject (dynamic), npm x2, pom.xml and CHANGELOG.md agree")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
