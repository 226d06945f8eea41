#!/usr/bin/env bash
# `make dist`: builds the packages users install and writes them to dist/ (V = scripts/version.py get):
#   mcpcore-V-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl   pip install, CPython >= 3.9
#   mcpcore-V.tar.gz                     the Python sdist (builds from source where no wheel fits)
#   mcpcore-V.tgz                        npm: the main package (JS, types, the loader; no install script)
#   mcpcore-linux-x64-gnu-V.tgz          npm: its platform package (the release .node; os/cpu/libc)
#   mcpcore-V.jar, mcpcore-V.pom         Maven dev.mcpcore:mcpcore:V (the native library inside)
#
# The three native libraries are release builds ([profile.dist]: thin LTO) linked by zig against
# glibc 2.17 (scripts/dist/zigcc), for x86_64 Linux. The tools (maturin, ziglang, cargo-zigbuild,
# pinned in scripts/dist/requirements.txt) go to .tools/dist-venv; napi-rs comes from
# bindings-node's lockfile and Maven from the machine. scripts/install-test.sh installs what this
# wrote, with no cargo on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }
triple=x86_64-unknown-linux-gnu

for tool in cargo python3 node npm mvn; do
  command -v "$tool" >/dev/null || { echo "make dist needs $tool" >&2; exit 1; }
done
[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || { echo "make dist builds the x86_64 Linux packages, on x86_64 Linux" >&2; exit 1; }

step "one version everywhere"
python3 scripts/version.py check
version=$(python3 scripts/version.py get)

step "tools: maturin, ziglang, cargo-zigbuild (.tools/dist-venv), napi-rs (bindings-node lockfile)"
venv="$root/.tools/dist-venv"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/dist/requirements.txt
export PATH="$venv/bin:$PATH"
[[ -x bindings-node/node_modules/.bin/napi ]] || (cd bindings-node && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)

# Every build below links with zig against glibc 2.17. Each tool builds its own library, but
# every workspace member depends on workspace-hack (cargo hakari), which fixes one feature set
# for the shared dependencies, so the dependency tree is compiled once, by the first build, and
# reused by the other two (all three use the same --target and profile).
export "CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_LINKER=$root/scripts/dist/zigcc"
# MCPCORE_DIST_QUICK=1 (what CI sets): the same packages from unoptimized native code (opt-level 0,
# no LTO), a packaging check in a fraction of the time; the glibc check, the layout and the install
# tests are the same. Releases are built without it.
if [[ -n "${MCPCORE_DIST_QUICK:-}" ]]; then
  echo "MCPCORE_DIST_QUICK is set: unoptimized native libraries (a packaging check, not a release)"
  export CARGO_PROFILE_DIST_OPT_LEVEL=0 CARGO_PROFILE_DIST_LTO=false CARGO_PROFILE_DIST_CODEGEN_UNITS=256
fi
out="$root/dist"
stage="$CARGO_TARGET_DIR/dist-stage"
libdir="$CARGO_TARGET_DIR/$triple/dist"
rm -rf "$out" "$stage"
mkdir -p "$out" "$stage"

step "Kotlin native library: cargo rustc --profile dist (cdylib only)"
cargo rustc --quiet --profile dist --target "$triple" -p mcpcore-uniffi --lib --crate-type cdylib

step "Node native module: napi build --profile dist"
(cd bindings-node && npx --no-install napi build --platform --profile dist --target "$triple" \
  -o "$stage/napi" --no-js >/dev/null)

step "Python wheel: maturin build --profile dist --compatibility manylinux2014, and the sdist"
maturin build --quiet -m bindings-python/Cargo.toml --profile dist --target "$triple" \
  --compatibility manylinux2014 --out "$out"
maturin sdist -m bindings-python/Cargo.toml --out "$out"

step "native libraries need glibc <= 2.17"
glibc_max() { objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1; }
if command -v objdump >/dev/null; then
  for so in "$libdir/libmcpcore_uniffi.so" "$stage/napi/mcpcore.linux-x64-gnu.node"; do
    need=$(glibc_max "$so")
    echo "$(basename "$so"): GLIBC_$need"
    [[ "$(printf '%s\n2.17\n' "$need" | sort -V | tail -1)" == 2.17 ]] || { echo "$so needs glibc $need > 2.17" >&2; exit 1; }
  done
else
  echo "objdump not found (binutils): not checked here (maturin checked the wheel)"
fi

step "npm: stage and pack mcpcore-linux-x64-gnu and mcpcore"
node scripts/dist/stage-npm.mjs "$stage/npm" "$stage/napi/mcpcore.linux-x64-gnu.node"
for pkg in platform main; do
  (cd "$stage/npm/$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
done

step "Maven: mvn -Pdist package (the native library at linux-x86-64/ in the jar)"
mkdir -p "$stage/jna/linux-x86-64"
cp "$libdir/libmcpcore_uniffi.so" "$stage/jna/linux-x86-64/"
mvn -q -B -Dstyle.color=never -Pdist -f bindings-uniffi/pom.xml -Dcargo.target.dir="$CARGO_TARGET_DIR" \
  -Dmcpcore.native.dir="$stage/jna" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g'  # Maven 3.8 prints colour resets
cp "$CARGO_TARGET_DIR/uniffi-maven-dist/mcpcore-$version.jar" "$out/mcpcore-$version.jar"
cp bindings-uniffi/pom.xml "$out/mcpcore-$version.pom"

step "dist/ (version $version), built in ${SECONDS}s"
ls -l "$out" | tail -n +2
