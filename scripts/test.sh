#!/usr/bin/env bash
# Sets up and runs every test of every language on a fresh machine (what CI runs).
# Needs: cargo (rustup toolchain), python3 >= 3.11 with venv, node >= 20 with npm, a JDK >= 17
# with Maven (the Kotlin binding; Maven fetches its jars from Maven Central). Installs the
# rest itself (Python and npm packages, the Node 22 the conformance suite and the install tests
# need, and zig for the release builds of `make dist`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }

command -v cargo >/dev/null || { echo "cargo is missing: install a Rust toolchain (rustup) first" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true

# tests/rust/scale_out.rs runs redis-server and nginx itself, on loopback ports it picks; the
# Node TLS test makes its CA with the openssl command; HTTPS clients read the system's roots.
if ! command -v redis-server >/dev/null || ! { command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } \
  || ! command -v openssl >/dev/null || [ ! -d /etc/ssl/certs ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing redis-server, nginx, openssl and ca-certificates from Debian's packages"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server nginx openssl ca-certificates >/dev/null
  fi
fi

step "one version for every package (scripts/version.py check)"
python3 scripts/version.py check

step "Python venv for the interop peers (official SDK mcp==2.3.0)"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  -r tests/interop/python/requirements.txt -c tests/interop/python/constraints.txt
export MCPCORE_PYTHON="$root/.venv/bin/python"

step "npm packages for the interop peers (TypeScript SDK v2, server-everything, oauth2-mock-server)"
command -v npm >/dev/null || { echo "node/npm are missing: install Node >= 20 first" >&2; exit 1; }
(cd tests/interop/ts && npm ci --no-audit --no-fund --loglevel=error)
# The OAuth authorization server of tests/rust/oauth_interop.rs (oauth2-mock-server, pinned).
(cd tests/interop/oauth && npm ci --no-audit --no-fund --loglevel=error)

step "Keycloak, the token-exchange authorization server of tests/rust/gateway_obo.rs (Maven Central; Java 21+)"
kc_version=26.4.2
kc_dir="${CARGO_TARGET_DIR:-$PWD/target}/peers/keycloak-$kc_version"
if [[ ! -x "$kc_dir/bin/kc.sh" ]]; then
  command -v mvn >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null; }
  command -v unzip >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >/dev/null; }
  mvn -q dependency:get -Dartifact="org.keycloak:keycloak-quarkus-dist:$kc_version:zip" -Dtransitive=false
  mkdir -p "$(dirname "$kc_dir")"
  unzip -q -o "$HOME/.m2/repository/org/keycloak/keycloak-quarkus-dist/$kc_version/keycloak-quarkus-dist-$kc_version.zip" \
    -d "$(dirname "$kc_dir")"
fi
export MCPCORE_KEYCLOAK="$kc_dir"
kc_java=""
for j in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
  [[ -n "$j" && -x "$j/bin/java" ]] || continue
  v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
  if [[ "${v%%.*}" =~ ^[0-9]+$ && "${v%%.*}" -ge 21 ]]; then kc_java="$j"; break; fi
done
[[ -n "$kc_java" ]] || { echo "Keycloak needs a Java 21 or newer (JAVA_HOME or /usr/lib/jvm); none found" >&2; exit 1; }
export MCPCORE_KEYCLOAK_JAVA_HOME="$kc_java"
echo "Keycloak $kc_version in $kc_dir, Java in $kc_java"

step "an OpenTelemetry Collector for tests/rust/otlp_collector.rs (its own Go modules from the module proxy)"
command -v go >/dev/null || { echo "go is missing: install Go (the collector of tests/rust/otlp_collector.rs is built with it)" >&2; exit 1; }
otelcol="${CARGO_TARGET_DIR:-$PWD/target}/peers/otelcol"
(cd tests/interop/otelcol && go build -o "$otelcol" .)
export MCPCORE_OTELCOL="$otelcol"

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy -D warnings (core/clippy.toml keeps clock, sleep, spawn and entropy out of the pure layers)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "cargo deny: licences, duplicate versions (each named with its reason) and sources of what ships (deny.toml)"
# Installed once per machine (a few minutes of compiling on a fresh one); advisories are
# scripts/audit.sh's, at each release.
command -v cargo-deny >/dev/null || cargo install --quiet --locked cargo-deny --version 0.20.2
cargo deny --offline check licenses bans sources

