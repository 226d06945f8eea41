# bench/profile/ab_stdio.py ROUNDS N NAME=BIN ... : W1 (mcpcore_driver stdio: N sequential calls, N with 8 in
# flight, 2025-11-25) against each stdio echo_server in turn, alternating; medians and ratios to
# the first.
import json, subprocess, sys, statistics
D = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "target/release/mcpcore_driver")
rounds, n = int(sys.argv[1]), sys.argv[2]
bins = [a.split("=", 1) for a in sys.argv[3:]]
res = {(b, k): [] for b, _ in bins for k in ("seq", "conc")}
for r in range(rounds):
    for name, b in (bins if r % 2 == 0 else bins[::-1]):
        out = json.loads(subprocess.run([D, "stdio", n, "8", "1", "1", "0", "2025-11-25", "--", b], capture_output=True, text=True, check=True).stdout)
        for k in ("seq", "conc"):
            res[(name, k)].append(out[k]["n"] / out[k]["secs"])
for k in ("seq", "conc"):
    for name, _ in bins:
        xs = res[(name, k)]; rs = [x / y for x, y in zip(xs, res[(bins[0][0], k)])]
        print(f"W1 {k} {name}: {statistics.median(xs):,.0f} calls/s ({min(xs):,.0f}-{max(xs):,.0f}); ratio {statistics.median(rs):.2f} ({min(rs):.2f}-{max(rs):.2f})")
