#!/usr/bin/env bash
# Third-party notices and SBOMs of what mcpcore ships (issue 50).
#
#   scripts/notices.sh              regenerates THIRD_PARTY_NOTICES.txt (committed, like a
#                                   lockfile): every licence of the crates the workspace's packages
#                                   are built from, with the crates under each (cargo-about;
#                                   about.toml accepts the licences deny.toml allows). Run it after
#                                   a dependency change: make test's scripts/check_notices.py fails
#                                   until the file names every linked crate (it is a superset: the
#                                   workspace's test and bench crates are scanned too).
#   scripts/notices.sh --sbom OUT TRIPLE
#                                   writes OUT/<crate>.cdx.json, a CycloneDX SBOM of each shipped
#                                   crate built for TRIPLE (cargo-cyclonedx, build dependencies
#                                   left out): mcpcore (with the CLI), mcpcore-python, mcpcore-node,
#                                   mcpcore-uniffi. scripts/dist.sh calls it per target and writes
#                                   each package's SBOM beside the package.
#
# The tools are installed from crates.io at the versions below when missing (minutes, once).
set -euo pipefail
cd "$(dirname "$0")/.."
about_version=0.8.4
cyclonedx_version=0.5.9
need() {  # need SUBCOMMAND CRATE VERSION: installs CRATE@VERSION when `cargo SUBCOMMAND` is missing or another version
  if ! cargo "$1" --version 2>/dev/null | grep -q " $3\$"; then
    echo "installing $2 $3 from crates.io (once)"
    cargo install --quiet --locked "$2" --version "$3"
  fi
}

if [[ "${1:-}" == --sbom ]]; then
  out=${2:?usage: scripts/notices.sh --sbom OUT TRIPLE}
  triple=${3:?usage: scripts/notices.sh --sbom OUT TRIPLE}
  need cyclonedx cargo-cyclonedx "$cyclonedx_version"
  mkdir -p "$out"
  # One run over the workspace writes <crate>.cdx.json beside each member's manifest (the CLI's
  # feature on); the shipped crates' files move to OUT, the others are removed.
  cargo cyclonedx --format json --spec-version 1.5 --no-build-deps --target "$triple" -F mcpcore/cli >/dev/null
  while read -r name manifest; do
    file="$(dirname "$manifest")/$name.cdx.json"
    case "$name" in
      mcpcore | mcpcore-python | mcpcore-node | mcpcore-uniffi) mv "$file" "$out/" ;;
      *) rm -f "$file" ;;
    esac
  done < <(cargo metadata --format-version 1 --no-deps --locked |
    python3 -c 'import json, sys; [print(p["name"], p["manifest_path"]) for p in json.load(sys.stdin)["packages"]]')
  echo "SBOMs for $triple: $(ls "$out" | tr '\n' ' ')"
  exit 0
fi

need about cargo-about "$about_version"
cargo about generate --offline --locked --fail --workspace -c about.toml scripts/dist/notices.hbs \
  -o THIRD_PARTY_NOTICES.txt
python3 scripts/check_notices.py
