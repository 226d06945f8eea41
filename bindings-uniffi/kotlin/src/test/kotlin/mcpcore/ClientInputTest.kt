// (e) Client input: a Kotlin ClientInput given at connect answers the server's elicitation,
// sampling and roots requests (legacy server->client requests, 2026-07-28 input_required rounds),
// for the Rust conformance server over stdio and for a Kotlin server whose Kotlin tool asks
// through its ToolCall (elicit, sample, listRoots) over HTTP on 127.0.0.1.
package mcpcore

import com.google.gson.JsonParser
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.concurrent.CopyOnWriteArrayList

/** Answers every kind: fills forms from `answers`, samples by echoing, exposes two roots. */
class Answers(private val kinds: InputKinds = InputKinds(elicitation = true, sampling = true, roots = true)) : ClientInput {
    val seen = CopyOnWriteArrayList<String>()
    override fun kinds(): InputKinds = kinds

    override suspend fun elicit(request: ElicitRequest): ElicitAnswer {
        seen.add("elicit ${request.mode}: ${request.message}")
        val fields = JsonParser.parseString(request.requestedSchema!!).asJsonObject.getAsJsonObject("properties").keySet()
        if ("decline" in request.message) return ElicitAnswer(ElicitAction.DECLINE)
        val content = fields.joinToString(",", "{", "}") { "\"$it\":\"kotlin-$it\"" }
        return ElicitAnswer(ElicitAction.ACCEPT, content)
    }

    override suspend fun createMessage(params: String): String {
        val p = JsonParser.parseString(params).asJsonObject
        val text = p.getAsJsonArray("messages")[0].asJsonObject.getAsJsonObject("content").get("text").asString
        seen.add("sample: $text")
        return """{"role":"assistant","content":{"type":"text","text":"kotlin says: $text"},"model":"kotlin-model","stopReason":"endTurn"}"""
    }

    override suspend fun listRoots(): List<Root> {
        seen.add("roots")
        return listOf(Root("file:///work", "work"), Root("file:///tmp"))
    }
}

/** A Kotlin tool asking its client for a form, a sample and the roots. */
class Asks : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult {
        val schema = """{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"""
        val form = call.elicit("where", call.stringArg("message") ?: "Where to?", schema)
        if (form.action != ElicitAction.ACCEPT) return textResult("no answer: ${form.action}")
        val city = JsonParser.parseString(form.content!!).asJsonObject.get("city").asString
        val sampled = call.sample("model", """{"messages":[{"role":"user","content":{"type":"text","text":"weather in $city"}}],"maxTokens":50}""")
        val said = JsonParser.parseString(sampled).asJsonObject.getAsJsonObject("content").get("text").asString
        val roots = call.listRoots("roots").map { it.uri }
        return textResult("$city | $said | $roots")
    }
}

/** A tool that swallows InputRequired: the core still answers input_required (2026-07-28). */
class Swallows : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult {
        val schema = """{"type":"object","properties":{"city":{"type":"string"}}}"""
        val form = try {
            call.elicit("where", "Where?", schema)
        } catch (e: McpException.InputRequired) {
            return textResult("swallowed")
        }
        return textResult("got ${form.content}")
    }
}

/** Answers with what the client declared (JSON). */
class Caps : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult = textResult(call.clientCapabilities() ?: "none")
}

class ClientInputTest {
    @Test
    fun `a kotlin ClientInput answers the rust conformance server in both lineages`() = runBlocking {
        for (lineage in LINEAGES) {
            val input = Answers()
            val opts = ConnectOptions(lineage = lineage, input = input)
            Client.connectStdio(Paths.cli, listOf("conformance-server", "--stdio"), opts).use { client ->
                val elicited = client.callTool("test_elicitation", """{"message":"Who are you?"}""")
                assertEquals(false, elicited.isError, elicited.text())
                assertTrue(elicited.text().contains("accept") && elicited.text().contains("kotlin-username"), "$lineage: ${elicited.text()}")
                assertTrue(input.seen.contains("elicit form: Who are you?"), "${input.seen}")

                val sampled = client.callTool("test_sampling", """{"prompt":"2+2?"}""")
                assertEquals("LLM response: kotlin says: 2+2?", sampled.text(), "$lineage")

                val roots = client.callTool("test_input_required_result_list_roots", "{}")
                assertEquals("Client roots: file:///work, file:///tmp", roots.text(), "$lineage")
                assertTrue(input.seen.contains("roots"), "${input.seen}")
            }
        }
    }

    @Test
    fun `only the kinds a ClientInput names are declared`() = runBlocking {
        for (lineage in LINEAGES) {
            val opts = ConnectOptions(lineage = lineage, input = Answers(InputKinds(elicitation = true)))
            Client.connectStdio(Paths.cli, listOf("conformance-server", "--stdio"), opts).use { client ->
                // Sampling is not declared: the server's tool fails with -32021 (missing capability).
                val e = runCatching { client.callTool("test_missing_capability", "{}") }.exceptionOrNull()
                assertTrue(e is McpException.Rpc, "$lineage: $e")
                assertEquals(-32021, (e as McpException).code(), "$lineage")
            }
            Client.connectStdio(Paths.cli, listOf("conformance-server", "--stdio"), ConnectOptions(lineage = lineage, input = Answers())).use { client ->
                assertEquals("Success", client.callTool("test_missing_capability", "{}").text(), "$lineage")
            }
        }
    }

