#!/usr/bin/env bash
# Python-SDK-vs-Python-SDK self-check for sdk_client.py / sdk_server.py (no Rust involved).
# Usage: tests/interop/python/selfcheck.sh [PYTHON]   (PYTHON defaults to .venv/bin/python at the repo root)
# Each case: expected "protocolVersion lineage" (or "FAIL <stderr substring>") | client args | server args.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
py="${1:-$here/../../../.venv/bin/python}"
cases=(
  "2026-07-28 modern|                                        |"
  "2026-07-28 modern|--lineage modern                        |"
  "2026-07-28 modern|--lineage modern --protocol-version 2026-07-28|"
  "2025-11-25 legacy|--lineage legacy                        |"
  "2025-11-25 legacy|--lineage legacy --protocol-version 2025-11-25|"
  "2025-06-18 legacy|--lineage legacy --protocol-version 2025-06-18|"
  "2025-03-26 legacy|--lineage legacy --protocol-version 2025-03-26|"
  "2024-11-05 legacy|--protocol-version 2024-11-05             |"
  "2025-11-25 legacy|--lineage legacy --protocol-version 1900-01-01|"
  "2025-11-25 legacy|                                        |--legacy-only"
  "2024-11-05 legacy|--protocol-version 2024-11-05             |--legacy-only"
  "2026-07-28 modern|                                        |--modern-only"
  "FAIL -32601|--lineage modern                              |--legacy-only"
  "FAIL -32022|--lineage legacy                              |--modern-only"
  "FAIL -32022|--lineage modern --protocol-version 1900-01-01|"
)
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
pass=0 fail=0
for case in "${cases[@]}"; do
  IFS='|' read -r expect client_args server_args <<<"$case"
  # shellcheck disable=SC2086  # word splitting of the argument columns is intended
  out="$("$py" "$here/sdk_client.py" $client_args -- "$py" "$here/sdk_server.py" $server_args 2>"$err")"
  rc=$?
  if [[ $expect == FAIL* ]]; then
    [[ $rc -ne 0 ]] && grep -q -- "${expect#FAIL }" "$err" && ok=1 || ok=0
    got="rc=$rc $(tail -n1 "$err")"
  else
    read -r version lineage <<<"$expect"
    want="{\"protocolVersion\": \"$version\", \"lineage\": \"$lineage\", \"tools\": [\"add\", \"echo\"], \"echo\": \"hello from python sdk\", \"add\": {\"sum\": 5.0}}"
    [[ $rc -eq 0 && $out == "$want" ]] && ok=1 || ok=0
    got="rc=$rc $out"
  fi
  if [[ $ok -eq 1 ]]; then pass=$((pass + 1)); status=ok; else fail=$((fail + 1)); status=FAILED; fi
  echo "$status: client[$(echo $client_args)] server[$(echo $server_args)] -> $got"
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
