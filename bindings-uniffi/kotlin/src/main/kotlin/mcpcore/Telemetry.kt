// OpenTelemetry for Kotlin servers (issue 35): a SERVER span per dispatched request, the
// histograms `mcp.server.operation.duration` and `mcp.server.session.duration`, recorded with the
// host's OpenTelemetry API (`opentelemetry-api`; by default `GlobalOpenTelemetry`, so the Java
// agent or any SDK the application installs receives them). What to record (span name,
// attributes, the parent context in `params._meta`, the outcome) comes from the engine
// (`mcpcore::semconv`, the semantic conventions for MCP, written once for every language); this
// file only records it.
package mcpcore

import io.opentelemetry.api.GlobalOpenTelemetry
import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.AttributeKey
import io.opentelemetry.api.common.Attributes
import io.opentelemetry.api.trace.SpanKind
import io.opentelemetry.api.trace.StatusCode
import io.opentelemetry.context.Context
import io.opentelemetry.context.propagation.TextMapGetter

/** The conventions' advice for the duration histograms, in seconds. */
private val BUCKETS = listOf(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

private fun attributes(list: List<TelemetryAttribute>): Attributes {
    val b = Attributes.builder()
    for (a in list) {
        val text = a.text
        val int = a.int
        if (text != null) b.put(AttributeKey.stringKey(a.key), text) else if (int != null) b.put(AttributeKey.longKey(a.key), int)
    }
    return b.build()
}

private object CarrierGetter : TextMapGetter<Map<String, String>> {
    override fun keys(carrier: Map<String, String>): Iterable<String> = carrier.keys
    override fun get(carrier: Map<String, String>?, key: String): String? = carrier?.get(key)
}

/** Records each request the server dispatches, and each legacy session's duration, with `otel`. */
class OpenTelemetryMiddleware(private val otel: OpenTelemetry = GlobalOpenTelemetry.get()) : Middleware {
    private val tracer = otel.getTracer("mcpcore")
    private val duration = otel.getMeter("mcpcore").histogramBuilder("mcp.server.operation.duration")
        .setUnit("s")
        .setDescription("MCP request or notification duration as observed on the receiver")
        .setExplicitBucketBoundariesAdvice(BUCKETS)
        .build()
    private val sessions = otel.getMeter("mcpcore").histogramBuilder("mcp.server.session.duration")
        .setUnit("s")
        .setDescription("The duration of the MCP session as observed on the MCP server")
        .setExplicitBucketBoundariesAdvice(BUCKETS)
        .build()

    override suspend fun handle(call: MiddlewareCall): String {
        call.sessionEnded()?.let {
            sessions.record(it.seconds, attributes(it.attributes))
            return "{}"
        }
        val op = call.telemetryOperation() ?: return call.next()
        val parent = if (op.carrier.isEmpty()) Context.current()
        else otel.propagators.textMapPropagator.extract(Context.root(), op.carrier, CarrierGetter)
        val span = tracer.spanBuilder(op.spanName).setParent(parent).setSpanKind(SpanKind.SERVER)
            .setAllAttributes(attributes(op.attributes)).startSpan()
        val started = System.nanoTime()
        var outcome = TelemetryOutcome(null, null, null, emptyList())
        try {
            val result = call.next()
            outcome = telemetryOutcome(result.contains("\"isError\":true"))
            return result
        } catch (e: McpException) {
            outcome = telemetryOutcome(false, e.code().takeIf { it != 0 } ?: -32603, e.message)
            throw e
        } catch (e: Throwable) {
            outcome = TelemetryOutcome(e.javaClass.simpleName, null, e.message, emptyList())
            throw e
        } finally {
            val metric = op.metricAttributes.filter { it.key !in outcome.dropFromMetric }.toMutableList()
            outcome.errorType?.let {
                span.setAttribute("error.type", it)
                metric.add(TelemetryAttribute("error.type", it, null))
                span.setStatus(StatusCode.ERROR, outcome.description ?: it)
            }
            outcome.statusCode?.let {
                span.setAttribute("rpc.response.status_code", it)
                metric.add(TelemetryAttribute("rpc.response.status_code", it, null))
            }
            span.end()
            duration.record((System.nanoTime() - started) / 1e9, attributes(metric))
        }
    }
}

/** This server recording every request and legacy session with OpenTelemetry (`otel`, by default
 * the global one), outermost in its middleware chain so it times the other middleware too. */
fun Server.withTelemetry(otel: OpenTelemetry = GlobalOpenTelemetry.get()): Server =
    withTelemetryMiddleware(OpenTelemetryMiddleware(otel))
