// The Kotlin client's session API: tasks through their handle (the Rust fixture_server --tasks,
// 2026-07-28 Tasks extension), list pages and the lists as Flows, ping and the log level,
// notifications on the legacy GET stream and on the client's own 2026-07-28 listen stream, one
// command line, the version after disconnect, and a 401 with its challenge.
package mcpcore

import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/** Answers every elicitation with the name Ada. */
private class Ada : ClientInput {
    override fun kinds() = InputKinds(elicitation = true)
    override suspend fun elicit(request: ElicitRequest) = ElicitAnswer(ElicitAction.ACCEPT, """{"name":"Ada"}""")
    override suspend fun createMessage(params: String): String = throw IllegalStateException("no sampling")
    override suspend fun listRoots(): List<Root> = emptyList()
}

class ClientSessionTest {
    private val fixture: String get() = File(Paths.bin, "fixture_server").path

    @Test
    fun `tasks through their handle`() = runBlocking {
        val opts = ConnectOptions(input = Ada(), timeout = java.time.Duration.ofSeconds(10))
        Client.connectStdio(fixture, listOf("--tasks"), opts).use { c ->
            val task = c.callToolAsTask("task_sleep", """{"ms":50}""")
            val id = task.id()
            assertNotNull(id, "a task was created")
            assertEquals(id, task.status().taskId)
            assertEquals("slept", task.result().text())
            assertEquals("completed", task.status().status)
            assertEquals("hello Ada", c.callToolAsTask("task_ask", "{}").result().text())
            val long = c.callToolAsTask("task_sleep", """{"ms":60000}""")
            long.cancel()
            val e = runCatching { long.result() }.exceptionOrNull()
            assertTrue(e is McpException.Cancelled, "$e")
            // A tool that runs only as a task: callTool runs it as one.
            assertEquals("only", c.callTool("task_only", "{}").text())
        }
    }

    @Test
    fun `pages, ping, the log level, and the version after disconnect`() = runBlocking {
        val c = Client.connectStdio("$fixture --page-size 3", emptyList())
        val first = c.listToolsPage()
        assertEquals(3, first.tools.size)
        val names = first.tools.map { it.name }.toMutableList()
        var cursor = first.nextCursor
        while (cursor != null) {
            val page = c.listToolsPage(cursor)
            names += page.tools.map { it.name }
            cursor = page.nextCursor
        }
        assertEquals(c.listTools().map { it.name }.sorted(), names.sorted())
        c.ping()
        c.setLogLevel("error")
        assertTrue(c.serverCapabilities().contains("tools"))
        c.disconnect()
        assertEquals("2026-07-28", c.protocolVersion(), "what negotiation settled stays readable")
        val bad = runCatching { Client.connectStdio("${Paths.rustEchoServer} '--oops", emptyList()) }.exceptionOrNull()
        assertTrue(bad is McpException.InvalidInput && bad.reason.contains("unbalanced quotes"), "$bad")
    }

    @Test
    fun `list changes reach a notification listener over the legacy GET stream`() = runBlocking {
        val registry = fixtureRegistry()
        Server(registry, "kotlin-changes", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.LEGACY)).use { c ->
                val seen = LinkedBlockingQueue<ServerNotification>()
                val sub = c.onNotification(object : NotificationListener {
                    override fun onNotification(notification: ServerNotification) { seen.add(notification) }
                })
                registry.addTool("later", "Added while serving.", OBJECT_SCHEMA, Logs())
                assertEquals(ServerNotification.ToolsChanged, seen.poll(10, TimeUnit.SECONDS))
                assertTrue("later" in c.listTools().map { it.name }, "the tools cache was dropped")
                sub.cancel()
            }
        }
    }

    @Test
    fun `2026-07-28 notifications come on the client's own listen stream`() = runBlocking {
        val registry = fixtureRegistry()
        val resources = Resources()
        resources.add("mem://a", "a", TextReader("a"))
        Server(registry, "kotlin-listen", "1.0", resources = resources).serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.MODERN)).use { c ->
                val seen = LinkedBlockingQueue<ServerNotification>()
                val sub = c.onNotification(object : NotificationListener {
                    override fun onNotification(notification: ServerNotification) { seen.add(notification) }
                })
                c.subscribeResource("mem://a")
                // What the server agreed to send (it serves no prompts).
                assertEquals(ListenFilter(true, false, true, listOf("mem://a")), c.notificationsReady())
                registry.addTool("later", "Added while serving.", OBJECT_SCHEMA, Logs())
                assertEquals(ServerNotification.ToolsChanged, seen.poll(10, TimeUnit.SECONDS))
                assertTrue("later" in c.listTools().map { it.name }, "the tools cache was dropped")
                resources.notifyUpdated("mem://a")
                // A list change may be announced more than once (a listen stream that reconnects
                // hears it again; the spec allows repeats): the update comes after any repeats.
                var next = seen.poll(10, TimeUnit.SECONDS)
                while (next == ServerNotification.ToolsChanged) next = seen.poll(10, TimeUnit.SECONDS)
                assertEquals(ServerNotification.ResourceUpdated("mem://a"), next)
                // Without the listener the stream carries only the subscribed resource; then nothing.
                sub.cancel()
                assertEquals(ListenFilter(false, false, false, listOf("mem://a")), c.notificationsReady())
                c.unsubscribeResource("mem://a")
                assertNull(c.notificationsReady())
            }
        }
    }

    @Test
    fun `the lists as flows, fetched page by page`() = runBlocking {
        Client.connectStdio("$fixture --page-size 3", emptyList()).use { c ->
            val names = c.tools().map { it.name }.toList()
            assertTrue(names.size > 3, "more than one page: $names")
            assertEquals(c.listTools().map { it.name }, names)
            assertEquals(names.take(2), c.tools().take(2).map { it.name }.toList())
        }
        catalogServer().serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url()).use { c ->
                assertEquals(c.listResources(), c.resources().toList())
                assertEquals(c.listResourceTemplates(), c.resourceTemplates().toList())
                assertEquals(c.listPrompts(), c.prompts().toList())
            }
        }
    }

    @Test
    fun `a 401 throws Auth with the challenge`() = runBlocking {
        val served = HttpChild(listOf(Paths.rustEchoServer, "--http", "127.0.0.1:0", "--auth-jwks", "http://127.0.0.1:9/jwks",
            "--auth-issuer", "http://127.0.0.1:9", "--auth-audience", "http://127.0.0.1/mcp"))
        served.use {
            val e = runCatching { Client.connectHttp(served.url) }.exceptionOrNull()
            assertTrue(e is McpException.Auth, "$e")
            e as McpException.Auth
            assertEquals(401, e.status.toInt())
            assertEquals("unauthorized", e.error)
            assertTrue(e.challenge?.startsWith("Bearer ") == true && e.challenge!!.contains("resource_metadata="), "${e.challenge}")
        }
    }
}
