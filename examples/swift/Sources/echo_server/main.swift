// The example contract's echo server in Swift: tools `echo` and `add`.
//   echo_server                        # stdio, both lineages
//   echo_server --http 127.0.0.1:PORT  # HTTP on /mcp (prints "listening on URL")
import Foundation
import Mcpcore

final class Echo: ToolHandler {
    func call(call: ToolCall) async throws -> ToolResult {
        textResult(text: call.stringArg(name: "text") ?? "")
    }
}

final class Add: ToolHandler {
    func call(call: ToolCall) async throws -> ToolResult {
        let sum = (call.numberArg(name: "a") ?? 0) + (call.numberArg(name: "b") ?? 0)
        return try structuredResult(json: "{\"sum\":\(sum)}")
    }
}

let registry = Registry()
try registry.addTool(
    name: "echo", description: "Returns the text unchanged.",
    inputSchema: "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
    handler: Echo())
try registry.addTool(
    name: "add", description: "Adds two numbers.",
    inputSchema: "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
    handler: Add(),
    outputSchema: "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}")
let server = Server(registry: registry, name: "mcpcore-echo-swift", version: "0.1.0")

let args = CommandLine.arguments
if let i = args.firstIndex(of: "--http") {
    let spec = i + 1 < args.count ? args[i + 1] : ""
    guard let colon = spec.lastIndex(of: ":"), let port = UInt16(spec[spec.index(after: colon)...]) else {
        FileHandle.standardError.write("echo_server: --http needs IP:PORT, e.g. 127.0.0.1:8080\n".data(using: .utf8)!)
        exit(2)
    }
    let serving = try await server.serveHttp(host: String(spec[..<colon]), port: port)
    print("listening on \(serving.url())")
    fflush(stdout)
    try await serving.wait()
} else {
    try await server.serveStdio()
}
