#!/usr/bin/env bash
# The long soak (issue 50): builds the dist binaries, runs bench/rust's `soak` for MINUTES
# (default 75: the conformance server keeps each task 30 minutes, so its RSS rises for the first
# 30 while that retention fills, and the last 40 minutes the summary's slope covers must come
# after it) at RATE calls a second per load (default 20), and writes
# bench/results/soak-<UTC time>.jsonl and .svg (bench/soak_plot.py). Not part of CI.
#   bench/soak.sh [MINUTES] [RATE]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes="${1:-75}"
rate="${2:-20}"
cd "$repo"
cargo build --quiet --profile dist -p mcpcore --features cli --bin mcpcore
cargo build --quiet --profile dist -p mcpcore-examples --bin echo_server
cargo build --quiet --profile dist -p mcpcore-bench --bin soak
stamp="$(date -u +%Y-%m-%dT%H%M%SZ)"
out="bench/results/soak-$stamp"
./target/dist/soak --minutes "$minutes" --rate "$rate" | tee "$out.jsonl"
python3 bench/soak_plot.py "$out.jsonl" "$out.svg"
echo "wrote $out.jsonl and $out.svg"
