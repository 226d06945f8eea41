#!/usr/bin/env python3
"""A legitimate call through file-descriptor exhaustion (issue 37): the server runs under
`prlimit --nofile=LIMIT`, HOLDERS connections connect and send nothing, then one modern
`tools/call echo` is timed. Prints its status and latency. A measurement, not a test (the test
is tests/rust/http_limits.rs a_legitimate_call_succeeds_through_fd_exhaustion).

    ulimit -n 4096; bench/abuse/idle_holders.py [--limit 1024] [--holders 1088] -- target/release/echo_server --http 127.0.0.1:0
"""
import argparse
import json
import socket
import subprocess
import time
import urllib.request


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=1024)
    ap.add_argument("--holders", type=int, default=1088)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    srv = subprocess.Popen(["prlimit", f"--nofile={a.limit}", "--", *cmd], stdout=subprocess.PIPE, text=True)
    try:
        url = srv.stdout.readline().split("listening on ")[1].strip()
        host, port = url[len("http://"):].split("/")[0].rsplit(":", 1)
        held = [socket.create_connection((host, int(port))) for _ in range(a.holders)]
        time.sleep(0.5)
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "idle_holders", "version": "0"}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}}).encode()
        req = urllib.request.Request(url, body, {
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"})
        start = time.time()
        try:
            status = urllib.request.urlopen(req, timeout=60).status
        except urllib.error.HTTPError as e:
            status = e.code
        print(json.dumps({"limit": a.limit, "holders": len(held), "status": status,
                          "ms": round((time.time() - start) * 1000, 1)}))
    finally:
        srv.terminate()
        srv.wait()


if __name__ == "__main__":
    main()
