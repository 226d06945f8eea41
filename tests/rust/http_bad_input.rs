//! Bad input over HTTP, sent with a raw client: each gets the right status and JSON-RPC error
//! code (spec 2026-07-28 basic/transports/streamable-http; 2025-11-25 and 2024-11-05 basic/transports), and the server keeps serving (every test ends with a
//! valid modern call).

use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::ProtocolVersion;
use mcpcore_tests::http::{
    meta, modern, modern_echo, modern_headers, open, read_until, send, serve_fixture, sse_events, Raw, Reply,
    IO_TIMEOUT, MODERN,
};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn fixture() -> (HttpServing, Raw) {
    fixture_with(&[], HttpServerConfig::default()).await
}

async fn fixture_with(versions: &[ProtocolVersion], config: HttpServerConfig) -> (HttpServing, Raw) {
    let serving = serve_fixture(versions, config).await;
    let raw = Raw::new(&serving.url());
    (serving, raw)
}

/// Asserts the status and the JSON-RPC error code of `r`.
#[track_caller]
fn expect(r: &Reply, status: u16, code: i64, what: &str) {
    assert_eq!(r.status, status, "{what}: {r:?}");
    assert_eq!(r.error_code(), Some(code), "{what}: {r:?}");
    assert!(r.content_type().starts_with("application/json"), "{what}: {r:?}");
}

/// A POST of `body` with `headers` on top of a correct `Accept` and `Content-Type`.
fn post_with(raw: &Raw, body: &Value, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let mut rb = raw.post(body.to_string());
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    rb
}

/// A modern POST of `body` with exactly these `Accept` and `Content-Type` values (none when `None`).
fn post_exact(
    raw: &Raw,
    accept: Option<&str>,
    content_type: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut rb = raw.http.post(&raw.url).body(body.to_string());
    if let Some(a) = accept {
        rb = rb.header("accept", a);
    }
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    for (k, v) in modern_headers(body) {
        rb = rb.header(k, v);
    }
    rb
}

/// Writes raw bytes on a fresh connection and reads until the server closes it (bounded).
async fn tcp_exchange(serving: &HttpServing, request: &[u8]) -> String {
    let exchange = async {
        let mut sock = tokio::net::TcpStream::connect(serving.local_addr()).await.unwrap();
        let _ = sock.write_all(request).await; // the server may answer before reading it all
        let mut answer = Vec::new();
        let _ = sock.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    };
    tokio::time::timeout(IO_TIMEOUT, exchange).await.expect("answer in time")
}

/// A modern POST of `body` as raw bytes with exactly `headers` (plus Host and Content-Length).
fn raw_post(serving: &HttpServing, headers: &[(&str, &str)], body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        serving.local_addr(),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(&body);
    head.into_bytes()
}

const CALL: &str = "tools/call";
const BOTH: &str = "application/json, text/event-stream";

// ----- modern header and _meta checks ---------------------------------------------------------

