#!/usr/bin/env python3
"""A/B of two client builds against one server: W1 over stdio, alternating rounds.

    python3 bench/profile/ab_client.py ROUNDS N SERVER... [--node BEFORE.node AFTER.node]
                                       [--rust BEFORE_DRIVER AFTER_DRIVER]

`--node`: the bench's Node driver (bench/drivers/node_mcpcore.mjs, `npm ci` in bench/ first)
with each `.node` (NAPI_RS_NATIVE_LIBRARY_PATH); `--rust`: two `mcpcore_driver` builds. The
server command (everything after N up to the first option) is the same for both; its own
environment is left alone, so a Node server loads the binding it always loads. Prints the
median (and range) of the sequential µs a call and of the calls/s with 8 in flight, 2025-11-25.
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
NODE_DRIVER = HERE.parent / "drivers" / "node_mcpcore.mjs"


def parse(argv):
    rounds, n = int(argv[0]), argv[1]
    rest = argv[2:]
    cut = next((i for i, a in enumerate(rest) if a.startswith("--")), len(rest))
    server, opts = rest[:cut], rest[cut:]
    subjects = {}
    while opts:
        kind, before, after = opts[:3]
        opts = opts[3:]
        for name, build in (("before", before), ("after", after)):
            if kind == "--node":
                # The server keeps its own binding: the variable is set for the driver only.
                subjects[f"node {name}"] = (["node", str(NODE_DRIVER)], {"NAPI_RS_NATIVE_LIBRARY_PATH": build})
            elif kind == "--rust":
                subjects[f"rust {name}"] = ([build], {})
            else:
                sys.exit(f"unknown option {kind}")
    return rounds, n, server, subjects


def main():
    rounds, n, server, subjects = parse(sys.argv[1:])
    # The server must not inherit the driver's binding override.
    wrapped = ["env", "-u", "NAPI_RS_NATIVE_LIBRARY_PATH", *server]
    res = {k: {"seq": [], "conc": []} for k in subjects}
    names = list(subjects)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            cmd, env = subjects[name]
            out = subprocess.run(
                [*cmd, "stdio", n, "8", "1", "1", "0", "2025-11-25", "--", *wrapped],
                env=dict(os.environ, **env), capture_output=True, text=True, check=True, timeout=600,
            ).stdout
            out = json.loads(out.strip().splitlines()[-1])
            res[name]["seq"].append(out["seq"]["secs"] / out["seq"]["n"] * 1e6)
            res[name]["conc"].append(out["conc"]["n"] / out["conc"]["secs"])
    for name in names:
        s, c = res[name]["seq"], res[name]["conc"]
        print(f"{name}: sequential {statistics.median(s):.1f} us/call ({min(s):.1f}-{max(s):.1f}); "
              f"8 in flight {statistics.median(c):,.0f} calls/s ({min(c):,.0f}-{max(c):,.0f})")


if __name__ == "__main__":
    main()
