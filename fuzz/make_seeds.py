#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target under OUT/<target>/: the official examples of
every revision (tests/spec/<rev>/examples, vendored from the specification repository) as
frames and as one-message sessions, plus hand-written sessions of both lineages, header, SSE,
URI template and requestState inputs. Usage: make_seeds.py OUT"""

import hashlib
import json
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
SPEC = REPO / "tests" / "spec"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"}}


def frame(v) -> bytes:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


def req(i, method, params=None, meta=True):
    p = dict(params or {})
    if meta:
        p["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": p}


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def examples():
    for path in sorted(SPEC.glob("*/examples/*/*.json")):
        yield json.loads(path.read_text())


def sessions():
    calls = [
        ("tools/list", {}), ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
        ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
        ("tools/call", {"name": "fail", "arguments": {}}), ("tools/call", {"name": "ask", "arguments": {}}),
        ("tools/call", {"name": "nope", "arguments": {}}), ("prompts/list", {}),
        ("prompts/get", {"name": "greet", "arguments": {"who": "you"}}), ("resources/list", {}),
        ("resources/templates/list", {}), ("resources/read", {"uri": "file:///readme"}),
        ("resources/read", {"uri": "file:///docs/a/b.md"}),
        ("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "who", "value": "y"}}),
    ]
    modern = [req(i, m, p) for i, (m, p) in enumerate(calls, 1)]
    modern.insert(0, req(0, "server/discover"))
    modern.append(req(99, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
    modern.append(note("notifications/cancelled", {"requestId": 99, "_meta": META}))
    yield modern
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]:
        s = [req(0, "initialize", {"protocolVersion": version, "capabilities": {"elicitation": {}},
                                   "clientInfo": {"name": "fuzz", "version": "0"}}, meta=False),
             note("notifications/initialized")]
        s += [req(i, m, p, meta=False) for i, (m, p) in enumerate(calls, 1)]
        s += [req(50, "logging/setLevel", {"level": "info"}, meta=False),
              req(51, "resources/subscribe", {"uri": "file:///readme"}, meta=False),
              req(52, "ping", meta=False), {"jsonrpc": "2.0", "id": 7, "result": {}}]
        yield s
        if version == "2025-03-26":
            yield s[:2] + [[req(60, "tools/list", meta=False), req(61, "ping", meta=False), note("notifications/x")]]


def headers():
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}}}}
    call = req(1, "tools/call", {"name": "get_weather", "arguments": {"region": "eu-west ü", "count": 3, "opts": {"dry": True}}})
    lines = (b"MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: get_weather\n"
             b"Mcp-Param-Region: =?base64?ZXUtd2VzdCDDvA==?=\nMcp-Param-Count: 3\nMcp-Param-Dry: true")
    for raw in [b"echo", b"=?base64?ZWNobw==?=", b" padded\t", b"=?BASE64?eA==?=", "é".encode()]:
        yield b"\0".join([raw, frame(schema), frame(call), lines])
    yield b"\0".join([b"x", b"{}", frame(req(2, "resources/read", {"uri": "file:///a b"})), b"Mcp-Method: resources/read"])


def sse():
    streams = [b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
               b"\xef\xbb\xbfid: 7\nretry: 1500\ndata: a\ndata: b\r\n\r\n: comment\n\nevent: endpoint\ndata: /messages?sessionId=1\n\n",
               b"data:x\r\rdata: y\n\nid\nretry: nope\ndata\n\n"]
    for s in streams:
        yield bytes([64, 3]) + s


def templates():
    for t, uri in [("file:///{+path}", "file:///etc/hosts"), ("users://{user}/posts/{post}", "users://ann/posts/7"),
                   ("search://q{?term,page}", "search://q?page=2&term=rust"), ("repo://x{/owner,name}", "repo://x/me/proj"),
                   ("x://{#frag}", "x://#a,b"), ("x://m{;a,b}", "x://m;a=1;b=2"), ("file:///{name}.txt", "file:///a%20b.txt")]:
        yield f"{t}\n{uri}".encode()


def states():
    yield b"\x04fuzz" + b"eyJtIjoidG9vbHMvY2FsbCJ9.c2ln"
    yield b"\x00{\"answers\": [1, 2]}"
    yield b"\x10" + b"k" * 16 + b"garbage"


def jwks():
    # An RSA and a P-256 key (public parts, from RFC 7517 appendix A.1), one for encryption,
    # one of a kind nobody uses, and documents that are refused.
    rsa = {"kty": "RSA", "kid": "2011-04-29", "alg": "RS256", "e": "AQAB",
           "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP"
                "ebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY"
                "368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f"
                "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}
    ec = {"kty": "EC", "kid": "1", "crv": "P-256", "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
          "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM", "use": "sig"}
    yield json.dumps({"keys": [rsa, ec]}).encode()
    yield json.dumps({"keys": [dict(ec, use="enc"), {"kty": "oct", "k": "AAAA"}, {"kty": "OKP"}]}).encode()
    yield b'{"keys": {}}'
    yield b'[{"keys": []}]'


def dpop_proofs():
    # Header NUL claims NUL signature (the target encodes them), and raw header values.
    jwk = {"kty": "EC", "crv": "P-256", "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
           "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}
    claims = {"jti": "e1j3V_bKic8-LAEB", "htm": "POST", "htu": "https://mcp.example.com/mcp",
              "iat": 1800000000, "ath": "PEaenWxYddN6Q_NT1PiOYfz4EsZu7jRXRlpAsNpBU-A"}
    sig = bytes(range(64))
    yield json.dumps(header).encode() + b"\0" + json.dumps(claims).encode() + b"\0" + sig
    rsa = {"kty": "RSA", "e": "AQAB", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc"}
    yield json.dumps(dict(header, alg="RS256", jwk=rsa)).encode() + b"\0" + json.dumps(claims).encode() + b"\0" + sig
    yield json.dumps(dict(header, alg="HS256", jwk={"kty": "oct", "k": "AAAA"})).encode() + b"\0{}\0"
    yield json.dumps(dict(header, jwk=dict(jwk, d="AAAA"))).encode() + b"\0" + json.dumps(claims).encode() + b"\0"
    yield b"eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2In0.eyJodG0iOiJQT1NUIn0.c2ln"
    yield b"this-is-not-a-jwt"


def webhook_deliveries():
    # webhook-id NUL webhook-timestamp NUL webhook-signature NUL body (SEP-3415 §Webhook delivery).
    occurrence = {"eventId": "evt_1", "name": "echoed", "timestamp": "2027-01-15T08:00:00Z",
                  "data": {"text": "hi"}, "cursor": "c1"}
    for body in (occurrence, {"type": "verification", "challenge": "abc"}, {"type": "gap", "cursor": "c2"},
                 {"type": "terminated", "error": {"code": -32023, "message": "gone"}}, {"type": "other"}):
        yield b"evt_1\x001800000000\x00v1,AAAA v1,bm90LWEtc2ln\x00" + json.dumps(body).encode()
    yield b"msg_1\x00 1800000000 \x00v2,AAAA\x00not json"
    yield b"msg_2\x00-1\x00\x00{}"


def frontmatters():
    yield b"---\nname: pdf-tools\ndescription: Work with PDF files.\nmetadata:\n  version: 1\n---\n# PDF\n"
    yield b"\xef\xbb\xbf---\r\nname: a\r\ndescription: b\r\n---\r\n"
    yield b"---\nname: &n x\ndescription: *n\nlist: [*n, *n]\n---\n"
    yield b"pdf--tools\n---\nname: \"\"\n---\n"


def main(out: pathlib.Path) -> None:
    corpora = {
        "jsonrpc_parse": [frame(e) for e in examples()] + [b"[]", b"[1,{\"jsonrpc\":\"2.0\"}]", b"{\"id\":1.5}"],
        "engine_sequence": [b"\n".join(frame(m) for m in s) for s in sessions()]
                           + [frame(e) for e in examples() if isinstance(e, dict) and "jsonrpc" in e],
        "http_headers": list(headers()),
        "sse_parser": list(sse()),
        "uri_template": list(templates()),
        "request_state": list(states()),
        # The limit byte (times 4), a chunk size, then a stream of lines.
        "stdio_framing": [bytes([64, 7]) + b"\n".join(frame(m) for m in s) + b"\r\n\n" for s in sessions()]
                         + [bytes([2, 3]) + b"x" * 20 + b"\n{\"id\":1,\"method\":\"a\"}\n" + b"y" * 9],
        "jwks_document": list(jwks()),
        "skill_frontmatter": list(frontmatters()),
        "dpop_proof": list(dpop_proofs()),
        "webhook_delivery": list(webhook_deliveries()),
    }
    for target, seeds in corpora.items():
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        for s in seeds:
            (d / hashlib.sha1(s).hexdigest()).write_bytes(s)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
