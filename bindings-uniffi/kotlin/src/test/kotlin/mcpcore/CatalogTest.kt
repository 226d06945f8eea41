// (d) Resources, resource templates, prompts and completion: a Kotlin server's readers and
// renderers (answering through the core's host-value rules) called by a Kotlin client over real
// HTTP on 127.0.0.1 in both lineages, and the Rust conformance server (the mcpcore CLI) over
// stdio. Unknown resources and prompts keep their JSON-RPC code and data.
package mcpcore

import com.google.gson.JsonParser
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** Reads a fixed text resource. */
class TextReader(private val text: String) : ResourceReader {
    override suspend fun read(uri: String, variables: Map<String, String>, call: ToolCall): HostValue = HostValue.Text(text)
}

/** Reads a fixed binary resource. */
class BytesReader(private val data: ByteArray) : ResourceReader {
    override suspend fun read(uri: String, variables: Map<String, String>, call: ToolCall): HostValue = HostValue.Bytes(data)
}

/** A template reader answering a contents object (JSON) from the matched variables. */
class UserReader : ResourceReader {
    override suspend fun read(uri: String, variables: Map<String, String>, call: ToolCall): HostValue {
        val id = variables.getValue("id")
        if (id == "missing") throw McpException.ResourceNotFound(-32002, "no user $id", """{"uri":"$uri"}""")
        return HostValue.Json("""{"text":"user $id","mimeType":"text/x-user"}""")
    }
}

/** Answers a list of contents as JSON, one of them bytes (`{"$bytes": b64}`), or fails. */
class ListReader : ResourceReader {
    override suspend fun read(uri: String, variables: Map<String, String>, call: ToolCall): HostValue {
        if (uri.endsWith("broken")) throw IllegalStateException("the disk is on fire")
        return HostValue.Json("""[{"text":"part one"},{"${'$'}bytes":"AAEC"}]""")
    }
}

/** Renders a greeting from its arguments, as typed messages. */
class Greeting : PromptRenderer {
    override suspend fun render(arguments: Map<String, String>, call: ToolCall): HostValue {
        val style = arguments["style"] ?: "plain"
        return promptMessages(
            listOf(
                PromptMessage("user", Content.Text("Greet ${arguments.getValue("name")} ($style)")),
                PromptMessage("assistant", Content.Text("Hello, ${arguments.getValue("name")}!")),
            ),
            description = "a greeting",
        )
    }
}

/** Completes a name from the style already chosen (the completion context). */
class Names : ArgumentCompleter {
    override suspend fun complete(argument: String, value: String, context: Map<String, String>): List<String> =
        (1..150).map { "$value-${context["style"] ?: "none"}-$it" }
}

/** A renderer answering with a plain string: one user message. */
class Plain : PromptRenderer {
    override suspend fun render(arguments: Map<String, String>, call: ToolCall): HostValue = HostValue.Text("just text")
}

val PNG_BYTES = byteArrayOf(0x89.toByte(), 'P'.code.toByte(), 'N'.code.toByte(), 'G'.code.toByte(), 0, 1, 2, 0xff.toByte())

fun catalogServer(): Server {
    val resources = Resources()
    resources.add("mem://readme", "readme", TextReader("read me"), description = "The readme", mimeType = "text/markdown")
    resources.add("mem://logo", "logo", BytesReader(PNG_BYTES), mimeType = "image/png")
    resources.addTemplate("mem://users/{id}", "user", UserReader(), title = "A user")
    resources.add("mem://parts", "parts", ListReader(), mimeType = "application/x-parts")
    resources.add("mem://broken", "broken", ListReader())
    resources.complete("mem://users/{id}", "id", listOf("alice", "albert", "bob"))
    val prompts = Prompts()
    prompts.add(
        "greet", Greeting(), description = "Greets someone",
        arguments = listOf(PromptArgument("name", "Who", true), PromptArgument("style", null, false)),
    )
    prompts.add("plain", Plain())
    prompts.complete("greet", "style", listOf("formal", "friendly"))
    prompts.complete("greet", "name", completer = Names())
    return Server(mcpcore.examples.echoRegistry(), "kotlin-catalog", "1.0", resources = resources, prompts = prompts)
}

class CatalogTest {
    private inline fun <reified E : Throwable> thrown(block: () -> Unit): E {
        val e = runCatching(block).exceptionOrNull()
        assertTrue(e is E, "expected ${E::class.simpleName}, got $e")
        return e as E
    }

