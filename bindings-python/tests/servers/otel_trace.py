"""Runs an mcpcore Python server under the OpenTelemetry SDK (in-memory exporters, set before
serving: telemetry turns on by itself) and calls it with the official Python SDK client
(``mcp==2.3.0``, which makes its own CLIENT spans and sends their context in ``params._meta``)
in both lineages, inside a parent span; prints the finished spans and metric names as JSON.
A process of its own: OpenTelemetry's providers are global."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

from mcp import Client as SdkClient
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcore import Server

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
reader = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

server = Server("otel", "1")


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


async def main() -> None:
    serving = await server.serve_http(port=0)
    out: Dict[str, Any] = {}
    try:
        for mode in ("2026-07-28", "legacy"):
            exporter.clear()
            tracer = trace.get_tracer("test")
            async with SdkClient(serving.url, mode=mode, read_timeout_seconds=10) as client:
                with tracer.start_as_current_span("agent turn"):
                    await client.call_tool("echo", {"text": "hi"})
                    try:
                        await client.call_tool("missing", {})
                    except Exception:  # the SDK raises the JSON-RPC error
                        pass
            spans: List[Dict[str, Any]] = []
            for s in exporter.get_finished_spans():
                spans.append({
                    "name": s.name, "kind": s.kind.name, "trace": format(s.context.trace_id, "032x"),
                    "span": format(s.context.span_id, "016x"),
                    "parent": format(s.parent.span_id, "016x") if s.parent else None,
                    "attributes": dict(s.attributes or {}), "status": s.status.status_code.name,
                })
            out[mode] = spans
        # The legacy session ends when the SDK client's DELETE arrives: its duration is recorded
        # then (an event of the engine's), so wait for it a little.
        for _ in range(100):
            data = reader.get_metrics_data()
            found = [m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]
            if any(m.name == "mcp.server.session.duration" for m in found):
                break
            await asyncio.sleep(0.02)
        out["metrics"] = sorted({m.name for m in found})
        out["sessions"] = [
            {"attributes": dict(p.attributes or {}), "count": p.count}
            for m in found if m.name == "mcp.server.session.duration" for p in m.data.data_points
        ]
    finally:
        await serving.shutdown()
    print(json.dumps(out))


asyncio.run(main())
