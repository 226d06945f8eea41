#!/usr/bin/env bash
# Instructions a forwarded call costs in `mcpcore gateway` (its process only, under callgrind),
# with one stdio upstream, the W8 stdio cell's way (bench/NOTES.md, "The W8 A/B owed above"):
#   bench/profile/cg_w8.sh GATEWAY_BIN UPSTREAM_BIN VERSION [OUT_DIR]
# e.g. bench/profile/cg_w8.sh target/dist/mcpcore target/dist/echo_server 2026-07-28
# Runs the driver (MCPCORE_DRIVER, else target/release/mcpcore_driver) twice, N = 400 and
# 1200 sequential calls and as many with 8 in flight, and prints the difference over the 1,600
# calls between the runs (start-up, connection and warm-up cancel out). Give two gateway builds
# in turn for an A/B; the counts repeat to the hundred on this noisy machine, where wall time
# does not. Build unstripped (CARGO_PROFILE_DIST_STRIP=none) to read the files with
# callgrind_annotate or bench/profile/cgtop.py.
set -euo pipefail
gateway=$(realpath "$1") upstream=$(realpath "$2") version=$3
out=${4:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/../.." && pwd)
driver=${MCPCORE_DRIVER:-$root/target/release/mcpcore_driver}
mkdir -p "$out"
printf '{"mcpServers": {"echo": {"command": "%s", "prefix": ""}}}\n' "$upstream" > "$out/mcp.json"
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }
for n in 400 1200; do
  "$driver" stdio "$n" 8 1 1 0 "$version" -- \
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.$n" "$gateway" gateway --config "$out/mcp.json" >/dev/null 2>&1
done
a=$(total "$out/cg.400") b=$(total "$out/cg.1200")
[[ -n "$a" && -n "$b" ]] || { echo "no callgrind totals in $out (did the gateway exit on its own?)" >&2; exit 1; }
echo "$version: $(( (b - a) / 1600 )) instructions a call in the gateway ($out/cg.400, $out/cg.1200)"