#[tokio::test]
async fn missing_protocol_version_header_is_a_header_mismatch() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(1, "x");
    let r = send(post_with(&raw, &body, &[("Mcp-Method", CALL), ("Mcp-Name", "echo")])).await;
    expect(&r, 400, -32020, "no MCP-Protocol-Version");
    assert_eq!(r.json["id"], 1, "the error answers the request");
    assert!(r.json["error"]["message"].as_str().unwrap().contains("MCP-Protocol-Version"), "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn protocol_version_header_differing_from_meta_is_a_header_mismatch() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(2, "x");
    for version in ["2025-11-25", "2026-07-29", " 2026-07-27"] {
        let h = [("MCP-Protocol-Version", version), ("Mcp-Method", CALL), ("Mcp-Name", "echo")];
        let r = send(post_with(&raw, &body, &h)).await;
        expect(&r, 400, -32020, version);
    }
    // Surrounding whitespace is trimmed, as HTTP does.
    let h = [("MCP-Protocol-Version", " 2026-07-28 "), ("Mcp-Method", CALL), ("Mcp-Name", "echo")];
    let r = send(post_with(&raw, &body, &h)).await;
    assert_eq!(r.status, 200, "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn mcp_method_mismatch_wrong_case_or_absence_is_a_header_mismatch() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(3, "x");
    for method in [Some("tools/list"), Some("TOOLS/CALL"), Some("tools/call/"), None] {
        let mut h = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Name", "echo")];
        if let Some(m) = method {
            h.push(("Mcp-Method", m));
        }
        let r = send(post_with(&raw, &body, &h)).await;
        expect(&r, 400, -32020, &format!("Mcp-Method {method:?}"));
    }
    // Header names are case-insensitive.
    let h = [("mcp-protocol-version", MODERN), ("MCP-METHOD", CALL), ("mcp-name", "echo")];
    assert_eq!(send(post_with(&raw, &body, &h)).await.status, 200);
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn mcp_name_mismatch_or_absence_is_a_header_mismatch() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(4, "x");
    for name in [Some("add"), Some("ECHO"), Some("=?base64?YWRk?="), Some("=?base64?ZWNobw?="), None] {
        let mut h = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", CALL)];
        if let Some(n) = name {
            h.push(("Mcp-Name", n));
        }
        let r = send(post_with(&raw, &body, &h)).await;
        expect(&r, 400, -32020, &format!("Mcp-Name {name:?}"));
    }
    // The Base64 form of the right name is accepted.
    let h = [("MCP-Protocol-Version", MODERN), ("Mcp-Method", CALL), ("Mcp-Name", "=?base64?ZWNobw==?=")];
    let r = send(post_with(&raw, &body, &h)).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["result"]["content"][0]["text"], "x");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn missing_meta_is_invalid_params() {
    let (serving, raw) = fixture().await;
    let h = [("MCP-Protocol-Version", MODERN), ("Mcp-Method", CALL), ("Mcp-Name", "echo")];
    // No _meta at all (and no session): neither a modern nor a legacy request.
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": CALL,
        "params": {"name": "echo", "arguments": {"text": "x"}}});
    let r = send(post_with(&raw, &body, &h)).await;
    expect(&r, 400, -32602, "no _meta");
    assert_eq!(r.json["id"], 5);
    // _meta with a version but without clientCapabilities.
    let mut body = modern_echo(6, "x");
    body["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN});
    let r = send(post_with(&raw, &body, &h)).await;
    expect(&r, 400, -32602, "no clientCapabilities");
    assert!(r.json["error"]["message"].as_str().unwrap().contains("clientCapabilities"), "{r:?}");
    // A version that is not a string.
    let mut body = modern_echo(7, "x");
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(20260728);
    let r = send(post_with(&raw, &body, &h)).await;
    expect(&r, 400, -32602, "numeric version");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn unsupported_version_lists_the_supported_ones() {
    let (serving, raw) = fixture().await;
    for version in ["2099-01-01", "2025-11-25"] {
        let mut body = modern_echo(8, "x");
        body["params"]["_meta"] = meta(version);
        let r = send(raw.post_modern(&body)).await;
        expect(&r, 400, -32022, version);
        assert_eq!(r.json["id"], 8);
        let data = &r.json["error"]["data"];
        assert_eq!(data["requested"], version, "{r:?}");
        let supported: Vec<&str> =
            data["supported"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(supported, ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
    }
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn unknown_and_legacy_only_methods_with_modern_meta_are_404() {
    let (serving, raw) = fixture().await;
    let init_params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}});
    for (method, params) in [
        ("no/such/method", json!({})),
        ("initialize", init_params),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "file:///x"})),
    ] {
        let body = modern(9, method, params);
        let r = send(raw.post_modern(&body)).await;
        expect(&r, 404, -32601, method);
        assert_eq!(r.json["id"], 9);
        assert!(r.headers.get("mcp-session-id").is_none(), "{method}: a modern request got a session");
    }
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn notifications_are_accepted_with_202() {
    let (serving, raw) = fixture().await;
    let modern_note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": meta(MODERN)}});
    let r = send(post_with(&raw, &modern_note, &[("MCP-Protocol-Version", MODERN)])).await;
    assert_eq!((r.status, r.text.as_str()), (202, ""), "{r:?}");
    let bare = json!({"jsonrpc": "2.0", "method": "notifications/whatever"});
    let r = send(raw.post(bare.to_string())).await;
    assert_eq!((r.status, r.text.as_str()), (202, ""), "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn modern_requests_ignore_session_ids() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(10, "sessionless");
    let r = send(raw.post_modern(&body).header("mcp-session-id", "not-a-session")).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["result"]["content"][0]["text"], "sessionless");
    assert!(r.headers.get("mcp-session-id").is_none(), "never echo a session id on a modern request");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

// ----- transport-level refusals ---------------------------------------------------------------

#[tokio::test]
async fn oversized_bodies_are_413() {
    let config = HttpServerConfig { max_body: 1024, ..Default::default() };
    let (serving, raw) = fixture_with(&[], config).await;
    let big = modern_echo(11, &"x".repeat(4096));
    let r = send(raw.post_modern(&big)).await;
    expect(&r, 413, -32600, "Content-Length over the limit");
    // Without Content-Length the limit is enforced while reading the chunked body.
    let body = big.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
        serving.local_addr()
    );
    for (k, v) in modern_headers(&big) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut request = head.into_bytes();
    for chunk in body.as_bytes().chunks(512) {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let answer = tcp_exchange(&serving, &request).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "chunked: {answer:?}");
    assert!(answer.contains("-32600"), "{answer:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(12, "x");
    for ct in [Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("application/jsonx"), None]
    {
        let r = send(post_exact(&raw, Some(BOTH), ct, &body)).await;
        expect(&r, 415, -32600, &format!("{ct:?}"));
    }
    // Parameters and case do not matter.
    let r = send(post_exact(&raw, Some(BOTH), Some("Application/JSON; charset=utf-8"), &body)).await;
    assert_eq!(r.status, 200, "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn accept_without_both_types_is_406() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(13, "x");
    for accept in [Some("application/json"), Some("text/event-stream"), Some("text/html")] {
        let r = send(post_exact(&raw, accept, Some("application/json"), &body)).await;
        expect(&r, 406, -32600, &format!("{accept:?}"));
    }
    // No Accept at all (reqwest would add `*/*`, so this one is sent by hand).
    let mut h: Vec<(String, String)> = modern_headers(&body);
    h.push(("Content-Type".into(), "application/json".into()));
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let answer = tcp_exchange(&serving, &raw_post(&serving, &h, &body)).await;
    assert!(answer.starts_with("HTTP/1.1 406"), "no Accept: {answer:?}");
    assert!(answer.contains("-32600"), "{answer:?}");
    for accept in ["*/*", "application/*, text/*", "text/event-stream;q=0.5, application/json"] {
        let r = send(post_exact(&raw, Some(accept), Some("application/json"), &body)).await;
        assert_eq!(r.status, 200, "{accept}: {r:?}");
    }
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn foreign_origin_is_403() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(14, "x");
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        let r = send(raw.post_modern(&body).header("origin", origin)).await;
        expect(&r, 403, -32600, origin);
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("Origin {origin} ")), "{message}");
        assert_eq!(r.json["id"], Value::Null);
    }
    let port = serving.local_addr().port();
    let r = send(raw.post_modern(&body).header("origin", format!("http://localhost:{port}"))).await;
    assert_eq!(r.status, 200, "{r:?}");
    // GET and DELETE are guarded too.
    let r = send(raw.http.get(&raw.url).header("origin", "http://evil.example")).await;
    expect(&r, 403, -32600, "GET");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn foreign_host_is_403() {
    let (serving, raw) = fixture().await;
    let body = modern_echo(15, "x");
    for host in ["evil.example", "127.0.0.1:1", "evil.example:80"] {
        let r = send(raw.post_modern(&body).header("host", host)).await;
        expect(&r, 403, -32600, host);
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("Host header {host} ")), "{message}");
    }
    let port = serving.local_addr().port();
    let r = send(raw.post_modern(&body).header("host", format!("localhost:{port}"))).await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = send(raw.http.get(format!("{}/sse", raw.base)).header("host", "evil.example")).await;
    expect(&r, 403, -32600, "GET /sse");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

