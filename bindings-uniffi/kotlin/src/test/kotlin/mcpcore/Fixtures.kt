// Shared fixtures of the JVM tests: the tools (echo, add, fail, rpcFail, slow) written in
// Kotlin, the paths of the Rust peers, and bounded child processes.
package mcpcore

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.coroutines.cancellation.CancellationException

/** Where the repo and cargo's debug binaries are (set by the pom's surefire argLine). */
object Paths {
    val repo: File = File(System.getProperty("mcpcore.repo") ?: "..").canonicalFile
    val bin: File = File(System.getProperty("mcpcore.bin.dir") ?: "${repo}/target/debug")
    val cli: String get() = File(bin, "mcpcore").path
    val rustEchoServer: String get() = File(bin, "echo_server").path
    val runEchoServer: String get() = File(repo, "examples/kotlin/run-echo-server").path
    val runEchoClient: String get() = File(repo, "examples/kotlin/run-echo-client").path
}

/** What a finished child process printed. */
data class Ran(val code: Int, val stdout: String, val stderr: String)

/** The environment that lets examples/kotlin scripts run the compiled classes without building. */
fun kotlinEnv(): Map<String, String> = mapOf("MCPCORE_KOTLIN_CLASSPATH" to System.getProperty("java.class.path"))

/** Runs `cmd` to completion (killed after `timeoutSec`), capturing its output. */
fun run(cmd: List<String>, env: Map<String, String> = kotlinEnv(), timeoutSec: Long = 60): Ran {
    val pb = ProcessBuilder(cmd)
    pb.environment().putAll(env)
    val out = File.createTempFile("mcpcore-out", ".txt")
    val err = File.createTempFile("mcpcore-err", ".txt")
    pb.redirectOutput(out).redirectError(err)
    val p = pb.start()
    try {
        if (!p.waitFor(timeoutSec, TimeUnit.SECONDS)) {
            p.destroyForcibly()
            throw AssertionError("timed out after ${timeoutSec}s: $cmd\nstderr: ${err.readText()}")
        }
        return Ran(p.exitValue(), out.readText(), err.readText())
    } finally {
        p.destroyForcibly()
        out.delete()
        err.delete()
    }
}

/** A spawned HTTP server that printed `listening on URL`; stopped by [close]. */
class HttpChild(cmd: List<String>, env: Map<String, String> = kotlinEnv()) : AutoCloseable {
    private val process: Process = ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT)
        .also { it.environment().putAll(env) }.start()
    val url: String

    init {
        val reader = process.inputStream.bufferedReader()
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30)
        var found: String? = null
        while (found == null && System.nanoTime() < deadline) {
            val line = reader.readLine() ?: break
            if (line.startsWith("listening on ")) found = line.removePrefix("listening on ").trim()
        }
        url = found ?: run { process.destroyForcibly(); throw AssertionError("no 'listening on' from $cmd") }
    }

    override fun close() {
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }
}

const val OBJECT_SCHEMA = """{"type":"object"}"""
const val TEXT_SCHEMA = """{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"""

/** A tool that throws an ordinary Kotlin exception: the caller gets an `isError` result. */
class Fail : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult = throw IllegalStateException("the fail tool failed")
}

/** A tool that throws a JSON-RPC error: the caller gets that code and data. */
class RpcFail : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult =
        throw McpException.Rpc(-32042, "rpc failure from kotlin", """{"why":"testing","n":7}""")
}

/** A tool that sleeps 30 s unless cancelled; records that it started and that it was cancelled. */
class Slow : ToolHandler {
    val started = CompletableDeferred<Unit>()
    val cancelled = CompletableDeferred<Unit>()
    override suspend fun call(call: ToolCall): ToolResult {
        started.complete(Unit)
        try {
            delay(30_000)
        } catch (e: CancellationException) {
            cancelled.complete(Unit)
            throw e
        }
        return textResult("slept")
    }
}

/** A tool that logs at info and returns. */
class Logs : ToolHandler {
    override suspend fun call(call: ToolCall): ToolResult {
        call.log("info", "\"a log line from kotlin\"", "tests")
        return textResult("logged")
    }
}

/** The contract's tools plus the failure fixtures, in one registry (tools: add, echo, fail, logs, rpc_fail, slow). */
fun fixtureRegistry(slow: Slow = Slow()): Registry {
    val r = mcpcore.examples.echoRegistry()
    r.addTool("fail", "Always throws.", OBJECT_SCHEMA, Fail())
    r.addTool("rpc_fail", "Throws a JSON-RPC error.", OBJECT_SCHEMA, RpcFail())
    r.addTool("slow", "Sleeps until cancelled.", OBJECT_SCHEMA, slow)
    r.addTool("logs", "Logs one line.", OBJECT_SCHEMA, Logs())
    return r
}

/** The text of the first text block. */
fun ToolResult.text(): String = content.filterIsInstance<Content.Text>().firstOrNull()?.text ?: ""

/** Both lineages, as the tests parameterize them. */
val LINEAGES = listOf(Lineage.MODERN, Lineage.LEGACY)

/** The revision a lineage negotiates to against mcpcore. */
fun Lineage.expectedVersion(): String = if (this == Lineage.MODERN) "2026-07-28" else "2025-11-25"

/** The CLI's `--lineage` value. */
fun Lineage.flag(): String = name.lowercase()
