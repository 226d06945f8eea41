# bench/profile/cg_drive.py: drives an MCP HTTP server at URL: legacy (initialize + N tools/call echo on one session) or
# modern (N stateless tools/call 2026-07-28). Usage: cg_drive.py URL legacy|modern N
import http.client, json, sys, urllib.parse
url, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
u = urllib.parse.urlparse(url)
c = http.client.HTTPConnection(u.hostname, u.port)
H = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
def post(body, extra={}):
    c.request("POST", u.path, json.dumps(body), {**H, **extra}); r = c.getresponse(); data = r.read()
    return r, data
if mode == "legacy":
    r, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "d", "version": "1"}}})
    sid = r.getheader("mcp-session-id")
    h = {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
    for i in range(n):
        r, d = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello"}}}, h)
        assert b"hello" in d, d
else:
    h = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": {"name": "d", "version": "1"}}
    for i in range(n):
        r, d = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello"}, "_meta": meta}}, h)
        assert b"hello" in d, d
print("ok", n)
