# bench/profile/ab_w6.py ROUNDS N NAME='CMD ARGS' ... : W6 (mcpcore_driver stdio: N sequential calls,
# 2025-11-25) against each stdio server command in turn, alternating; µs per call, medians and
# the difference to the first. E.g. the cost of one pass-through middleware:
#   python3 bench/profile/ab_w6.py 7 5000 none='target/release/echo_server' \
#       mw='target/release/echo_server --pass-through'
import json, shlex, statistics, subprocess, sys
from pathlib import Path
D = str(Path(__file__).resolve().parents[2] / "target/release/mcpcore_driver")
rounds, n = int(sys.argv[1]), sys.argv[2]
cmds = [a.split("=", 1) for a in sys.argv[3:]]
us = {name: [] for name, _ in cmds}
for r in range(rounds):
    for name, cmd in (cmds if r % 2 == 0 else cmds[::-1]):
        out = subprocess.run([D, "stdio", n, "1", "1", "1", "0", "2025-11-25", "--", *shlex.split(cmd)],
                             capture_output=True, text=True, check=True).stdout
        seq = json.loads(out)["seq"]
        us[name].append(seq["secs"] / seq["n"] * 1e6)
base = statistics.median(us[cmds[0][0]])
for name, _ in cmds:
    xs = us[name]
    m = statistics.median(xs)
    print(f"W6 {name}: {m:.1f} µs/call ({min(xs):.1f}-{max(xs):.1f}, {len(xs)} rounds); +{m - base:.1f} µs vs {cmds[0][0]}")
