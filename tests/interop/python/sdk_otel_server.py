#!/usr/bin/env python3
"""The official Python SDK's HTTP server (``sdk_http_server.py``, ``mcp==2.3.0``) under the
OpenTelemetry SDK: the SDK's own ``OpenTelemetryMiddleware`` (on by default) records a SERVER span
per request, parented by the trace context in ``params._meta``. The finished spans are written as
JSON to the file named by ``MCPCORE_OTEL_SPANS`` when the server exits (SIGINT), for
tests/rust/telemetry.rs: our client's CLIENT span must be their parent.

Usage: sdk_otel_server.py --port 0   (the arguments of sdk_http_server.py)
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)


def dump() -> None:
    spans = [{
        "name": s.name, "kind": s.kind.name, "trace": format(s.context.trace_id, "032x"),
        "span": format(s.context.span_id, "016x"),
        "parent": format(s.parent.span_id, "016x") if s.parent else None,
        "attributes": {k: v for k, v in (s.attributes or {}).items() if isinstance(v, (str, int, float, bool))},
    } for s in exporter.get_finished_spans()]
    Path(os.environ["MCPCORE_OTEL_SPANS"]).write_text(json.dumps(spans))


atexit.register(dump)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sdk_http_server  # noqa: E402

sys.exit(sdk_http_server.main())
