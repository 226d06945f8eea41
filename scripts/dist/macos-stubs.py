#!/usr/bin/env python3
"""Text stubs (.tbd) of the two Apple frameworks mcpcore's macOS builds link, so that zig links
them on Linux with no macOS SDK (scripts/dist.sh, targets *-apple-darwin).

    macos-stubs.py DEPS_DIR OUT_DIR

The dependencies that call Apple frameworks are chrono's time zone lookup (iana-time-zone:
CoreFoundation) and the platform certificate verifier (rustls-platform-verifier, through
security-framework: Security and CoreFoundation). The compiled objects, the .rlib files of
DEPS_DIR (target/<triple>/dist/deps, built before the link), name every symbol they take from
a framework as undefined (in whichever crate the call was inlined into, so all are read). This
writes OUT_DIR/<Framework>.framework/<Framework>.tbd listing them (CF*, kCF* to CoreFoundation;
Sec*, SSL*, CMS*, Authorization* and their k* constants to Security) with each framework's install name, which is what an SDK's own .tbd
files are: the linker records the install name and the symbols, and macOS's dyld binds them to
the real framework at load. A symbol of another framework would fail the link, naming it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FRAMEWORKS = {
    "CoreFoundation": (("_CF", "_kCF"), "150"),
    # Security.framework also holds SecureTransport (SSL*), CMS (CMS*) and Authorization Services.
    "Security": (("_Sec", "_kSec", "_SSL", "_kSSL", "_CMS", "_kCMS", "_Authorization", "_kAuthorization"), "1"),
}
ARCHS = "[ x86_64-macos, arm64-macos ]"


def undefined(rlib: Path) -> set[str]:
    out = subprocess.run(
        ["llvm-nm", "--undefined-only", "--just-symbol-name", str(rlib)],
        capture_output=True, text=True, check=False,
    ).stdout
    return {line.strip() for line in out.splitlines() if line.strip() and not line.endswith(":")}


def main() -> int:
    deps, out = Path(sys.argv[1]), Path(sys.argv[2])
    rlibs = sorted(deps.glob("*.rlib"))
    if not rlibs:
        print(f"macos-stubs: no .rlib in {deps}", file=sys.stderr)
        return 1
    symbols: set[str] = set()
    for rlib in rlibs:
        symbols |= undefined(rlib)
    for name, (prefixes, compat) in FRAMEWORKS.items():
        mine = sorted(s for s in symbols if s.startswith(prefixes))
        fw = out / f"{name}.framework"
        fw.mkdir(parents=True, exist_ok=True)
        listed = ", ".join(mine)
        (fw / f"{name}.tbd").write_text(
            "--- !tapi-tbd\n"
            "tbd-version:     4\n"
            f"targets:         {ARCHS}\n"
            f"install-name:    '/System/Library/Frameworks/{name}.framework/Versions/A/{name}'\n"
            f"compatibility-version: {compat}\n"
            "exports:\n"
            f"  - targets:         {ARCHS}\n"
            f"    symbols:         [ {listed} ]\n"
            "...\n"
        )
        print(f"macos-stubs: {name}: {len(mine)} symbols")
    return 0


if __name__ == "__main__":
    sys.exit(main())
