#!/usr/bin/env bash
# Regenerates the committed Kotlin and Swift bindings from the debug library (library mode,
# with the pinned uniffi-bindgen (bindings-uniffi/uniffi-bindgen), pinned to the same uniffi version as the crate).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$here/.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
(cd "$repo" && CARGO_TARGET_DIR="$target" cargo build --quiet -p mcpcore-uniffi)
# The pinned bindgen is a workspace of its own (bindings-uniffi/uniffi-bindgen/Cargo.toml says why).
cargo build --quiet --manifest-path "$here/uniffi-bindgen/Cargo.toml" --target-dir "$target/uniffi-bindgen"
bindgen="$target/uniffi-bindgen/debug/uniffi-bindgen"
lib="$target/debug/libmcpcore_uniffi.so"
[[ "$(uname)" == Darwin ]] && lib="$target/debug/libmcpcore_uniffi.dylib"
cd "$here"
"$bindgen" generate --no-format "$lib" -l kotlin -o generated/kotlin
"$bindgen" generate --no-format "$lib" -l swift -o generated/swift
echo "regenerated: generated/kotlin/mcpcore/mcpcore.kt, generated/swift/{Mcpcore.swift,McpcoreFFI.h,McpcoreFFI.modulemap}"
