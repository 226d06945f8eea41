# bench/profile/ab_node_async.py ROUNDS N: W1 (mcpcore_driver stdio, 2025-11-25) against a Node stdio server whose
# echo tool is async (bench/profile/async_echo.mjs: MCPCORE_LIB = the lib to import), with two builds of the
# binding side by side (the .node and lib/ of each, paths below: edit them), alternating rounds.
import json, os, subprocess, statistics, sys
D = "/work/abtarget/dist/mcpcore_driver"
subs = {"before": ("/tmp/before.node", "/work/ab-before/bindings-node/lib/mcpcore.js"),
        "after": ("/tmp/after.node", "/work/main/bindings-node/lib/mcpcore.js")}
res = {k: {"seq": [], "conc": []} for k in subs}
names = list(subs)
for r in range(int(sys.argv[1])):
    for n in (names if r % 2 == 0 else names[::-1]):
        node, lib = subs[n]
        env = dict(os.environ, NAPI_RS_NATIVE_LIBRARY_PATH=node, MCPCORE_LIB=lib)
        out = json.loads(subprocess.run([D, "stdio", sys.argv[2], "8", "1", "1", "0", "2025-11-25", "--", "node", str(__import__("pathlib").Path(__file__).with_name("async_echo.mjs"))],
                                        env=env, capture_output=True, text=True, check=True, timeout=300).stdout)
        res[n]["seq"].append(out["seq"]["secs"] / out["seq"]["n"] * 1e6)
        res[n]["conc"].append(out["conc"]["n"] / out["conc"]["secs"])
for n in names:
    s, c = res[n]["seq"], res[n]["conc"]
    print(f"{n}: sequential {statistics.median(s):.1f} us/call ({min(s):.1f}-{max(s):.1f}); 8 in flight {statistics.median(c):,.0f} calls/s ({min(c):,.0f}-{max(c):,.0f})")
