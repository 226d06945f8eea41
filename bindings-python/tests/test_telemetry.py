"""OpenTelemetry in Python (issue 35): an mcpcore Python server under the OpenTelemetry SDK is
called by the official Python SDK client, which sends its CLIENT span's context in
``params._meta``; our SERVER span (named and attributed by the engine's conventions) is that
span's child, in the caller's trace, on both lineages; a refused call records ``error.type``;
``mcp.server.operation.duration`` is recorded, and ``mcp.server.session.duration`` once for the
legacy session when it ends. Runs in a child process (global providers)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import PY

SCRIPT = Path(__file__).resolve().parent / "servers" / "otel_trace.py"


def test_our_server_span_is_the_child_of_the_official_sdk_client_span() -> None:
    pytest.importorskip("opentelemetry.sdk")
    proc = subprocess.run([PY, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for mode in ("2026-07-28", "legacy"):
        spans: List[Dict[str, Any]] = out[mode]
        by = {(s["kind"], s["name"]): s for s in spans}
        agent = by[("INTERNAL", "agent turn")]
        server = by.get(("SERVER", "tools/call echo"))
        assert server is not None, f"{mode}: {[(s['kind'], s['name']) for s in spans]}"
        clients = [s for s in spans if s["kind"] == "CLIENT" and s["span"] == server["parent"]]
        assert clients, f"{mode}: the server span's parent is not a client span: {spans}"
        assert server["trace"] == agent["trace"], f"{mode}: the server span joined the caller's trace"
        assert clients[0]["trace"] == agent["trace"]
        attrs = server["attributes"]
        assert attrs["mcp.method.name"] == "tools/call" and attrs["gen_ai.tool.name"] == "echo", attrs
        assert attrs["network.transport"] == "tcp"
        assert ("mcp.session.id" in attrs) == (mode == "legacy"), attrs
        failed = by[("SERVER", "tools/call missing")]
        assert failed["attributes"].get("error.type"), failed
    assert "mcp.server.operation.duration" in out["metrics"], out["metrics"]
    # One legacy session (the 2026-07-28 requests belong to none), recorded when it ended.
    assert out["sessions"] == [{"attributes": {"mcp.protocol.version": "2025-11-25", "network.transport": "tcp",
                                               "network.protocol.name": "http"}, "count": 1}], out["sessions"]
