"""A/B of the list cache (issue 35): tools/list of a 1,002-tool catalogue (11 pages of 100), 2026-07-28 stateless POSTs over one
keep-alive connection, against echo_server with and without --list-cache, alternating rounds.

Usage: python3 bench/profile/ab_list.py ROUNDS LISTINGS   (release echo_server in target/release)
Prints the median milliseconds per complete listing of each server (and each round's)."""
import http.client, json, pathlib, subprocess, sys, time, statistics

def serve(extra):
    p = subprocess.Popen([str(pathlib.Path(__file__).resolve().parents[2] / "target/release/echo_server"), "--http", "127.0.0.1:0", "--synthetic-tools", "1000", *extra],
                         stdout=subprocess.PIPE, text=True)
    url = p.stdout.readline().strip().removeprefix("listening on ")
    return p, url

def listing(conn, path):
    cursor, n = None, 0
    while True:
        params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}
        if cursor: params["cursor"] = cursor
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
        conn.request("POST", path, body, {"content-type": "application/json", "accept": "application/json, text/event-stream",
                                          "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})
        r = conn.getresponse(); data = r.read()
        assert r.status == 200, data[:200]
        text = data.decode()
        if text.startswith("event:") or text.startswith("data:") or "\ndata:" in text:
            text = [l[5:].strip() for l in text.splitlines() if l.startswith("data:")][-1]
        res = json.loads(text)["result"]
        n += len(res["tools"]); cursor = res.get("nextCursor")
        if not cursor: return n

def measure(extra, reps):
    p, url = serve(extra)
    host = url.split("//")[1].split("/")[0]; path = "/" + url.split("//")[1].split("/", 1)[1]
    conn = http.client.HTTPConnection(host)
    listing(conn, path)  # warm
    t = []
    for _ in range(reps):
        s = time.perf_counter(); n = listing(conn, path); t.append((time.perf_counter() - s) * 1e3)
    p.terminate(); p.wait()
    return n, statistics.median(t)

rounds, reps = int(sys.argv[1]), int(sys.argv[2])
res = {"none": [], "cache": []}
for _ in range(rounds):
    for name, extra in (("none", []), ("cache", ["--list-cache"])):
        n, med = measure(extra, reps)
        res[name].append(med)
print(json.dumps({k: {"median_ms_per_listing": round(statistics.median(v), 3), "rounds": [round(x, 3) for x in v]} for k, v in res.items()}), "tools", n)
