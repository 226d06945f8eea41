# bench/profile/sides.py ROUNDS N: sequential µs a call of each client → server pair (Rust, Python,
# Node; mcpcore on both sides), alternating: which side adds what. Release builds and bench/.venv.
import json, subprocess, statistics, sys
from pathlib import Path
R=str(Path(__file__).resolve().parents[2]); rounds=int(sys.argv[1]); n=sys.argv[2]
py=f"{R}/bench/.venv/bin/python"
clients={"rust":[f"{R}/target/release/mcpcore_driver"],"python":[py,f"{R}/bench/drivers/py_mcpcore.py"],"node":["node",f"{R}/bench/drivers/node_mcpcore.mjs"]}
servers={"rust":[f"{R}/target/release/echo_server"],"python":[py,f"{R}/examples/python/echo_server.py"],"node":["node",f"{R}/bench/servers/node_mcpcore_server.mjs"]}
pairs=[(c,s) for c in clients for s in servers if c==s or "rust" in (c,s)]
res={p:[] for p in pairs}
for r in range(rounds):
    for p in (pairs if r%2==0 else pairs[::-1]):
        c,s=p
        out=subprocess.run([*clients[c],"stdio",n,"8","1","0","0","2025-11-25","--",*servers[s]],capture_output=True,text=True,timeout=300)
        o=json.loads(out.stdout); q=o["seq"]; res[p].append(q["secs"]/q["n"]*1e6)
for p,xs in res.items():
    print(f"{p[0]:>6} client -> {p[1]:<6} server: {statistics.median(xs):6.1f} µs/call ({min(xs):.1f}-{max(xs):.1f})")
