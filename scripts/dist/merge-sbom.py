#!/usr/bin/env python3
"""merge-sbom.py OUT FIRST [MORE...]: writes OUT, the CycloneDX SBOM (JSON, from cargo-cyclonedx)
FIRST with the components and dependency entries of MORE added (each once, by bom-ref). A
package holding two binaries (the wheel and the npm platform package carry the CLI beside their
module) gets one SBOM listing what both link. Only merges what the tool wrote; writes nothing of
its own but the union."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    out, first, *more = (Path(a) for a in sys.argv[1:])
    bom = json.loads(first.read_text())
    components = bom.setdefault("components", [])
    dependencies = bom.setdefault("dependencies", [])
    refs = {c.get("bom-ref") for c in components}
    dep_refs = {d.get("ref") for d in dependencies}
    top = bom.get("metadata", {}).get("component", {}).get("bom-ref")
    for path in more:
        other = json.loads(path.read_text())
        # The other BOM's own top-level component becomes a component of this one.
        extra = list(other.get("components", []))
        if "component" in other.get("metadata", {}):
            extra.append(other["metadata"]["component"])
        for c in extra:
            if c.get("bom-ref") not in refs and c.get("bom-ref") != top:
                components.append(c)
                refs.add(c.get("bom-ref"))
        for d in other.get("dependencies", []):
            if d.get("ref") not in dep_refs:
                dependencies.append(d)
                dep_refs.add(d.get("ref"))
    out.write_text(json.dumps(bom, indent=2) + "\n")
    print(f"{out.name}: {len(components)} components")
    return 0


if __name__ == "__main__":
    sys.exit(main())
