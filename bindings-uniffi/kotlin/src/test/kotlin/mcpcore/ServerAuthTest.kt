// A protected server written in Kotlin: Server.serveHttp(auth = ServerAuth(...)) with the core's
// JWT verifier against a real authorization server (oauth2-mock-server, tests/interop/oauth),
// reached by the Kotlin OAuth client through the whole flow; and with a Kotlin TokenVerifier.
// `add` needs the scope mcp:add and is hidden from callers without it; handlers see the caller
// on ToolCall.identity().
package mcpcore

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.net.HttpURLConnection
import java.net.ServerSocket
import java.net.URI
import java.util.concurrent.TimeUnit

/** Answers with the caller's identity as the handler sees it. */
private class WhoAmI : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult = textResult(call.identity() ?: "anonymous")
}

/** oauth2-mock-server (tests/interop/oauth/mock_as.mjs): prints `READY <issuer>`. */
private class AuthorizationServer : AutoCloseable {
    private val process: Process
    val issuer: String

    init {
        val script = File(Paths.repo, "tests/interop/oauth/mock_as.mjs")
        assertTrue(File(Paths.repo, "tests/interop/oauth/node_modules/oauth2-mock-server").isDirectory, "run npm ci in tests/interop/oauth")
        process = ProcessBuilder("node", script.path).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val reader = process.inputStream.bufferedReader()
        var found: String? = null
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
        while (found == null && System.nanoTime() < deadline) {
            val line = reader.readLine() ?: break
            if (line.startsWith("READY ")) found = line.removePrefix("READY ").trim()
        }
        issuer = found ?: run { process.destroyForcibly(); throw AssertionError("no READY from $script") }
        Thread { reader.lineSequence().forEach { } }.apply { isDaemon = true }.start()
    }

    override fun close() {
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }
}

/** The user step: the mock approves at once, so the redirect is the authorization response. */
private class Approve : OAuthHandler {
    override fun redirectUri(): String = "http://127.0.0.1:9/callback"
    override suspend fun authorize(url: String): String = withContext(Dispatchers.IO) {
        val c = URI(url).toURL().openConnection() as HttpURLConnection
        c.instanceFollowRedirects = false
        try {
            assertEquals(302, c.responseCode)
            c.getHeaderField("Location")
        } finally {
            c.disconnect()
        }
    }
}

/** Tokens the Kotlin verifier knows; `down` plays an unreachable issuer. */
private class TableVerifier : TokenVerifier {
    override suspend fun verify(token: String): AuthIdentity = when (token) {
        "alice" -> AuthIdentity(subject = "alice", clientId = "ops", scopes = listOf("mcp:add"), claims = """{"team":"blue"}""")
        "bob" -> AuthIdentity(subject = "bob", scopes = listOf())
        "down" -> throw TokenRefused.Unavailable("the issuer is down")
        "crash" -> throw IllegalStateException("a bug in the verifier")
        else -> throw TokenRefused.InvalidToken("unknown token")
    }
}

/** A raw POST of a 2026-07-28 `tools/list`: (status, WWW-Authenticate, body). */
private fun rawList(url: String, token: String?): Triple<Int, String?, String> {
    val c = URI(url).toURL().openConnection() as HttpURLConnection
    c.requestMethod = "POST"
    c.doOutput = true
    c.setRequestProperty("Content-Type", "application/json")
    c.setRequestProperty("Accept", "application/json, text/event-stream")
    c.setRequestProperty("MCP-Protocol-Version", "2026-07-28")
    c.setRequestProperty("Mcp-Method", "tools/list")
    if (token != null) c.setRequestProperty("Authorization", "Bearer $token")
    val body = """{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",""" +
        """"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"""
    c.outputStream.use { it.write(body.toByteArray()) }
    val status = c.responseCode
    val text = (if (status < 400) c.inputStream else c.errorStream)?.bufferedReader()?.readText() ?: ""
    return Triple(status, c.getHeaderField("WWW-Authenticate"), text).also { c.disconnect() }
}

