"""OpenTelemetry for Python servers: a SERVER span per dispatched request and the histogram
``mcp.server.operation.duration``, recorded with the global ``opentelemetry-api`` tracer and
meter providers (so ``opentelemetry-instrument python server.py`` with any exporter just
works). What to record — span name, attributes, the parent context in ``params._meta``, the
outcome — comes from the engine (``mcpcore::semconv``, the OpenTelemetry semantic conventions
for MCP, written once for every language); this module only records it."""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Dict, Optional

from . import _native
from .errors import McpError

#: The engine's event for a legacy session that ended (``mcpcore::host::SESSION_ENDED``).
SESSION_ENDED = "mcpcore/sessionEnded"

#: The conventions' advice for the duration histograms, in seconds.
BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0]


def wanted(setting: Optional[bool]) -> bool:
    """``setting`` when given; else True when ``opentelemetry-api`` is installed and an SDK
    tracer provider is set (not the API's default, which records nothing)."""
    if setting is not None:
        return setting
    # A provider is set only by code that imported the API: without it, nothing to record, and
    # no import paid at start-up.
    if "opentelemetry.trace" not in sys.modules:
        return False
    from opentelemetry import trace
    return type(trace.get_tracer_provider()).__name__ not in ("ProxyTracerProvider", "NoOpTracerProvider")


def middleware() -> Any:
    """The middleware recording each request (needs ``opentelemetry-api``)."""
    from opentelemetry import metrics, propagate, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode

    tracer = trace.get_tracer("mcpcore")
    meter = metrics.get_meter("mcpcore")
    try:
        duration = meter.create_histogram(
            "mcp.server.operation.duration", unit="s",
            description="MCP request or notification duration as observed on the receiver",
            explicit_bucket_boundaries_advisory=BUCKETS)
    except TypeError:  # an API before 1.23 takes no advice
        duration = meter.create_histogram("mcp.server.operation.duration", unit="s")

    try:
        sessions = meter.create_histogram(
            "mcp.server.session.duration", unit="s",
            description="The duration of the MCP session as observed on the MCP server",
            explicit_bucket_boundaries_advisory=BUCKETS)
    except TypeError:
        sessions = meter.create_histogram("mcp.server.session.duration", unit="s")

    async def telemetry(request: Any, call_next: Any) -> Dict[str, Any]:
        if request.method == SESSION_ENDED:
            # A legacy session ended (the engine's event, not a request): its duration.
            sessions.record(request.params["seconds"], {k: v for k, v in request.params["attributes"]})
            return {}
        call = request.context._call
        text = call.telemetry_operation(request.method, json.dumps(request.params))
        if text is None:
            return await call_next(request)  # type: ignore[no-any-return]
        op = json.loads(text)
        carrier = {k: v for k, v in op["carrier"]}
        parent = propagate.extract(carrier) if carrier else None
        metric = {k: v for k, v in op["metric_attributes"]}
        outcome: Dict[str, Any] = {}
        started = time.perf_counter()
        with tracer.start_as_current_span(
            op["span_name"], context=parent, kind=SpanKind.SERVER, attributes={k: v for k, v in op["attributes"]},
            record_exception=False, set_status_on_exception=False,
        ) as span:
            try:
                result: Dict[str, Any] = await call_next(request)
                outcome = json.loads(_native.telemetry_outcome(bool(result.get("isError"))))
                return result
            except McpError as e:
                outcome = json.loads(_native.telemetry_outcome(False, e.code or -32603, e.message))
                raise
            except BaseException as e:
                outcome = {"error_type": type(e).__name__, "description": str(e)}
                raise
            finally:
                for key in outcome.get("drop_from_metric") or ():
                    metric.pop(key, None)
                error_type = outcome.get("error_type")
                if error_type:
                    span.set_attribute("error.type", error_type)
                    metric["error.type"] = error_type
                    span.set_status(Status(StatusCode.ERROR, outcome.get("description") or error_type))
                if outcome.get("status_code"):
                    span.set_attribute("rpc.response.status_code", outcome["status_code"])
                    metric["rpc.response.status_code"] = outcome["status_code"]
                duration.record(time.perf_counter() - started, metric)

    return telemetry
