//! The HTTP server under abuse (issue 21), over real sockets on loopback, clients told apart by
//! their source address (127.0.0.1, 127.0.0.2, …): per-client session quotas and fair eviction,
//! server→client requests that time out and free their session, slow readers disconnected past
//! their backlog, calls in flight capped per session, per-client task quotas (an optional-task
//! tool then runs synchronously), and a GET declaring 2026-07-28 refused. Each test ends by
//! checking that the server still serves.

use mcpcore::engine::ServerConfig;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::server::Server;
use mcpcore_tests::http::{
    add_task_tools, client_builder, fixture_registry, modern, open, read_until, send, sse_events, Raw, Reply,
    IO_TIMEOUT, MODERN,
};
use serde_json::{json, Value};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw client of `url` whose connections come from `ip`.
fn raw_from(url: &str, ip: &str) -> Raw {
    let mut raw = Raw::new(url);
    let ip: IpAddr = ip.parse().unwrap();
    raw.http = client_builder().local_address(ip).build().unwrap();
    raw
}

/// Serves the fixture tools (and the task tools) with `server` and `http` settings.
async fn serve(server: impl FnOnce(&mut ServerConfig), http: HttpServerConfig) -> HttpServing {
    let registry = fixture_registry();
    add_task_tools(&registry);
    let mut config = ServerConfig::new("fixture", "1.0.0");
    server(&mut config);
    Server::new(config, Arc::new(registry)).serve_http("127.0.0.1:0".parse().unwrap(), http).await.unwrap()
}

fn initialize(elicitation: bool) -> Value {
    let caps = if elicitation { json!({"elicitation": {}}) } else { json!({}) };
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "raw", "version": "0"}}})
}

/// `initialize` (no session): the reply, and the session id when one was minted.
async fn try_session(raw: &Raw) -> (Reply, Option<String>) {
    try_session_with(raw, false).await
}

/// `initialize` (declaring elicitation or not), then `notifications/initialized`.
async fn try_session_with(raw: &Raw, elicitation: bool) -> (Reply, Option<String>) {
    let r = send(raw.post_legacy(None, &initialize(elicitation))).await;
    let sid = r.headers.get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    if let Some(sid) = &sid {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(send(raw.post_legacy(Some(sid), &note)).await.status, 202);
    }
    (r, sid)
}

async fn session(raw: &Raw) -> String {
    let (r, sid) = try_session(raw).await;
    assert_eq!(r.status, 200, "{r:?}");
    sid.expect("Mcp-Session-Id")
}

/// True when session `sid` still answers a ping.
async fn alive(raw: &Raw, sid: &str) -> bool {
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    let r = send(raw.post_legacy(Some(sid), &ping)).await;
    match r.status {
        200 => true,
        404 => false,
        other => panic!("ping answered {other}: {r:?}"),
    }
}

#[track_caller]
fn assert_retry_later(r: &Reply, status: u16, what: &str) {
    assert_eq!(r.status, status, "{what}: {r:?}");
    assert_eq!(r.error_code(), Some(-32603), "{what}: {r:?}");
    assert_eq!(r.headers.get("retry-after").map(|v| v.to_str().unwrap()), Some("1"), "{what}: {r:?}");
}

