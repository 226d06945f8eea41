//! The HTTP server's connection bounds, over real sockets on loopback: a request head must
//! arrive within `header_timeout` (which also closes idle keep-alive connections), a body
//! within `body_timeout` (else 408), at most `max_connections` stay open (the next one gets
//! 503 with `Retry-After`), and off loopback an `Origin` must name the request's own host.
//! Each test ends by checking that the server still serves.

use mcpcore::http::server::{HostPolicy, HttpServerConfig, HttpServing};
use mcpcore_tests::http::{
    fixture_registry, modern_echo, modern_headers, open, read_until, send, serve_fixture, serve_registry_at,
    sse_events, Raw, IO_TIMEOUT,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A complete modern `echo` POST as raw bytes (keep-alive unless `close`).
fn echo_request(serving: &HttpServing, text: &str, close: bool) -> Vec<u8> {
    let body = modern_echo(1, text);
    let json = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        serving.local_addr(),
        json.len()
    );
    if close {
        head.push_str("Connection: close\r\n");
    }
    for (k, v) in modern_headers(&body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// Reads until the peer closes (EOF or reset), bounded by [`IO_TIMEOUT`]; what arrived.
async fn read_to_close(sock: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(IO_TIMEOUT, sock.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server kept the connection open past {IO_TIMEOUT:?}; got {answer:?}");
    String::from_utf8_lossy(&answer).into_owned()
}

/// Sends one request on a new connection with `Connection: close`; the whole answer.
async fn exchange(serving: &HttpServing, text: &str) -> String {
    let mut sock = TcpStream::connect(serving.local_addr()).await.unwrap();
    sock.write_all(&echo_request(serving, text, true)).await.unwrap();
    read_to_close(&mut sock).await
}

#[tokio::test]
async fn idle_and_trickling_connections_are_closed() {
    let config = HttpServerConfig { header_timeout: Duration::from_secs(1), ..Default::default() };
    let serving = serve_fixture(&[], config).await;

    // A connection that never sends anything is closed after the head timeout.
    let started = Instant::now();
    let mut idle = TcpStream::connect(serving.local_addr()).await.unwrap();
    let got = read_to_close(&mut idle).await;
    assert!(got.is_empty() || !got.contains(" 200 "), "{got:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "closed before the timeout: {:?}",
        started.elapsed()
    );

    // A keep-alive connection is answered, then closed once idle that long.
    let mut kept = TcpStream::connect(serving.local_addr()).await.unwrap();
    kept.write_all(&echo_request(&serving, "kept", false)).await.unwrap();
    let got = read_to_close(&mut kept).await;
    assert!(got.starts_with("HTTP/1.1 200"), "{got:?}");
    assert!(got.contains("kept"), "{got:?}");

    // A head trickled one byte every 250 ms never completes: the server cuts it off.
    let request = echo_request(&serving, "trickled", true);
    let mut slow = TcpStream::connect(serving.local_addr()).await.unwrap();
    let mut sent = 0;
    for byte in request.iter().take(40) {
        if slow.write_all(std::slice::from_ref(byte)).await.is_err() {
            break;
        }
        sent += 1;
        tokio::time::sleep(Duration::from_millis(250)).await;
        let mut probe = [0u8; 256];
        match tokio::time::timeout(Duration::from_millis(1), slow.read(&mut probe)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                assert!(!String::from_utf8_lossy(&probe[..n]).contains(" 200 "), "answered a partial head")
            }
            Err(_) => {}
        }
    }
    assert!(sent < 40, "the server kept reading a trickled head for {sent} bytes (10 s)");

    assert!(exchange(&serving, "still serving").await.starts_with("HTTP/1.1 200"));
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_open_stream_is_not_idle() {
    // A server→client stream quiet for longer than the head timeout stays open: the timeout
    // runs only while a connection waits for a request head.
    let config = HttpServerConfig { header_timeout: Duration::from_secs(1), ..Default::default() };
    let serving = serve_fixture(&[], config).await;
    let raw = Raw::new(&serving.url());
    let mut stream =
        open(raw.http.get(format!("{}/sse", raw.base)).header("accept", "text/event-stream")).await;
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    let post_url = format!("{}{}", raw.base, sse_events(&text)[0].data);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let r = send(raw.http.post(&post_url).header("content-type", "application/json").body(init.to_string()))
        .await;
    assert_eq!(r.status, 202, "{r:?}");
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    let answer: Value = serde_json::from_str(&sse_events(&text)[0].data).unwrap();
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05", "{text:?}");
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_slow_body_is_408() {
    let config = HttpServerConfig { body_timeout: Duration::from_secs(1), ..Default::default() };
    let serving = serve_fixture(&[], config).await;
    let request = echo_request(&serving, "slow body", true);
    // The head and the first 5 bytes of the body, then nothing.
    let cut = request.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4 + 5;
    let mut sock = TcpStream::connect(serving.local_addr()).await.unwrap();
    sock.write_all(&request[..cut]).await.unwrap();
    let got = read_to_close(&mut sock).await;
    assert!(got.starts_with("HTTP/1.1 408"), "{got:?}");
    assert!(got.contains("-32600") && got.contains("Request Timeout"), "{got:?}");
    assert!(exchange(&serving, "still serving").await.starts_with("HTTP/1.1 200"));
    serving.shutdown().await.unwrap();
}

/// A complete modern POST of `body` as raw bytes, with `Connection: close`.
fn raw_request(serving: &HttpServing, body: &Value) -> Vec<u8> {
    let json = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        serving.local_addr(),
        json.len()
    );
    for (k, v) in modern_headers(body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut bytes = format!("{head}\r\n").into_bytes();
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

#[tokio::test]
async fn connections_past_the_cap_get_503_when_every_one_is_busy() {
    let config = HttpServerConfig { max_connections: 3, ..Default::default() };
    let serving = serve_fixture(&[], config).await;
    let slow =
        mcpcore_tests::http::modern(1, "tools/call", json!({"name": "slow", "arguments": {"ms": 1500}}));
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut sock = TcpStream::connect(serving.local_addr()).await.unwrap();
        sock.write_all(&raw_request(&serving, &slow)).await.unwrap();
        held.push(sock);
    }
    tokio::time::sleep(Duration::from_millis(200)).await; // their heads are in: busy
    let refused = exchange(&serving, "one too many").await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused:?}");
    assert!(refused.to_ascii_lowercase().contains("retry-after: 1"), "{refused:?}");
    assert!(refused.contains("-32603") && refused.contains("too many open connections"), "{refused:?}");

    // The busy ones finish their calls, and then there is room.
    for mut sock in held {
        let got = read_to_close(&mut sock).await;
        assert!(got.starts_with("HTTP/1.1 200") && got.contains("slept"), "{got:?}");
    }
    let deadline = Instant::now() + IO_TIMEOUT;
    loop {
        let got = exchange(&serving, "room again").await;
        if got.starts_with("HTTP/1.1 200") {
            assert!(got.contains("room again"), "{got:?}");
            break;
        }
        assert!(got.starts_with("HTTP/1.1 503"), "{got:?}");
        assert!(Instant::now() < deadline, "the freed connection never made room");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    serving.shutdown().await.unwrap();
}

/// Issue 37: connections that hold a descriptor and send nothing kept every newcomer out (503)
/// until their header timeout. Now a full listener closes its oldest idle connection to admit
/// the newcomer, so the holders pay, not the legitimate client.
#[tokio::test]
async fn idle_holders_make_room_for_newcomers_oldest_first() {
    let config = HttpServerConfig { max_connections: 3, ..Default::default() };
    let serving = serve_fixture(&[], config).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(serving.local_addr()).await.unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await; // in this order
    }
    let got = exchange(&serving, "admitted").await;
    assert!(got.starts_with("HTTP/1.1 200") && got.contains("admitted"), "{got:?}");
    let first = read_to_close(&mut held[0]).await;
    assert_eq!(first, "", "the oldest idle holder was closed, unanswered");
    // The others are still open: a request on the second is served.
    held[1].write_all(&echo_request(&serving, "still held", true)).await.unwrap();
    let got = read_to_close(&mut held[1]).await;
    assert!(got.starts_with("HTTP/1.1 200") && got.contains("still held"), "{got:?}");
    // Many more idle holders than the cap: every newcomer is still served.
    for _ in 0..20 {
        held.push(TcpStream::connect(serving.local_addr()).await.unwrap());
    }
    for i in 0..5 {
        let got = exchange(&serving, &format!("newcomer {i}")).await;
        assert!(got.starts_with("HTTP/1.1 200"), "{got:?}");
    }
    serving.shutdown().await.unwrap();
}

/// The same under the open-file limit (issue 37's `prlimit --nofile=1024` with 1,088 idle
/// connections, scaled down): a server process limited to 128 descriptors, 200 idle
/// connections held, and a legitimate call through them succeeds.
#[tokio::test]
async fn a_legitimate_call_succeeds_through_fd_exhaustion() {
    /// Kills the server even when an assertion fails.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let (child, url) = mcpcore_tests::spawn_listening(
        std::process::Command::new("prlimit")
            .args(["--nofile=128", "--"])
            .arg(mcpcore_tests::bin("echo_server"))
            .args(["--http", "127.0.0.1:0"]),
    );
    let _child = Killed(child);
    let addr: std::net::SocketAddr =
        url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let mut held = Vec::new();
    for _ in 0..200 {
        match TcpStream::connect(addr).await {
            Ok(s) => held.push(s),
            Err(e) => panic!("connect: {e}"),
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let raw = Raw::new(&url);
    let started = Instant::now();
    let r = send(raw.post_modern(&modern_echo(1, "through"))).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.text.contains("through"), "{r:?}");
    eprintln!("a call through 200 idle holders: {:?}", started.elapsed());
    drop(held);
}

#[tokio::test]
async fn off_loopback_an_origin_must_name_the_request_host() {
    let serving = serve_registry_at("0.0.0.0:0", fixture_registry(), &[], HttpServerConfig::default()).await;
    let port = serving.local_addr().port();
    let raw = Raw::new(&format!("http://127.0.0.1:{port}/mcp"));
    let body = modern_echo(2, "origin");
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        let r = send(raw.post_modern(&body).header("origin", origin)).await;
        assert_eq!(r.status, 403, "Origin {origin}: {r:?}");
        assert_eq!(r.error_code(), Some(-32600), "Origin {origin}: {r:?}");
    }
    for origin in [format!("http://127.0.0.1:{port}"), format!("https://127.0.0.1:{port}")] {
        let r = send(raw.post_modern(&body).header("origin", origin.as_str())).await;
        assert_eq!(r.status, 200, "Origin {origin}: {r:?}");
    }
    raw.assert_serving().await; // no Origin (not a browser)
    serving.shutdown().await.unwrap();
}

/// DNS rebinding on a wildcard bind (issue 37): a page of evil.example whose name now resolves
/// to this machine sends `Host: evil.example:PORT` and the matching `Origin`. Before, both a
/// `tools/list` and a `tools/call` were answered 200; now a DNS name is refused unless listed,
/// while IP literals and localhost (which rebinding cannot produce) are served.
#[tokio::test]
async fn a_wildcard_bind_refuses_dns_names_it_was_not_told_so_rebinding_fails() {
    let serving = serve_registry_at("0.0.0.0:0", fixture_registry(), &[], HttpServerConfig::default()).await;
    let port = serving.local_addr().port();
    let raw = Raw::new(&format!("http://127.0.0.1:{port}/mcp"));
    let list = mcpcore_tests::http::modern(1, "tools/list", json!({}));
    let evil = format!("evil.example:{port}");
    for body in [&list, &modern_echo(2, "rebind")] {
        let r = send(raw.post_modern(body).header("host", &evil).header("origin", format!("http://{evil}")))
            .await;
        assert_eq!(r.status, 403, "{r:?}");
        assert!(r.text.contains("allowed_hosts"), "the refusal says the remedy: {r:?}");
        let r = send(raw.post_modern(body).header("host", "mcp.example.com")).await;
        assert_eq!(r.status, 403, "a DNS name without Origin: {r:?}");
    }
    // The 2024-11-05 transport's stream is behind the same guard.
    let r = send(
        raw.http.get(format!("{}/sse", raw.base)).header("host", &evil).header("accept", "text/event-stream"),
    )
    .await;
    assert_eq!(r.status, 403, "{r:?}");
    for host in [
        format!("127.0.0.1:{port}"),
        format!("10.1.2.3:{port}"),
        format!("[::1]:{port}"),
        format!("localhost:{port}"),
        "192.168.0.7".into(),
    ] {
        let r = send(raw.post_modern(&list).header("host", &host)).await;
        assert_eq!(r.status, 200, "Host {host}: {r:?}");
    }
    serving.shutdown().await.unwrap();

    // A name the server is reached by is served once listed.
    let config = HttpServerConfig {
        hosts: HostPolicy::Allow {
            hosts: vec!["mcp.example.com".into()],
            origins: vec!["https://app.example.com".into()],
        },
        ..HttpServerConfig::default()
    };
    let serving = serve_registry_at("0.0.0.0:0", fixture_registry(), &[], config).await;
    let raw = Raw::new(&format!("http://127.0.0.1:{}/mcp", serving.local_addr().port()));
    let r = send(
        raw.post_modern(&list).header("host", "mcp.example.com").header("origin", "https://app.example.com"),
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = send(raw.post_modern(&list).header("host", "evil.example")).await;
    assert_eq!(r.status, 403, "{r:?}");
    serving.shutdown().await.unwrap();
}

/// Sends a POST head declaring `declared` bytes and then `sent` bytes of its body, and stalls.
async fn stalled_body(serving: &HttpServing, declared: usize, sent: usize) -> TcpStream {
    let mut sock = TcpStream::connect(serving.local_addr()).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n",
        serving.local_addr()
    );
    sock.write_all(head.as_bytes()).await.unwrap();
    let _ = sock.write_all(&vec![b' '; sent]).await; // the server may answer and close first
    sock
}

/// Issue 37: 32 connections each sending all but the last bytes of a 4 MiB body held +145 MB
/// until their body timeout. The bodies being received now share one budget: past it a body
/// gets 503 with Retry-After (and `data.limit` "body_budget"), while requests that come whole
/// are still served, and the budget has room again once the stalled bodies go.
#[tokio::test]
async fn stalled_bodies_share_one_budget_and_past_it_get_503() {
    const KIB: usize = 1024;
    let config = HttpServerConfig { body_budget: 1024 * KIB, ..HttpServerConfig::default() };
    let serving = serve_fixture(&[], config).await;
    let raw = Raw::new(&serving.url());
    let held = stalled_body(&serving, 1000 * KIB, 700 * KIB).await;
    tokio::time::sleep(Duration::from_millis(300)).await; // its 700 KiB are in the server
    let mut refused = stalled_body(&serving, 1000 * KIB, 700 * KIB).await;
    let mut got = Vec::new();
    let _ = tokio::time::timeout(IO_TIMEOUT, refused.read_to_end(&mut got)).await;
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 503"), "{got:?}");
    assert!(got.to_ascii_lowercase().contains("retry-after: 1"), "{got:?}");
    assert!(got.contains("\"limit\":\"body_budget\""), "{got:?}");
    // A request whose body comes whole with its head is served meanwhile.
    raw.assert_serving().await;
    // Once the stalled body goes, a large body fits again.
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let big = "x".repeat(600 * KIB);
    let r = send(raw.post_modern(&modern_echo(9, &big))).await;
    assert_eq!(r.status, 200, "{}", &r.text[..r.text.len().min(300)]);
    serving.shutdown().await.unwrap();
}
