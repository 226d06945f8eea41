#!/usr/bin/env bash
# Everything CI needs for the Node binding, from a fresh clone after `cargo build --workspace --bins`:
#   npm ci (committed lockfiles) -> napi build (debug) -> index.d.ts/index.js unchanged ->
#   tsc --noEmit over test/types -> node --test (with the TS SDK interop peers and the examples).
# Runs on the machine's Node 20 (>= 20.17). The packed packages are tested by scripts/install-test.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
npm_ci() { (cd "$1" && npm ci --no-audit --no-fund "${@:2}"); }
step() { printf '\n== %s\n' "$*"; }

step "node $(node --version), npm $(npm --version)"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<17)) { console.error("mcpcore: Node >= 20.17 is required"); process.exit(1) }'
for bin in echo_server echo_client; do
  [[ -x "$CARGO_TARGET_DIR/debug/$bin" ]] || { echo "missing $CARGO_TARGET_DIR/debug/$bin: run cargo build --workspace --bins" >&2; exit 1; }
done

step "npm ci (bindings-node)"
npm_ci "$here" --ignore-scripts

step "napi build --platform (debug)"
(cd "$here" && npx --no-install napi build --platform)

step "generated index.d.ts / index.js unchanged"
if git -C "$repo" ls-files --error-unmatch "$here/index.d.ts" >/dev/null 2>&1; then
  git -C "$repo" diff --exit-code -- "$here/index.d.ts" "$here/index.js"
else
  echo "warning: index.d.ts is not tracked by git yet; nothing to compare" >&2
fi

step "tsc --noEmit (test/types)"
(cd "$here" && npx --no-install tsc -p test/types)

step "npm ci (tests/interop/ts, tests/interop/oauth, examples/node)"
npm_ci "$repo/tests/interop/ts" --ignore-scripts
npm_ci "$repo/tests/interop/oauth" --ignore-scripts
npm_ci "$repo/examples/node"

step "node --test"
cd "$here"
node --test --test-reporter=spec test/*.test.mjs   # ends with the summary (tests/pass/fail)