// ----- legacy Streamable HTTP sessions --------------------------------------------------------

fn legacy_list(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

#[tokio::test]
async fn unknown_sessions_are_404() {
    let (serving, raw) = fixture().await;
    let r = send(raw.post_legacy(Some("0123456789abcdef0123456789abcdef"), &legacy_list(1))).await;
    expect(&r, 404, -32600, "POST with an unknown session");
    let get = raw.http.get(&raw.url).header("accept", "text/event-stream").header("mcp-session-id", "nope");
    expect(&send(get).await, 404, -32600, "GET with an unknown session");
    let delete = raw.http.delete(&raw.url).header("mcp-session-id", "nope");
    expect(&send(delete).await, 404, -32600, "DELETE with an unknown session");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_request_without_session_or_meta_is_400() {
    let (serving, raw) = fixture().await;
    let r = send(raw.post_legacy(None, &legacy_list(2))).await;
    expect(&r, 400, -32602, "tools/list without a session");
    assert_eq!(r.json["id"], 2);
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn initialize_mints_a_session_and_a_second_one_is_refused() {
    let (serving, raw) = fixture().await;
    let sid = raw.legacy_session("2025-11-25").await;
    assert!(sid.len() >= 16, "guessable session id {sid:?}");
    assert!(sid.bytes().all(|b| (0x21..=0x7e).contains(&b)), "session id {sid:?} is not visible ASCII");
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let r = send(raw.post_legacy(Some(&sid), &init)).await;
    expect(&r, 400, -32600, "second initialize");
    assert_eq!(r.json["id"], 2);
    // The session still works, and a fresh initialize gets another id.
    let r = send(raw.post_legacy(Some(&sid), &legacy_list(3))).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["result"]["tools"].as_array().unwrap().len(), 7);
    assert_ne!(raw.legacy_session("2025-11-25").await, sid);
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn delete_ends_a_session_and_without_one_is_405() {
    let (serving, raw) = fixture().await;
    let sid = raw.legacy_session("2025-06-18").await;
    let r = send(raw.http.delete(&raw.url).header("mcp-session-id", &sid)).await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = send(raw.post_legacy(Some(&sid), &legacy_list(4))).await;
    expect(&r, 404, -32600, "reuse after DELETE");
    let r = send(raw.http.delete(&raw.url).header("mcp-session-id", &sid)).await;
    expect(&r, 404, -32600, "second DELETE");
    let r = send(raw.http.delete(&raw.url)).await;
    expect(&r, 405, -32600, "DELETE without a session");
    assert_eq!(r.headers.get("allow").and_then(|v| v.to_str().ok()), Some("POST"));
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn one_get_stream_per_session() {
    let (serving, raw) = fixture().await;
    let sid = raw.legacy_session("2025-11-25").await;
    let get = || raw.http.get(&raw.url).header("accept", "text/event-stream").header("mcp-session-id", &sid);
    let first = open(get()).await;
    assert_eq!(first.status(), 200);
    let ct = first.headers().get("content-type").unwrap().to_str().unwrap();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let r = send(get()).await;
    expect(&r, 409, -32600, "a second GET stream");
    // Once the first stream is gone, the session may open another.
    drop(first);
    let mut reopened = None;
    for _ in 0..100 {
        let resp = open(get()).await;
        if resp.status() == 200 {
            reopened = Some(resp);
            break;
        }
        assert_eq!(resp.status(), 409);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(reopened.is_some(), "the closed stream still blocks the session");
    // GET needs Accept: text/event-stream.
    let r = send(raw.http.get(&raw.url).header("accept", "application/json").header("mcp-session-id", &sid))
        .await;
    expect(&r, 406, -32600, "GET without text/event-stream");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn get_without_a_session_is_405_unless_2024_11_05_is_served() {
    let (serving, raw) = fixture_with(
        &[ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25],
        HttpServerConfig::default(),
    )
    .await;
    let r = send(raw.http.get(&raw.url).header("accept", "text/event-stream")).await;
    expect(&r, 405, -32600, "GET on a server without 2024-11-05");
    let r = send(raw.http.get(format!("{}/sse", raw.base)).header("accept", "text/event-stream")).await;
    expect(&r, 405, -32600, "GET /sse on a server without 2024-11-05");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

/// POSTs a fresh `initialize`; the status (503 while the store is full).
async fn try_initialize(raw: &Raw) -> u16 {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    send(raw.post_legacy(None, &init)).await.status
}

/// Polls `try_initialize` for up to 3 s; true once it succeeds.
async fn initialize_eventually(raw: &Raw) -> bool {
    for _ in 0..150 {
        match try_initialize(raw).await {
            200 => return true,
            503 => tokio::time::sleep(Duration::from_millis(20)).await,
            other => panic!("initialize answered {other}"),
        }
    }
    false
}

fn one_session_store() -> HttpServerConfig {
    HttpServerConfig { max_sessions: 1, session_idle: Duration::ZERO, ..Default::default() }
}

#[tokio::test]
async fn a_session_whose_get_stream_closed_can_expire() {
    // A store of one session that expires as soon as it is idle, unless it is busy.
    let (serving, raw) = fixture_with(&[], one_session_store()).await;
    let sid = raw.legacy_session("2025-11-25").await;
    let get = raw.http.get(&raw.url).header("accept", "text/event-stream").header("mcp-session-id", &sid);
    let stream = open(get).await;
    assert_eq!(stream.status(), 200);
    assert_eq!(try_initialize(&raw).await, 503, "a session with an open stream is busy");
    // The client goes away without DELETE.
    drop(stream);
    assert!(initialize_eventually(&raw).await, "the abandoned session never expired");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_session_whose_call_was_abandoned_can_expire() {
    let (serving, raw) = fixture_with(&[], one_session_store()).await;
    let sid = raw.legacy_session("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 300}}});
    // The client stops waiting; on a legacy session the call runs on (spec 2025-11-25 basic/transports, Streamable HTTP).
    let gone = raw.post_legacy(Some(&sid), &call).timeout(Duration::from_millis(50)).send().await;
    assert!(gone.unwrap_err().is_timeout());
    assert_eq!(try_initialize(&raw).await, 503, "a session with a call in flight is busy");
    // Once the call has ended the session is idle and may expire.
    assert!(initialize_eventually(&raw).await, "the session stayed busy after its call ended");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_request_id_already_in_flight_is_refused() {
    let (serving, raw) = fixture().await;
    let slow = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 300}}});
    let echo = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "dup"}}});

    // Streamable HTTP: the duplicate is answered at once with an error; the first call completes.
    let sid = raw.legacy_session("2025-11-25").await;
    let first = tokio::spawn(send(raw.post_legacy(Some(&sid), &slow)));
    let mut refused = None;
    for _ in 0..100 {
        let r = send(raw.post_legacy(Some(&sid), &echo)).await;
        if r.error_code().is_some() {
            refused = Some(r);
            break;
        }
        // The slow call was not registered yet, so the echo ran; try again (bounded).
        assert_eq!(r.json["result"]["content"][0]["text"], "dup", "{r:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let refused = refused.expect("the duplicate id was never refused");
    expect(&refused, 200, -32600, "duplicate id");
    assert!(refused.json["error"]["message"].as_str().unwrap().contains("already in flight"));
    let first = first.await.unwrap();
    assert_eq!(first.json["result"]["content"][0]["text"], "slept", "{first:?}");

    // 2024-11-05: the same, with both answers on the stream.
    let mut stream =
        open(raw.http.get(format!("{}/sse", raw.base)).header("accept", "text/event-stream")).await;
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    let post_url = format!("{}{}", raw.base, sse_events(&text)[0].data);
    let post = |body: &Value| {
        raw.http.post(&post_url).header("content-type", "application/json").body(body.to_string())
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    assert_eq!(send(post(&init)).await.status, 202);
    assert_eq!(
        send(post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await.status,
        202
    );
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    assert!(text.contains("\"id\":1"), "{text:?}");
    assert_eq!(send(post(&slow)).await.status, 202);
    assert_eq!(send(post(&echo)).await.status, 202);
    let text = read_until(&mut stream, |t| t.contains("slept") && t.ends_with("\n\n")).await;
    let answers: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32600, "{answers:?}");
    assert_eq!(answers[1]["result"]["content"][0]["text"], "slept", "{answers:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn batches_only_on_a_2025_03_26_session() {
    let (serving, raw) = fixture().await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}},
    ]);
    let old = raw.legacy_session("2025-03-26").await;
    let r = send(raw.post_legacy(Some(&old), &batch)).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.content_type().starts_with("application/json"), "{r:?}");
    let answers = r.json.as_array().unwrap_or_else(|| panic!("not an array: {r:?}"));
    let by_id =
        |id: i64| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {r:?}"));
    assert_eq!(answers.len(), 3, "one answer per request: {r:?}");
    assert_eq!(by_id(1)["result"]["tools"].as_array().unwrap().len(), 7);
    assert_eq!(by_id(2)["result"]["content"][0]["text"], "b");
    assert_eq!(by_id(3)["error"]["code"], -32600, "initialize must not be batched");

    let new = raw.legacy_session("2025-11-25").await;
    let r = send(raw.post_legacy(Some(&new), &batch)).await;
    expect(&r, 400, -32600, "batch on a 2025-11-25 session");
    let r = send(raw.post_legacy(None, &batch)).await;
    expect(&r, 400, -32600, "batch without a session");
    // Both sessions keep working.
    for sid in [&old, &new] {
        let r = send(raw.post_legacy(Some(sid), &legacy_list(5))).await;
        assert_eq!(r.status, 200, "{r:?}");
    }
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

// ----- 2024-11-05 HTTP+SSE --------------------------------------------------------------------

#[tokio::test]
async fn the_2024_11_05_sse_endpoint_announces_where_to_post() {
    let (serving, raw) = fixture().await;
    let mut stream =
        open(raw.http.get(format!("{}/sse", raw.base)).header("accept", "text/event-stream")).await;
    assert_eq!(stream.status(), 200);
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    let first = &sse_events(&text)[0];
    assert_eq!(first.event.as_deref(), Some("endpoint"), "{text:?}");
    let session = first.data.strip_prefix("/messages?sessionId=").unwrap_or_else(|| panic!("{first:?}"));
    assert!(!session.is_empty() && session.bytes().all(|b| b.is_ascii_alphanumeric()), "{session:?}");
    let post_url = format!("{}{}", raw.base, first.data);

    // The answer to a POST arrives on the stream; the POST itself gets 202.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let post = |body: String| raw.http.post(&post_url).header("content-type", "application/json").body(body);
    let r = send(post(init.to_string())).await;
    assert_eq!(r.status, 202, "{r:?}");
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    let answer: Value = serde_json::from_str(&sse_events(&text)[0].data).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");

    // Refusals on the POST endpoint.
    let unknown = format!("{}/messages?sessionId=ffffffffffffffffffffffffffffffff", raw.base);
    let r = send(
        raw.http.post(&unknown).header("content-type", "application/json").body(legacy_list(2).to_string()),
    )
    .await;
    expect(&r, 404, -32600, "unknown sessionId");
    let r = send(
        raw.http.post(format!("{}/messages", raw.base)).header("content-type", "application/json").body("{}"),
    )
    .await;
    expect(&r, 404, -32600, "no sessionId");
    let r =
        send(raw.http.post(&post_url).header("content-type", "text/plain").body(legacy_list(3).to_string()))
            .await;
    expect(&r, 415, -32600, "wrong Content-Type");
    let r = send(post("{oops".to_owned())).await;
    expect(&r, 400, -32700, "unparseable");
    let r = send(post(json!([legacy_list(4)]).to_string())).await;
    expect(&r, 400, -32600, "batch");
    // Session ids of one transport are unknown to the other.
    let r = send(raw.post_legacy(Some(session), &legacy_list(5))).await;
    expect(&r, 404, -32600, "an SSE session id as Mcp-Session-Id");
    let streamable = raw.legacy_session("2025-11-25").await;
    let other = format!("{}/messages?sessionId={streamable}", raw.base);
    let r = send(
        raw.http.post(&other).header("content-type", "application/json").body(legacy_list(6).to_string()),
    )
    .await;
    expect(&r, 404, -32600, "a Streamable session id as sessionId");

    // The stream session still serves after all that.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(post(note.to_string())).await.status, 202);
    assert_eq!(send(post(legacy_list(7).to_string())).await.status, 202);
    let text = read_until(&mut stream, |t| t.contains("\"id\":7") && t.ends_with("\n\n")).await;
    let last: Value = serde_json::from_str(&sse_events(&text).last().unwrap().data).unwrap();
    assert_eq!(last["result"]["tools"].as_array().unwrap().len(), 7);
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}
