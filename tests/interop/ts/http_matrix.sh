#!/usr/bin/env bash
# SDK-vs-SDK HTTP interop matrix for the peer programs (no Rust involved):
#   Python client <-> TS server, TS client <-> Python server, each SDK against itself, both
#   lineages, JSON-response modes, and the 2024-11-05 HTTP+SSE transport (Python server and
#   @modelcontextprotocol/server-everything).
# Usage: tests/interop/ts/http_matrix.sh [PYTHON]   (PYTHON defaults to .venv/bin/python at the repo root)
# Needs `npm ci` in tests/interop/ts first. Servers listen on 127.0.0.1, ports from
# HTTP_MATRIX_PORT_BASE (default 43200) upwards; HTTP_MATRIX_ONLY=REGEX limits the servers by name.
# Prints one line per case, then "N passed, N failed" (about 2 minutes: each Python process
# spends ~1.6 s importing the SDK).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
pydir="$here/../python"
py="${1:-$here/../../../.venv/bin/python}"
base="${HTTP_MATRIX_PORT_BASE:-43200}"

# server name | command (PORT is substituted)
servers=(
  "py-dual|$py $pydir/sdk_http_server.py --port PORT"
  "py-json|$py $pydir/sdk_http_server.py --port PORT --json-response"
  "py-legacy|$py $pydir/sdk_http_server.py --port PORT --legacy-only"
  "py-modern|$py $pydir/sdk_http_server.py --port PORT --modern-only"
  "py-sse|$py $pydir/sdk_http_server.py --port PORT --sse-transport"
  "ts-dual|node $here/sdk_server.mjs --port PORT"
  "ts-json|node $here/sdk_server.mjs --port PORT --json-response"
  "ts-sseresp|node $here/sdk_server.mjs --port PORT --sse-response"
  "ts-legacy|node $here/sdk_server.mjs --port PORT --legacy-only"
  "ts-modern|node $here/sdk_server.mjs --port PORT --modern-only"
  "ts-stateful|node $here/sdk_server.mjs --port PORT --stateful-legacy"
  "ts-stateful-json|node $here/sdk_server.mjs --port PORT --stateful-legacy --json-response"
  "everything|node $here/everything.mjs --port PORT"
)

# Each case: server | expectation ("VERSION LINEAGE" or "FAIL <stderr substring>") | client args.
# Every case runs with both clients (py, ts) unless the expectation is prefixed "py:" / "ts:".
cases=(
  "py-dual|2026-07-28 modern|"
  "py-dual|2026-07-28 modern|--lineage modern"
  "py-dual|2025-11-25 legacy|--lineage legacy"
  "py-dual|2024-11-05 legacy|--protocol-version 2024-11-05"
  "py-dual|FAIL -32022|--lineage modern --protocol-version 2099-01-01"
  "py-json|2026-07-28 modern|"
  "py-json|2025-11-25 legacy|--lineage legacy"
  "py-legacy|2025-11-25 legacy|"
  "py-legacy|2025-06-18 legacy|--protocol-version 2025-06-18"
  "py-legacy|py:FAIL Missing session ID|--lineage modern"
  "py-legacy|ts:FAIL ERA_NEGOTIATION_FAILED|--lineage modern"
  "py-modern|2026-07-28 modern|"
  "py-modern|py:FAIL -32602|--lineage legacy"
  "py-modern|ts:FAIL HTTP 400|--lineage legacy"
  "py-sse|2025-11-25 legacy|--sse-transport --lineage legacy"
  "py-sse|2024-11-05 legacy|--sse-transport --protocol-version 2024-11-05"
  "py-sse|2026-07-28 modern|--sse-transport"
  "ts-dual|2026-07-28 modern|"
  "ts-dual|2026-07-28 modern|--lineage modern"
  "ts-dual|2025-11-25 legacy|--lineage legacy"
  "ts-dual|2024-11-05 legacy|--protocol-version 2024-11-05"
  "ts-dual|2025-11-25 legacy|--lineage legacy --protocol-version 1900-01-01"
  "ts-json|2026-07-28 modern|"
  "ts-json|2025-11-25 legacy|--lineage legacy"
  "ts-sseresp|2026-07-28 modern|"
  "ts-legacy|2025-11-25 legacy|"
  "ts-legacy|2025-03-26 legacy|--protocol-version 2025-03-26"
  "ts-legacy|py:FAIL Unsupported protocol version: 2026-07-28|--lineage modern"
  "ts-legacy|ts:FAIL ERA_NEGOTIATION_FAILED|--lineage modern"
  "ts-modern|2026-07-28 modern|"
  "ts-modern|FAIL -32022|--lineage legacy"
  "ts-stateful|2026-07-28 modern|"
  "ts-stateful|2025-11-25 legacy|--lineage legacy"
  "ts-stateful|2024-11-05 legacy|--protocol-version 2024-11-05"
  "ts-stateful-json|2025-11-25 legacy|--lineage legacy"
  "everything|2025-11-25 legacy|--sse-transport --everything --lineage legacy"
  "everything|2025-11-25 legacy|--sse-transport --everything"
  "everything|2024-11-05 legacy|--sse-transport --everything --protocol-version 2024-11-05"
  "everything|py:FAIL -32601|--sse-transport --everything --lineage modern"
  "everything|ts:FAIL ERA_NEGOTIATION_FAILED|--sse-transport --everything --lineage modern"
)

