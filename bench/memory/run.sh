#!/usr/bin/env bash
# Memory after bursts (issue 21): a burst_server is flooded with N concurrent slow calls
# (default 10,000 calls of 2 s, 3 floods, one loopback connection each) by burst_driver, and its
# resident memory is read from /proc before, at each flood's peak and 3 s after each flood.
# Three variants of the same server: the system allocator (glibc), the system allocator with
# malloc_trim(0) once a second while idle (--trim), and mimalloc (the crate's `mimalloc`
# feature). Writes bench/results/<UTC date>-memory-burst.json; prints one line per variant.
#
#   bench/memory/run.sh [--calls N] [--floods K] [--ms MS] [--bytes B]
#
# A measurement, not a test: run it on a quiet machine. Release code without LTO (the allocator,
# not inlining, is what is measured here; the build then takes minutes, not tens of minutes).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
target="${CARGO_TARGET_DIR:-$repo/target}"
ulimit -n "$(ulimit -Hn)"
cargo build --release --quiet -p mcpcore-bench --bin burst_driver --bin burst_server
cp "$target/release/burst_server" "$target/release/burst_server_system"
cargo build --release --quiet -p mcpcore-bench --features mimalloc --bin burst_server
cp "$target/release/burst_server" "$target/release/burst_server_mimalloc"

out="bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-memory-burst.json"
echo "[" > "$out"
first=1
for variant in ${BURST_VARIANTS:-mimalloc system-trim system}; do
  case "$variant" in
    system) cmd=("$target/release/burst_server_system") ;;
    system-trim) cmd=("$target/release/burst_server_system" --trim) ;;
    mimalloc) cmd=("$target/release/burst_server_mimalloc") ;;
  esac
  log="$(mktemp)"
  "${cmd[@]}" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
  url="$(sed -n 's/^listening on //p' "$log")"
  line="$("$target/release/burst_driver" "$pid" "$url" "$@")"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$log"
  echo "$variant: $line"
  [[ $first -eq 1 ]] || echo "," >> "$out"
  first=0
  printf '{"variant": "%s", "result": %s}\n' "$variant" "$line" >> "$out"
done
echo "]" >> "$out"
echo "wrote $out"
