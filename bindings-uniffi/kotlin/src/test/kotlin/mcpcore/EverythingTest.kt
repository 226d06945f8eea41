// @modelcontextprotocol/server-everything (pinned in tests/interop/ts) driven by the Kotlin client
// over stdio, legacy Streamable HTTP and the 2024-11-05 SSE transport: every tool it offers a
// client declaring sampling, elicitation (form and URL) and roots, as listed in
// tests/vectors/everything/tools.json (the Rust, Python and Node tests run the same file). A
// Kotlin ClientInput answers its sampling and elicitation tools, its task-required tool runs as a
// task, and logs, resource updates and a roots change arrive over each transport.
package mcpcore

import com.google.gson.JsonObject
import com.google.gson.JsonParser
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

private val vector: JsonObject =
    JsonParser.parseString(File(Paths.repo, "tests/vectors/everything/tools.json").readText()).asJsonObject
private val host: JsonObject = vector.getAsJsonObject("host")
private val ts = File(Paths.repo, "tests/interop/ts")
private val everything = File(ts, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")

/** The host's answers, from the vector. */
private class EverythingHost : ClientInput {
    val asked = CopyOnWriteArrayList<String>()
    override fun kinds() = InputKinds(elicitation = true, elicitationUrl = true, sampling = true)

    override suspend fun elicit(request: ElicitRequest): ElicitAnswer {
        asked.add("elicitation")
        if (request.mode == "url") return ElicitAnswer(ElicitAction.ACCEPT)
        return ElicitAnswer(ElicitAction.ACCEPT, host.getAsJsonObject("elicitation").toString())
    }

    override suspend fun createMessage(params: String): String {
        asked.add("sampling")
        val text = host.get("sampling").asString
        return """{"role":"assistant","content":{"type":"text","text":"$text"},"model":"test-model"}"""
    }

    override suspend fun listRoots(): List<Root> = throw IllegalStateException("roots come from ConnectOptions.roots")
}

private fun roots(key: String): List<Root> =
    host.getAsJsonArray(key).map { r -> r.asJsonObject.let { Root(it.get("uri").asString, it.get("name")?.asString) } }

/** A server-everything HTTP mode on a free loopback port. */
private class Everything(transport: String) : AutoCloseable {
    private val process = ProcessBuilder("node", File(ts, "everything.mjs").path, "--transport", transport, "--port", "0")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start()
    val url: String = process.inputStream.bufferedReader().readLine()?.removePrefix("READY ")?.trim()
        ?: run { process.destroyForcibly(); throw AssertionError("everything.mjs printed nothing") }

    override fun close() {
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }
}

private fun <T> LinkedBlockingQueue<T>.next(what: String): T =
    poll(20, TimeUnit.SECONDS) ?: throw AssertionError("no $what arrived")

private suspend fun everyTool(client: Client, h: EverythingHost): Int {
    val logs = LinkedBlockingQueue<String>()
    val updates = LinkedBlockingQueue<String>()
    val logSub = client.onLog(object : LogListener {
        override fun onLog(level: String, logger: String?, data: String) { logs.add(data) }
    })
    val notes = client.onNotification(object : NotificationListener {
        override fun onNotification(notification: ServerNotification) {
            if (notification is ServerNotification.ResourceUpdated) updates.add(notification.uri)
        }
    })
    fun nextLog(containing: String) { while (!logs.next("log").contains(containing)) Unit }

    val calls = vector.getAsJsonArray("calls").map { it.asJsonObject }
    assertEquals(calls.map { it.get("tool").asString }.sorted(), client.listTools().map { it.name }.sorted(),
        "the tools offered are the tools of the vector")
    val subscribed = vector.get("subscribe").asString
    client.subscribeResource(subscribed)
    var passed = 0
    for (call in calls) {
        val name = call.get("tool").asString
        val seen = CopyOnWriteArrayList<Double>()
        val before = h.asked.size
        val r = client.callTool(name, call.getAsJsonObject("arguments").toString(), CallOptions(), object : ProgressListener {
            override fun onProgress(progress: Double, total: Double?, message: String?) { seen.add(progress) }
        })
        val text = r.content.filterIsInstance<Content.Text>().joinToString("\n") { it.text }
        assertTrue(!r.isError, "$name: $text")
        call.getAsJsonArray("text")?.forEach { assertTrue(text.contains(it.asString), "$name: ${it.asString} not in $text") }
        val types = r.content.map {
            when (it) {
                is Content.Text -> "text"
                is Content.Image -> "image"
                is Content.Audio -> "audio"
                is Content.Other -> JsonParser.parseString(it.json).asJsonObject.get("type").asString
            }
        }
        call.getAsJsonArray("types")?.forEach { assertTrue(it.asString in types, "$name: no ${it.asString} in $types") }
        call.getAsJsonArray("structured")?.forEach {
            val structured = r.structuredContent?.let { s -> JsonParser.parseString(s).asJsonObject }
            assertTrue(structured?.has(it.asString) == true, "$name: ${it.asString}")
        }
        call.get("progress")?.let { assertEquals(it.asInt, seen.size, "$name: progress") }
        call.get("log")?.let { nextLog(it.asString) }
        if (call.get("resource_updated")?.asBoolean == true) assertEquals(subscribed, updates.next("resources/updated"))
        if (Regex("^trigger-(elicitation|url|sampling)").containsMatchIn(name) || call.get("task")?.asBoolean == true) {
            assertTrue(h.asked.size > before, "$name: the host was not asked")
        }
        passed++
    }
    // The roots change: the server asks again (and says so in a log), then lists the new roots.
    client.setRoots(roots("roots_later"))
    nextLog("Roots updated: 2 root(s)")
    val listed = client.callTool("get-roots-list", "{}").content.filterIsInstance<Content.Text>().joinToString { it.text }
    assertTrue(listed.contains("file:///srv/second-root"), listed)
    logSub.cancel()
    notes.cancel()
    return passed
}

private fun options(h: EverythingHost) = ConnectOptions(input = h, roots = roots("roots"), timeout = java.time.Duration.ofSeconds(30))

class EverythingTest {
    @Test
    fun `stdio - every tool`() = runBlocking {
        assertTrue(everything.exists(), "$everything: run npm ci in tests/interop/ts")
        val h = EverythingHost()
        Client.connectStdio("node ${everything.path} stdio", emptyList(), options(h)).use { client ->
            assertEquals("2025-11-25", client.protocolVersion())
            assertEquals(17, everyTool(client, h))
        }
    }

    @Test
    fun `streamable HTTP - every tool`() = runBlocking {
        Everything("streamableHttp").use { served ->
            val h = EverythingHost()
            Client.connectHttp(served.url, options(h)).use { client -> assertEquals(17, everyTool(client, h)) }
        }
    }

    @Test
    fun `2024-11-05 SSE - every tool`() = runBlocking {
        Everything("sse").use { served ->
            val h = EverythingHost()
            // The 2024-11-05 transport would otherwise speak 2024-11-05, which has no elicitation.
            val opts = options(h).copy(transport = HttpTransport.SSE, protocolVersion = "2025-11-25")
            Client.connectHttp(served.url, opts).use { client -> assertEquals(17, everyTool(client, h)) }
        }
    }
}
