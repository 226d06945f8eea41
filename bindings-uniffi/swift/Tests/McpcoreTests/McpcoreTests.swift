// The Swift binding against real peers: a Swift tool served over HTTP by mcpcore and called from
// Swift (both lineages) and from the Rust mcpcore CLI; errors with their JSON-RPC code and data;
// a timeout; cancelling a Task cancels the call on the server.
// Needs the debug library and the CLI: bindings-uniffi/scripts/ci.sh runs this with
// LD_LIBRARY_PATH / DYLD_LIBRARY_PATH and MCPCORE_BIN_DIR pointing at target/debug.
import Foundation
import XCTest
@testable import Mcpcore

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

struct Boom: Error {}

final class Fail: ToolHandler {
    func call(call: ToolCall) async throws -> ToolResult { throw Boom() }
}

final class RpcFail: ToolHandler {
    func call(call: ToolCall) async throws -> ToolResult {
        throw McpError.Rpc(code: -32042, reason: "rpc failure from swift", data: "{\"why\":\"testing\"}")
    }
}

/// Sleeps 30 s unless cancelled; records that it started and that it was cancelled.
final class Slow: ToolHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var _started = false
    private var _cancelled = false
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
    var started: Bool { locked { _started } }
    var cancelled: Bool { locked { _cancelled } }
    func call(call: ToolCall) async throws -> ToolResult {
        locked { _started = true }
        do {
            try await Task.sleep(nanoseconds: 30_000_000_000)
        } catch {
            locked { _cancelled = true }
            throw error
        }
        return textResult(text: "slept")
    }
}

let objectSchema = "{\"type\":\"object\"}"
let textSchema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}"

func fixtureRegistry(slow: Slow) throws -> Registry {
    let r = Registry()
    try r.addTool(name: "echo", description: "Returns the text.", inputSchema: textSchema, handler: Echo())
    try r.addTool(name: "add", description: "Adds.", inputSchema: objectSchema, handler: Add(),
                  outputSchema: "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}")
    try r.addTool(name: "fail", description: "Throws.", inputSchema: objectSchema, handler: Fail())
    try r.addTool(name: "rpc_fail", description: "Throws a JSON-RPC error.", inputSchema: objectSchema, handler: RpcFail())
    try r.addTool(name: "slow", description: "Sleeps.", inputSchema: objectSchema, handler: slow)
    return r
}

func firstText(_ r: ToolResult) -> String {
    for c in r.content { if case let .text(text) = c { return text } }
    return ""
}

