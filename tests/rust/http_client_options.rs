//! The HTTP client sends the host's headers and bearer token, and the modern headers derived
//! from each message, as seen by a raw TCP peer that records the request.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Accepts one connection, records the request head, answers 400 with no body.
async fn record_one(listener: TcpListener) -> String {
    let (mut sock, _) = listener.accept().await.unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 64 * 1024 {
        let n = sock.read(&mut chunk).await.unwrap();
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    sock.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    String::from_utf8_lossy(&buf).to_ascii_lowercase()
}

#[tokio::test]
async fn host_headers_token_and_modern_headers_are_sent() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let recorder = tokio::spawn(record_one(listener));
    let http = HttpOptions {
        headers: vec![("X-Api-Key".into(), "k-123".into())],
        bearer_token: Some("t0ken".into()),
        transport: HttpTransport::Streamable,
        ..Default::default()
    };
    let options = ClientOptions { probe_timeout: Duration::from_secs(3), ..Default::default() };
    // The peer refuses everything, so connecting fails; the first request is what we check.
    let connected = Client::connect_http(&url, http, options).await;
    assert!(connected.is_err());
    let head = tokio::time::timeout(Duration::from_secs(5), recorder).await.unwrap().unwrap();
    assert!(head.starts_with("post /mcp http/1.1"), "{head}");
    for line in [
        "x-api-key: k-123",
        "authorization: bearer t0ken",
        "mcp-protocol-version: 2026-07-28",
        "mcp-method: server/discover",
        "content-type: application/json",
    ] {
        assert!(head.contains(line), "missing {line:?} in\n{head}");
    }
    assert!(head.contains("accept: application/json, text/event-stream"), "{head}");
}

/// Answers every connection with `status` and `body` (JSON), `n` times.
async fn answer(listener: TcpListener, n: usize, status: &'static str, body: &'static str) {
    answer_with(listener, n, status, "", body, Default::default()).await
}

/// [`answer`] with extra header lines (`name: value\r\n` each), counting the requests.
async fn answer_with(
    listener: TcpListener,
    n: usize,
    status: &'static str,
    headers: &'static str,
    body: &'static str,
    count: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    for _ in 0..n {
        let Ok(Ok((mut sock, _))) = tokio::time::timeout(Duration::from_secs(5), listener.accept()).await
        else {
            return;
        };
        let mut buf = vec![0u8; 64 * 1024];
        let _ = sock.read(&mut buf).await;
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = sock.write_all(reply.as_bytes()).await;
    }
}

#[tokio::test]
async fn an_http_error_keeps_its_status_and_the_json_rpc_code_of_its_body() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let body =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: Origin not allowed"}}"#;
    // The modern probe, the legacy initialize and the 2024-11-05 GET all get the same 403.
    tokio::spawn(answer(listener, 3, "403 Forbidden", body));
    let options = ClientOptions { probe_timeout: Duration::from_secs(3), ..Default::default() };
    let http = HttpOptions { transport: HttpTransport::Streamable, ..Default::default() };
    let err = Client::connect_http(&url, http, options).await.unwrap_err();
    assert_eq!(err.kind(), mcpcore::ErrorKind::Http, "{err}");
    assert_eq!(err.http_status(), Some(403));
    assert_eq!(err.code(), mcpcore::ErrorCode::INVALID_REQUEST, "{err}");
    assert!(err.message().contains("Origin not allowed"), "{err}");
}

#[tokio::test]
async fn a_401_is_an_auth_error_with_the_challenge_and_no_fallback() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let challenge =
        "www-authenticate: Bearer realm=\"mcp\", resource_metadata=\"https://as.example/prm\"\r\n";
    tokio::spawn(answer_with(listener, 3, "401 Unauthorized", challenge, "", count.clone()));
    // Auto transport: nothing falls back to the 2024-11-05 SSE transport on a 401.
    let err = Client::connect_http(&url, HttpOptions::default(), ClientOptions::default()).await.unwrap_err();
    assert_eq!(err.kind(), mcpcore::ErrorKind::Auth, "{err}");
    assert_eq!(err.http_status(), Some(401));
    let auth = err.auth_error().unwrap();
    assert_eq!(auth.error, "unauthorized");
    assert_eq!(
        auth.challenge.as_deref(),
        Some("Bearer realm=\"mcp\", resource_metadata=\"https://as.example/prm\"")
    );
    assert!(err.message().contains("answered HTTP 401"), "{err}");
    assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1, "only the probe was sent");
}

