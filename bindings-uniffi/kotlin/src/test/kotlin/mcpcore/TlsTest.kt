// HTTPS from Kotlin: serveHttp(..., ServeOptions(tlsCertFile, tlsKeyFile)) and
// Client.connectHttp(url, ConnectOptions(caFile = ...)) in both lineages, mutual TLS, the
// refusals, and the connection limits. The test CA is made by the test with the openssl command.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assertions.fail
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.nio.file.Files

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsTest {
    private val dir: File = Files.createTempDirectory("mcpcore-kotlin-pki").toFile()
    private fun f(name: String) = File(dir, name).path

    private fun ssl(vararg args: String) {
        val r = run(listOf("openssl") + args.toList())
        assertEquals(0, r.code, r.stderr)
    }

    init {
        ssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=mcpcore kotlin test CA", "-keyout", f("ca.key"), "-out", f("ca.pem"),
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        for ((name, san) in listOf("server" to "IP:127.0.0.1,DNS:localhost", "client" to "DNS:client.test")) {
            File(dir, "$name.ext").writeText("subjectAltName=$san\nbasicConstraints=CA:FALSE\n")
            ssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=$name",
                "-keyout", f("$name.key"), "-out", f("$name.csr"))
            ssl("x509", "-req", "-in", f("$name.csr"), "-CA", f("ca.pem"), "-CAkey", f("ca.key"), "-CAcreateserial",
                "-days", "2", "-extfile", f("$name.ext"), "-out", f("$name.pem"))
        }
    }

    @AfterAll
    fun cleanup() {
        dir.deleteRecursively()
    }

    private suspend fun refused(block: suspend () -> Unit): McpException {
        try {
            block()
        } catch (e: McpException) {
            return e
        }
        fail<Unit>("expected an McpException")
        throw IllegalStateException()
    }

    @Test
    fun `both lineages over https with the test CA`() = runBlocking {
        val options = ServeOptions(tlsCertFile = f("server.pem"), tlsKeyFile = f("server.key"))
        Server(fixtureRegistry(), "kotlin-tls", "1.0").serveHttp("127.0.0.1", 0u, "/mcp", options).use { serving ->
            assertTrue(serving.url().startsWith("https://127.0.0.1:"), serving.url())
            for ((lineage, version) in listOf(Lineage.MODERN to "2026-07-28", Lineage.LEGACY to "2025-11-25")) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage, caFile = f("ca.pem"))).use { c ->
                    assertEquals(version, c.protocolVersion())
                    assertEquals("tls", c.callTool("echo", """{"text":"tls"}""").text())
                }
            }
            val e = refused { Client.connectHttp(serving.url()) }
            assertTrue(e is McpException.Transport, "$e")
            assertTrue(e.message!!.lowercase().contains("certificate"), e.message)
            serving.shutdown()
        }
    }

    @Test
    fun `mutual tls`() = runBlocking {
        val options = ServeOptions(tlsCertFile = f("server.pem"), tlsKeyFile = f("server.key"), tlsClientCaFile = f("ca.pem"))
        Server(fixtureRegistry(), "kotlin-mtls", "1.0").serveHttp("127.0.0.1", 0u, "/mcp", options).use { serving ->
            val withCert = ConnectOptions(caFile = f("ca.pem"), clientCert = f("client.pem"), clientKey = f("client.key"))
            Client.connectHttp(serving.url(), withCert).use { c ->
                assertEquals("mutual", c.callTool("echo", """{"text":"mutual"}""").text())
            }
            val e = refused { Client.connectHttp(serving.url(), ConnectOptions(caFile = f("ca.pem"))) }
            assertTrue(e is McpException.Transport, "$e")
            serving.shutdown()
        }
    }

    @Test
    fun `the abuse limits are taken and the server serves within them`() = runBlocking {
        val options = ServeOptions(
            maxSessions = 10u, maxSessionsPerClient = 2u, sessionIdleMs = 60000u, maxBacklog = 1048576u,
            maxInFlight = 4u, maxTasksPerClient = 2u, peerRequestTimeoutMs = 5000u,
            stateEncryption = true, stateSingleUse = true,
        )
        Server(fixtureRegistry(), "kotlin-limits", "1.0").serveHttp("127.0.0.1", 0u, "/mcp", options).use { serving ->
            for (lineage in listOf(Lineage.MODERN, Lineage.LEGACY)) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { c ->
                    assertEquals("limits", c.callTool("echo", """{"text":"limits"}""").text())
                }
            }
        }
    }

    @Test
    fun `bad options name what is wrong`() = runBlocking {
        val server = Server(fixtureRegistry(), "kotlin-bad", "1.0")
        val half = refused { server.serveHttp("127.0.0.1", 0u, "/mcp", ServeOptions(tlsCertFile = f("server.pem"))) }
        assertTrue(half is McpException.InvalidInput && half.message!!.contains("tlsCertFile and tlsKeyFile go together"), "$half")
        val zero = refused { server.serveHttp("127.0.0.1", 0u, "/mcp", ServeOptions(maxConnections = 0u)) }
        assertTrue(zero is McpException.InvalidInput && zero.message!!.contains("maxConnections must be positive"), "$zero")
        val quota = refused { server.serveHttp("127.0.0.1", 0u, "/mcp", ServeOptions(maxSessionsPerClient = 0u)) }
        assertTrue(quota is McpException.InvalidInput && quota.message!!.contains("maxSessionsPerClient must be positive"), "$quota")
        val inFlight = refused { server.serveHttp("127.0.0.1", 0u, "/mcp", ServeOptions(maxInFlight = 0u)) }
        assertTrue(inFlight is McpException.InvalidInput && inFlight.message!!.contains("maxInFlight must be positive"), "$inFlight")
        val key = refused { Client.connectHttp("https://127.0.0.1:1/mcp", ConnectOptions(clientCert = f("client.pem"))) }
        assertTrue(key is McpException.InvalidInput, "$key")
    }
}