    @Test
    fun `a kotlin client reads a kotlin server's resources and prompts in both lineages`() = runBlocking {
        catalogServer().serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val listed = client.listResources()
                    assertEquals(listOf("mem://broken", "mem://logo", "mem://parts", "mem://readme"), listed.map { it.uri }.sorted(), "$lineage")
                    val readme = listed.first { it.uri == "mem://readme" }
                    assertEquals("readme", readme.name)
                    assertEquals("The readme", readme.description)
                    assertEquals("text/markdown", readme.mimeType)

                    assertEquals(
                        listOf(ResourceContents.Text("mem://readme", "text/markdown", "read me")),
                        client.readResource("mem://readme"), "$lineage",
                    )
                    val logo = client.readResource("mem://logo").single() as ResourceContents.Blob
                    assertEquals("mem://logo", logo.uri)
                    assertEquals("image/png", logo.mimeType)
                    assertArrayEquals(PNG_BYTES, logo.data)

                    val parts = client.readResource("mem://parts")
                    assertEquals(ResourceContents.Text("mem://parts", "application/x-parts", "part one"), parts[0])
                    val blob = parts[1] as ResourceContents.Blob
                    assertArrayEquals(byteArrayOf(0, 1, 2), blob.data)
                    assertEquals("application/x-parts", blob.mimeType)
                    // A reader's ordinary exception: -32603 with its description.
                    val broken = thrown<McpException.Rpc> { runBlocking { client.readResource("mem://broken") } }
                    assertEquals(-32603, broken.code(), "$lineage")
                    assertTrue(broken.reason.contains("the disk is on fire"), broken.reason)

                    val templates = client.listResourceTemplates()
                    assertEquals(listOf("mem://users/{id}"), templates.map { it.uriTemplate })
                    assertEquals("A user", templates.single().title)
                    assertEquals(
                        listOf(ResourceContents.Text("mem://users/alice", "text/x-user", "user alice")),
                        client.readResource("mem://users/alice"),
                    )
                    assertEquals(listOf("alice", "albert"), client.completeResource("mem://users/{id}", "id", "al").values)

                    val prompts = client.listPrompts().sortedBy { it.name }
                    assertEquals(listOf("greet", "plain"), prompts.map { it.name })
                    assertEquals(
                        listOf(PromptArgument("name", "Who", true), PromptArgument("style", null, false)),
                        prompts[0].arguments,
                    )
                    val greeting = client.getPrompt("greet", mapOf("name" to "Ada", "style" to "formal"))
                    assertEquals("a greeting", greeting.description)
                    assertEquals(
                        listOf(
                            PromptMessage("user", Content.Text("Greet Ada (formal)")),
                            PromptMessage("assistant", Content.Text("Hello, Ada!")),
                        ),
                        greeting.messages,
                    )
                    assertEquals(listOf(PromptMessage("user", Content.Text("just text"))), client.getPrompt("plain").messages)
                    assertEquals(listOf("formal", "friendly"), client.completePrompt("greet", "style", "f").values)
                    val names = client.completePrompt("greet", "name", "ad", mapOf("style" to "formal"))
                    assertEquals(100, names.values.size, "at most 100 values are sent")
                    assertEquals("ad-formal-1", names.values[0])
                    assertEquals(150uL, names.total)
                    assertTrue(names.hasMore)
                }
            }
            serving.shutdown()
        }
    }

    @Test
    fun `unknown resources and prompts keep their code and data`() = runBlocking {
        catalogServer().serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.LEGACY)).use { client ->
                val missing = thrown<McpException.ResourceNotFound> { runBlocking { client.readResource("mem://nope") } }
                assertEquals(-32002, missing.code)
                assertEquals(-32002, missing.code())
                assertEquals("mem://nope", JsonParser.parseString(missing.data()!!).asJsonObject.get("uri").asString)
                // A reader's own ResourceNotFound reaches the client with its code and data.
                val user = thrown<McpException.ResourceNotFound> { runBlocking { client.readResource("mem://users/missing") } }
                assertEquals(-32002, user.code())
                assertEquals("""{"uri":"mem://users/missing"}""", user.data())
            }
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val prompt = thrown<McpException.Rpc> { runBlocking { client.getPrompt("nope") } }
                    assertEquals(-32602, prompt.code(), "$lineage")
                    assertTrue(prompt.reason.contains("nope"), prompt.reason)
                    val noArg = thrown<McpException.Rpc> { runBlocking { client.getPrompt("greet") } }
                    assertEquals(-32602, noArg.code(), "a missing required argument ($lineage)")
                    assertTrue(noArg.reason.contains("name"), noArg.reason)
                }
            }
            Client.connectHttp(serving.url(), ConnectOptions(lineage = Lineage.MODERN)).use { client ->
                // 2026-07-28 answers an unknown resource with -32602 (2026-07-28 server/resources);
                // the client still classifies it as ResourceNotFound, data naming the uri.
                val missing = thrown<McpException.ResourceNotFound> { runBlocking { client.readResource("mem://nope") } }
                assertEquals(-32602, missing.code())
                assertEquals("mem://nope", JsonParser.parseString(missing.data()!!).asJsonObject.get("uri").asString)
            }
            serving.shutdown()
        }
    }

    @Test
    fun `kotlin reads the rust conformance server's resources and prompts over stdio`() = runBlocking {
        for (lineage in LINEAGES) {
            Client.connectStdio(Paths.cli, listOf("conformance-server", "--stdio"), ConnectOptions(lineage = lineage)).use { client ->
                val text = client.readResource("test://static-text").single() as ResourceContents.Text
                assertEquals("This is the content of the static text resource.", text.text)
                val png = client.readResource("test://static-binary").single() as ResourceContents.Blob
                assertEquals("image/png", png.mimeType)
                assertArrayEquals(byteArrayOf(0x89.toByte(), 'P'.code.toByte(), 'N'.code.toByte(), 'G'.code.toByte()), png.data.copyOf(4))
                assertTrue(client.listResourceTemplates().any { it.uriTemplate == "test://template/{id}/data" })
                val data = client.readResource("test://template/42/data").single() as ResourceContents.Text
                assertEquals("42", JsonParser.parseString(data.text).asJsonObject.get("id").asString, "$lineage")
                val prompt = client.getPrompt("test_prompt_with_arguments", mapOf("arg1" to "a", "arg2" to "b"))
                assertEquals(listOf(PromptMessage("user", Content.Text("Prompt with arguments: arg1='a', arg2='b'"))), prompt.messages)
                val image = client.getPrompt("test_prompt_with_image").messages.first().content
                assertTrue(image is Content.Image && image.mimeType == "image/png", "$image")
                assertEquals(listOf("test", "testValue1"), client.completePrompt("test_prompt_with_arguments", "arg1", "te").values)
                val missing = thrown<McpException.ResourceNotFound> { runBlocking { client.readResource("test://nope") } }
                assertEquals(if (lineage == Lineage.LEGACY) -32002 else -32602, missing.code(), "$lineage")
            }
        }
    }
}
