#!/usr/bin/env python3
"""Server memory under stalled request bodies (issue 37): N connections each send a POST head
declaring SIZE bytes and all but the last byte of the body, then wait. Prints the server's
resident memory (VmRSS, MB) before, while they wait, and after they close (3 s later), as JSON.

    bench/memory/stalled_bodies.py [--conns 32] [--size 4194304] -- SERVER_CMD... (prints "listening on URL")

e.g. `bench/memory/stalled_bodies.py -- target/release/echo_server --http 127.0.0.1:0`, and the
same with `--limit body_budget=100000000000` for no budget. A measurement, not a test.
"""
import argparse
import json
import socket
import subprocess
import time
import urllib.parse


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conns", type=int, default=32)
    ap.add_argument("--size", type=int, default=4 * 1024 * 1024)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = urllib.parse.urlsplit(line.split("listening on ", 1)[1].strip())
        addr = (url.hostname, url.port)
        time.sleep(0.5)
        before = rss_mb(server.pid)
        socks, refused = [], 0
        head = (f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nAccept: application/json, text/event-stream\r\n"
                f"Content-Type: application/json\r\nContent-Length: {a.size}\r\n\r\n").encode()
        body = b" " * (a.size - 1)
        for _ in range(a.conns):
            s = socket.create_connection(addr, timeout=10)
            s.sendall(head)
            try:
                s.sendall(body)
            except OSError:
                refused += 1  # answered (503) and closed while sending
            socks.append(s)
        time.sleep(2)
        during = rss_mb(server.pid)
        for s in socks:
            s.settimeout(0.2)
            try:
                if s.recv(64).startswith(b"HTTP/1.1 503"):
                    refused += 1
            except OSError:
                pass
            s.close()
        time.sleep(3)
        after = rss_mb(server.pid)
        print(json.dumps({"conns": a.conns, "size": a.size, "rss_mb": {"before": round(before, 1),
              "during": round(during, 1), "after": round(after, 1)}, "refused": refused}))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
