// Middleware in Kotlin (issue 35): a Kotlin Middleware and the engine's ready-made ones on a
// Kotlin server, called by a Kotlin client over real HTTP in both lineages. The middleware sees
// the method, revision and headers, changes a request, answers one itself, refuses one with its
// own code and data (the client gets exactly that), and changes results on the way back.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** Records what it sees, refuses `secret`, answers `answered`, changes `echo`'s text, marks results. */
class Shape(val seen: MutableList<String>) : Middleware {
    override suspend fun handle(call: MiddlewareCall): String {
        seen.add("${call.method()} ${call.protocolVersion()} ${call.header("x-tenant")}")
        return when (call.tool()) {
            "secret" -> throw McpException.Rpc(-32042, "Forbidden by policy", """{"reason":"module_off"}""")
            "answered" -> """{"content":[{"type":"text","text":"from the middleware"}]}"""
            "echo" -> {
                val params = call.params().replace("\"text\":\"", "\"text\":\"changed: ")
                val result = call.next(params = params)
                result.replace("]", ",{\"type\":\"text\",\"text\":\"(seen)\"}]")
            }
            else -> call.next()
        }
    }
}

class MiddlewareTest {
    @Test
    fun `a kotlin middleware sees, changes, refuses and answers requests in both lineages`() = runBlocking<Unit> {
        val seen = mutableListOf<String>()
        val server = Server(mcpcore.examples.echoRegistry(), "kotlin-mw", "1.0").withMiddleware(Shape(seen))
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                seen.clear()
                val options = ConnectOptions(lineage = lineage, headers = mapOf("x-tenant" to "acme"))
                Client.connectHttp(serving.url(), options).use { client ->
                    val echoed = client.callTool("echo", """{"text":"hi"}""")
                    assertEquals(listOf("changed: hi", "(seen)"), echoed.content.filterIsInstance<Content.Text>().map { it.text })
                    assertEquals("from the middleware", client.callTool("answered", "{}").text())
                    val refused = runCatching { client.callTool("secret", "{}") }.exceptionOrNull()
                    assertTrue(refused is McpException.Rpc, "$lineage: $refused")
                    assertEquals(-32042, (refused as McpException).code())
                    assertEquals("""{"reason":"module_off"}""", refused.data())
                }
                assertTrue(seen.contains("tools/call ${lineage.expectedVersion()} acme"), "$lineage: $seen")
            }
        }
    }

    @Test
    fun `the ready-made middleware from kotlin`() = runBlocking<Unit> {
        val server = Server(fixtureRegistry(), "kotlin-ready", "1.0")
            .withRequestLog()
            .withRateLimit(0.01, 3u, methods = listOf("tools/call"))
            .withTimeouts(perToolMs = mapOf("slow" to 100uL))
            .withResponseLimit(1_000_000uL)
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.MODERN)).use { client ->
                val timedOut = runCatching { client.callTool("slow", "{}") }.exceptionOrNull() as McpException
                assertEquals(-32001, timedOut.code(), "$timedOut")
                assertTrue(timedOut.data()!!.contains("\"timeoutMs\":100"), timedOut.data())
                client.callTool("echo", """{"text":"1"}""")
                client.callTool("echo", """{"text":"2"}""")
                val limited = runCatching { client.callTool("echo", """{"text":"3"}""") }.exceptionOrNull() as McpException
                assertEquals(-32603, limited.code())
                assertTrue(limited.data()!!.contains("\"limit\":\"rate\""), limited.data())
                assertTrue(client.listTools().isNotEmpty(), "lists are not counted")
            }
        }
    }

    @Test
    fun `idempotent writes act once from kotlin`() = runBlocking<Unit> {
        val registry = Registry()
        val charged = Charge()
        registry.addTool(
            "charge", "Charges once per key",
            """{"type":"object","properties":{"idempotency_key":{"type":"string"},"amount":{"type":"number"}},"required":["idempotency_key","amount"]}""",
            charged,
        )
        Server(registry, "kotlin-idem", "1.0").withIdempotency(ttlMs = 60_000uL).serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val args = """{"idempotency_key":"k-$lineage","amount":5}"""
                    val first = client.callTool("charge", args).text()
                    assertEquals(first, client.callTool("charge", args).text(), "$lineage: the stored result")
                    val reused = runCatching { client.callTool("charge", """{"idempotency_key":"k-$lineage","amount":6}""") }.exceptionOrNull() as McpException
                    assertEquals(-32602, reused.code())
                    assertTrue(reused.data()!!.contains("idempotency_key_reused"), reused.data())
                }
            }
            assertEquals(2, charged.count.get(), "once per lineage's key")
        }
    }
}

/** Counts the `tools/list` requests that get past the list cache. */
class ListCounter : Middleware {
    val lists = java.util.concurrent.atomic.AtomicInteger()
    override suspend fun handle(call: MiddlewareCall): String {
        if (call.method() == "tools/list") lists.incrementAndGet()
        return call.next()
    }
}

class ListCacheTest {
    @Test
    fun `the list cache answers repeats until the catalogue changes`() = runBlocking<Unit> {
        // Legacy lineage: the client keeps no legacy lists itself, so each list reaches the server.
        val registry = Registry()
        registry.addTool("charge", "Charges.", """{"type":"object"}""", Charge())
        val counter = ListCounter()
        Server(registry, "kotlin-cache", "1.0").withListCache(60_000uL, 100uL).withMiddleware(counter)
            .serveHttp("127.0.0.1", 0u).use { serving ->
                Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.LEGACY)).use { client ->
                    repeat(3) { assertEquals(listOf("charge"), client.listTools().map { it.name }) }
                    assertEquals(1, counter.lists.get())
                    registry.addTool("later", "Added later.", """{"type":"object"}""", Charge())
                    assertEquals(listOf("charge", "later"), client.listTools().map { it.name })
                    assertEquals(2, counter.lists.get())
                }
            }
    }
}

/** Counts its calls. */
class Charge : ToolHandler {
    val count = java.util.concurrent.atomic.AtomicInteger()
    override suspend fun call(call: ToolCall): ToolResult = textResult("charge #${count.incrementAndGet()}")
}

/** Tool search and refusals from Kotlin (issue 35), over real HTTP in both lineages. */
class ToolSearchTest {
    @Test
    fun `a kotlin server searches its tools and refuses with a reason and a remedy`() = runBlocking<Unit> {
        val registry = mcpcore.examples.echoRegistry()
        registry.addTool(
            "close_invoice", "Closes an invoice given its id.",
            """{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}""",
            Refuse(),
        )
        Server(registry, "kotlin-search", "1.0").withToolSearch(listOf("echo")).serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    assertEquals(listOf("echo", "search_tools"), client.listTools().map { it.name }, "$lineage")
                    val found = client.callTool("search_tools", """{"query":"close an invoice","limit":3}""")
                    assertTrue(found.text().startsWith("close_invoice"), found.text())
                    val refused = client.callTool("close_invoice", """{"id":"inv-7"}""")
                    assertTrue(refused.isError, "$lineage")
                    assertEquals("Refused: reopen it first", refused.text())
                    assertTrue(refused.structuredContent!!.contains("\"reason\":\"record_read_only\""), refused.structuredContent)
                }
            }
        }
    }
}

/** Refuses every call: the invoice is read-only. */
class Refuse : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult =
        refusalResult("record_read_only", "reopen it first", "Refused: reopen it first", """{"id":"${call.stringArg("id")}"}""")
}
