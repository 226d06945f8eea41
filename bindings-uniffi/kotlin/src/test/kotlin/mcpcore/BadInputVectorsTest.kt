// The shared bad-input vectors (tests/vectors/bad-input/, see its README) against the Kotlin
// servers: examples/kotlin/run-echo-server on stdio, and a Server of Kotlin tools serving HTTP in
// this JVM, so the Kotlin binding answers bad input exactly as the Rust, Python and Node servers do.
package mcpcore

import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.ByteArrayOutputStream
import java.io.File
import java.net.Socket
import java.util.concurrent.TimeUnit

class BadInputVectorsTest {
    private fun vectors(name: String): JsonObject =
        JsonParser.parseString(File(Paths.repo, "tests/vectors/bad-input/$name").readText()).asJsonObject

    /** The bytes of a `send` or `body` object. */
    private fun bytes(body: JsonObject): ByteArray = when {
        body.has("json") -> body.get("json").toString().toByteArray()
        body.has("text") -> body.get("text").asString.toByteArray()
        body.has("hex") -> body.get("hex").asString.chunked(2).map { it.toInt(16).toByte() }.toByteArray()
        else -> {
            val out = ByteArrayOutputStream()
            for (part in body.getAsJsonArray("repeat")) {
                val chunk = part.asJsonArray[0].asString.toByteArray()
                repeat(part.asJsonArray[1].asInt) { out.write(chunk) }
            }
            out.toByteArray()
        }
    }

    /** Ids compare as JSON values (1 and 1.0 alike), null included. */
    private fun sameId(a: JsonElement?, b: JsonElement?): Boolean {
        val x = a ?: JsonNull.INSTANCE
        val y = b ?: JsonNull.INSTANCE
        if (x.isJsonPrimitive && y.isJsonPrimitive && x.asJsonPrimitive.isNumber && y.asJsonPrimitive.isNumber) {
            return x.asBigDecimal.compareTo(y.asBigDecimal) == 0
        }
        return x == y
    }

    /** Why `got` does not meet `expect`, or null when it does. */
    private fun mismatch(got: JsonObject, expect: JsonObject): String? {
        if (expect.has("code")) {
            val code = got.getAsJsonObject("error")?.get("code")?.asInt
            if (code != expect.get("code").asInt) return "expected code ${expect.get("code")}, got $got"
        }
        if (expect.has("result") && !got.has("result")) return "expected a result, got $got"
        if (expect.has("isError") && got.getAsJsonObject("result")?.get("isError")?.asBoolean != true) {
            return "expected a result with isError, got $got"
        }
        if (expect.has("id") && !sameId(got.get("id"), expect.get("id"))) return "expected id ${expect.get("id")}, got $got"
        return null
    }

    private val alive = """{"jsonrpc":"2.0","id":"alive","method":"tools/list","params":{"_meta":{""" +
        """"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"""

    @Test
    fun `stdio vectors`() {
        for (session in vectors("stdio.json").getAsJsonArray("sessions").map { it.asJsonObject }) {
            val name = session.get("name").asString
            val pb = ProcessBuilder(Paths.runEchoServer).redirectError(ProcessBuilder.Redirect.DISCARD)
            pb.environment().putAll(kotlinEnv())
            val p = pb.start()
            try {
                val out = p.outputStream
                val reader = p.inputStream.bufferedReader()
                for ((i, step) in session.getAsJsonArray("steps").map { it.asJsonObject }.withIndex()) {
                    out.write(bytes(step.getAsJsonObject("send")))
                    out.write('\n'.code)
                    out.flush()
                    val expect = step.get("expect")
                    if (expect.isJsonNull) continue
                    val line = reader.readLine() ?: throw AssertionError("$name, step $i: the server closed stdout")
                    mismatch(JsonParser.parseString(line).asJsonObject, expect.asJsonObject)?.let {
                        throw AssertionError("$name, step $i: $it")
                    }
                }
                out.write("$alive\n".toByteArray())
                out.flush()
                val last = JsonParser.parseString(reader.readLine()).asJsonObject
                assertEquals("alive", last.get("id").asString, "$name: $last")
                assertTrue(last.getAsJsonObject("result").get("tools").isJsonArray, "$name: $last")
            } finally {
                p.destroyForcibly()
                p.waitFor(5, TimeUnit.SECONDS)
            }
        }
    }

