# bench/profile/ab_spin.py ROUNDS N TARGET_DIR SPIN_US... : W1 (mcpcore_driver stdio: N sequential
# calls, then N with 8 in flight, 2025-11-25) of the Rust client against the Rust echo_server,
# with MCPCORE_STDIO_SPIN_US set to each value in turn (client and server both read it), in
# alternating order; the raw stdio echo (raw_stdio_echo, no spin) as the reference. Prints per
# setting the median calls/s, sequential p50, the ratio to the first setting, and the CPU time
# the driver and the server used per call (what the spin costs). Binaries from TARGET_DIR
# (e.g. /work/abtarget/dist).
import json
import os
import resource
import statistics
import subprocess
import sys

rounds, n, tdir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
spins = sys.argv[4:]
D, S, RAW = (os.path.join(tdir, b) for b in ("mcpcore_driver", "echo_server", "raw_stdio_echo"))
runs = [(f"spin={s}", s, "stdio", S) for s in spins] + [("raw", "0", "raw-stdio", RAW)]
res = {(name, k): [] for name, *_ in runs for k in ("seq", "conc", "p50", "cpu_us")}
for r in range(rounds):
    for name, spin, mode, srv in (runs if r % 2 == 0 else runs[::-1]):
        env = dict(os.environ, MCPCORE_STDIO_SPIN_US=spin)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = json.loads(subprocess.run([D, mode, n, "8", "1", "1", "0", "2025-11-25", "--", srv], env=env,
                                        capture_output=True, text=True, check=True, timeout=300).stdout)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        for k in ("seq", "conc"):
            res[(name, k)].append(out[k]["n"] / out[k]["secs"])
        res[(name, "p50")].append(out["seq"]["p50_us"])
        res[(name, "cpu_us")].append(cpu / (out["seq"]["n"] + out["conc"]["n"]) * 1e6)
base = runs[0][0]
for name, *_ in runs:
    cells = []
    for k in ("seq", "conc"):
        xs = res[(name, k)]
        rs = [x / y for x, y in zip(xs, res[(base, k)])]
        cells.append(f"{k} {statistics.median(xs):,.0f}/s ({min(xs):,.0f}-{max(xs):,.0f}, ×{statistics.median(rs):.2f})")
    cells.append(f"seq p50 {statistics.median(res[(name, 'p50')]):.1f} µs")
    cells.append(f"CPU {statistics.median(res[(name, 'cpu_us')]):.1f} µs/call (driver + server)")
    print(f"{name}: " + "; ".join(cells))
