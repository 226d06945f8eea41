#!/usr/bin/env bash
# `make dist` / `make dist-all`: builds the packages users install and writes them to dist/.
#
#   scripts/dist.sh                 x86_64 Linux (glibc) only: what CI builds and installs
#   scripts/dist.sh --all           every platform of scripts/dist/targets.sh (make dist-all)
#   scripts/dist.sh TRIPLE...       the given Rust target triples
#
# For each target triple T (V = scripts/version.py get):
#   mcpcore-V-cp39-abi3-<platform tag>.whl   pip install, CPython >= 3.9; carries the CLI as the
#                                            `mcpcore` command (mcpcore-V.data/scripts)
#   mcpcore-<npm name>-V.tgz                 npm: the platform package (the .node, the CLI; os/cpu/libc)
#   mcpcore-V-T.tar.gz (.zip on Windows)     the CLI alone (static on musl)
# and once:
#   mcpcore-V.tar.gz                         the Python sdist (builds from source where no wheel fits)
#   mcpcore-V.tgz                            npm: the main package (JS, types, the loader, the `mcpcore`
#                                            bin; every platform package built here as optional)
#   mcpcore-V.jar, mcpcore-V.pom             Maven dev.mcpcore:mcpcore:V (the native library of every
#                                            glibc/Windows/macOS target built here, at JNA's paths)
# Every package with native code carries THIRD_PARTY_NOTICES.txt (the CLI archive and the npm
# platform package at their top, the wheel in its dist-info/licenses/, the jar in META-INF/), and
# has its CycloneDX SBOM beside it in dist/ as <package file>.cdx.json (scripts/notices.sh).
# The JavaScript-only main npm package and the sdist link no third-party code.
#
# Every native artifact is a release build ([profile.dist]: thin LTO) linked by zig
# (scripts/dist/zigcc; mingw-w64 for Windows): against glibc 2.17 for Linux gnu, musl, and for
# macOS text stubs of the two Apple frameworks used (scripts/dist/macos-stubs.py). The tools (maturin, ziglang,
# cargo-zigbuild, pinned in scripts/dist/requirements.txt) go to .tools/dist-venv; napi-rs comes
# from bindings-node's lockfile, Maven from the machine, the Rust standard libraries from
# `rustup target add`. With more than one target, each target's build tree is removed once its
# artifacts are in dist/ (MCPCORE_DIST_KEEP=1 keeps them), so the disk needed is one target's.
# scripts/install-test.sh installs the x86_64 Linux packages with no cargo on PATH;
# scripts/install-test-cross.sh tests the others (qemu, wine, static checks).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }
# shellcheck source=dist/targets.sh
source scripts/dist/targets.sh

targets=()
case "${1:-}" in
  "") targets=(x86_64-unknown-linux-gnu) ;;
  --all) targets=("${ALL_TARGETS[@]}") ;;
  *) targets=("$@") ;;
esac
for t in "${targets[@]}"; do target_vars "$t" >/dev/null; done

for tool in cargo rustup python3 node npm mvn; do
  command -v "$tool" >/dev/null || { echo "make dist needs $tool" >&2; exit 1; }
