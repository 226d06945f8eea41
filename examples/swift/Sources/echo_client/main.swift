// The example contract's echo client in Swift.
//   echo_client URL [TEXT]               # HTTP
//   echo_client [TEXT] -- CMD [ARGS...]  # spawn CMD, talk stdio
// Negotiates the lineage automatically, calls `echo`, prints the text and the protocol version;
// exits non-zero on any failure.
import Foundation
import Mcpcore

func jsonString(_ s: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: [s], options: [])
    let array = String(decoding: data, as: UTF8.self)
    return String(array.dropFirst().dropLast())
}

let argv = Array(CommandLine.arguments.dropFirst())
let dash = argv.firstIndex(of: "--")
let mine = dash.map { Array(argv[..<$0]) } ?? argv
let target = dash.map { Array(argv[($0 + 1)...]) } ?? []
let url = mine.first { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
let text = mine.first { $0 != url } ?? "hello from mcpcore (swift)"

do {
    let client: Client
    if let url = url {
        client = try await Client.connectHttp(url: url)
    } else if let command = target.first {
        client = try await Client.connectStdio(command: command, args: Array(target.dropFirst()))
    } else {
        FileHandle.standardError.write("usage: echo_client URL [TEXT] | echo_client [TEXT] -- CMD [ARGS...]\n".data(using: .utf8)!)
        exit(2)
    }
    let result = try await client.callTool(name: "echo", arguments: "{\"text\":\(jsonString(text))}")
    var first = ""
    for c in result.content { if case let .text(t) = c { first = t; break } }
    if result.isError {
        FileHandle.standardError.write("echo_client: the tool failed: \(first)\n".data(using: .utf8)!)
        exit(1)
    }
    print(first)
    print("protocol \(try client.protocolVersion())")
    await client.disconnect()
} catch {
    FileHandle.standardError.write("echo_client: \(error)\n".data(using: .utf8)!)
    exit(1)
}
