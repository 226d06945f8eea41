#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time, two at a time (what CI does).
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]      default: 30 s, every target
#   MCPCORE_FUZZ_ASAN=1 fuzz/run.sh ...               with AddressSanitizer (slower; see below)
# Installs cargo-fuzz when missing. Seeds come from fuzz/make_seeds.py (the official examples of
# every revision plus hand-written sessions); the corpus each run grows is kept under
# $CARGO_TARGET_DIR/fuzz-run/corpus, so a later run starts from it. The inputs of every crash
# fixed so far (fuzz/regressions/<target>/) are replayed first. A crash leaves its input under
# $CARGO_TARGET_DIR/fuzz-run/artifacts/<target>/ and fails the run. Ends with one line per
# target (executions, coverage) and "N passed, M failed".
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
secs="${1:-30}"
shift || true
all=(jsonrpc_parse engine_sequence http_headers sse_parser uri_template request_state stdio_framing jwks_document skill_frontmatter dpop_proof webhook_delivery)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
target_dir="${CARGO_TARGET_DIR:-$repo/target}/fuzz"
out="${CARGO_TARGET_DIR:-$repo/target}/fuzz-run"

if ! command -v cargo-fuzz >/dev/null; then
  echo "installing cargo-fuzz 0.13.2 from crates.io"
  cargo install --quiet cargo-fuzz --version 0.13.2 --locked
fi
# cargo-fuzz passes unstable flags (-Zsanitizer=address and friends): RUSTC_BOOTSTRAP lets the
# stable toolchain take them, so no nightly is needed. -a: debug assertions (overflow checks) on.
# --codegen-units 16: cargo-fuzz's default is 1 for every crate, which leaves one of two cores
# idle on the large crates (mcpcore itself above all) and made this build ~15 min in CI.
# By default (CI's short runs) the build has no sanitizer and opt-level 1: it builds in 424 s
# instead of ~650 s and runs about 10x the executions a second (jsonrpc_parse 1.1M against 94k
# in 15 s; measured in fuzz/README.md). The targets are safe Rust
# over safe parsers, where AddressSanitizer finds little that debug assertions and panics do
# not. MCPCORE_FUZZ_ASAN=1 builds as before (AddressSanitizer, opt-level 3) into its own
# target directory, for runs at depth.
export RUSTC_BOOTSTRAP=1
flags=(-a --codegen-units 16)
if [[ -n "${MCPCORE_FUZZ_ASAN:-}" ]]; then
  target_dir="$target_dir-asan"
else
  flags+=(-s none)
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=1
fi
start=$SECONDS
mkdir -p "$out/logs"
build() { (cd "$here" && cargo fuzz build "${flags[@]}" --target-dir "$target_dir" "$@") >>"$out/logs/build.log" 2>&1 || {
  tail -n 40 "$out/logs/build.log"
  echo "fuzz: the build failed"
  exit 1
}; }
: >"$out/logs/build.log"
if [[ ${#targets[@]} -eq ${#all[@]} ]]; then build; else for t in "${targets[@]}"; do build "$t"; done; fi
host="$(rustc -vV | sed -n 's/^host: //p')"
bin="$target_dir/$host/release"
echo "fuzz build took $((SECONDS - start)) s"
rm -rf "$out/seeds"
python3 "$here/make_seeds.py" "$out/seeds" >/dev/null

run_one() {  # run_one TARGET: replays the regressions, then fuzzes for $secs seconds
  local t="$1" log="$out/logs/$1.log"
  mkdir -p "$out/corpus/$t" "$out/artifacts/$t" "$out/logs"
  local flags=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/$t/")
  if compgen -G "$here/regressions/$t/*" >/dev/null; then
    "$bin/$t" "${flags[@]}" "$here/regressions/$t"/* >"$out/logs/$t.regressions.log" 2>&1 || {
      echo "$t: a fixed crash came back (see $out/logs/$t.regressions.log)" >"$out/logs/$t.result"
      return 1
    }
  fi
  if "$bin/$t" "$out/corpus/$t" "$out/seeds/$t" "${flags[@]}" -max_total_time="$secs" -print_final_stats=1 \
    >"$log" 2>&1; then
    local execs cov
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -Eo 'DONE +cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 | sed 's/DONE *//')
    echo "$t: ok, $execs executions in ${secs} s, $cov" >"$out/logs/$t.result"
  else
    echo "$t: CRASH (input under $out/artifacts/$t/; log $log)" >"$out/logs/$t.result"
    tail -n 40 "$log"
    return 1
  fi
}

failed=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do
    run_one "$t" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
done
for t in "${targets[@]}"; do cat "$out/logs/$t.result"; done
echo "fuzz: $((${#targets[@]} - failed)) passed, $failed failed"
[[ "$failed" -eq 0 ]]
