"""bench/stateless.py: W12 of bench/harness.py (issue 47), a realistic stateless server.

W12 is W2 on 2026-07-28 (wrk, a tools/call echo, stateless: `_meta` and the Mcp-* headers in
every request) against a server that holds a 60-tool catalogue (W9's tool definitions,
`tool_0000`... `tool_0059`, beside `echo` and `touch`), each peer in the stateless pattern its
docs show, at its best documented configuration:

- mcpcore (Rust, Python, Node): the library's defaults; tools registered once.
- the TypeScript SDK v2: `createMcpHandler(factory, { responseMode: 'json' })`, whose factory
  builds an `McpServer` and registers every tool on each request (the zod schemas are built once,
  the kindest form of its pattern).
- the Python SDK: `streamable_http_app(stateless_http=True, json_response=True)`.
- rmcp: stateless JSON (`with_legacy_session_mode(false).with_json_response(true)`), its router
  built once and cloned per request.

The same server binary also runs with no catalogue (`--tools 0`: the 2-tool W2 server) in the
same phase, alternating with the 60-tool one, so `w12_kept` (60-tool ÷ 2-tool requests/s) says
what a realistic catalogue costs each subject. The TypeScript SDK v1 has no 2026-07-28.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

MODERN = "2026-07-28"
TOOLS = 60


def w12(h: Any, s: Dict[str, Any], cfg: Dict[str, Any], name: str, r: int) -> Dict[str, Any]:
    """The 2-tool and the 60-tool server of one subject, in alternating order by round."""
    out: Dict[str, Any] = {}
    order = [0, TOOLS] if r % 2 == 0 else [TOOLS, 0]
    for tools in order:
        srv = h.HttpServer(lambda a: s["w12_http"](a, tools), name)
        try:
            headers, pre, post = h.wire_request(srv.url, MODERN)
            w = h.run_wrk(srv.url, headers, pre, post, cfg["wrk_secs"], cfg["wrk_conns"])
            if w["failed"]:
                raise h.Fail(f"{name} W12 ({tools} tools): {w['failed']} failed requests of {w['requests']}: "
                             f"{w.get('failed_sample', '')}")
            if srv.proc.poll() is not None:
                raise h.Fail(f"{name} W12 server died: {srv.stderr()}")
            out[f"tools_{tools}"] = w
        finally:
            srv.stop()
    return out


def metrics(r: Dict[str, Any], m: Dict[str, Optional[float]]) -> None:
    w = r.get("w12")
    if not w:
        return
    base, cat = w.get("tools_0", {}).get("rps"), w.get(f"tools_{TOOLS}", {}).get("rps")
    m["w12_stateless_rps"] = cat
    m["w12_base_rps"] = base
    m["w12_kept"] = cat / base if cat and base else None


def render(doc: Dict[str, Any], names: List[str], subs: Dict[str, Any], cell: Callable[..., str]) -> List[str]:
    rows = [n for n in names if any(k.startswith("w12_") for k in doc["summary"].get(n, {}))]
    if not rows:
        return []
    L = [f"## W12 a realistic stateless server ({MODERN}, {TOOLS}-tool catalogue; wrk requests/s, all checked)", "",
         "Each peer in the stateless pattern its docs show, at its best configuration (bench/stateless.py). "
         "\"kept\" is the 60-tool rate over the same server's 2-tool rate, measured in the same round.", "",
         "| subject | 2 tools | 60 tools (`w12_stateless_rps`) | kept |", "|---|---|---|---|"]
    for n in rows:
        L.append(f"| {subs[n]['label']} | {cell(n, 'w12_base_rps')} | {cell(n, 'w12_stateless_rps')} | {cell(n, 'w12_kept', 2)} |")
    return L + [""]
