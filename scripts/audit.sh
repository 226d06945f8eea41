#!/usr/bin/env bash
# The advisory check of the Rust dependency graph: `cargo audit` over Cargo.lock against a
# snapshot of the RustSec advisory database (https://github.com/rustsec/advisory-db), with the
# exceptions below written down with their reasons. Run at each release (CONTRIBUTING.md).
#
#   scripts/audit.sh                 # the snapshot in $MCPCORE_ADVISORY_DB, else .tools/advisory-db
#                                    # (cloned there on first use; `git -C .tools/advisory-db pull`
#                                    # refreshes it)
#   scripts/audit.sh PATH            # the snapshot at PATH (a clone of the advisory repository)
#
# Installs cargo-audit (crates.io, pinned) into .tools/cargo-bin when it is missing. Fails on any
# vulnerability, and on warnings (unmaintained, unsound, yanked) too.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

db="${1:-${MCPCORE_ADVISORY_DB:-$root/.tools/advisory-db}}"
if [[ ! -d "$db/crates" ]]; then
  echo "fetching the RustSec advisory database into $db"
  git clone --quiet --depth 1 https://github.com/rustsec/advisory-db "$db"
fi

audit=(cargo audit)
if ! cargo audit --version >/dev/null 2>&1; then
  if [[ ! -x .tools/cargo-bin/bin/cargo-audit ]]; then
    echo "installing cargo-audit 0.22.2 into .tools/cargo-bin"
    cargo install --quiet --locked --root .tools/cargo-bin cargo-audit --version 0.22.2
  fi
  audit=(.tools/cargo-bin/bin/cargo-audit audit)
fi

# Exceptions, each with its reason and a guard that fails when the reason stops holding.
ignore=()
# RUSTSEC-2023-0071 (rsa, the Marvin timing side channel): jsonwebtoken 12 signs RS256
# client assertions (private_key_jwt) with rsa 0.10, which replaced num-bigint-dig with
# crypto-bigint for constant-time modular exponentiation (RustCrypto/RSA#394; its 0.10.0
# changelog and README: "previously vulnerable ... resolved in the 0.10 release"). The advisory
# lists no patched version yet, so every rsa matches it. Guard: no rsa older than 0.10 in the
# lock file.
old_rsa=$(awk '/^name = "rsa"$/ {getline; print $3}' Cargo.lock | tr -d '"' | grep -E '^0\.[0-9]\.' || true)
if [[ -n "$old_rsa" ]]; then
  echo "rsa $old_rsa is in Cargo.lock: RUSTSEC-2023-0071 applies to it, no exception" >&2
  exit 1
fi
ignore+=(--ignore RUSTSEC-2023-0071)

echo "cargo audit against $db ($(git -C "$db" log -1 --format='%h %cs' 2>/dev/null || echo 'not a git clone'))"
"${audit[@]}" --no-fetch --db "$db" --file Cargo.lock --deny warnings "${ignore[@]}"
