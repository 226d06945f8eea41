// The example contract's echo client in Kotlin.
//
//     run-echo-client URL [TEXT]               # HTTP
//     run-echo-client [TEXT] -- CMD [ARGS...]  # spawn CMD, talk stdio
//
// Negotiates the lineage automatically, calls `echo`, prints the text and the protocol version;
// exits non-zero on any failure.
package mcpcore.examples

import kotlinx.coroutines.runBlocking
import mcpcore.Client
import mcpcore.Content
import mcpcore.McpException
import kotlin.system.exitProcess

private fun jsonString(s: String): String = buildString {
    append('"')
    for (c in s) {
        when {
            c == '"' -> append("\\\"")
            c == '\\' -> append("\\\\")
            c < ' ' -> append("\\u%04x".format(c.code))
            else -> append(c)
        }
    }
    append('"')
}

/** Runs the client; returns the exit code. */
suspend fun echoClient(argv: List<String>): Int {
    val dash = argv.indexOf("--")
    val mine = if (dash >= 0) argv.subList(0, dash) else argv
    val target = if (dash >= 0) argv.subList(dash + 1, argv.size) else emptyList()
    val url = mine.firstOrNull { it.startsWith("http://") || it.startsWith("https://") }
    val text = mine.firstOrNull { it != url } ?: "hello from mcpcore (kotlin)"
    val client = when {
        url != null -> Client.connectHttp(url)
        target.isNotEmpty() -> Client.connectStdio(target[0], target.drop(1))
        else -> {
            System.err.println("usage: echo_client URL [TEXT] | echo_client [TEXT] -- CMD [ARGS...]")
            return 2
        }
    }
    client.use {
        val result = it.callTool("echo", "{\"text\":${jsonString(text)}}")
        val first = result.content.filterIsInstance<Content.Text>().firstOrNull()?.text ?: ""
        if (result.isError) {
            System.err.println("echo_client: the tool failed: $first")
            return 1
        }
        println(first)
        println("protocol ${it.protocolVersion()}")
        it.disconnect()
    }
    return 0
}

fun main(args: Array<String>) {
    val code = try {
        runBlocking { echoClient(args.toList()) }
    } catch (e: McpException) {
        System.err.println("echo_client: ${e::class.simpleName}: ${e.message}")
        1
    }
    exitProcess(code)
}
