#!/usr/bin/env python3
"""Adds a command to a built wheel: wheel-add-script.py WHEEL FILE. With --license:
wheel-add-script.py --license WHEEL FILE adds FILE as a licence file instead, to
<name>-<version>.dist-info/licenses/ (PEP 639's place; the third-party notices of
scripts/notices.sh), not executable.

FILE goes into WHEEL as <name>-<version>.data/scripts/<basename of FILE> (executable), and the
wheel's RECORD gets its sha256 and size, as the wheel format asks (PEP 427, "The .data
directory"; PEP 376 RECORD). pip, uv and pipx install a file of data/scripts into the
environment's bin/ (Scripts\\ on Windows) as it is: that is how `pip install mcpcore` gives the
`mcpcore` command, the native CLI, with no Python in front of it. (maturin can add a data folder
itself, but only from a folder named in pyproject.toml that must then exist in every build,
the checkout's included; scripts/dist.sh calls this after maturin build instead.)
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path


def main() -> int:
    args = sys.argv[1:]
    license_file = args[:1] == ["--license"]
    if license_file:
        args = args[1:]
    wheel, file = Path(args[0]), Path(args[1])
    data = file.read_bytes()
    with zipfile.ZipFile(wheel) as zin:
        names = zin.namelist()
        record = next(n for n in names if n.endswith(".dist-info/RECORD"))
        dist_info = record.rsplit("/", 2)[0]
        if license_file:
            target = f"{dist_info}/licenses/{file.name}"
        else:
            target = f"{dist_info[: -len('.dist-info')]}.data/scripts/{file.name}"
        if target in names:
            print(f"{wheel.name} already has {target}", file=sys.stderr)
            return 1
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines = zin.read(record).decode().splitlines()
        lines.insert(len(lines) - 1 if lines and lines[-1].startswith(record + ",") else len(lines),
                     f"{target},sha256={digest},{len(data)}")
        fd, tmp = tempfile.mkstemp(suffix=".whl", dir=wheel.parent)
        os.close(fd)
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in zin.infolist():
                if info.filename == record:
                    continue
                zout.writestr(info, zin.read(info.filename))
            entry = zipfile.ZipInfo(target, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = ((0o100644 if license_file else 0o100755) & 0xFFFF) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(entry, data)
            rec = zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0))
            rec.external_attr = (0o100644 & 0xFFFF) << 16
            rec.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(rec, "\n".join(lines) + "\n")
    shutil.move(tmp, wheel)
    print(f"{wheel.name}: + {target} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
