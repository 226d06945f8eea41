// (b) Kotlin calls tools of mcpcore servers: the Rust echo_server over stdio and HTTP, and a
// Kotlin server in this JVM, in both lineages.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ClientTest {
    private suspend fun exercise(client: Client, lineage: Lineage) {
        assertEquals(lineage, client.lineage())
        assertEquals(lineage.expectedVersion(), client.protocolVersion())
        val tools = client.listTools()
        assertEquals(listOf("add", "echo"), tools.map { it.name }.filter { it == "add" || it == "echo" })
        val add = tools.first { it.name == "add" }
        assertTrue(add.inputSchema.contains("\"number\""), add.inputSchema)
        assertNotNull(add.outputSchema)

        val echoed = client.callTool("echo", """{"text":"hi from kotlin"}""")
        assertEquals(false, echoed.isError)
        assertEquals("hi from kotlin", echoed.text())

        val added = client.callTool("add", """{"a":1.5,"b":2}""")
        assertEquals(false, added.isError)
        assertTrue(added.structuredContent!!.replace(" ", "").matches(Regex("""\{"sum":3\.5\}""")), added.structuredContent)
    }

    @Test
    fun `kotlin calls the rust echo server over stdio in both lineages`() = runBlocking {
        for (lineage in LINEAGES) {
            Client.connectStdio(Paths.rustEchoServer, emptyList(), ConnectOptions(lineage = lineage)).use { client ->
                assertEquals("mcpcore-echo", client.serverInfo()?.name)
                assertNotNull(client.serverPid())
                exercise(client, lineage)
                client.disconnect()
                val closed = runCatching { client.callTool("echo", """{"text":"x"}""") }.exceptionOrNull()
                assertTrue(closed is McpException.Closed, "$closed")
            }
        }
    }

    @Test
    fun `kotlin calls the rust echo server over http in both lineages`() = runBlocking {
        HttpChild(listOf(Paths.rustEchoServer, "--http", "127.0.0.1:0")).use { rust ->
            for (lineage in LINEAGES) {
                Client.connectHttp(rust.url, ConnectOptions(lineage = lineage)).use { client ->
                    exercise(client, lineage)
                    client.disconnect()
                }
            }
        }
    }

    @Test
    fun `kotlin calls a kotlin server over http with automatic negotiation`() = runBlocking {
        Server(fixtureRegistry(), "kotlin-http", "1.0", "be nice").serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url()).use { client ->
                assertEquals(Lineage.MODERN, client.lineage())
                assertEquals("kotlin-http", client.serverInfo()?.name)
                assertEquals("be nice", client.instructions())
                exercise(client, Lineage.MODERN)
                // A pinned legacy revision.
                Client.connectHttp(serving.url(), ConnectOptions(protocolVersion = "2025-06-18")).use { legacy ->
                    assertEquals("2025-06-18", legacy.protocolVersion())
                    assertEquals("hi", legacy.callTool("echo", """{"text":"hi"}""").text())
                }
            }
            serving.shutdown()
        }
    }

    @Test
    fun `log messages reach a subscription until it is closed`() = runBlocking {
        Server(fixtureRegistry(), "kotlin-logs", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val seen = java.util.concurrent.CopyOnWriteArrayList<String>()
                    val listener = object : LogListener {
                        override fun onLog(level: String, logger: String?, data: String) {
                            seen.add("$level $logger $data")
                        }
                    }
                    val opts = CallOptions(logLevel = "debug")
                    val sub = client.onLog(listener)
                    assertEquals("logged", client.callTool("logs", "{}", opts).text())
                    waitFor { seen.isNotEmpty() }
                    assertEquals("info tests \"a log line from kotlin\"", seen.first(), "$lineage")
                    sub.close()
                    val before = seen.size
                    assertEquals("logged", client.callTool("logs", "{}", opts).text())
                    Thread.sleep(200)
                    assertEquals(before, seen.size, "no messages after the subscription closed ($lineage)")
                }
            }
        }
    }
}

/** Polls `ok` for up to 5 s. */
fun waitFor(ok: () -> Boolean) {
    val deadline = System.nanoTime() + 5_000_000_000L
    while (!ok()) {
        if (System.nanoTime() > deadline) throw AssertionError("condition not met within 5 s")
        Thread.sleep(20)
    }
}
