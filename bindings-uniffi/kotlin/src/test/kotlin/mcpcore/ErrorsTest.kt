// (c) Errors, timeouts and cancellation, in both lineages: JSON-RPC codes and data survive as
// McpException fields; a timeout throws Timeout and cancels the Kotlin tool; cancelling the
// calling coroutine sends notifications/cancelled, which cancels the Kotlin tool's coroutine.
package mcpcore

import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.time.Duration
import kotlin.coroutines.cancellation.CancellationException

class ErrorsTest {
    private inline fun <reified E : Throwable> thrown(block: () -> Unit): E {
        val e = runCatching(block).exceptionOrNull()
        assertTrue(e is E, "expected ${E::class.simpleName}, got $e")
        return e as E
    }

    @Test
    fun `json-rpc errors keep their code and data in both lineages`() = runBlocking {
        Server(fixtureRegistry(), "kotlin-errors", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val unknown = thrown<McpException.Rpc> { client.callTool("nope", "{}") }
                    assertEquals(-32602, unknown.code)
                    assertTrue(unknown.reason.contains("nope"), unknown.reason)

                    // SEP-1303 (2025-11-25, 2026-07-28): a result the model can read.
                    val invalid = client.callTool("echo", """{"text":5}""")
                    assertTrue(invalid.isError, "schema validation ($lineage)")
                    assertTrue(invalid.text().startsWith("Invalid arguments for tool echo: /text: "), invalid.text())

                    val rpc = thrown<McpException.Rpc> { client.callTool("rpc_fail", "{}") }
                    assertEquals(-32042, rpc.code)
                    assertEquals("rpc failure from kotlin", rpc.reason)
                    assertEquals("""{"n":7,"why":"testing"}""", rpc.data)

                    val failed = client.callTool("fail", "{}")
                    assertTrue(failed.isError)
                    assertTrue(failed.text().contains("IllegalStateException") && failed.text().contains("the fail tool failed"), failed.text())

                    val badJson = thrown<McpException.InvalidInput> { client.callTool("echo", "{not json") }
                    assertEquals(-32602, badJson.code)

                    val method = thrown<McpException.Rpc> { client.request("no/such/method", "{}") }
                    assertEquals(-32601, method.code)
                }
            }
        }
    }

    @Test
    fun `registration errors and connection failures are typed`() = runBlocking {
        val r = Registry()
        val badName = thrown<McpException.InvalidInput> { r.addTool("bad name!", "", OBJECT_SCHEMA, Fail()) }
        assertEquals(-32602, badName.code)
        thrown<McpException.InvalidInput> { r.addTool("x", "", """{"type":"string"}""", Fail()) }
        r.addTool("x", "", OBJECT_SCHEMA, Fail())
        thrown<McpException.InvalidInput> { r.addTool("x", "", OBJECT_SCHEMA, Fail()) }

        thrown<McpException.Transport> { Client.connectStdio("/nonexistent/mcp-server", emptyList()) }
        // A process that exits at once: the connection closes during negotiation.
        val gone = runCatching { Client.connectStdio("true", emptyList()) }.exceptionOrNull()
        assertTrue(gone is McpException.Closed || gone is McpException.Protocol, "$gone")
        thrown<McpException.Transport> { Client.connectHttp("http://127.0.0.1:9/mcp") }
        Unit
    }

    @Test
    fun `a timeout throws Timeout and cancels the kotlin tool in both lineages`() = runBlocking {
        for (lineage in LINEAGES) {
            val slow = Slow()
            Server(fixtureRegistry(slow), "kotlin-timeout", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val started = System.nanoTime()
                    val e = thrown<McpException.Timeout> {
                        client.callTool("slow", "{}", CallOptions(timeout = Duration.ofMillis(300)))
                    }
                    val tookMs = (System.nanoTime() - started) / 1_000_000
                    assertEquals(-32001, e.code)
                    assertTrue(tookMs in 250..5_000, "took $tookMs ms")
                    withTimeout(10_000) { slow.cancelled.await() }
                    // The connection still works after a timeout.
                    assertEquals("still here", client.callTool("echo", """{"text":"still here"}""").text())
                }
            }
        }
    }

    @Test
    fun `cancelling the coroutine cancels the call on the server in both lineages`() = runBlocking {
        for (lineage in LINEAGES) {
            val slow = Slow()
            Server(fixtureRegistry(slow), "kotlin-cancel", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val call = async(start = CoroutineStart.UNDISPATCHED) { client.callTool("slow", "{}") }
                    withTimeout(10_000) { slow.started.await() }
                    call.cancel()
                    assertThrows(CancellationException::class.java) { runBlocking { call.await() } }
                    withTimeout(10_000) { slow.cancelled.await() }
                    assertEquals("after", client.callTool("echo", """{"text":"after"}""").text())
                }
            }
        }
    }

    @Test
    fun `an in-process registry call times out and cancels the kotlin tool`() = runBlocking {
        for (lineage in LINEAGES) {
            // Beside a live stdio connection to the Kotlin echo server, which stays usable.
            Client.connectStdio(Paths.runEchoServer, emptyList(), ConnectOptions(lineage = lineage, env = kotlinEnv())).use { client ->
                val slow = Slow()
                val r = Registry()
                r.addTool("slow", "", OBJECT_SCHEMA, slow)
                val e = thrown<McpException.Timeout> { r.callTool("slow", "{}", Duration.ofMillis(200)) }
                assertEquals(-32001, e.code)
                withTimeout(10_000) { slow.cancelled.await() }
                assertEquals("ok", client.callTool("echo", """{"text":"ok"}""").text())
            }
        }
    }
}
