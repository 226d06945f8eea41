// Local and remote tools in one registry, with the core's collision policy; the mixed registry
// served again over HTTP (a proxy) and called from the Rust CLI.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class RegistryTest {
    private fun localEcho(): Registry {
        val r = Registry()
        r.addTool("echo", "The local echo.", TEXT_SCHEMA, object : ToolHandler {
            override suspend fun call(call: ToolCall): ToolResult = textResult("local: ${call.stringArg("text")}")
        })
        return r
    }

    private suspend fun rust(): Client = Client.connectStdio(Paths.rustEchoServer, emptyList())

    @Test
    fun `prefix renames a colliding remote tool`() = runBlocking {
        val r = localEcho()
        val done = r.connect("rust", rust(), CollisionPolicy.PREFIX)
        assertTrue(done.contains(Registration.Renamed("echo", "rust_echo")), "$done")
        assertTrue(done.contains(Registration.Registered("add")), "$done")
        assertEquals(listOf("add", "echo", "rust_echo"), r.names())
        assertEquals(listOf("rust"), r.servers())
        assertEquals("local: hi", r.callTool("echo", """{"text":"hi"}""").text())
        assertEquals("hi", r.callTool("rust_echo", """{"text":"hi"}""").text())
        assertTrue(r.callTool("add", """{"a":1,"b":2}""").structuredContent!!.contains("3"))
        assertEquals(listOf("add", "rust_echo"), r.disconnect("rust").sorted())
        assertEquals(listOf("echo"), r.names())
    }

    @Test
    fun `loadConfig connects the servers of an mcpServers file beside the local tools`() = runBlocking {
        val r = localEcho()
        val config = """{"mcpServers": {"rust": {"command": "${Paths.rustEchoServer}", "args": []},
            "off": {"command": "nothing", "disabled": true}}, "globalShortcut": "ignored"}"""
        assertEquals(listOf("rust"), r.loadConfig(config))
        assertEquals(listOf("echo", "rust__add", "rust__echo"), r.names())
        assertEquals("hi", r.callTool("rust__echo", """{"text":"hi"}""").text())
        val unset = runCatching { r.loadConfig("""{"mcpServers": {"x": {"command": "${'$'}{env:MCPCORE_SURELY_UNSET}"}}}""") }
        val e = unset.exceptionOrNull()
        assertTrue(e is McpException.InvalidInput && "MCPCORE_SURELY_UNSET" in e.message.orEmpty(), "$e")
        assertEquals(listOf("add", "echo").map { "rust__$it" }, r.disconnect("rust").sorted())
    }

    @Test
    fun `skip keeps the local tool and error refuses the server`() = runBlocking {
        val r = localEcho()
        val done = r.connect("rust", rust(), CollisionPolicy.SKIP)
        assertTrue(done.contains(Registration.Skipped("echo")), "$done")
        assertEquals("local: x", r.callTool("echo", """{"text":"x"}""").text())
        r.disconnect("rust")

        val e = runCatching { r.connect("rust2", rust(), CollisionPolicy.ERROR) }.exceptionOrNull()
        assertTrue(e is McpException.InvalidInput, "$e")
        assertEquals(listOf("echo"), r.names(), "nothing of the refused server stays")
    }

    @Test
    fun `a mixed registry is served again and called from rust`() = runBlocking {
        val r = localEcho()
        r.connect("rust", rust(), CollisionPolicy.PREFIX)
        Server(r, "kotlin-proxy", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                val remote = run(listOf(Paths.cli, "call", "rust_echo", """{"text":"through the proxy"}""",
                    serving.url(), "--lineage", lineage.flag()))
                assertEquals(0, remote.code, remote.stderr)
                assertTrue(remote.stdout.contains("\"text\": \"through the proxy\""), remote.stdout)
                val local = run(listOf(Paths.cli, "call", "echo", """{"text":"k"}""", serving.url(), "--lineage", lineage.flag()))
                assertTrue(local.stdout.contains("local: k"), local.stdout)
            }
            serving.shutdown()
        }
        r.disconnect("rust")
        Unit
    }

    @Test
    fun `listing shows descriptors and results convert both ways`() {
        val r = mcpcore.examples.echoRegistry()
        val add = r.listTools().first { it.name == "add" }
        assertEquals("Adds two numbers.", add.description)
        assertTrue(add.json.contains("\"outputSchema\""), add.json)
        assertTrue(r.removeTool("add"))
        assertEquals(listOf("echo"), r.names())
        val s = structuredResult("""{"sum":1}""")
        assertEquals("""{"sum":1}""", s.structuredContent)
        assertTrue(errorResult("boom").isError)
        assertTrue(runCatching { structuredResult("{") }.exceptionOrNull() is McpException.InvalidInput)
    }
}
