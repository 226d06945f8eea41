// swift-tools-version:5.9
// The Swift binding of mcpcore: the generated `Mcpcore` module over the `mcpcore_uniffi` library.
// Build the library first (cargo build -p mcpcore-uniffi), then pass its folder to the linker:
//   swift test -Xlinker -L../../target/debug      (and LD_LIBRARY_PATH / DYLD_LIBRARY_PATH at run time)
import PackageDescription

let package = Package(
    name: "Mcpcore",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .library(name: "Mcpcore", targets: ["Mcpcore"]),
    ],
    targets: [
        .systemLibrary(name: "McpcoreFFI", path: "Sources/McpcoreFFI"),
        .target(name: "Mcpcore", dependencies: ["McpcoreFFI"], path: "Sources/Mcpcore"),
        .testTarget(name: "McpcoreTests", dependencies: ["Mcpcore"], path: "Tests/McpcoreTests"),
    ]
)
