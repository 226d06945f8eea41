// The example contract's echo server in Kotlin: tools `echo` and `add`.
//
//     run-echo-server                        # stdio, both lineages
//     run-echo-server --http 127.0.0.1:PORT  # HTTP on /mcp (prints "listening on URL")
package mcpcore.examples

import kotlinx.coroutines.runBlocking
import mcpcore.Registry
import mcpcore.Server
import mcpcore.ToolCall
import mcpcore.ToolHandler
import mcpcore.ToolResult
import mcpcore.structuredResult
import mcpcore.textResult
import kotlin.system.exitProcess

/** `echo(text)`: returns the text unchanged. */
class Echo : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult = textResult(call.stringArg("text") ?: "")
}

/** `add(a, b)`: `{"sum": a + b}` as structuredContent (and as text). */
class Add : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult {
        val sum = (call.numberArg("a") ?: 0.0) + (call.numberArg("b") ?: 0.0)
        return structuredResult("{\"sum\":$sum}")
    }
}

/** A registry holding the contract's two tools. */
fun echoRegistry(): Registry {
    val registry = Registry()
    registry.addTool(
        "echo", "Returns the text unchanged.",
        """{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}""",
        Echo(),
    )
    registry.addTool(
        "add", "Adds two numbers.",
        """{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}""",
        Add(),
        outputSchema = """{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}""",
    )
    return registry
}

fun main(args: Array<String>) {
    val server = Server(echoRegistry(), "mcpcore-echo-kotlin", "0.1.0")
    val http = args.indexOf("--http").takeIf { it >= 0 }?.let { args.getOrNull(it + 1) ?: "" }
    runBlocking {
        if (http == null) {
            server.serveStdio()
        } else {
            val host = http.substringBeforeLast(":")
            val port = http.substringAfterLast(":").toUShortOrNull()
            if (host.isEmpty() || port == null) {
                System.err.println("echo_server: --http needs IP:PORT, e.g. 127.0.0.1:8080, not \"$http\"")
                exitProcess(2)
            }
            val serving = server.serveHttp(host, port)
            println("listening on ${serving.url()}")
            System.out.flush()
            Runtime.getRuntime().addShutdownHook(Thread { runBlocking { serving.shutdown() } })
            serving.wait()
        }
    }
    exitProcess(0)
}