    @Test
    fun `a kotlin tool elicits, samples and lists roots from a kotlin client in both lineages`() = runBlocking {
        val registry = Registry()
        registry.addTool("asks", "Asks the client.", OBJECT_SCHEMA, Asks())
        registry.addTool("swallows", "Catches InputRequired.", OBJECT_SCHEMA, Swallows())
        registry.addTool("caps", "Shows the client's capabilities.", OBJECT_SCHEMA, Caps())
        Server(registry, "kotlin-asks", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                val input = Answers()
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage, input = input)).use { client ->
                    val r = client.callTool("asks", """{"message":"Pick a city"}""")
                    assertEquals(false, r.isError, r.text())
                    assertEquals("kotlin-city | kotlin says: weather in kotlin-city | [file:///work, file:///tmp]", r.text(), "$lineage")
                    assertTrue(input.seen.contains("elicit form: Pick a city"), "${input.seen}")
                    val declined = client.callTool("asks", """{"message":"please decline"}""")
                    assertEquals("no answer: DECLINE", declined.text(), "$lineage")
                    assertEquals("""got {"city":"kotlin-city"}""", client.callTool("swallows", "{}").text(), "$lineage")
                }
                // Only the declared kinds are capabilities; rootsListChanged is legacy only.
                val rootsOnly = Answers(InputKinds(roots = true, rootsListChanged = true))
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage, input = rootsOnly)).use { client ->
                    val caps = JsonParser.parseString(client.callTool("caps", "{}").text()).asJsonObject
                    assertEquals(setOf("roots"), caps.keySet().intersect(setOf("roots", "elicitation", "sampling")), "$lineage: $caps")
                    val listChanged = caps.getAsJsonObject("roots").get("listChanged")?.asBoolean ?: false
                    assertEquals(lineage == Lineage.LEGACY, listChanged, "$lineage: $caps")
                    client.rootsChanged()  // a notification on legacy, nothing on 2026-07-28
                    assertTrue(client.callTool("caps", "{}").text().contains("roots"), "the session still serves ($lineage)")
                }
                // A client that answers nothing: the tool's elicit fails with the missing capability.
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val r = runCatching { client.callTool("asks", "{}") }
                    if (lineage == Lineage.MODERN) {
                        // 2026-07-28: -32021 with the capabilities required in data.
                        val e = r.exceptionOrNull()
                        assertTrue(e is McpException.Rpc, "$lineage: $r")
                        assertEquals(-32021, (e as McpException).code())
                        assertEquals("""{"requiredCapabilities":{"elicitation":{}}}""", e.data())
                    } else {
                        // Legacy: the core fails the tool call (isError) naming the capability.
                        val failed = r.getOrThrow()
                        assertTrue(failed.isError && failed.text().contains("elicitation"), failed.text())
                    }
                }
            }
            serving.shutdown()
        }
    }
}

/** Deletes once a person approves (issue 35, pending approval). */
class DeleteInvoice : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult {
        val id = call.stringArg("id") ?: "?"
        return when (call.approve("Delete invoice $id")) {
            "approved" -> textResult("deleted $id")
            "pending" -> pendingApprovalResult("Waiting for a manager.", """{"approval_id":"apr-$id"}""")
            else -> textResult("kept $id")
        }
    }
}

class ApprovalTest {
    @Test
    fun `a kotlin tool asks for approval, and is pending when nobody can be asked`() = runBlocking {
        val registry = Registry()
        registry.addTool("delete_invoice", "Deletes an invoice.", OBJECT_SCHEMA, DeleteInvoice())
        Server(registry, "kotlin-approve", "1.0").serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                val input = Answers()
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage, input = input)).use { client ->
                    assertEquals("deleted 42", client.callTool("delete_invoice", """{"id":"42"}""").text(), "$lineage")
                    assertTrue(input.seen.contains("elicit form: Delete invoice 42"), "${input.seen}")
                }
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    val pending = client.callTool("delete_invoice", """{"id":"43"}""")
                    assertEquals(false, pending.isError, "$lineage")
                    assertEquals("Waiting for a manager.", pending.text())
                    assertTrue(pending.structuredContent!!.contains("\"status\":\"pending_approval\""), pending.structuredContent)
                }
            }
        }
        val page = JsonParser.parseString(page("[1,2,3]", limit = 2L)).asJsonObject
        assertEquals(2, page.getAsJsonArray("items").size())
        assertTrue(page.has("nextCursor"))
        val forged = runCatching { page("[1]", cursor = "forged") }.exceptionOrNull()
        assertTrue(forged is McpException.Rpc && forged.code() == -32602, "$forged")
    }
}
