#!/usr/bin/env bash
# Instructions per HTTP call of an MCP server binary taking `--http ADDR` (the examples'
# echo_server), under callgrind:
#   bench/profile/cg_run.sh BIN legacy|modern N OUT.callgrind
# Run it for two N (say 200 and 400) and diff with cgtop.py: start-up, initialize and the
# first-call costs cancel out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 mode=$2 n=$3 out=$4
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --http "127.0.0.1:$port" >/dev/null 2>"$out.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 150); do
  python3 -c "import socket;socket.create_connection(('127.0.0.1',$port),0.5)" 2>/dev/null && break
  sleep 0.2
done
python3 "$here/cg_drive.py" "http://127.0.0.1:$port/mcp" "$mode" "$n"
kill -INT $pid
wait $pid || true
callgrind_annotate "$out" 2>/dev/null | grep "PROGRAM TOTALS"
