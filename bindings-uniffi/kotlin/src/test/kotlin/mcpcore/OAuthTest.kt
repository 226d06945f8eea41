// OAuth from Kotlin: Client.connectHttp(url, ConnectOptions(auth = OAuth(...))) against a real
// authorization server (oauth2-mock-server from npm, tests/interop/oauth/mock_as.mjs) in front of
// the official Python SDK's protected server (tests/interop/python/sdk_auth_server.py). The user
// step is a Kotlin OAuthHandler (suspend fun authorize); tokens go to a Kotlin OAuthTokenStore.
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
import java.net.URI
import java.util.Collections
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit

/** A child that prints `READY <url>`, then maybe `EVENT <json>` lines (collected). */
private class ReadyChild(cmd: List<String>) : AutoCloseable {
    private val process: Process = ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val url: String
    val events: MutableList<String> = Collections.synchronizedList(mutableListOf())

    init {
        val reader = process.inputStream.bufferedReader()
        var found: String? = null
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
        while (found == null && System.nanoTime() < deadline) {
            val line = reader.readLine() ?: break
            if (line.startsWith("READY ")) found = line.removePrefix("READY ").trim()
        }
        url = found ?: run { process.destroyForcibly(); throw AssertionError("no READY from $cmd") }
        Thread {
            reader.lineSequence().forEach { if (it.startsWith("EVENT ")) events.add(it.removePrefix("EVENT ")) }
        }.apply { isDaemon = true }.start()
    }

    fun authorizations(): Int {
        Thread.sleep(100)
        return events.count { it.contains("\"event\":\"authorize\"") }
    }

    override fun close() {
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }
}

/** Follows nothing: returns where the authorization endpoint redirects (the mock approves). */
private class ScriptedBrowser : OAuthHandler {
    val seen: MutableList<String> = Collections.synchronizedList(mutableListOf())
    override fun redirectUri(): String = REDIRECT_URI
    override suspend fun authorize(url: String): String = withContext(Dispatchers.IO) {
        seen.add(url)
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

private class MapStore : OAuthTokenStore {
    val tokens = ConcurrentHashMap<String, String>()
    val clients = ConcurrentHashMap<String, String>()
    override suspend fun loadTokens(server: String): String? = tokens[server]
    override suspend fun saveTokens(server: String, tokens: String?) {
        if (tokens == null) this.tokens.remove(server) else this.tokens[server] = tokens
    }
    override suspend fun loadClient(issuer: String): String? = clients[issuer]
    override suspend fun saveClient(issuer: String, client: String?) {
        if (client == null) clients.remove(issuer) else clients[issuer] = client
    }
}

private const val REDIRECT_URI = "http://127.0.0.1:9/callback"

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OAuthTest {
    private lateinit var authServer: ReadyChild
    private lateinit var server: ReadyChild

    @BeforeAll
    fun start() {
        val interop = File(Paths.repo, "tests/interop")
        val python = System.getenv("MCPCORE_PYTHON") ?: File(Paths.repo, ".venv/bin/python").path
        assertTrue(File(interop, "oauth/node_modules/oauth2-mock-server").isDirectory, "run npm ci in tests/interop/oauth")
        authServer = ReadyChild(listOf("node", File(interop, "oauth/mock_as.mjs").path))
        server = ReadyChild(listOf(python, File(interop, "python/sdk_auth_server.py").path, "--issuer", authServer.url, "--scope", "mcp:read"))
    }

    @AfterAll
    fun stop() {
        server.close()
        authServer.close()
    }

    @Test
    fun `the flow with a Kotlin hook and store, then a restart from the store`() = runBlocking {
        val browser = ScriptedBrowser()
        val store = MapStore()
        val before = authServer.authorizations()
        val auth = OAuth(OAuthOptions(clientId = "kotlin-tests"), browser, store)
        Client.connectHttp(server.url, ConnectOptions(auth = auth)).use { client ->
            assertEquals("authorized", client.callTool("echo", """{"text":"authorized"}""").text())
        }
        assertEquals(1, browser.seen.size)
        assertTrue(browser.seen[0].contains("code_challenge_method=S256"), browser.seen[0])
        assertEquals(before + 1, authServer.authorizations())
        val saved = store.tokens[server.url] ?: throw AssertionError("no tokens stored for ${server.url}: ${store.tokens.keys}")
        assertTrue(saved.contains("\"issuer\":\"${authServer.url}\""), saved)
        assertEquals(saved, auth.tokens(server.url))

        val again = OAuth(OAuthOptions(clientId = "kotlin-tests"), browser, store)
        Client.connectHttp(server.url, ConnectOptions(auth = again, lineage = Lineage.LEGACY)).use { client ->
            assertEquals("again", client.callTool("echo", """{"text":"again"}""").text())
        }
        assertEquals(1, browser.seen.size, "the stored token served the restart")
        assertEquals(before + 1, authServer.authorizations())
    }

    @Test
    fun `failures are typed McpException Auth`() = runBlocking {
        val refused = runCatching { Client.connectHttp(server.url) }.exceptionOrNull()
        assertTrue(refused is McpException.Auth, "$refused")
        refused as McpException.Auth
        assertEquals("invalid_token", refused.error)
        assertEquals(401.toUShort(), refused.status)

        val givesUp = object : OAuthHandler {
            override fun redirectUri() = REDIRECT_URI
            override suspend fun authorize(url: String): String = throw McpException.Tool(-32603, "the user closed the window", null)
        }
        val failed = runCatching { Client.connectHttp(server.url, ConnectOptions(auth = OAuth(OAuthOptions(clientId = "k"), givesUp))) }
            .exceptionOrNull()
        assertTrue(failed is McpException.Auth && failed.error == "interaction_failed", "$failed")
        assertTrue((failed as McpException.Auth).errorDescription!!.contains("the user closed the window"))

        val badConfig = runCatching { OAuth(OAuthOptions(grant = OAuthGrant.JWT_BEARER)) }.exceptionOrNull()
        assertTrue(badConfig is McpException.InvalidInput, "$badConfig")
    }
}
