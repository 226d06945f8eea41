#!/usr/bin/env python3
"""Checks the layering of core/src: each top-level module may use only modules of its own
layer or of the layers above it (ARCHITECTURE.md), and the modules form no import cycle.

A use is any `crate::<module>` path in code (comments and test modules are skipped; names the
crate root re-exports, such as `crate::Result`, count as their module). Exits 1 and prints
every offending use otherwise."""

import pathlib
import re
import sys
from collections import defaultdict

LAYERS = [
    ("data", ["error", "future", "jsonrpc", "protocol"]),
    ("rules", ["state", "tasks", "session", "changes", "idempotency", "rates"]),
    ("context", ["context"]),
    ("catalogs", ["registry", "resources", "prompts", "completion", "skills", "events", "middleware", "semconv"]),
    ("engine", ["engine"]),
    ("runtime", ["runtime", "host"]),
    ("shells", ["transport", "http", "client", "server", "remote", "auth", "gateway", "config", "store", "tls", "telemetry", "doctor"]),
    ("api", ["prelude", "typed", "builder", "fuzzing"]),
]
ROOT_REEXPORTS = {
    "Error": "error", "ErrorCode": "error", "ErrorData": "error", "ErrorKind": "error", "Result": "error",
    "Lineage": "protocol", "ProtocolVersion": "protocol", "CallToolResult": "protocol", "ContentBlock": "protocol",
    "Tool": "protocol", "RequestContext": "context", "PromptRegistry": "prompts", "ToolRegistry": "registry",
    "ResourceRegistry": "resources", "ServerConfig": "engine", "Client": "client", "ClientOptions": "client",
    "Server": "server", "ServerBuilder": "builder", "IntoCallToolResult": "typed", "IntoToolDef": "typed",
    "Json": "typed", "ToolDef": "typed",
}
RANK = {m: i for i, (_, mods) in enumerate(LAYERS) for m in mods}
LAYER_OF = {m: name for name, mods in LAYERS for m in mods}

root = pathlib.Path(__file__).resolve().parent.parent / "core" / "src"


def code_of(text: str) -> str:
    """The file's code without comments, string literals and its trailing test module."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod \w+\s*[{;]", text, re.M)
    if m:
        text = text[: m.start()]
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def module_of(path: pathlib.Path) -> str | None:
    rel = path.relative_to(root)
    if rel.parts[0] == "bin" or rel.name in ("lib.rs",):
        return None
    if rel.name == "tests.rs" or rel.name.endswith("_tests.rs") or "tests" in rel.parts:
        return None
    return rel.parts[0].removesuffix(".rs")


def main() -> int:
    uses = defaultdict(list)  # (from, to) -> [where]
    problems = []
    for path in sorted(root.rglob("*.rs")):
        module = module_of(path)
        if module is None:
            continue
        if module not in RANK:
            problems.append(f"{path.relative_to(root)}: module {module!r} has no layer in scripts/check_layers.py")
            continue
        for lineno, line in enumerate(code_of(path.read_text()).splitlines(), 1):
            for target in re.findall(r"\bcrate::(\w+)", line):
                target = ROOT_REEXPORTS.get(target, target)
                if target != module and target in RANK:
                    uses[(module, target)].append(f"{path.relative_to(root)}:{lineno}")
    for (src, dst), where in sorted(uses.items()):
        if RANK[dst] > RANK[src]:
            problems.append(
                f"{src} ({LAYER_OF[src]}) uses {dst} ({LAYER_OF[dst]}), a layer below it: " + ", ".join(where[:5])
            )
    graph = defaultdict(set)
    for src, dst in uses:
        graph[src].add(dst)
    seen, stack = set(), []

    def visit(node: str, path: list) -> None:
        if node in path:
            cycle = path[path.index(node):] + [node]
            problems.append("import cycle: " + " -> ".join(cycle))
            return
        if node in seen:
            return
        seen.add(node)
        for nxt in sorted(graph[node]):
            visit(nxt, path + [node])

    for node in sorted(graph):
        visit(node, stack)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layers ok: {len(uses)} module dependencies, all downward, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
