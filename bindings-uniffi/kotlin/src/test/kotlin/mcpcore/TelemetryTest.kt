// OpenTelemetry from Kotlin (issue 35): a Kotlin server with `withTelemetry(otel)` under the
// OpenTelemetry SDK (in-memory span exporter and metric reader from opentelemetry-sdk-testing).
// A request carrying a traceparent in `params._meta` gets a SERVER span that is its child, named
// and attributed by the engine's conventions; a refused call records `error.type`; the operation
// histogram is recorded, and the session histogram once for a legacy session when it ends.
package mcpcore

import io.opentelemetry.api.common.AttributeKey
import io.opentelemetry.api.trace.SpanKind
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator
import io.opentelemetry.context.propagation.ContextPropagators
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.metrics.SdkMeterProvider
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

class TelemetryTest {
    @Test
    fun `a kotlin server records spans and durations by the conventions`() = runBlocking<Unit> {
        val spans = InMemorySpanExporter.create()
        val metrics = InMemoryMetricReader.create()
        val otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build()
        val server = Server(mcpcore.examples.echoRegistry(), "kotlin-otel", "1.0").withTelemetry(otel)
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            // A 2026-07-28 request carrying its caller's trace context in params._meta.
            val trace = "4bf92f3577b34da6a3ce929d0e0e4736"
            val body = """{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},
                "_meta":{"traceparent":"00-$trace-00f067aa0ba902b7-01",
                "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"""
            val request = HttpRequest.newBuilder(URI.create(serving.url()))
                .header("content-type", "application/json").header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28").header("mcp-method", "tools/call").header("mcp-name", "echo")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build()
            val response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString())
            assertEquals(200, response.statusCode(), response.body())
            val served = spans.finishedSpanItems.single { it.name == "tools/call echo" }
            assertEquals(SpanKind.SERVER, served.kind)
            assertEquals(trace, served.traceId, "the caller's trace")
            assertEquals("00f067aa0ba902b7", served.parentSpanId, "the caller's span is the parent")
            assertEquals("echo", served.attributes.get(AttributeKey.stringKey("gen_ai.tool.name")))
            assertEquals("tcp", served.attributes.get(AttributeKey.stringKey("network.transport")))

            // A legacy session: a refused call records error.type; its end, the session histogram.
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.LEGACY)).use { client ->
                runCatching { client.callTool("missing", "{}") }
            }
            val failed = spans.finishedSpanItems.single { it.name == "tools/call missing" }
            assertEquals("-32602", failed.attributes.get(AttributeKey.stringKey("error.type")))
            var names = emptySet<String>()
            for (i in 0 until 100) {
                names = metrics.collectAllMetrics().map { it.name }.toSet()
                if ("mcp.server.session.duration" in names) break
                delay(20)
            }
            assertTrue("mcp.server.operation.duration" in names, "$names")
            assertTrue("mcp.server.session.duration" in names, "$names")
        }
    }
}