/// Reads one HTTP/1.1 request: its head (lowercased) and body.
async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<(String, String)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((head, String::from_utf8_lossy(&buf[head_end..head_end + len]).into_owned()))
}

/// A legacy Streamable HTTP peer whose GET stream names event `e1`, says `retry: 10`, and ends;
/// the reconnection's `Last-Event-ID` is sent on `resumed`, and the second stream carries
/// another notification once `go` fires.
async fn resuming_peer(
    listener: TcpListener,
    resumed: tokio::sync::mpsc::UnboundedSender<String>,
    go: tokio::sync::oneshot::Receiver<()>,
) {
    let mut go = Some(go);
    let mut gets = 0;
    loop {
        let Ok((mut sock, _)) = listener.accept().await else { return };
        let Some((head, body)) = read_request(&mut sock).await else { continue };
        let reply = if head.starts_with("post") && body.contains("\"initialize\"") {
            let id: serde_json::Value = serde_json::from_str(&body).unwrap();
            let result = serde_json::json!({"jsonrpc": "2.0", "id": id["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
                "serverInfo": {"name": "resuming", "version": "1"}}})
            .to_string();
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s-1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{result}",
                result.len()
            )
        } else if head.starts_with("get") {
            gets += 1;
            let note = |n: u32| {
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"stream {n}\"}}}}"
                )
            };
            if gets == 1 {
                assert!(!head.contains("last-event-id"), "{head}");
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nid: e1\nretry: 10\ndata: {}\n\n",
                    note(1)
                )
            } else {
                let last = head.lines().find_map(|l| l.strip_prefix("last-event-id:")).unwrap_or("").trim();
                let _ = resumed.send(last.to_owned());
                if let Some(go) = go.take() {
                    let _ = go.await;
                }
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nid: e2\ndata: {}\n\n",
                    note(2)
                )
            }
        } else {
            "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
        };
        let _ = sock.write_all(reply.as_bytes()).await;
        let _ = sock.shutdown().await;
    }
}

#[tokio::test]
async fn the_get_stream_opens_by_itself_and_resumes_with_last_event_id() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (tx, mut resumed) = tokio::sync::mpsc::unbounded_channel();
    let (go, wait_go) = tokio::sync::oneshot::channel();
    let peer = tokio::spawn(resuming_peer(listener, tx, wait_go));
    let options = ClientOptions { lineage: Some(mcpcore::Lineage::Legacy), ..Default::default() };
    let client = Client::connect_http(&url, HttpOptions::default(), options).await.unwrap();
    let (log_tx, mut logs) = tokio::sync::mpsc::unbounded_channel();
    client.on_log(move |m| {
        let _ = log_tx.send(m.data.as_str().unwrap_or_default().to_owned());
    });
    // Nothing asked for the stream: it opened after initialized. (Liveness bounds only.)
    let last = tokio::time::timeout(Duration::from_secs(10), resumed.recv()).await.unwrap().unwrap();
    assert_eq!(last, "e1");
    go.send(()).unwrap();
    // The first message may have arrived before `on_log` was set; the resumed one follows.
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), logs.recv()).await.unwrap().unwrap();
        if line == "stream 2" {
            break;
        }
        assert_eq!(line, "stream 1");
    }
    client.close().await;
    peer.abort();
}

