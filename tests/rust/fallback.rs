//! The client's fallback paths (spec 2026-07-28 basic/versioning and basic/transports/stdio): legacy-only servers, pinned clients, -32022,
//! and servers that exit when the first message is not `initialize`.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore::ErrorKind;
use mcpcore_tests::{cmd, connect};
use serde_json::json;

#[tokio::test]
async fn modern_first_client_against_legacy_only_server() {
    // The probe gets -32022 listing only legacy versions, so the client initializes.
    let client =
        connect("fixture_server", &["--versions", "2025-11-25,2025-06-18"], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let r = client.call_tool("echo", json!({"text": "legacy"})).await.unwrap();
    assert_eq!(r.first_text(), Some("legacy"));
    client.close().await;
}

#[tokio::test]
async fn legacy_pinned_client_against_dual_server() {
    let options = ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() };
    let client = connect("echo_server", &[], options).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.call_tool("echo", json!({"text": "x"})).await.unwrap().first_text(), Some("x"));
    client.close().await;
}

#[tokio::test]
async fn server_counter_offers_an_older_legacy_version() {
    // -32022 on the probe, then initialize(2025-11-25) is answered with 2025-03-26.
    let client = connect("fixture_server", &["--versions", "2025-03-26"], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_03_26);
    client.close().await;
}

#[tokio::test]
async fn pinned_version_the_server_lacks_fails_clearly() {
    let options = ClientOptions { version: Some(ProtocolVersion::V2025_11_25), ..Default::default() };
    let err = Client::connect_stdio(cmd("fixture_server", &["--versions", "2025-03-26"]), options)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert!(
        err.message().contains("2025-03-26") && err.message().contains("2025-11-25"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn modern_pinned_client_against_legacy_only_server_fails_clearly() {
    let options = ClientOptions { lineage: Some(Lineage::Modern), ..Default::default() };
    let err = Client::connect_stdio(cmd("fixture_server", &["--versions", "2025-11-25"]), options)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
}

#[tokio::test]
async fn server_exiting_on_a_non_initialize_first_message_is_respawned() {
    let client = connect("fixture_server", &["--exit-unless-initialize"], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(
        client.call_tool("echo", json!({"text": "second life"})).await.unwrap().first_text(),
        Some("second life")
    );
    client.close().await;
}

#[tokio::test]
async fn unsupported_version_on_a_modern_request_reports_both_lists() {
    let client = connect("echo_server", &[], ClientOptions::default()).await;
    let mut meta = serde_json::Map::new();
    meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!("1900-01-01"));
    meta.insert("io.modelcontextprotocol/clientCapabilities".into(), json!({}));
    // Sent without the client's own _meta: as a legacy-less raw request on a fresh connection.
    let options = ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() };
    let raw = connect("echo_server", &[], options).await;
    let err = raw.request("tools/list", json!({"_meta": meta})).await.unwrap_err();
    assert_eq!(err.code(), mcpcore::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
    assert_eq!(err.data().unwrap()["requested"], "1900-01-01");
    assert!(err.data().unwrap()["supported"].as_array().unwrap().contains(&json!("2026-07-28")));
    client.close().await;
    raw.close().await;
}

#[tokio::test]
async fn unsupported_version_mid_session_renegotiates_and_retries_once() {
    let client = connect("fixture_server", &["--reject-first-call"], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    // The first tools/call is answered with -32022; the client re-picks from data.supported and retries.
    let r = client.call_tool("echo", json!({"text": "retried"})).await.unwrap();
    assert_eq!(r.first_text(), Some("retried"));
    assert_eq!(client.negotiated().server_versions, ["2026-07-28", "2025-11-25"]);
    client.close().await;
}

/// A legacy-only HTTP server written by hand (as servers that predate 2026-07-28 are): it
/// rejects `server/discover` with `status` and the JSON-RPC error `discover_error` (`ID` is
/// replaced by the request's id), and serves `initialize`, `notifications/initialized` and
/// `tools/list`. Answers until the test ends.
async fn legacy_only(listener: tokio::net::TcpListener, status: &'static str, discover_error: &'static str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut sock, _)) = listener.accept().await else { return };
        tokio::spawn(async move {
            let mut buf = vec![0u8; 64 * 1024];
            let mut got = Vec::new();
            // The head, then as much body as Content-Length says.
            loop {
                let n = sock.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    return;
                }
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).into_owned();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let len = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().to_owned())
                        })
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    if body.len() >= len {
                        break;
                    }
                }
            }
            let text = String::from_utf8_lossy(&got).into_owned();
            let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
            let msg: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
            let id = msg.get("id").map(|v| v.to_string()).unwrap_or_else(|| "null".into());
            let (status, extra, reply) = match msg["method"].as_str() {
                Some("server/discover") => (status, "", discover_error.replace("ID", &id)),
                Some("initialize") => (
                    "200 OK",
                    "mcp-session-id: s1\r\n",
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"legacy","version":"1"}}}}}}"#
                    ),
                ),
                Some("tools/list") => {
                    ("200 OK", "", format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[]}}}}"#))
                }
                Some(_) if msg.get("id").is_none() => ("202 Accepted", "", String::new()),
                _ => ("405 Method Not Allowed", "", String::new()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n",
                reply.len()
            );
            let _ = sock.write_all(format!("{head}{reply}").as_bytes()).await;
        });
    }
}

#[tokio::test]
async fn a_json_rejection_of_server_discover_falls_back_to_initialize() {
    for (status, error) in [
        // A JSON-RPC error under the request's id: method not found.
        ("200 OK", r#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}"#),
        // HTTP 400 with a JSON-RPC error and a null id (no session, unknown method).
        (
            "400 Bad Request",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: no session"}}"#,
        ),
        // HTTP 404 with a JSON-RPC method-not-found body.
        (
            "404 Not Found",
            r#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}"#,
        ),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let server = tokio::spawn(legacy_only(listener, status, error));
        let client = Client::connect_http(&url, Default::default(), ClientOptions::default()).await.unwrap();
        assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25, "{status}");
        assert_eq!(client.lineage(), Lineage::Legacy);
        assert!(client.list_tools().await.unwrap().is_empty());
        client.close().await;
        server.abort();
    }
}
