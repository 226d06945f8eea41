// (a) A Kotlin tool, served by mcpcore from Kotlin, called by the Rust mcpcore CLI over stdio
// (examples/kotlin/run-echo-server as the child) and over HTTP, in both lineages.
package mcpcore

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ServeTest {
    @Test
    fun `the rust cli calls kotlin tools over stdio in both lineages`() {
        for (lineage in LINEAGES) {
            val listed = run(listOf(Paths.cli, "tools", "--lineage", lineage.flag(), "--", Paths.runEchoServer))
            assertEquals(0, listed.code, listed.stderr)
            assertTrue(listed.stdout.contains("\"protocolVersion\": \"${lineage.expectedVersion()}\""), listed.stdout)
            assertTrue(listed.stdout.contains("\"name\": \"mcpcore-echo-kotlin\""), listed.stdout)
            assertTrue(listed.stdout.contains("\"name\": \"add\"") && listed.stdout.contains("\"name\": \"echo\""))

            val echoed = run(listOf(Paths.cli, "call", "echo", """{"text":"hi from rust ${lineage.flag()}"}""",
                "--lineage", lineage.flag(), "--", Paths.runEchoServer))
            assertEquals(0, echoed.code, echoed.stderr)
            assertTrue(echoed.stdout.contains("\"text\": \"hi from rust ${lineage.flag()}\""), echoed.stdout)

            val added = run(listOf(Paths.cli, "call", "add", """{"a":2,"b":3.5}""",
                "--lineage", lineage.flag(), "--", Paths.runEchoServer))
            assertEquals(0, added.code, added.stderr)
            assertTrue(added.stdout.contains("\"sum\": 5.5"), added.stdout)
        }
    }

    @Test
    fun `the rust cli calls kotlin tools over http in both lineages`() = runBlocking {
        val server = Server(fixtureRegistry(), "kotlin-http", "1.0", "instructions from kotlin")
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            assertTrue(serving.url().startsWith("http://127.0.0.1:") && serving.url().endsWith("/mcp"))
            for (lineage in LINEAGES) {
                val listed = run(listOf(Paths.cli, "tools", serving.url(), "--lineage", lineage.flag()))
                assertEquals(0, listed.code, listed.stderr)
                assertTrue(listed.stdout.contains("\"protocolVersion\": \"${lineage.expectedVersion()}\""), listed.stdout)
                assertTrue(listed.stdout.contains("\"name\": \"slow\""), listed.stdout)

                val echoed = run(listOf(Paths.cli, "call", "echo", """{"text":"over http"}""", serving.url(),
                    "--lineage", lineage.flag()))
                assertEquals(0, echoed.code, echoed.stderr)
                assertTrue(echoed.stdout.contains("\"text\": \"over http\""), echoed.stdout)

                // A Kotlin exception is an isError result: the CLI exits 2 and prints it.
                val failed = run(listOf(Paths.cli, "call", "fail", "{}", serving.url(), "--lineage", lineage.flag()))
                assertEquals(2, failed.code, failed.stderr)
                assertTrue(failed.stdout.contains("the fail tool failed"), failed.stdout)
                assertTrue(failed.stdout.contains("\"isError\": true"), failed.stdout)

                // A thrown McpException.Rpc reaches the Rust client as that JSON-RPC error.
                val rpc = run(listOf(Paths.cli, "call", "rpc_fail", "{}", serving.url(), "--lineage", lineage.flag()))
                assertEquals(1, rpc.code)
                assertTrue(rpc.stderr.contains("-32042") && rpc.stderr.contains("rpc failure from kotlin"), rpc.stderr)
            }
            serving.shutdown()
        }
    }

    @Test
    fun `the kotlin echo client example talks to the kotlin and rust echo servers`() {
        val viaStdio = run(listOf(Paths.runEchoClient, "hello kotlin", "--", Paths.runEchoServer))
        assertEquals(0, viaStdio.code, viaStdio.stderr)
        // Automatic negotiation: a JVM that starts slower than the client's 5 s `server/discover`
        // probe is (correctly) spoken to in the legacy lineage, so accept either revision here.
        val lines = viaStdio.stdout.trim().lines()
        assertEquals("hello kotlin", lines.first())
        assertTrue(lines.last() in listOf("protocol 2026-07-28", "protocol 2025-11-25"), lines.last())

        HttpChild(listOf(Paths.rustEchoServer, "--http", "127.0.0.1:0")).use { rust ->
            val viaHttp = run(listOf(Paths.runEchoClient, rust.url, "hello rust"))
            assertEquals(0, viaHttp.code, viaHttp.stderr)
            assertEquals(listOf("hello rust", "protocol 2026-07-28"), viaHttp.stdout.trim().lines())
        }
    }

    @Test
    fun `the kotlin echo server example serves http`() {
        HttpChild(listOf(Paths.runEchoServer, "--http", "127.0.0.1:0")).use { kotlin ->
            val r = run(listOf(Paths.cli, "call", "echo", """{"text":"to the kotlin example"}""", kotlin.url))
            assertEquals(0, r.code, r.stderr)
            assertTrue(r.stdout.contains("to the kotlin example"), r.stdout)
        }
    }

    /** The status line's code of a modern `tools/list` POSTed to 127.0.0.1:[port] with `Host: [host]`. */
    private fun statusFor(port: Int, host: String): Int {
        val body = """{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{""" +
            """"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},""" +
            """"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}"""
        java.net.Socket("127.0.0.1", port).use { s ->
            s.soTimeout = 10_000
            val head = "POST /mcp HTTP/1.1\r\nHost: $host\r\nAccept: application/json, text/event-stream\r\n" +
                "Content-Type: application/json\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n" +
                "Content-Length: ${body.toByteArray().size}\r\nConnection: close\r\n\r\n"
            s.getOutputStream().write((head + body).toByteArray())
            val status = s.getInputStream().bufferedReader().readLine() ?: ""
            return status.split(" ").getOrNull(1)?.toIntOrNull() ?: -1
        }
    }

    @Test
    fun `a wildcard bind refuses DNS names it was not given (DNS rebinding)`() = runBlocking {
        val server = Server(fixtureRegistry(), "kotlin-rebinding", "1.0")
        server.serveHttp("0.0.0.0", 0u).use { serving ->
            val port = serving.url().substringAfterLast(':').substringBefore('/').toInt()
            assertEquals(403, statusFor(port, "evil.example:$port"), "a re-pointed name")
            assertEquals(200, statusFor(port, "127.0.0.1:$port"), "an IP address")
            assertEquals(200, statusFor(port, "localhost:$port"))
            serving.shutdown()
        }
        server.serveHttp("0.0.0.0", 0u, options = ServeOptions(allowedHosts = listOf("mcp.example.com"))).use { serving ->
            val port = serving.url().substringAfterLast(':').substringBefore('/').toInt()
            assertEquals(200, statusFor(port, "mcp.example.com"), "an allow-listed name")
            assertEquals(403, statusFor(port, "evil.example"))
            serving.shutdown()
        }
    }

    @Test
    fun `serves on a unix socket of mode 0600 that the client reaches`() = runBlocking {
        val dir = java.nio.file.Files.createTempDirectory("mcpcore-kt-uds")
        val sock = dir.resolve("kt.sock")
        Server(fixtureRegistry(), "kotlin-uds", "1.0").serveHttp("127.0.0.1", 0u, options = ServeOptions(unix = sock.toString())).use { serving ->
            assertTrue(serving.url().startsWith("http+unix://%2F"), serving.url())
            val perms = java.nio.file.Files.getPosixFilePermissions(sock)
            assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"), perms)
            for (url in listOf(serving.url(), "unix:$sock")) {
                Client.connectHttp(url).use { assertEquals("uds", it.callTool("echo", """{"text":"uds"}""").text()) }
            }
            serving.shutdown()
        }
        assertTrue(!java.nio.file.Files.exists(sock), "removed at shutdown")
        java.nio.file.Files.deleteIfExists(dir)
        Unit
    }

    @Test
    fun `serverCard reads the card of a served endpoint before connecting`() = runBlocking {
        Server(fixtureRegistry(), "kotlin-card", "3.1").serveHttp("127.0.0.1", 0u).use { serving ->
            val card = serverCard(serving.url())
            assertTrue(card.contains("\"\$schema\":\"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json\""), card)
            assertTrue(card.contains("\"name\":\"127.0.0.1/kotlin-card\"") && card.contains("\"version\":\"3.1\""), card)
            assertTrue(card.contains("\"url\":\"${serving.url()}\""), card)
            serving.shutdown()
        }
    }

    @Test
    fun `closing the HttpServing handle stops the server`() = runBlocking {
        val serving = Server(fixtureRegistry(), "kotlin-close", "1.0").serveHttp("127.0.0.1", 0u)
        val url = serving.url()
        Client.connectHttp(url).use { assertEquals("up", it.callTool("echo", """{"text":"up"}""").text()) }
        serving.close() // the Rust handle is dropped: a graceful shutdown starts
        var refused = false
        for (attempt in 0 until 100) { // at most ~5 s
            refused = runCatching { Client.connectHttp(url).close() }.exceptionOrNull() is McpException.Transport
            if (refused) break
            delay(50)
        }
        assertTrue(refused, "the server still answers after its handle was closed")
    }
}