/// A server that answers `server/discover` properly and every other request with a body far
/// over the client's 16 MiB bound: `declared` announces 1 GiB in `Content-Length`; otherwise a
/// chunked body streams until the client hangs up (at most 256 MiB). Returns the body bytes it
/// managed to write to the `tools/call` answer.
async fn oversized(listener: TcpListener, declared: bool) -> usize {
    let discover = r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"huge","version":"1"},"ttlMs":0,"cacheScope":"private"}}"#;
    loop {
        let Ok(Ok((mut sock, _))) = tokio::time::timeout(Duration::from_secs(10), listener.accept()).await
        else {
            return 0;
        };
        let mut buf = vec![0u8; 64 * 1024];
        let n = sock.read(&mut buf).await.unwrap_or(0);
        let request = String::from_utf8_lossy(&buf[..n]).into_owned();
        let id =
            request.split("\"id\":").nth(1).and_then(|r| r.split([',', '}']).next()).unwrap_or("1").trim();
        if request.contains("\"server/discover\"") {
            let body = discover.replace("\"id\":0", &format!("\"id\":{id}"));
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = sock.write_all(format!("{head}{body}").as_bytes()).await;
            continue;
        }
        let head = if declared {
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1073741824\r\n\r\n"
        } else {
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
        };
        let _ = sock.write_all(head.as_bytes()).await;
        let chunk = vec![b' '; 64 * 1024];
        let mut written = 0usize;
        while written < 256 << 20 {
            let framed = if declared {
                chunk.clone()
            } else {
                [format!("{:x}\r\n", chunk.len()).into_bytes(), chunk.clone(), b"\r\n".to_vec()].concat()
            };
            match tokio::time::timeout(Duration::from_secs(5), sock.write_all(&framed)).await {
                Ok(Ok(())) => written += chunk.len(),
                _ => break,
            }
        }
        return written;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_over_the_bound_is_a_size_error_and_is_not_read_whole() {
    for declared in [true, false] {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let server = tokio::spawn(oversized(listener, declared));
        let options = ClientOptions {
            version: Some(mcpcore::protocol::ProtocolVersion::V2026_07_28),
            ..Default::default()
        };
        let client = Client::connect_http(&url, HttpOptions::default(), options).await.unwrap();
        let started = std::time::Instant::now();
        let e = client.call_tool("anything", serde_json::json!({})).await.unwrap_err();
        assert_eq!(e.kind(), mcpcore::ErrorKind::Protocol, "declared={declared}: {e:?}");
        assert_eq!(e.code().0, -32600, "{e:?}");
        let data = e.data().cloned().unwrap_or_default();
        assert_eq!(data["limit"], 16 * 1024 * 1024, "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        client.close().await;
        let written = tokio::time::timeout(Duration::from_secs(20), server).await.unwrap().unwrap();
        // The client read at most its limit (plus what sockets buffer) before hanging up.
        assert!(written < 40 << 20, "declared={declared}: the server wrote {written} bytes");
    }
}

/// A legacy peer that answers `initialize` and every POST, and every GET with `status`,
/// counting the GETs on `gets`.
async fn refusing_get_peer(listener: TcpListener, status: &'static str, gets: Arc<AtomicUsize>) {
    loop {
        let Ok((mut sock, _)) = listener.accept().await else { return };
        let Some((head, body)) = read_request(&mut sock).await else { continue };
        let reply = if head.starts_with("post") && body.contains("\"initialize\"") {
            let id: serde_json::Value = serde_json::from_str(&body).unwrap();
            let result = serde_json::json!({"jsonrpc": "2.0", "id": id["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
                "serverInfo": {"name": "no-get", "version": "1"}}})
            .to_string();
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s-1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{result}",
                result.len()
            )
        } else if head.starts_with("get") {
            gets.fetch_add(1, Ordering::SeqCst);
            format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        } else {
            "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
        };
        let _ = sock.write_all(reply.as_bytes()).await;
        let _ = sock.shutdown().await;
    }
}

/// A GET stream refused for good (400, 404, 405) is not opened again and again (issue 49; rmcp
/// #1363): one GET in two seconds, and the client still works.
#[tokio::test]
async fn a_get_stream_refused_with_a_4xx_is_not_retried() {
    for status in ["405 Method Not Allowed", "404 Not Found", "400 Bad Request"] {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let gets = Arc::new(AtomicUsize::new(0));
        let peer = tokio::spawn(refusing_get_peer(listener, status, gets.clone()));
        let options = ClientOptions { lineage: Some(mcpcore::Lineage::Legacy), ..Default::default() };
        let client = Client::connect_http(&url, HttpOptions::default(), options).await.unwrap();
        tokio::time::sleep(Duration::from_secs(2)).await;
        // Opened once, by itself, after `initialized`; never again.
        assert_eq!(gets.load(Ordering::SeqCst), 1, "{status}: GETs in two seconds");
        client.close().await;
        peer.abort();
    }
}
