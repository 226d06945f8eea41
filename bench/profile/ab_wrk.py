# bench/profile/ab_wrk.py ROUNDS SECS NAME=BIN ... : W2's wrk (the bench harness's requests and reply checks,
# -t2 -c32) against each echo_server binary in turn, both lineages, alternating; prints rps
# and the per-round ratio of each binary to the first.
import socket, subprocess, sys, time, statistics
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
import harness
rounds, secs = int(sys.argv[1]), int(sys.argv[2])
bins = [a.split("=", 1) for a in sys.argv[3:]]
res = {(n, v): [] for n, _ in bins for v in ("2025-11-25", "2026-07-28")}
for r in range(rounds):
    order = bins if r % 2 == 0 else bins[::-1]
    for name, b in order:
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        p = subprocess.Popen([b, "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/mcp"
        for _ in range(100):
            try: socket.create_connection(("127.0.0.1", port), 0.5).close(); break
            except OSError: time.sleep(0.1)
        for v in ("2025-11-25", "2026-07-28"):
            h, pre, post = harness.wire_request(url, v)
            w = harness.run_wrk(url, h, pre, post, secs, 32)
            assert not w.get("failed"), w
            res[(name, v)].append(w["rps"])
            print(r, name, v, round(w["rps"]), flush=True)
        p.terminate(); p.wait()
base = bins[0][0]
for v in ("2025-11-25", "2026-07-28"):
    for name, _ in bins:
        xs = res[(name, v)]
        ratios = [x / y for x, y in zip(xs, res[(base, v)])]
        print(f"{v} {name}: median {statistics.median(xs):,.0f} rps ({min(xs):,.0f}-{max(xs):,.0f}); ratio to {base} {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
