#!/usr/bin/env python3
"""Fails on any loop between files: two or more files of one crate or package that import each
other, directly or round a ring (issue 51). Checked in every language we write by hand: each
Rust crate of the workspace (each binary of `src/bin/` as a crate of its own), the Python
package `mcpcore` and the Node `lib/`.

An edge A -> B means code in A names an item that B defines:
- Rust: a `crate::`, `super::`, `self::` or declared-submodule path, in a `use` or in code
  (comments, string literals and a trailing `#[cfg(test)]` module are skipped), resolved to the
  file that defines the item, through `pub use` re-exports. A module's own file and the files
  below it (`mod.rs` and its children) are one module's inside and make no edge between them:
  a loop is between modules that could stand apart.
- Python: `from . import x`, `from .x import y`, `import mcpcore.x` and `from mcpcore[.x] import
  y`, in any scope except an `if TYPE_CHECKING:` block; `__init__.py` is the package's root,
  like a Rust `mod.rs`.
- Node: `require('./x')` and `import ... from './x'` between the files of `lib/`.

Prints every loop (each strongly connected component of two or more files) and exits 1 if any,
or with `--max N` if more than N (the ratchet CI runs while the known loops are broken one by
one; N only goes down)."""

import ast
import pathlib
import re
import sys
from collections import defaultdict

REPO = pathlib.Path(__file__).resolve().parent.parent
RUST_CRATES = ["core", "macros", "examples/rust", "tests", "bindings-python", "bindings-node", "bindings-uniffi", "bench/rust"]
PYTHON_PACKAGE = REPO / "bindings-python" / "python" / "mcpcore"
NODE_LIB = REPO / "bindings-node" / "lib"

# ---------------------------------------------------------------------------------------------
# Rust


RUST_TOKENS = re.compile(
    r"//[^\n]*|/\*(?:.|\n)*?\*/|(?<!\w)b?r(#*)\"(?:.|\n)*?\"\1|b?\"(?:\\.|[^\"\\])*\"|b?'(?:\\.|[^'\\\n])'",
    re.S,
)


