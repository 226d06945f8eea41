// swift-tools-version:5.9
// The example contract in Swift: echo_server and echo_client over the Mcpcore package.
// Build the library first (cargo build -p mcpcore-uniffi), then:
//   swift build -Xlinker -L../../target/debug
//   LD_LIBRARY_PATH=../../target/debug swift run echo_server [--http 127.0.0.1:PORT]
import PackageDescription

let package = Package(
    name: "McpcoreEchoExamples",
    platforms: [.macOS(.v12)],
    dependencies: [.package(path: "../../bindings-uniffi/swift")],
    targets: [
        .executableTarget(name: "echo_server", dependencies: [.product(name: "Mcpcore", package: "swift")]),
        .executableTarget(name: "echo_client", dependencies: [.product(name: "Mcpcore", package: "swift")]),
    ]
)