private fun registry(): Registry = mcpcore.examples.echoRegistry().apply {
    addTool("whoami", "The caller.", OBJECT_SCHEMA, WhoAmI())
}

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerAuthTest {
    private lateinit var authServer: AuthorizationServer

    @BeforeAll
    fun start() {
        authServer = AuthorizationServer()
    }

    @AfterAll
    fun stop() = authServer.close()

    @Test
    fun `a Kotlin server checks JWTs of a real authorization server and hides what a token does not reach`() = runBlocking {
        // The audience is the server's canonical URI, so the port is chosen first.
        val port = ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }
        val url = "http://127.0.0.1:$port/mcp"
        val auth = ServerAuth(AuthSettings(
            jwksUrl = "${authServer.issuer}/jwks", issuer = authServer.issuer, audience = url,
            scopesSupported = listOf("mcp:read", "mcp:add"), toolScopes = mapOf("add" to listOf("mcp:add")),
        ))
        assertEquals("http://127.0.0.1:$port/.well-known/oauth-protected-resource/mcp", auth.metadataUrl())
        Server(registry(), "kotlin-protected", "1.0").serveHttp("127.0.0.1", port.toUShort(), auth = auth).use { serving ->
            assertEquals(url, serving.url())
            // No token: 401 naming the metadata, which names the authorization server.
            val (status, challenge, _) = rawList(url, null)
            assertEquals(401, status)
            assertTrue(challenge!!.contains("resource_metadata=\"${auth.metadataUrl()}\""), challenge)
            val prm = URI(auth.metadataUrl()!!).toURL().readText()
            assertTrue(prm.contains("\"authorization_servers\":[\"${authServer.issuer}\"]"), prm)
            assertTrue(prm.contains("\"resource\":\"$url\""), prm)
            // A forged token is refused as invalid.
            val (forged, why, _) = rawList(url, "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
            assertEquals(401, forged)
            assertTrue(why!!.contains("error=\"invalid_token\""), why)

            for (lineage in LINEAGES) {
                // Only mcp:read: `add` is not listed and calling it is answered like an unknown tool.
                val reader = OAuth(OAuthOptions(clientId = "kotlin-reader", scopes = listOf("mcp:read")), Approve())
                Client.connectHttp(url, ConnectOptions(auth = reader, lineage = lineage)).use { client ->
                    assertEquals(listOf("echo", "whoami"), client.listTools().map { it.name }.sorted(), "$lineage")
                    val hidden = runCatching { client.callTool("add", """{"a":1,"b":2}""") }.exceptionOrNull()
                    assertTrue(hidden is McpException && hidden.code() == -32602 && hidden.toString().contains("Unknown tool"), "$lineage: $hidden")
                    val me = client.callTool("whoami", "{}").text()
                    assertTrue(me.contains("\"scopes\":[\"mcp:read\"]"), "$lineage: $me")
                }
                // With mcp:add it is listed and runs.
                val adder = OAuth(OAuthOptions(clientId = "kotlin-adder", scopes = listOf("mcp:read", "mcp:add")), Approve())
                Client.connectHttp(url, ConnectOptions(auth = adder, lineage = lineage)).use { client ->
                    assertEquals(listOf("add", "echo", "whoami"), client.listTools().map { it.name }.sorted(), "$lineage")
                    assertTrue(client.callTool("add", """{"a":2,"b":3}""").text().contains("5"), "$lineage")
                }
            }
            serving.shutdown()
        }
    }

    @Test
    fun `a Kotlin TokenVerifier decides, and its refusals are 401 and 503`() = runBlocking {
        val auth = ServerAuth(AuthSettings(issuer = "https://as.example", audience = "https://mcp.example/mcp",
            toolScopes = mapOf("add" to listOf("mcp:add"))), TableVerifier())
        Server(registry(), "kotlin-verifier", "1.0").serveHttp("127.0.0.1", 0u, auth = auth).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(bearerToken = "alice", lineage = lineage)).use { client ->
                    val me = client.callTool("whoami", "{}").text()
                    assertTrue(me.contains("\"subject\":\"alice\"") && me.contains("\"team\":\"blue\""), "$lineage: $me")
                    assertTrue(client.callTool("add", """{"a":2,"b":3}""").text().contains("5"), "$lineage")
                }
                Client.connectHttp(serving.url(), ConnectOptions(bearerToken = "bob", lineage = lineage)).use { client ->
                    assertEquals(listOf("echo", "whoami"), client.listTools().map { it.name }.sorted(), "$lineage")
                }
            }
            val (unknown, challenge, _) = rawList(serving.url(), "mallory")
            assertEquals(401, unknown)
            assertTrue(challenge!!.contains("error=\"invalid_token\"") && challenge.contains("unknown token"), challenge)
            assertEquals(503, rawList(serving.url(), "down").first)
            // An exception the verifier did not mean is a failed check (503), not a crash.
            assertEquals(503, rawList(serving.url(), "crash").first)
            // The server kept serving.
            assertEquals(200, rawList(serving.url(), "alice").first)
            serving.shutdown()
        }
    }

    @Test
    fun `bad settings are McpException InvalidInput`() {
        val missing = runCatching { ServerAuth(AuthSettings(issuer = "https://as.example", audience = "https://r")) }.exceptionOrNull()
        assertTrue(missing is McpException.InvalidInput && missing.toString().contains("jwksUrl"), "$missing")
        val mode = runCatching {
            ServerAuth(AuthSettings(issuer = "https://as", audience = "https://r", scopeMode = "loud"), TableVerifier())
        }.exceptionOrNull()
        assertTrue(mode is McpException.InvalidInput && mode.toString().contains("scopeMode"), "$mode")
        val dpop = runCatching {
            ServerAuth(AuthSettings(issuer = "https://as", audience = "https://r", dpop = "on"), TableVerifier())
        }.exceptionOrNull()
        assertTrue(dpop is McpException.InvalidInput && dpop.toString().contains("dpop must be"), "$dpop")
        val required = ServerAuth(AuthSettings(issuer = "https://as", audience = "https://r", dpop = "required"), TableVerifier())
        assertTrue(required.metadataUrl() != null)
    }
}