check_output() {  # $1 = JSON line, $2 = version, $3 = lineage, $4 = everything(0/1), $5 = text
  "$py" - "$@" <<'EOF'
import json, sys
line, version, lineage, everything, text = sys.argv[1:]
try:
    out = json.loads(line)
except ValueError:
    sys.exit(1)
ok = out.get("protocolVersion") == version and out.get("lineage") == lineage
if everything == "1":
    ok = ok and {"echo", "get-sum"} <= set(out["tools"]) and out["echo"] == f"Echo: {text}"
else:
    ok = ok and out["tools"] == ["add", "echo"] and out["echo"] == text and out["add"] == {"sum": 5}
sys.exit(0 if ok else 1)
EOF
}

err="$(mktemp)"
srv_out="$(mktemp)"
srv_err="$(mktemp)"
srv_pid=""
cleanup() {
  [[ -n $srv_pid ]] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
  rm -f "$err" "$srv_out" "$srv_err"
}
trap cleanup EXIT

pass=0 fail=0
port=$base
for server in "${servers[@]}"; do
  name="${server%%|*}"
  cmd="${server#*|}"
  port=$((port + 1))
  [[ $name =~ ${HTTP_MATRIX_ONLY:-.} ]] || continue
  # shellcheck disable=SC2086  # the command string is split on purpose
  ${cmd//PORT/$port} >"$srv_out" 2>"$srv_err" &
  srv_pid=$!
  url=""
  for _ in $(seq 100); do
    url="$(awk '/^READY /{print $2; exit}' "$srv_out")"
    [[ -n $url ]] && break
    sleep 0.1
  done
  if [[ -z $url ]]; then
    echo "FAILED: server $name did not print READY: $(tail -n3 "$srv_err")"; fail=$((fail + 1))
    kill "$srv_pid" 2>/dev/null; wait "$srv_pid" 2>/dev/null; srv_pid=""
    continue
  fi
  for case in "${cases[@]}"; do
    IFS='|' read -r cname expect client_args <<<"$case"
    [[ $cname == "$name" ]] || continue
    for client in py ts; do
      e="$expect"
      if [[ $e == py:* || $e == ts:* ]]; then
        [[ ${e%%:*} == "$client" ]] || continue
        e="${e#*:}"
      fi
      if [[ $client == py ]]; then
        text="hello from python sdk"
        # shellcheck disable=SC2086
        out="$(timeout 90 "$py" "$pydir/sdk_http_client.py" $client_args "$url" 2>"$err")"
      else
        text="hello from typescript sdk"
        # shellcheck disable=SC2086
        out="$(timeout 90 node "$here/sdk_client.mjs" $client_args "$url" 2>"$err")"
      fi
      rc=$?
      if [[ $e == FAIL* ]]; then
        [[ $rc -eq 1 ]] && grep -qF -- "${e#FAIL }" "$err" && ok=1 || ok=0
        got="rc=$rc $(tail -n1 "$err" | cut -c1-200)"
      else
        read -r version lineage <<<"$e"
        everything=0; [[ $client_args == *--everything* ]] && everything=1
        [[ $rc -eq 0 ]] && check_output "$out" "$version" "$lineage" "$everything" "$text" && ok=1 || ok=0
        got="rc=$rc $(echo "$out" | cut -c1-200)"
        [[ $ok -eq 1 ]] || got="$got $(tail -n1 "$err" | cut -c1-200)"
      fi
      if [[ $ok -eq 1 ]]; then pass=$((pass + 1)); status=ok; else fail=$((fail + 1)); status=FAILED; fi
      echo "$status: $client-client[$(echo $client_args)] -> $name: $got"
    done
  done
  kill "$srv_pid" 2>/dev/null; wait "$srv_pid" 2>/dev/null; srv_pid=""
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
