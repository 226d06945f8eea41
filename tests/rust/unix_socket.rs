//! Streamable HTTP on a Unix domain socket (issue 34): the same endpoint (both lineages, the
//! 2024-11-05 transport, the DNS-rebinding guard) served on a socket file of mode 0600, reached
//! by our client (`unix:PATH`, `http+unix://`), by the CLI and by curl `--unix-socket`; a stale
//! socket is replaced, a live one or a regular file is not, and the file goes at shutdown.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::engine::ServerConfig;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::Lineage;
use mcpcore::server::Server;
use mcpcore_tests::http::fixture_registry;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn socket_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpcore-uds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn server() -> Server {
    Server::new(ServerConfig::new("fixture", "1.0.0"), Arc::new(fixture_registry()))
}

/// curl `--unix-socket` POSTing an `initialize` with `Host: host`: status and body.
fn curl(socket: &Path, host: &str) -> (String, String) {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}"#;
    let out = std::process::Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}", "--max-time", "10", "--unix-socket"])
        .arg(socket)
        .args(["-H", &format!("Host: {host}"), "-H", "content-type: application/json"])
        .args(["-H", "accept: application/json, text/event-stream", "-d", body, "http://localhost/mcp"])
        .output()
        .expect("curl");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, status) = text.rsplit_once('\n').unwrap_or(("", ""));
    (status.to_owned(), body.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_lineages_over_a_unix_socket_of_mode_0600() {
    let socket = socket_path("both.sock");
    let serving = server().serve_http_unix(&socket, 0o600, HttpServerConfig::default()).await.unwrap();
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(serving.url().starts_with("http+unix://%2F"), "{}", serving.url());
    for (url, lineage) in
        [(format!("unix:{}", socket.display()), Lineage::Modern), (serving.url(), Lineage::Legacy)]
    {
        let options = ClientOptions { lineage: Some(lineage), ..Default::default() };
        let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
        let r = client.call_tool("echo", serde_json::json!({"text": "over a socket"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("over a socket"), "{url}");
        client.close().await;
    }
    // curl, and the DNS-rebinding guard: a re-pointed name is refused here too.
    let (status, body) = curl(&socket, "localhost");
    assert_eq!(status, "200", "{body}");
    assert!(body.contains("\"protocolVersion\":\"2025-11-25\""), "{body}");
    assert_eq!(curl(&socket, "evil.example").0, "403");
    // The CLI takes the same URLs.
    let out = std::process::Command::new(mcpcore_tests::bin("mcpcore"))
        .args(["call", "echo", "text=cli", &format!("unix:{}", socket.display()), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"cli\""));
    serving.shutdown().await.unwrap();
    assert!(!socket.exists(), "the socket file is removed at shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_socket_is_replaced_but_a_live_one_or_a_file_is_not() {
    let socket = socket_path("stale.sock");
    // A stale socket: bound, then its listener gone (the file stays).
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let serving = server().serve_http_unix(&socket, 0o600, HttpServerConfig::default()).await.unwrap();
    // While it serves, a second server on the same path is refused, and the first keeps serving.
    let e = server()
        .serve_http_unix(&socket, 0o600, HttpServerConfig::default())
        .await
        .err()
        .map(|e| e.to_string());
    assert!(e.as_deref().is_some_and(|e| e.contains("in use")), "{e:?}");
    assert_eq!(curl(&socket, "localhost").0, "200");
    serving.shutdown().await.unwrap();
    // A regular file is never removed.
    std::fs::write(&socket, "not a socket").unwrap();
    let e = server()
        .serve_http_unix(&socket, 0o600, HttpServerConfig::default())
        .await
        .err()
        .map(|e| e.to_string());
    assert!(e.as_deref().is_some_and(|e| e.contains("not a socket")), "{e:?}");
    assert_eq!(std::fs::read_to_string(&socket).unwrap(), "not a socket");
    std::fs::remove_file(&socket).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcpcore_serve_listens_on_a_unix_socket() {
    let socket = socket_path("serve.sock");
    let (mut serve, url) = mcpcore_tests::spawn_listening(
        std::process::Command::new(mcpcore_tests::bin("mcpcore"))
            .args(["serve", "--listen", &format!("unix:{}", socket.display()), "--"])
            .arg(mcpcore_tests::bin("echo_server"))
            .stderr(std::process::Stdio::null()),
    );
    assert!(url.starts_with("http+unix://"), "{url}");
    let client = Client::connect_http(&url, Default::default(), ClientOptions::default()).await.unwrap();
    let r = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await.unwrap();
    assert_eq!(r.structured_content.as_ref().unwrap()["sum"], 3.0);
    client.close().await;
    unsafe { libc::kill(serve.id() as i32, libc::SIGTERM) };
    serve.wait().unwrap();
    assert!(!socket.exists(), "removed when serve stops");
}

/// The rmcp peer (`bench/peers/rmcp-echo`, rmcp 3.11 with
/// `transport-streamable-http-client-unix-socket`): `$MCPCORE_RMCP_ECHO`, else the debug build
/// scripts/test.sh makes in `<target>/peers`.
fn rmcp_echo() -> PathBuf {
    std::env::var_os("MCPCORE_RMCP_ECHO").map(PathBuf::from).unwrap_or_else(|| {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| mcpcore_tests::workspace().join("target"));
        target.join("peers/debug/rmcp-echo")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcps_unix_socket_client_calls_our_server_on_both_lineages() {
    let peer = rmcp_echo();
    assert!(
        peer.exists(),
        "{} is not built: cargo build --manifest-path bench/peers/rmcp-echo/Cargo.toml (CARGO_TARGET_DIR=<target>/peers)",
        peer.display()
    );
    let socket = socket_path("rmcp.sock");
    let serving = server().serve_http_unix(&socket, 0o600, HttpServerConfig::default()).await.unwrap();
    for version in ["2026-07-28", "2025-11-25"] {
        let out = tokio::process::Command::new(&peer)
            .arg("unix")
            .arg(&socket)
            .args([version, "from rmcp over a socket"])
            .output()
            .await
            .unwrap();
        assert!(out.status.success(), "{version}: {}", String::from_utf8_lossy(&out.stderr));
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["protocol"], version);
        assert_eq!(got["echo"], "from rmcp over a socket");
    }
    serving.shutdown().await.unwrap();
}