/// Polls `ok` for up to 10 s.
func waitFor(_ ok: () -> Bool) async throws {
    for _ in 0..<500 {
        if ok() { return }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    XCTFail("condition not met within 10 s")
}

final class McpcoreTests: XCTestCase {
    let lineages: [(Lineage, String)] = [(.modern, "2026-07-28"), (.legacy, "2025-11-25")]

    func testSwiftClientCallsSwiftToolsInBothLineages() async throws {
        let serving = try await Server(registry: try fixtureRegistry(slow: Slow()), name: "swift-http", version: "1.0")
            .serveHttp(host: "127.0.0.1", port: 0)
        for (lineage, version) in lineages {
            let client = try await Client.connectHttp(url: serving.url(), options: ConnectOptions(lineage: lineage))
            XCTAssertEqual(try client.protocolVersion(), version)
            XCTAssertEqual(try client.serverInfo()?.name, "swift-http")
            let names = try await client.listTools().map { $0.name }
            XCTAssertEqual(names, ["add", "echo", "fail", "rpc_fail", "slow"])
            let echoed = try await client.callTool(name: "echo", arguments: "{\"text\":\"hi from swift\"}")
            XCTAssertEqual(firstText(echoed), "hi from swift")
            let added = try await client.callTool(name: "add", arguments: "{\"a\":2,\"b\":3.5}")
            XCTAssertEqual(added.structuredContent, "{\"sum\":5.5}")
            let failed = try await client.callTool(name: "fail", arguments: "{}")
            XCTAssertTrue(failed.isError)
            await client.disconnect()
        }
        try await serving.shutdown()
    }

    func testErrorsKeepCodeAndData() async throws {
        let serving = try await Server(registry: try fixtureRegistry(slow: Slow()), name: "swift-errors", version: "1.0")
            .serveHttp(host: "127.0.0.1", port: 0)
        for (lineage, _) in lineages {
            let client = try await Client.connectHttp(url: serving.url(), options: ConnectOptions(lineage: lineage))
            do {
                _ = try await client.callTool(name: "rpc_fail", arguments: "{}")
                XCTFail("rpc_fail must throw")
            } catch let McpError.Rpc(code, reason, data) {
                XCTAssertEqual(code, -32042)
                XCTAssertEqual(reason, "rpc failure from swift")
                XCTAssertEqual(data, "{\"why\":\"testing\"}")
            }
            do {
                _ = try await client.callTool(name: "nope", arguments: "{}")
                XCTFail("an unknown tool must throw")
            } catch let McpError.Rpc(code, _, _) {
                XCTAssertEqual(code, -32602)
            }
            await client.disconnect()
        }
        try await serving.shutdown()
    }

    func testTimeoutAndTaskCancellationCancelTheSwiftTool() async throws {
        for (lineage, _) in lineages {
            let slow = Slow()
            let serving = try await Server(registry: try fixtureRegistry(slow: slow), name: "swift-cancel", version: "1.0")
                .serveHttp(host: "127.0.0.1", port: 0)
            let client = try await Client.connectHttp(url: serving.url(), options: ConnectOptions(lineage: lineage))
            do {
                _ = try await client.callTool(name: "slow", arguments: "{}", options: CallOptions(timeout: 0.3))
                XCTFail("slow must time out")
            } catch let McpError.Timeout(code, _, _) {
                XCTAssertEqual(code, -32001)
            }
            try await waitFor { slow.cancelled }

            let again = Slow()
            let serving2 = try await Server(registry: try fixtureRegistry(slow: again), name: "swift-cancel", version: "1.0")
                .serveHttp(host: "127.0.0.1", port: 0)
            let client2 = try await Client.connectHttp(url: serving2.url(), options: ConnectOptions(lineage: lineage))
            let task = Task { try await client2.callTool(name: "slow", arguments: "{}") }
            try await waitFor { again.started }
            task.cancel()
            try await waitFor { again.cancelled }
            let after = try await client2.callTool(name: "echo", arguments: "{\"text\":\"after\"}")
            XCTAssertEqual(firstText(after), "after")
            await client.disconnect()
            await client2.disconnect()
            try await serving.shutdown()
            try await serving2.shutdown()
        }
    }

    func testRustCliCallsASwiftTool() async throws {
        guard let bin = ProcessInfo.processInfo.environment["MCPCORE_BIN_DIR"] else {
            throw XCTSkip("MCPCORE_BIN_DIR is not set")
        }
        let serving = try await Server(registry: try fixtureRegistry(slow: Slow()), name: "swift-http", version: "1.0")
            .serveHttp(host: "127.0.0.1", port: 0)
        for (lineage, _) in lineages {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: bin + "/mcpcore")
            p.arguments = ["call", "echo", "{\"text\":\"rust to swift\"}", serving.url(),
                           "--lineage", lineage == .modern ? "modern" : "legacy"]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            p.waitUntilExit()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(p.terminationStatus, 0)
            XCTAssertTrue(out.contains("rust to swift"), out)
        }
        try await serving.shutdown()
    }

    func testSwiftClientLoadsAndVerifiesSwiftServedSkills() async throws {
        let md = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n"
        let resources = Resources()
        let skills = Skills(resources: resources)
        _ = try skills.add(path: "git-workflow", files: ["SKILL.md": Data(md.utf8), "refs/commits.md": Data("feat: x\n".utf8)])
        let serving = try await Server(registry: try fixtureRegistry(slow: Slow()), name: "swift-skills", version: "1.0",
                                       resources: resources, skills: skills)
            .serveHttp(host: "127.0.0.1", port: 0)
        for (lineage, _) in lineages {
            let client = try await Client.connectHttp(url: serving.url(), options: ConnectOptions(lineage: lineage))
            XCTAssertEqual(try client.skillsSupport()?.directoryRead, true)
            let listed = try await client.listSkills()
            XCTAssertEqual(listed.map { $0.uri }, ["skill://git-workflow/SKILL.md"])
            XCTAssertEqual(try await client.loadSkill(entry: listed[0]), md)
            let refs = try await client.readSkillFile(entry: listed[0], uri: "skill://git-workflow/refs/commits.md")
            XCTAssertEqual(String(decoding: refs, as: UTF8.self), "feat: x\n")
            await client.disconnect()
        }
        try await serving.shutdown()
    }

    func testSwiftClientReadsASwiftServedApp() async throws {
        let resources = Resources()
        try resources.addApp(uri: "ui://s/view.html", html: "<!DOCTYPE html><p>s</p>", uiMeta: "{\"prefersBorder\":true}")
        let serving = try await Server(registry: try fixtureRegistry(slow: Slow()), name: "swift-apps", version: "1.0",
                                       resources: resources)
            .serveHttp(host: "127.0.0.1", port: 0)
        for (lineage, _) in lineages {
            let client = try await Client.connectHttp(url: serving.url(), options: ConnectOptions(lineage: lineage))
            XCTAssertTrue(try client.offersApps())
            let app = try await client.readApp(uri: "ui://s/view.html")
            XCTAssertEqual(app.html, "<!DOCTYPE html><p>s</p>")
            XCTAssertEqual(app.metaJson, "{\"prefersBorder\":true}")
            await client.disconnect()
        }
        try await serving.shutdown()
    }
}
