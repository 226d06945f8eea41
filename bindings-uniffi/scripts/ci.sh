#!/usr/bin/env bash
# Everything CI needs for the Kotlin and Swift bindings, from a fresh clone:
#   cargo build (debug cdylib, uniffi-bindgen, the Rust peers: the mcpcore CLI and echo_server)
#   -> regenerate the Kotlin and Swift bindings and fail on a diff with the committed ones
#   -> mvn test (Kotlin on the JVM: kotlin-maven-plugin, JNA and kotlinx-coroutines from Maven
#      Central) -> the Kotlin echo client and server examples through their scripts
#   -> swift test (bindings-uniffi/swift) and swift build (examples/swift) when swift is on PATH.
# Ends with "N passed, M failed" (the JUnit counts of Surefire plus the script's own checks).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
target="$CARGO_TARGET_DIR"
step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }
extra_passed=0
extra_failed=0
check() {  # check NAME CMD...: one counted check
  if "${@:2}"; then extra_passed=$((extra_passed + 1)); echo "ok: $1"
  else extra_failed=$((extra_failed + 1)); echo "FAILED: $1"; fi
}

for tool in cargo java mvn; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (needs a Rust toolchain, a JDK >= 17 and Maven)" >&2; exit 1; }
done

step "cargo build (debug): mcpcore-uniffi, uniffi-bindgen, the mcpcore CLI and echo_server"
# Two invocations: target selection (--bin) applies to every -p of one invocation, so a single
# one would skip the cdylib.
(cd "$repo" && cargo build --quiet -p mcpcore-uniffi \
  && cargo build --quiet -p mcpcore --bin mcpcore -p mcpcore-examples --bin echo_server --bin echo_client)
# The pinned bindgen is a workspace of its own (bindings-uniffi/uniffi-bindgen/Cargo.toml says why).
cargo build --quiet --manifest-path "$here/uniffi-bindgen/Cargo.toml" --target-dir "$target/uniffi-bindgen"
bindgen="$target/uniffi-bindgen/debug/uniffi-bindgen"
lib="$target/debug/libmcpcore_uniffi.so"
[[ "$(uname)" == Darwin ]] && lib="$target/debug/libmcpcore_uniffi.dylib"

step "generate the Kotlin and Swift bindings (library mode) and compare with the committed ones"
gen="$target/uniffi-gen"
rm -rf "$gen"
for lang in kotlin swift; do
  (cd "$here" && "$bindgen" generate --no-format "$lib" -l "$lang" -o "$gen/$lang")
done
check "generated Kotlin bindings unchanged" diff -u "$here/generated/kotlin/mcpcore/mcpcore.kt" "$gen/kotlin/mcpcore/mcpcore.kt"
for f in Mcpcore.swift McpcoreFFI.h McpcoreFFI.modulemap; do
  check "generated Swift $f unchanged" diff -u "$here/generated/swift/$f" "$gen/swift/$f"
done
# A structural check that needs no Swift toolchain: the C header of the Swift module parses
# (clang's nullability qualifiers defined away for gcc).
if command -v cc >/dev/null; then
  check "generated McpcoreFFI.h parses as C" bash -c \
    'printf "#include \"McpcoreFFI.h\"\n" | cc -fsyntax-only -x c -D_Nullable= -D_Nonnull= -I"$1" -' _ "$here/generated/swift"
fi
if [[ "$extra_failed" -ne 0 ]]; then
  echo "the committed bindings are stale: run bindings-uniffi/scripts/generate.sh and commit the result" >&2
fi

step "npm ci (tests/interop/oauth: the authorization server of OAuthTest; tests/interop/ts: server-everything of EverythingTest)"
(cd "$repo/tests/interop/oauth" && npm ci --no-audit --no-fund --loglevel=error)
(cd "$repo/tests/interop/ts" && npm ci --no-audit --no-fund --loglevel=error)

step "mvn test (Kotlin on the JVM)"
mvn_out="$target/uniffi-maven"
rm -rf "$mvn_out/surefire-reports"
mvn_rc=0
mvn -q -B -Dstyle.color=never -f "$here/pom.xml" -Dcargo.target.dir="$target" \
  test dependency:build-classpath -Dmdep.outputFile="$mvn_out/classpath.txt" || mvn_rc=$?
tests=0; failures=0; errors=0; skipped=0
for report in "$mvn_out"/surefire-reports/TEST-*.xml; do
  [[ -f "$report" ]] || continue
  head=$(grep -m1 -o '<testsuite [^>]*>' "$report")
  for attr in tests failures errors skipped; do
    n=$(sed -nE "s/.* $attr=\"([0-9]+)\".*/\\1/p" <<<"$head")
    declare "$attr=$(( ${!attr} + ${n:-0} ))"
  done
  sed -nE 's/.*<testcase name="([^"]*)" classname="([^"]*)" time="([^"]*)".*/  \2 > \1 (\3 s)/p' "$report"
done
junit_passed=$((tests - failures - errors - skipped))
junit_failed=$((failures + errors))
echo "Surefire: $tests tests, $junit_passed passed, $junit_failed failed, $skipped skipped (mvn exit $mvn_rc)"
if [[ "$mvn_rc" -ne 0 && "$junit_failed" -eq 0 ]]; then junit_failed=1; fi

step "examples/kotlin: the Rust echo_client calls the Kotlin echo server (run-echo-server builds what it needs)"
# Build first, so the server's start (what the client's 5 s discover probe waits for) is the JVM's.
check "examples/kotlin/run-echo-server builds what it needs" \
  env MCPCORE_BUILD_ONLY=1 "$repo/examples/kotlin/run-echo-server"
out=$("$target/debug/echo_client" "hello from ci" -- "$repo/examples/kotlin/run-echo-server" 2>&1) || true
echo "$out"
check "rust echo_client -> examples/kotlin/run-echo-server" grep -qx "hello from ci" <<<"$out"

step "Swift"
if command -v swift >/dev/null; then
  export LD_LIBRARY_PATH="$target/debug${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export DYLD_LIBRARY_PATH="$target/debug${DYLD_LIBRARY_PATH:+:$DYLD_LIBRARY_PATH}"
  export MCPCORE_BIN_DIR="$target/debug"
  check "swift test (bindings-uniffi/swift)" \
    swift test --package-path "$here/swift" -Xlinker -L"$target/debug"
  check "swift build (examples/swift)" \
    swift build --package-path "$repo/examples/swift" -Xlinker -L"$target/debug"
else
  echo "swift not on PATH: Swift bindings generated and diff-checked only, not compiled"
fi

step "summary"
passed=$((junit_passed + extra_passed))
failed=$((junit_failed + extra_failed))
echo "ci.sh took ${SECONDS}s"
echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