step "third-party notices: THIRD_PARTY_NOTICES.txt names every crate the shipped crates link (scripts/check_notices.py)"
python3 scripts/check_notices.py
# make dist (below) writes each package's CycloneDX SBOM with it; installed once per machine.
command -v cargo-cyclonedx >/dev/null || cargo install --quiet --locked cargo-cyclonedx --version 0.5.9

step "core layering: every import goes to the same layer or one above, and no module cycle"
python3 scripts/check_layers.py

step "no loops between files (Rust crates, the Python package, Node lib/): at most the 1 known, issue 51"
python3 scripts/check_loops.py --max 0

step "no hand-written source file over 800 lines (generated ones exempt), issue 51"
python3 scripts/check_file_sizes.py

step "the release workflow: every action pinned by commit, then actionlint (.github/workflows; Go's actionlint, pinned)"
if grep -nE '^\s*(- )?uses: ' .github/workflows/*.yml | grep -vE 'uses: [^@ ]+@[0-9a-f]{40}( |$)'; then
  echo "the actions above are not pinned by commit: pin each to its tag's commit, the tag in a comment" >&2
  exit 1
fi
if command -v go >/dev/null; then
  [[ -x .tools/go-bin/actionlint ]] || GOBIN="$root/.tools/go-bin" go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
  .tools/go-bin/actionlint
else
  echo "go is missing: the workflow is not linted (install Go to lint it)"
fi

# toxiproxy slows Redis in tests/rust/fleet_chaos.rs (a latency proxy; Go, from the module proxy).
if [[ ! -x .tools/go-bin/toxiproxy-server ]] && command -v go >/dev/null; then
  step "toxiproxy-server (go install, pinned) for the slowed-Redis chaos test"
  mkdir -p .tools/go-bin/toxiproxy
  GOBIN="$root/.tools/go-bin/toxiproxy" go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0
  mv .tools/go-bin/toxiproxy/server .tools/go-bin/toxiproxy-server
fi

step "build every binary (tests spawn them as real child processes)"
cargo build --workspace --bins --quiet
# rmcp's Unix-socket client (bench/peers/rmcp-echo, about a minute in debug) is the peer of
# tests/rust/unix_socket.rs, which finds it in <target>/peers.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/peers" \
  cargo build --quiet --manifest-path bench/peers/rmcp-echo/Cargo.toml

step "cargo test"
cargo test --workspace --quiet 2>&1 | tee target/test-output.txt

step "Python binding: pip install ./bindings-python (debug profile, shared target dir), then pytest"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r bindings-python/requirements-test.txt \
  -c tests/interop/python/constraints.txt
PATH="$root/.venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" MATURIN_PEP517_ARGS="--profile dev" \
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall \
  --no-deps ./bindings-python
(cd bindings-python && PATH="$root/.venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" \
  ../.venv/bin/python -m pytest tests -q -p no:cacheprovider) 2>&1 | tee target/pytest-output.txt

step "Node binding: napi build (debug), generated .d.ts unchanged, tsc, node --test"
bash bindings-node/scripts/ci.sh 2>&1 | tee target/node-test-output.txt

step "docs: every Python and JavaScript sample of docs/ runs (tests/docs; the Rust ones are doctests, run above)"
(PATH="$root/.venv/bin:$PATH" .venv/bin/python -m pytest tests/docs -q -p no:cacheprovider) 2>&1 | tee target/docs-output.txt

step "Kotlin and Swift bindings (uniffi): build, generated bindings unchanged, mvn test, swift test when present"
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing Maven and a JDK from Debian's packages"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven default-jdk-headless >/dev/null
  fi
fi
command -v mvn >/dev/null || { echo "mvn is missing: install Maven and a JDK >= 17 (apt-get install maven)" >&2; exit 1; }
bash bindings-uniffi/scripts/ci.sh 2>&1 | tee target/uniffi-test-output.txt

step "packages: make dist, then install each with no cargo on PATH and run the examples (scripts/install-test.sh)"
# CI builds the packages with MCPCORE_DIST_QUICK=1: the same packages from unoptimized native code
# (scripts/dist.sh), ~6 min instead of the ~21 min of three release builds on a loaded 2-core
# machine; the install tests add ~2-3 min. Always run in CI; MCPCORE_SKIP_DIST=1 skips it locally.
dist=0
if [[ -n "${MCPCORE_SKIP_DIST:-}" && "${CI:-}" != true ]]; then
  echo "MCPCORE_SKIP_DIST is set: skipped" | tee target/install-test-output.txt
else
  { MCPCORE_DIST_QUICK=1 ./scripts/dist.sh && ./scripts/install-test.sh; } 2>&1 | tee target/install-test-output.txt || dist=1
fi

step "benchmark, quick mode (debug builds, small N: proves every workload runs, not a measurement)"
bench=0
bench/run --quick > target/bench-quick-output.txt 2>&1 || bench=1
tail -n 40 target/bench-quick-output.txt

step "fuzz targets (libFuzzer via cargo-fuzz on the stable toolchain, no sanitizer): replay fixed crashes, then 20 s each, two at a time"
fuzz=0
fuzz/run.sh 20 > target/fuzz-output.txt 2>&1 || fuzz=1
tail -n 8 target/fuzz-output.txt

step "official MCP conformance suite (server and client, 2025-11-25 and 2026-07-28)"
conformance=0
tests/conformance/run.sh || conformance=1

step "summary"
passed=$(grep -Eoh '[0-9]+ passed' target/test-output.txt target/pytest-output.txt target/docs-output.txt | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eoh '[0-9]+ failed' target/test-output.txt target/pytest-output.txt target/docs-output.txt | awk '{s+=$1} END {print s+0}')
node_passed=$(grep -Eo 'ℹ pass [0-9]+' target/node-test-output.txt | awk '{s+=$3} END {print s+0}')
node_failed=$(grep -Eo 'ℹ fail [0-9]+' target/node-test-output.txt | awk '{s+=$3} END {print s+0}')
# bindings-uniffi/scripts/ci.sh ends with one "N passed, M failed" line (JUnit + its own checks).
uniffi_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' target/uniffi-test-output.txt | tail -1 || true)
uniffi_passed=$(awk '{print $1+0}' <<<"$uniffi_line")
uniffi_failed=$(awk '{print $3+0}' <<<"$uniffi_line")
# scripts/install-test.sh ends with one "N passed, M failed" line too.
install_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' target/install-test-output.txt | tail -1 || true)
install_passed=$(awk '{print $1+0}' <<<"$install_line")
install_failed=$(awk '{print $3+0}' <<<"$install_line")
passed=$((passed + node_passed + ${uniffi_passed:-0} + ${install_passed:-0}))
failed=$((failed + node_failed + ${uniffi_failed:-0} + ${install_failed:-0}))
echo "$passed passed, $failed failed"
[ "$conformance" -eq 0 ] || echo "the conformance step failed (see above)"
[ "$dist" -eq 0 ] || echo "make dist or the install tests failed (target/install-test-output.txt)"
[ "$bench" -eq 0 ] || echo "the quick benchmark failed: a workload errored (target/bench-quick-output.txt)"
[ "$fuzz" -eq 0 ] || echo "a fuzz target crashed or did not build (target/fuzz-output.txt, target/fuzz-run/)"
[ "$failed" -eq 0 ] && [ "$conformance" -eq 0 ] && [ "$bench" -eq 0 ] && [ "$fuzz" -eq 0 ] && [ "$dist" -eq 0 ]