#[tokio::test]
async fn one_client_cannot_lock_the_others_out_of_sessions() {
    // Sessions never count as idle here (1 h): only the quota and the fairness rules end them.
    let http = HttpServerConfig {
        max_sessions: 4,
        max_sessions_per_client: 2,
        session_idle: Duration::from_secs(3600),
        ..Default::default()
    };
    let serving = serve(|_| {}, http).await;
    let a = raw_from(&serving.url(), "127.0.0.1");
    let (a1, a2) = (session(&a).await, session(&a).await);
    // At its quota, a client's new session ends its own least recently used idle one.
    assert!(alive(&a, &a2).await);
    let a3 = session(&a).await;
    assert!(!alive(&a, &a1).await, "a1 should have made room");
    assert!(alive(&a, &a2).await && alive(&a, &a3).await);

    // With both of its sessions busy (open GET streams), the client is refused: 429.
    let get =
        |sid: &str| a.http.get(&a.url).header("accept", "text/event-stream").header("mcp-session-id", sid);
    let (s2, s3) = (open(get(&a2)).await, open(get(&a3)).await);
    assert_eq!((s2.status().as_u16(), s3.status().as_u16()), (200, 200));
    let (r, _) = try_session(&a).await;
    assert_retry_later(&r, 429, "a client whose sessions are all busy");

    // Another client still gets in, up to the endpoint's cap…
    let b = raw_from(&serving.url(), "127.0.0.2");
    let (b1, b2) = (session(&b).await, session(&b).await);
    assert!(alive(&b, &b2).await);
    // …and past it a third client ends the least recently used session of the biggest holder
    // that has one to spare (b: a's are busy), although none has been idle for long.
    let c = raw_from(&serving.url(), "127.0.0.3");
    let c1 = session(&c).await;
    assert!(!alive(&b, &b1).await, "b1 should have made room");
    assert!(alive(&b, &b2).await && alive(&c, &c1).await);

    // Everything busy: 503.
    let get_b = b.http.get(&b.url).header("accept", "text/event-stream").header("mcp-session-id", &b2);
    let get_c = c.http.get(&c.url).header("accept", "text/event-stream").header("mcp-session-id", &c1);
    let (sb, sc) = (open(get_b).await, open(get_c).await);
    assert_eq!((sb.status().as_u16(), sc.status().as_u16()), (200, 200));
    let d = raw_from(&serving.url(), "127.0.0.4");
    let (r, _) = try_session(&d).await;
    assert_retry_later(&r, 503, "every session busy");
    drop((s2, s3, sb, sc));
    d.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_unanswered_server_request_times_out_and_frees_its_session() {
    // One session at most; the client's elicitation is never answered. The timeout comes from
    // the settings a binding passes (peerRequestTimeoutMs).
    let (server, _, mut http) = {
        let registry = fixture_registry();
        add_task_tools(&registry);
        Server::new(ServerConfig::new("fixture", "1.0.0"), Arc::new(registry))
            .http_settings(
                r#"{"peerRequestTimeoutMs": 1500, "maxSessions": 1}"#,
                mcpcore::host::Spelling::Camel,
            )
            .unwrap()
    };
    http.session_idle = Duration::from_secs(3600);
    let serving = server.serve_http("127.0.0.1:0".parse().unwrap(), http).await.unwrap();
    let a = raw_from(&serving.url(), "127.0.0.1");
    let sid = try_session_with(&a, true).await.1.expect("a session");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "task_ask", "arguments": {}}});
    let mut answer = open(a.post_legacy(Some(&sid), &call)).await;
    let text = read_until(&mut answer, |t| t.contains("elicitation/create")).await;
    assert!(text.contains("elicitation/create"), "{text:?}");

    // While the handler waits, its session is busy: nobody else can have one.
    let b = raw_from(&serving.url(), "127.0.0.2");
    let (r, _) = try_session(&b).await;
    assert_retry_later(&r, 503, "the only session waits for its client");

    // The request times out: the client is told to drop it, the handler gets the error.
    let text = read_until(&mut answer, |t| t.contains("\"id\":2")).await;
    let events = sse_events(&text);
    assert!(events.iter().any(|e| e.data.contains("notifications/cancelled")), "{text:?}");
    let result: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
    assert_eq!(result["result"]["isError"], true, "{result}");
    let message = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("did not answer elicitation/create within 1 s"), "{message}");

    // Its session is free again (once the driver has seen the call end): a new client's
    // session ends it.
    let mut b1 = None;
    for _ in 0..100 {
        match try_session(&b).await {
            (r, Some(sid)) if r.status == 200 => {
                b1 = Some(sid);
                break;
            }
            (r, _) => assert_retry_later(&r, 503, "before the session was released"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let b1 = b1.expect("the timed-out session was never released");
    assert!(alive(&b, &b1).await);
    assert!(!alive(&a, &sid).await);
    b.assert_serving().await;
    serving.shutdown().await.unwrap();
}

/// Reads a raw HTTP stream until the server closes it; the bytes read, or `None` when it was
/// still open after [`IO_TIMEOUT`] with no more data coming.
async fn read_until_closed(sock: &mut TcpStream) -> Option<usize> {
    let mut total = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match tokio::time::timeout(IO_TIMEOUT, sock.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(total),
            Ok(Ok(n)) => total += n,
        }
    }
}

#[tokio::test]
async fn a_2024_sse_reader_that_does_not_read_is_disconnected() {
    const REPLY: usize = 200 * 1024;
    const CALLS: usize = 100; // 20 MiB of replies, far past the backlog and the socket buffers
    let http = HttpServerConfig { max_backlog: 256 * 1024, ..Default::default() };
    let serving = serve(|_| {}, http).await;
    let raw = Raw::new(&serving.url());
    let mut sock = TcpStream::connect(serving.local_addr()).await.unwrap();
    let get =
        format!("GET /sse HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n", serving.local_addr());
    sock.write_all(get.as_bytes()).await.unwrap();
    let mut head = vec![0u8; 4096];
    let mut seen = String::new();
    while !seen.split_once("sessionId=").is_some_and(|(_, rest)| rest.contains('\n')) {
        let n = tokio::time::timeout(IO_TIMEOUT, sock.read(&mut head)).await.unwrap().unwrap();
        assert!(n > 0, "{seen:?}");
        seen.push_str(&String::from_utf8_lossy(&head[..n]));
    }
    let path = seen.lines().find_map(|l| l.strip_prefix("data: ")).expect("endpoint event").trim().to_owned();
    let post_url = format!("{}{}", raw.base, path);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let post = |body: &Value| {
        raw.http.post(&post_url).header("content-type", "application/json").body(body.to_string())
    };
    assert_eq!(send(post(&init)).await.status, 202);
    assert_eq!(
        send(post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await.status,
        202
    );
    // Many large replies, never read: the server must not keep them.
    let text = "x".repeat(REPLY);
    let mut accepted = 0;
    for i in 0..CALLS {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}});
        match send(post(&call)).await.status {
            202 => accepted += 1,
            404 => break, // the session ended with its stream
            other => panic!("POST answered {other}"),
        }
    }
    assert!(accepted > 0);
    let read = read_until_closed(&mut sock).await.expect("the stream was never closed");
    assert!(read < CALLS * REPLY, "every reply was kept for the reader ({read} bytes)");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn calls_in_flight_are_capped_per_session() {
    let serving = serve(|c| c.max_in_flight = 2, HttpServerConfig::default()).await;
    let raw = Raw::new(&serving.url());
    let sid = session(&raw).await;
    let slow = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 1500}}});
    let calls = (1..=3).map(|id| tokio::spawn(send(raw.post_legacy(Some(&sid), &slow(id)))));
    let replies: Vec<Reply> =
        futures_util::future::join_all(calls).await.into_iter().map(Result::unwrap).collect();
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status != 200).collect();
    assert_eq!(refused.len(), 1, "{replies:?}");
    assert_retry_later(refused[0], 429, "a third call in flight");
    assert_eq!(refused[0].json["error"]["data"]["limit"], "in_flight", "{:?}", refused[0]);
    assert_eq!(refused[0].json["error"]["data"]["max"], 2, "{:?}", refused[0]);
    assert!(refused[0].json["id"].as_i64().is_some(), "answered under its id: {:?}", refused[0]);
    for r in replies.iter().filter(|r| r.status == 200) {
        assert_eq!(r.json["result"]["content"][0]["text"], "slept", "{r:?}");
    }
    // Once they have finished there is room again.
    let r = send(raw.post_legacy(Some(&sid), &slow(4))).await;
    assert_eq!(r.json["result"]["content"][0]["text"], "slept", "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

/// The 2024-11-05 transport (issue 37 reported 2,000 slow calls on one `/sse` session all
/// running): past `max_in_flight` a call is refused down the stream under its id, with the same
/// error as on Streamable HTTP; once they have finished there is room again. (With the default
/// of 1,000, 1,100 concurrent 8 s calls: ids 1001.. refused, checked by hand.)
#[tokio::test]
async fn calls_in_flight_are_capped_on_a_2024_sse_session() {
    let serving = serve(|c| c.max_in_flight = 2, HttpServerConfig::default()).await;
    let raw = Raw::new(&serving.url());
    let mut stream =
        open(raw.http.get(format!("{}/sse", raw.base)).header("accept", "text/event-stream")).await;
    let text = read_until(&mut stream, |t| t.contains("sessionId=") && t.contains("\n\n")).await;
    let path = sse_events(&text)[0].data.trim().to_owned();
    let post_url = format!("{}{}", raw.base, path);
    let post = |body: Value| {
        let rb = raw.http.post(&post_url).header("content-type", "application/json").body(body.to_string());
        async move { send(rb).await.status }
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    assert_eq!(post(init).await, 202);
    read_until(&mut stream, |t| t.contains("\"id\":0")).await;
    assert_eq!(post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await, 202);
    let slow = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 1500}}});
    for id in 1..=5 {
        assert_eq!(post(slow(id)).await, 202);
    }
    let mut seen = String::new();
    let done = |t: &str| {
        sse_events(t)
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .filter(|v| v["id"].is_i64())
            .count()
            >= 5
    };
    for _ in 0..200 {
        if done(&seen) {
            break;
        }
        seen.push_str(&read_until(&mut stream, |t| !t.is_empty()).await);
    }
    assert!(done(&seen), "five answers: {seen}");
    let answers: Vec<Value> =
        sse_events(&seen).iter().filter_map(|e| serde_json::from_str(&e.data).ok()).collect();
    let refused: Vec<&Value> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(refused.len(), 3, "two run, three are refused: {answers:?}");
    for r in &refused {
        assert_eq!(r["error"]["code"], -32603, "{r}");
        assert_eq!(r["error"]["data"]["limit"], "in_flight", "{r}");
        assert_eq!(r["error"]["data"]["max"], 2, "{r}");
        assert!(r["id"].as_i64().is_some(), "answered under its id: {r}");
    }
    assert_eq!(
        answers.iter().filter(|a| a["result"]["content"][0]["text"] == "slept").count(),
        2,
        "{answers:?}"
    );
    assert_eq!(post(slow(6)).await, 202);
    let more = read_until(&mut stream, |t| t.contains("\"id\":6")).await;
    assert!(more.contains("slept"), "room again once they finished: {more}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

/// A modern `tools/call` declaring the Tasks extension.
fn task_call(id: i64, tool: &str, arguments: Value) -> Value {
    let mut body = modern(id, "tools/call", json!({"name": tool, "arguments": arguments}));
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    body
}

#[tokio::test]
async fn a_client_past_its_task_quota_gets_optional_tools_run_synchronously() {
    let serving = serve(|c| c.tasks.max_per_client = 1, HttpServerConfig::default()).await;
    let a = raw_from(&serving.url(), "127.0.0.1");
    let first = send(a.post_modern(&task_call(1, "task_sleep", json!({"ms": 3000})))).await;
    assert_eq!(first.json["result"]["resultType"], "task", "{first:?}");
    // Its quota used: an optional-task tool answers synchronously…
    let second = send(a.post_modern(&task_call(2, "task_sleep", json!({"ms": 10})))).await;
    assert_eq!(second.status, 200, "{second:?}");
    assert_eq!(second.json["result"]["content"][0]["text"], "slept", "{second:?}");
    assert_ne!(second.json["result"]["resultType"], "task", "{second:?}");
    // …and a task-only tool is refused, naming the limit.
    let only = send(a.post_modern(&task_call(3, "task_only", json!({})))).await;
    assert_eq!(only.error_code(), Some(-32603), "{only:?}");
    assert_eq!(only.json["error"]["data"]["limit"], "tasks", "{only:?}");
    // Another client has its own quota.
    let b = raw_from(&serving.url(), "127.0.0.2");
    let other = send(b.post_modern(&task_call(4, "task_sleep", json!({"ms": 10})))).await;
    assert_eq!(other.json["result"]["resultType"], "task", "{other:?}");
    a.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_get_declaring_2026_07_28_is_405_and_legacy_gets_keep_the_2024_stream() {
    let serving = serve(|_| {}, HttpServerConfig::default()).await;
    let raw = Raw::new(&serving.url());
    let get = || raw.http.get(&raw.url).header("accept", "text/event-stream");
    let r = send(get().header("mcp-protocol-version", MODERN)).await;
    assert_eq!(r.status, 405, "{r:?}");
    assert_eq!(r.error_code(), Some(-32600), "{r:?}");
    assert_eq!(r.headers.get("allow").unwrap(), "POST");
    for declared in [None, Some("2024-11-05"), Some("2025-11-25")] {
        let mut rb = get();
        if let Some(v) = declared {
            rb = rb.header("mcp-protocol-version", v);
        }
        let mut stream = open(rb).await;
        assert_eq!(stream.status(), 200, "{declared:?}");
        let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
        assert_eq!(sse_events(&text)[0].event.as_deref(), Some("endpoint"), "{declared:?}: {text:?}");
    }
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn request_state_can_be_encrypted_and_single_use() {
    // The settings a binding passes: both switches on.
    let (server, addr, http) = {
        let registry = fixture_registry();
        add_task_tools(&registry);
        Server::new(ServerConfig::new("fixture", "1.0.0"), Arc::new(registry))
            .http_settings(
                r#"{"stateEncryption": true, "stateSingleUse": true}"#,
                mcpcore::host::Spelling::Camel,
            )
            .unwrap()
    };
    let serving = server.serve_http(addr, http).await.unwrap();
    let raw = Raw::new(&serving.url());
    // A modern call that needs input: answered with an input request and a sealed state.
    let mut call = modern(1, "tools/call", json!({"name": "task_ask", "arguments": {}}));
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let first = send(raw.post_modern(&call)).await;
    assert_eq!(first.json["result"]["resultType"], "input_required", "{first:?}");
    let state = first.json["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(state.starts_with("e."), "not encrypted: {state}");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&state[2..]).unwrap();
    assert!(!String::from_utf8_lossy(&bytes).contains("task_ask"), "readable: {state}");
    let key = first.json["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let mut retry = call.clone();
    retry["id"] = json!(2);
    retry["params"]["requestState"] = json!(state);
    retry["params"]["inputResponses"] = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    let done = send(raw.post_modern(&retry)).await;
    assert_eq!(done.json["result"]["content"][0]["text"], "hello Ada", "{done:?}");
    // The same state again: refused.
    retry["id"] = json!(3);
    let replay = send(raw.post_modern(&retry)).await;
    assert_eq!(replay.error_code(), Some(-32602), "{replay:?}");
    assert!(replay.json["error"]["message"].as_str().unwrap().contains("already used"), "{replay:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}
