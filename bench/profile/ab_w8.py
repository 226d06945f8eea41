# bench/profile/ab_w8.py ROUNDS N NAME='CMD ARGS' ... : W8's stdio cells (mcpcore_driver stdio: N
# sequential calls, then N with 8 in flight) against each stdio server command in turn, both
# lineages, alternating; p50 of the sequential calls (and its difference to the first command)
# and calls/s with 8 in flight (and its ratio to the first). E.g. a gateway against its upstream:
#   python3 bench/profile/ab_w8.py 5 3000 direct=target/release/echo_server \
#       gw='target/release/mcpcore gateway --config mcp.json'
# MCPCORE_DRIVER names another driver binary (say target/dist/mcpcore_driver).
import json, os, subprocess, sys, statistics
D = os.environ.get("MCPCORE_DRIVER") or str(__import__("pathlib").Path(__file__).resolve().parents[2] / "target/release/mcpcore_driver")
cmds=[a.split("=",1) for a in sys.argv[3:]]; rounds=int(sys.argv[1]); n=sys.argv[2]
res={}
for r in range(rounds):
    for v in ("2025-11-25","2026-07-28"):
        for name,cmd in (cmds if r%2==0 else cmds[::-1]):
            out=json.loads(subprocess.run([D,"stdio",n,"8","1","1","0",v,"--",*__import__("shlex").split(cmd)],capture_output=True,text=True,check=True).stdout)
            res.setdefault((v,name,"p50"),[]).append(out["seq"]["p50_us"])
            res.setdefault((v,name,"conc"),[]).append(out["conc"]["n"]/out["conc"]["secs"])
for v in ("2025-11-25","2026-07-28"):
    base=statistics.median(res[(v,cmds[0][0],"p50")]); bc=statistics.median(res[(v,cmds[0][0],"conc")])
    for name,_ in cmds:
        p=res[(v,name,"p50")]; c=res[(v,name,"conc")]
        print(f"{v} {name}: p50 {statistics.median(p):.1f} us ({min(p):.1f}-{max(p):.1f}), added {statistics.median(p)-base:.1f}; 8 in flight {statistics.median(c):,.0f}/s ({statistics.median(c)/bc:.2f} of {cmds[0][0]})")