    /** One raw HTTP/1.1 request on a fresh connection: the status and the de-chunked body. */
    private fun exchange(host: String, port: Int, method: String, headers: List<Pair<String, String>>, body: ByteArray?): Pair<Int, ByteArray> {
        val head = StringBuilder("$method /mcp HTTP/1.1\r\n")
        if (headers.none { it.first.equals("host", ignoreCase = true) }) head.append("Host: $host:$port\r\n")
        for ((k, v) in headers) head.append("$k: $v\r\n")
        if (body != null) head.append("Content-Length: ${body.size}\r\n")
        head.append("Connection: close\r\n\r\n")
        Socket(host, port).use { sock ->
            sock.soTimeout = 20_000
            sock.getOutputStream().write(head.toString().toByteArray(Charsets.UTF_8))
            try {
                if (body != null) sock.getOutputStream().write(body)
                sock.getOutputStream().flush()
            } catch (e: java.io.IOException) {
                // the server may answer (and close) before reading a body it refuses
            }
            val raw = ByteArrayOutputStream()
            try {
                sock.getInputStream().copyTo(raw)
            } catch (e: java.net.SocketException) {
                // a reset after the answer
            }
            val all = raw.toByteArray()
            val text = String(all, Charsets.ISO_8859_1)
            val split = text.indexOf("\r\n\r\n")
            check(split >= 0) { "no complete response: ${text.take(200)}" }
            val lines = text.substring(0, split).split("\r\n")
            var rest = all.copyOfRange(split + 4, all.size)
            if (lines.any { it.lowercase().startsWith("transfer-encoding:") && it.lowercase().contains("chunked") }) {
                rest = dechunk(rest)
            }
            return lines[0].split(" ")[1].toInt() to rest
        }
    }

    private fun dechunk(body: ByteArray): ByteArray {
        val out = ByteArrayOutputStream()
        var at = 0
        while (true) {
            val text = String(body, at, body.size - at, Charsets.ISO_8859_1)
            val eol = text.indexOf("\r\n")
            if (eol < 0) break
            val size = text.substring(0, eol).trim().toInt(16)
            if (size == 0) break
            out.write(body, at + eol + 2, size)
            at += eol + 2 + size + 2
        }
        return out.toByteArray()
    }

    @Test
    fun `http vectors`() = runBlocking {
        Server(fixtureRegistry(), "kotlin-vectors", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            val url = java.net.URI(serving.url())
            val doc = vectors("http.json")
            val failures = mutableListOf<String>()
            for (case in doc.getAsJsonArray("cases").map { it.asJsonObject }) {
                val name = case.get("name").asString
                val headers = case.getAsJsonArray("headers").map { it.asJsonArray[0].asString to it.asJsonArray[1].asString }
                val body = if (case.has("body")) bytes(case.getAsJsonObject("body")) else null
                val (status, got) = exchange(url.host, url.port, case.get("method").asString, headers, body)
                val expect = case.getAsJsonObject("expect")
                val text = String(got, Charsets.UTF_8).take(300)
                if (status != expect.get("status").asInt) {
                    failures += "$name: status $status, expected ${expect.get("status")}: $text"
                    continue
                }
                if (expect.has("empty") && got.isNotEmpty()) failures += "$name: expected no body, got $text"
                if (expect.has("code") || expect.has("isError")) {
                    val v = runCatching { JsonParser.parseString(String(got, Charsets.UTF_8)).asJsonObject }.getOrNull()
                    if (v == null) failures += "$name: not JSON: $text"
                    else mismatch(v, expect)?.let { failures += "$name: $it" }
                }
            }
            val headers = listOf("Accept" to "application/json, text/event-stream", "Content-Type" to "application/json",
                "MCP-Protocol-Version" to "2026-07-28", "Mcp-Method" to "tools/list")
            val (status, got) = exchange(url.host, url.port, "POST", headers, alive.toByteArray())
            assertTrue(failures.isEmpty(), "${failures.size} of ${doc.getAsJsonArray("cases").size()} cases failed:\n" + failures.joinToString("\n"))
            assertEquals(200, status, String(got))
            serving.shutdown()
        }
    }
}
