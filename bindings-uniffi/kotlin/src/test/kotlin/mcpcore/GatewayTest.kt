// A gateway built in Kotlin from a config (the Rust echo_server and the conformance fixture as
// stdio upstreams) with a Kotlin tool beside them, served on HTTP and called by the mcpcore
// client in both lineages.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class GatewayTest {
    private val config = """
        {"mcpServers": {
          "echo": {"command": "${Paths.rustEchoServer}", "include": ["echo"]},
          "fixture": {"command": "${Paths.cli}", "args": ["conformance-server", "--stdio"], "prefix": "fx.",
                      "protocolVersion": "2025-11-25", "include": ["test_simple_text"]}
        }}
    """.trimIndent()

    /** The host's own tool, beside the upstreams'. */
    class LocalTime : ToolHandler {
        override suspend fun call(call: ToolCall): ToolResult = textResult("noon in Kotlin")
    }

    @Test
    fun `a gateway from a config with a kotlin tool in both lineages`() = runBlocking {
        val registry = Registry()
        registry.addTool("local_time", "The host's own tool.", OBJECT_SCHEMA, LocalTime())
        val gateway = Gateway.start(config, registry)
        try {
            assertEquals(listOf("echo", "fixture"), gateway.upstreams())
            assertEquals(UpstreamStatus(UpstreamState.UP, 0u, null), gateway.status("echo"))
            assertNull(gateway.status("nope"))
            gateway.server("kotlin-gateway", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
                for (lineage in LINEAGES) {
                    Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                        assertEquals(lineage.expectedVersion(), client.protocolVersion())
                        assertEquals("kotlin-gateway", client.serverInfo()?.name)
                        val names = client.listTools().map { it.name }
                        assertEquals(listOf("echo__echo", "fx.test_simple_text", "local_time"), names)
                        assertEquals("through the gateway", client.callTool("echo__echo", """{"text":"through the gateway"}""").text())
                        assertTrue(client.callTool("fx.test_simple_text", "{}").text().lowercase().contains("simple text"))
                        assertEquals("noon in Kotlin", client.callTool("local_time", "{}").text())
                    }
                }
                serving.shutdown()
            }
        } finally {
            gateway.shutdown()
        }
        // Shut down: the upstreams' tools are gone, the host's stays.
        assertEquals(listOf("local_time"), registry.names())
    }

    @Test
    fun `a bad config is an error naming the entry`() = runBlocking {
        val e = assertThrows<McpException> {
            runBlocking { Gateway.start("""{"mcpServers": {"broken": {"args": []}}}""", Registry()) }
        }
        assertTrue(e.toString().contains("mcpServers.broken: needs"), e.toString())
    }
}
