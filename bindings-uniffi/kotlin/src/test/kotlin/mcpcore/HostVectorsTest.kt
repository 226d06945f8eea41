// The shared host-results vectors (tests/vectors/host-results/, see its README): a Kotlin tool
// answering with a value gets exactly the result the Rust, Python and Node bindings send for the
// same value; and every engine error kind arrives as its own McpException with code and data.
package mcpcore

import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File
import java.util.Base64
import kotlin.reflect.KClass

class HostVectorsTest {
    private fun cases(name: String): List<JsonObject> =
        JsonParser.parseString(File(Paths.repo, "tests/vectors/host-results/$name.json").readText())
            .asJsonObject.getAsJsonArray("cases").map { it.asJsonObject }

    private fun json(text: String): JsonElement = JsonParser.parseString(text)

    /** `{"$bytes": b64}` alone is a Kotlin ByteArray. */
    private fun bytesOf(v: JsonElement): ByteArray? =
        v.takeIf { it.isJsonObject && it.asJsonObject.size() == 1 && it.asJsonObject.has("\$bytes") }
            ?.let { Base64.getDecoder().decode(it.asJsonObject.get("\$bytes").asString) }

    /** A Kotlin tool answering with the case's value: bytes as a ByteArray, the rest as JSON. */
    private class Answers(val value: JsonElement, val bytes: ByteArray?) : ToolHandler {
        override suspend fun call(call: ToolCall): ToolResult = bytes?.let { bytesResult(it) } ?: valueResult(value.toString())
    }

    @TestFactory
    fun `a Kotlin tool answering with the value sends the vector's result`(): List<DynamicTest> =
        cases("tool").filter { !(it.get("wrapped")?.asBoolean ?: false) }.map { c ->
            DynamicTest.dynamicTest("tool: ${c.get("name").asString}") {
                val r = Registry()
                r.addTool("t", "t", OBJECT_SCHEMA, Answers(c.get("value"), bytesOf(c.get("value"))))
                val result = runBlocking { r.callTool("t", "{}") }
                assertEquals(c.get("expect"), json(toolResultJson(result)))
            }
        }

    @TestFactory
    fun `the core's rules give every vector's result`(): List<DynamicTest> =
        listOf("tool" to "tool", "resource" to "resource", "prompt" to "prompt", "completion" to "completer").flatMap { (file, kind) ->
            cases(file).map { c ->
                DynamicTest.dynamicTest("$file: ${c.get("name").asString}") {
                    val run = {
                        hostResult(
                            kind, c.get("value").toString(),
                            uri = c.get("uri")?.asString, mimeType = c.get("mime")?.takeIf { !it.isJsonNull }?.asString,
                            wrapped = c.get("wrapped")?.asBoolean ?: false,
                        )
                    }
                    val expect = c.get("expect")
                    if (expect.isJsonObject && expect.asJsonObject.has("error") && expect.asJsonObject.size() == 1) {
                        val e = runCatching(run).exceptionOrNull()
                        assertTrue(e is McpException.InvalidInput, "expected InvalidInput, got $e")
                    } else {
                        assertEquals(expect, json(run()))
                    }
                }
            }
        }

    private val classes: Map<String, KClass<out McpException>> = mapOf(
        "rpc" to McpException.Rpc::class,
        "timeout" to McpException.Timeout::class,
        "cancelled" to McpException.Cancelled::class,
        "closed" to McpException.Closed::class,
        "protocol" to McpException.Protocol::class,
        "transport" to McpException.Transport::class,
        "invalid_input" to McpException.InvalidInput::class,
        "tool" to McpException.Tool::class,
        "http" to McpException.Http::class,
        "input_required" to McpException.InputRequired::class,
        "resource_not_found" to McpException.ResourceNotFound::class,
        "auth" to McpException.Auth::class,
    )

    @Test
    fun `every engine error kind has its own exception with code and data`() {
        val kinds = errorKinds()
        assertEquals(classes.keys, kinds.toSet(), "every kind of the engine is mapped, and nothing else")
        for (kind in kinds) {
            val e = runCatching { raiseExample(kind) }.exceptionOrNull()
            assertTrue(classes.getValue(kind).isInstance(e), "$kind: got $e")
            e as McpException
            val (code, data) = e.code() to e.data()
            assertNotEquals(0, code, kind)
            if (kind in setOf("rpc", "resource_not_found", "http")) assertEquals(json("""{"kind":"$kind"}"""), json(data!!), kind)
        }
        val missing = runCatching { raiseExample("resource_not_found") }.exceptionOrNull() as McpException.ResourceNotFound
        assertEquals(-32002, missing.code)
        assertEquals(missing.code, missing.code(), "code() is the variant's code")
        val http = runCatching { raiseExample("http") }.exceptionOrNull() as McpException.Http
        assertEquals(401.toUShort(), http.status)
        val auth = runCatching { raiseExample("auth") }.exceptionOrNull() as McpException.Auth
        assertEquals("invalid_grant", auth.error)
        assertEquals("auth example", auth.errorDescription)
        assertEquals("https://as.example/errors#invalid_grant", auth.errorUri)
        assertEquals(400.toUShort(), auth.status)
    }
}
