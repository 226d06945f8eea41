// MCP Apps in Kotlin: a Kotlin server serving an app and a tool bound to it, read by a Kotlin
// client over real HTTP in both lineages (binding, HTML, _meta.ui, the tool called).
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class AppsTest {
    @Test
    fun `a kotlin client reads a kotlin server's app and its tool's binding in both lineages`() = runBlocking<Unit> {
        val resources = Resources()
        resources.addApp("ui://k/view.html", "<!DOCTYPE html><p>k</p>", name = "view", uiMeta = """{"prefersBorder":false}""")
        val registry = mcpcore.examples.echoRegistry()
        val schema = """{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"""
        registry.addTool("show", "Shows the text", schema, EchoBack(), meta = appsMeta("ui://k/view.html", listOf("model", "app")))
        Server(registry, "kotlin-apps", "1.0", resources = resources).serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    assertTrue(client.offersApps(), "$lineage")
                    val show = client.listTools().first { it.name == "show" }
                    assertTrue(show.json.contains("\"resourceUri\":\"ui://k/view.html\""), show.json)
                    assertEquals("hi", client.callTool("show", """{"text":"hi"}""").text())
                    val app = client.readApp("ui://k/view.html")
                    assertEquals("<!DOCTYPE html><p>k</p>", app.html)
                    assertEquals("""{"prefersBorder":false}""", app.metaJson)
                }
            }
        }
    }
}

/** Answers with the text it was given. */
class EchoBack : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult = textResult(call.stringArg("text") ?: "")
}