def rust_code(text: str) -> str:
    """The file's code without comments, string and char literals and a trailing test module."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod \w+\s*\{", text, re.M)
    if m:
        text = text[: m.start()]

    def blank(t: re.Match[str]) -> str:
        s = t.group(0)
        return "\n" * s.count("\n") + ('""' if not s.startswith("/") else " ")

    return RUST_TOKENS.sub(blank, text)


class RustCrate:
    """One crate: its files by module path, and what each re-exports."""

    def __init__(self, root_file: pathlib.Path):
        self.files: dict[tuple[str, ...], pathlib.Path] = {}
        self.code: dict[pathlib.Path, str] = {}
        self.module_of: dict[pathlib.Path, tuple[str, ...]] = {}
        self._walk(root_file, ())

    def _walk(self, path: pathlib.Path, module: tuple[str, ...]) -> None:
        if path in self.module_of:
            return
        text = path.read_text(encoding="utf-8")
        code = rust_code(text)
        self.files[module] = path
        self.code[path] = code
        self.module_of[path] = module
        # Children: `mod x;` (with an optional #[path = "..."] on the line before).
        if path.name in ("mod.rs", "lib.rs", "main.rs") or path.parent.name == "bin":
            base = path.parent
        else:
            base = path.parent / path.stem
        for m in re.finditer(r'(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', text):
            # The path attribute's string was blanked in `code`, so read the raw text.
            explicit, name = m.group(1), m.group(2)
            if explicit:
                child = path.parent / explicit
            elif (base / f"{name}.rs").exists():
                child = base / f"{name}.rs"
            else:
                child = base / name / "mod.rs"
            if child.exists():
                self._walk(child, module + (name,))

    def submodules(self, module: tuple[str, ...]) -> set[str]:
        n = len(module)
        return {m[n] for m in self.files if len(m) == n + 1 and m[:n] == module}

    def reexports(self, module: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """Names `module` re-exports (`pub use a::b::Name`), as absolute paths."""
        out = {}
        path = self.files.get(module)
        if path is None:
            return out
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", self.code[path]):
            for full, alias in expand_use_tree(m.group(1)):
                absolute = self.absolute(module, full)
                if absolute and alias != "*":
                    out[alias] = absolute
        return out

    def absolute(self, module: tuple[str, ...], segs: list[str]) -> tuple[str, ...] | None:
        """`segs` (a path written in `module`) as a path from the crate root; None if external."""
        if not segs:
            return None
        head = segs[0]
        if head == "crate":
            return tuple(segs[1:])
        if head in ("self", "super"):
            cur = list(module)
            i = 0
            while i < len(segs) and segs[i] in ("self", "super"):
                if segs[i] == "super":
                    if not cur:
                        return None
                    cur.pop()
                i += 1
            return tuple(cur) + tuple(segs[i:])
        if head in self.submodules(module):
            return module + tuple(segs)
        return None

    def defining_file(self, path: tuple[str, ...], depth: int = 0) -> pathlib.Path | None:
        """The file that defines the item at `path` (through re-exports)."""
        for cut in range(len(path), -1, -1):
            module = path[:cut]
            if module not in self.files:
                continue
            rest = path[cut:]
            if rest and depth < 8:
                target = self.reexports(module).get(rest[0])
                if target and target != module + rest[:1]:
                    found = self.defining_file(target + rest[1:], depth + 1)
                    if found:
                        return found
            return self.files[module]
        return None

    def edges(self) -> dict[pathlib.Path, set[pathlib.Path]]:
        out: dict[pathlib.Path, set[pathlib.Path]] = defaultdict(set)
        for path, code in self.code.items():
            module = self.module_of[path]
            paths = []
            for m in re.finditer(r"\buse\s+([^;]+);", code):
                paths.extend(full for full, _ in expand_use_tree(m.group(1)))
            starts = {"crate", "self", "super"} | self.submodules(module)
            for m in re.finditer(r"(?<![\w:])((?:\w+::)+\w+)", code):
                segs = m.group(1).split("::")
                if segs[0] in starts:
                    paths.append(segs)
            for segs in paths:
                absolute = self.absolute(module, segs)
                if absolute is None:
                    continue
                target = self.defining_file(absolute)
                if target is None or target == path:
                    continue
                # A module's own files (its file and those below it) are one module's inside.
                a, b = module, self.module_of[target]
                if a[: len(b)] == b or b[: len(a)] == a:
                    continue
                out[path].add(target)
        return out


def expand_use_tree(tree: str) -> list[tuple[list[str], str]]:
    """`a::{b, c::d as e, f::*}` as ([a, b], b), ([a, c, d], e), ([a, f, *], *)."""
    tree = re.sub(r"\s+", "", re.sub(r"(\w+)\s+as\s+(\w+)", r"\1=\2", tree))
    out: list[tuple[list[str], str]] = []

    def walk(prefix: list[str], t: str) -> None:
        brace = t.find("{")
        if brace == -1:
            parts = [p for p in t.split("::") if p]
            if not parts:
                return
            alias = None
            if "=" in parts[-1]:
                parts[-1], alias = parts[-1].split("=", 1)
            segs = prefix + parts
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            if segs:
                out.append((segs, alias or segs[-1]))
            return
        head = [p for p in t[:brace].split("::") if p]
        inner = t[brace + 1 : t.rindex("}")]
        depth, start = 0, 0
        for i, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                walk(prefix + head, inner[start:i])
                start = i + 1
        if inner[start:]:
            walk(prefix + head, inner[start:])

    walk([], tree)
    return out


def rust_crates() -> list[RustCrate]:
    crates = []
    for member in RUST_CRATES:
        d = REPO / member
        roots = []
        for candidate in ("src/lib.rs", "src/main.rs", "lib.rs"):
            if (d / candidate).exists():
                roots.append(d / candidate)
        bins = d / "src" / "bin"
        if bins.is_dir():
            for b in sorted(bins.iterdir()):
                if b.suffix == ".rs":
                    roots.append(b)
                elif (b / "main.rs").exists():
                    roots.append(b / "main.rs")
        crates.extend(RustCrate(r) for r in roots)
    return crates


# ---------------------------------------------------------------------------------------------
# Python


def python_edges() -> dict[pathlib.Path, set[pathlib.Path]]:
    out: dict[pathlib.Path, set[pathlib.Path]] = defaultdict(set)
    files = {p.stem: p for p in PYTHON_PACKAGE.glob("*.py")}

    def target(name: str | None) -> pathlib.Path | None:
        if not name:
            return files.get("__init__")
        return files.get(name.split(".")[0])

    for path in files.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for n in ast.walk(node))
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            found: list[pathlib.Path | None] = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1:
                    if node.module:
                        found.append(target(node.module))
                    else:
                        found.extend(files.get(a.name) or files.get("__init__") for a in node.names)
                elif node.level == 0 and node.module and node.module.split(".")[0] == "mcpcore":
                    rest = node.module.split(".", 1)[1] if "." in node.module else None
                    if rest:
                        found.append(target(rest))
                    else:
                        found.extend(files.get(a.name) or files.get("__init__") for a in node.names)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("mcpcore."):
                        found.append(target(a.name.split(".", 1)[1]))
            for t in found:
                # __init__.py is the package's root: it and its modules are one module's inside.
                if t and t != path and "__init__" not in (t.stem, path.stem):
                    out[path].add(t)
    return out


# ---------------------------------------------------------------------------------------------
# Node


def node_edges() -> dict[pathlib.Path, set[pathlib.Path]]:
    out: dict[pathlib.Path, set[pathlib.Path]] = defaultdict(set)
    for path in sorted(NODE_LIB.glob("*.js")):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"/\*(?:.|\n)*?\*/", " ", text)
        text = "\n".join(line.split("//", 1)[0] if "://" not in line else line for line in text.splitlines())
        for m in re.finditer(r"""(?:require\(\s*|from\s+|import\s*\(\s*)['"](\./[^'"]+)['"]""", text):
            name = m.group(1)[2:]
            t = NODE_LIB / (name if name.endswith((".js", ".cjs", ".mjs")) else name + ".js")
            if t.exists() and t != path:
                out[path].add(t)
    return out


# ---------------------------------------------------------------------------------------------


def loops(edges: dict[pathlib.Path, set[pathlib.Path]]) -> list[list[pathlib.Path]]:
    """Strongly connected components of two or more files (Tarjan, iterative)."""
    index: dict[pathlib.Path, int] = {}
    low: dict[pathlib.Path, int] = {}
    on: set[pathlib.Path] = set()
    stack: list[pathlib.Path] = []
    found = []
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def main() -> int:
    groups: list[tuple[str, dict[pathlib.Path, set[pathlib.Path]]]] = []
    for crate in rust_crates():
        groups.append(("rust", crate.edges()))
    groups.append(("python", python_edges()))
    groups.append(("node", node_edges()))
    found = []
    for lang, edges in groups:
        for comp in loops(edges):
            found.append((lang, comp, edges))
    allowed = int(sys.argv[sys.argv.index("--max") + 1]) if "--max" in sys.argv else 0
    for lang, comp, edges in found:
        names = [str(p.relative_to(REPO)) for p in comp]
        print(f"{lang}: a loop between {len(comp)} files: {', '.join(names)}")
        members = set(comp)
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b in members:
                    print(f"    {a.relative_to(REPO)} -> {b.relative_to(REPO)}")
    print(f"{len(found)} loop(s) between files (at most {allowed} allowed)")
    return 1 if len(found) > allowed else 0


if __name__ == "__main__":
    sys.exit(main())