done
[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || { echo "make dist builds on x86_64 Linux" >&2; exit 1; }
# Windows links with mingw-w64; the macOS stubs read symbols with llvm-nm; the glibc check uses
# objdump. Installed from Debian's packages when missing and this runs as root.
needs=()
[[ " ${targets[*]} " == *windows* ]] && ! command -v x86_64-w64-mingw32-gcc >/dev/null && needs+=(mingw-w64)
[[ " ${targets[*]} " == *apple* ]] && ! command -v llvm-nm >/dev/null && needs+=(llvm)
# (objdump only when it can be installed: without it the glibc check says it did not run.)
command -v objdump >/dev/null || { [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null && needs+=(binutils); }
if [[ ${#needs[@]} -gt 0 ]]; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "installing ${needs[*]} from Debian's packages"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needs[@]}" >/dev/null
  else
    echo "make dist needs ${needs[*]} (Debian packages) for ${targets[*]}" >&2
    exit 1
  fi
fi

step "one version everywhere"
python3 scripts/version.py check
version=$(python3 scripts/version.py get)

step "tools: maturin, ziglang, cargo-zigbuild (.tools/dist-venv), napi-rs (bindings-node lockfile), Rust std of ${targets[*]}"
venv="$root/.tools/dist-venv"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/dist/requirements.txt
export PATH="$venv/bin:$PATH"
[[ -x bindings-node/node_modules/.bin/napi ]] || (cd bindings-node && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

# MCPCORE_DIST_QUICK=1 (what CI sets): the same packages from unoptimized native code (opt-level 0,
# no LTO), a packaging check in a fraction of the time; the glibc check, the layout and the install
# tests are the same. Releases are built without it.
if [[ -n "${MCPCORE_DIST_QUICK:-}" ]]; then
  echo "MCPCORE_DIST_QUICK is set: unoptimized native libraries (a packaging check, not a release)"
  export CARGO_PROFILE_DIST_OPT_LEVEL=0 CARGO_PROFILE_DIST_LTO=false CARGO_PROFILE_DIST_CODEGEN_UNITS=256
fi
out="$root/dist"
stage="$CARGO_TARGET_DIR/dist-stage"
rm -rf "$out" "$stage"
mkdir -p "$out" "$stage/jna" "$stage/npm-platforms"

step "third-party notices (THIRD_PARTY_NOTICES.txt, checked) and SBOMs (scripts/notices.sh --sbom)"
python3 scripts/check_notices.py
notices="$root/THIRD_PARTY_NOTICES.txt"
# The SBOMs need cargo-cyclonedx: a release (more than one target) installs it; a single-target
# build (CI's) makes them when it is there and says so when not.
sboms="" jar_boms=()
if [[ ${#targets[@]} -gt 1 ]] || command -v cargo-cyclonedx >/dev/null; then
  sboms=1
else
  echo "cargo-cyclonedx is not installed: no SBOMs in this build (make dist-all installs it)"
fi
# sbom TRIPLE PACKAGE CRATE...: PACKAGE's SBOM, beside it: the first crate's for TRIPLE, with the
# components of the others added (the wheel and the npm platform package carry the CLI beside
# their module).
sbom() {
  [[ -n "$sboms" ]] || return 0
  local triple=$1 target=$2 boms=() c
  shift 2
  [[ -d "$stage/sbom/$triple" ]] || scripts/notices.sh --sbom "$stage/sbom/$triple" "$triple"
  for c in "$@"; do boms+=("$stage/sbom/$triple/$c"); done
  python3 scripts/dist/merge-sbom.py "$out/$target.cdx.json" "${boms[@]}"
}

glibc_max() { objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1; }

# cc_setup TRIPLE: the linker and C compiler of one target, as CARGO_TARGET_<T>_LINKER and CC_<t>
# (zig through a wrapper in target/dist-cc/ that names the zig target; mingw-w64's gcc for
# Windows), and its RUSTFLAGS. Set for every target before any build, and never changed: the
# build scripts and proc macros of every target are built for the host, with the host's
# (x86_64-unknown-linux-gnu's) settings, so those must be the same in every target's build or
# each build would rebuild them, and with them the whole tree.
cc_setup() {
  local triple=$1 up low cc
  target_vars "$triple"
  up=$(tr 'a-z-' 'A-Z_' <<<"$triple")
  low=${triple//-/_}
  if [[ "$linker" == scripts/dist/zigcc ]]; then
    cc="$CARGO_TARGET_DIR/dist-cc/$triple"
    mkdir -p "$(dirname "$cc")"
    printf '#!/bin/sh\nMCPCORE_ZIG_TARGET=%s exec %s "$@"\n' "$zig_target" "$root/scripts/dist/zigcc" >"$cc.new"
    chmod +x "$cc.new"
    cmp -s "$cc.new" "$cc" && rm "$cc.new" || mv "$cc.new" "$cc"
  else
    cc=$linker
    command -v "$cc" >/dev/null || { echo "$triple needs $linker (Debian: apt-get install mingw-w64)" >&2; exit 1; }
  fi
  export "CARGO_TARGET_${up}_LINKER=$cc" "CC_${low}=$cc"
  if [[ "$triple" == *-windows-gnu ]]; then
    # napi-build links windows-gnu addons with -lnode and wants a libnode.dll to do it, but the
    # addon loads Node-API from the host process at run time (napi's dyn-symbols, the default),
    # so it must import nothing from Node: an empty libnode.a, which ld takes before any DLL,
    # satisfies -lnode with no import (install-test-cross.sh checks the .node's imports).
    local ln="$CARGO_TARGET_DIR/dist-cc/libnode"
    mkdir -p "$ln"
    [[ -f "$ln/libnode.a" ]] || x86_64-w64-mingw32-ar rcs "$ln/libnode.a"
    : >"$ln/libnode.dll"  # what napi-build looks for; never read, the archive comes first
    export LIBNODE_PATH="$ln"
  fi
  case "$triple" in
    # CoreFoundation and Security (chrono's time zone, the platform certificate verifier) are
    # linked against text stubs that scripts/dist/macos-stubs.py writes from the undefined
    # symbols of the crates that use them: no Apple SDK needed (docs/deployment.md).
    *-apple-darwin) export "CARGO_TARGET_${up}_RUSTFLAGS=-L framework=$CARGO_TARGET_DIR/dist-cc/macos-sdk" ;;
    *) export "CARGO_TARGET_${up}_RUSTFLAGS=$rustflags" ;;
  esac
}
for t in x86_64-unknown-linux-gnu "${targets[@]}"; do cc_setup "$t"; done

# build_target TRIPLE: every artifact of one target into dist/ (and the JNA library and npm
# platform package into the stage, packed below).
build_target() {
  local triple=$1
  target_vars "$triple"
  local libdir
  libdir="$CARGO_TARGET_DIR/$triple/dist"
  # Every build below (cargo, napi, maturin) links with this target's linker (cc_setup, above),
  # and compiles C (ring) with it. Every workspace member depends on workspace-hack (cargo hakari), which fixes one
  # feature set for the shared dependencies, so the dependency tree is compiled once per target,
  # by the first build, and reused by the others (same --target, profile and RUSTFLAGS).
  case "$triple" in
    # The deployment target rustc, zig and maturin's wheel tag agree on.
    *-apple-darwin) export MACOSX_DEPLOYMENT_TARGET="${zig_target##*macos.}" ;;
    *) unset MACOSX_DEPLOYMENT_TARGET ;;
  esac
  if [[ "$triple" == *-apple-darwin ]]; then
    step "$triple: the frameworks' text stubs (cargo build -p mcpcore --lib, then scripts/dist/macos-stubs.py)"
    cargo build --quiet --profile dist --target "$triple" -p mcpcore --lib
    python3 scripts/dist/macos-stubs.py "$libdir/deps" "$CARGO_TARGET_DIR/dist-cc/macos-sdk"
  fi

  step "$triple: the CLI (cargo rustc --profile dist -p mcpcore --features cli${npm_libc:+, }${npm_libc})"
  local static=()
  [[ "$triple" == *-musl ]] && static=(-- -C target-feature=+crt-static)
  cargo rustc --quiet --profile dist --target "$triple" -p mcpcore --features cli --bin mcpcore "${static[@]}"
  local cli="$libdir/mcpcore$exe"
  local clidir="$stage/cli/mcpcore-$version-$triple"
  mkdir -p "$clidir"
  cp "$cli" "$clidir/"
  cp LICENSE* "$notices" "$clidir/" 2>/dev/null || true
  printf 'mcpcore %s for %s (%s). Run: ./mcpcore%s --help\n' "$version" "$desc" "$triple" "$exe" >"$clidir/README.txt"
  if [[ "$triple" == *windows* ]]; then
    (cd "$stage/cli" && rm -f "$out/mcpcore-$version-$triple.zip" && python3 -m zipfile -c "$out/mcpcore-$version-$triple.zip" "mcpcore-$version-$triple")
  else
    tar -C "$stage/cli" -czf "$out/mcpcore-$version-$triple.tar.gz" "mcpcore-$version-$triple"
  fi
  local archive="mcpcore-$version-$triple.tar.gz"
  [[ "$triple" == *windows* ]] && archive="mcpcore-$version-$triple.zip"
  sbom "$triple" "$archive" mcpcore.cdx.json

  if [[ -n "$jna_dir" ]]; then
    step "$triple: Kotlin native library (cargo rustc -p mcpcore-uniffi --crate-type cdylib) -> jar's $jna_dir/"
    cargo rustc --quiet --profile dist --target "$triple" -p mcpcore-uniffi --lib --crate-type cdylib
    mkdir -p "$stage/jna/$jna_dir"
    cp "$libdir/$lib_file" "$stage/jna/$jna_dir/"
    jar_boms+=("$stage/sbom/$triple/mcpcore-uniffi.cdx.json")
  fi

  step "$triple: Node native module (napi build --profile dist) -> mcpcore-$npm_name"
  (cd bindings-node && npx --no-install napi build --platform --profile dist --target "$triple" \
    -o "$stage/napi" --no-js >/dev/null)
  node scripts/dist/stage-npm.mjs platform "$stage/npm-platforms/$npm_name" "$npm_name" "$npm_os" "$npm_cpu" \
    "${npm_libc:--}" "$desc" "$stage/napi/mcpcore.$npm_name.node" "$cli" "$notices"
  sbom "$triple" "mcpcore-$npm_name-$version.tgz" mcpcore-node.cdx.json mcpcore.cdx.json

  step "$triple: Python wheel (maturin build --profile dist, $wheel_tag), then the CLI as its mcpcore script"
  local compat=()
  [[ "$triple" == *-linux-* ]] && compat=(--compatibility "$wheel_tag")
  local wheels="$stage/wheels-$triple"
  maturin build --quiet -m bindings-python/Cargo.toml --profile dist --target "$triple" "${compat[@]}" --out "$wheels"
  local whl
  whl=$(ls "$wheels"/*.whl)
  python3 scripts/dist/wheel-add-script.py "$whl" "$cli"
  python3 scripts/dist/wheel-add-script.py --license "$whl" "$notices"
  sbom "$triple" "$(basename "$whl")" mcpcore-python.cdx.json mcpcore.cdx.json
  mv "$whl" "$out/"

  if [[ "$npm_libc" == glibc ]]; then
    step "$triple: native code needs glibc <= 2.17"
    if command -v objdump >/dev/null; then
      local f need
      for f in "$cli" "$libdir/$lib_file" "$stage/napi/mcpcore.$npm_name.node"; do
        need=$(glibc_max "$f")
        echo "$(basename "$f"): GLIBC_$need"
        [[ "$(printf '%s\n2.17\n' "$need" | sort -V | tail -1)" == 2.17 ]] || { echo "$f needs glibc $need > 2.17" >&2; exit 1; }
      done
    else
      echo "objdump not found (binutils): not checked here (maturin checked the wheel)"
    fi
  fi

  if [[ ${#targets[@]} -gt 1 && -z "${MCPCORE_DIST_KEEP:-}" ]]; then
    echo "$triple: artifacts in dist/; removing its build tree ($(du -sh "$CARGO_TARGET_DIR/$triple" | cut -f1))"
    rm -rf "${CARGO_TARGET_DIR:?}/$triple"
  fi
}

for t in "${targets[@]}"; do build_target "$t"; done

step "Python sdist"
maturin sdist -m bindings-python/Cargo.toml --out "$out"

step "npm: pack the platform packages and mcpcore (the platform packages as optionalDependencies)"
node scripts/dist/stage-npm.mjs main "$stage/npm-main" "$stage/npm-platforms"
for pkg in "$stage"/npm-platforms/* "$stage/npm-main"; do
  (cd "$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
done

step "Maven: mvn -Pdist package (the native libraries at $(ls "$stage/jna" | tr '\n' ' ')in the jar)"
mvn -q -B -Dstyle.color=never -Pdist -f bindings-uniffi/pom.xml -Dcargo.target.dir="$CARGO_TARGET_DIR" \
  -Dmcpcore.native.dir="$stage/jna" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g'  # Maven 3.8 prints colour resets
cp "$CARGO_TARGET_DIR/uniffi-maven-dist/mcpcore-$version.jar" "$out/mcpcore-$version.jar"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "a").write(sys.argv[2], "META-INF/THIRD_PARTY_NOTICES.txt")' \
  "$out/mcpcore-$version.jar" "$notices"
# The jar holds the Kotlin library of every target built: its SBOM lists what each links.
if [[ -n "$sboms" && ${#jar_boms[@]} -gt 0 ]]; then
  python3 scripts/dist/merge-sbom.py "$out/mcpcore-$version.jar.cdx.json" "${jar_boms[@]}"
fi
cp bindings-uniffi/pom.xml "$out/mcpcore-$version.pom"

step "dist/ (version $version, ${#targets[@]} target(s)), built in ${SECONDS}s"
ls -l "$out" | tail -n +2
