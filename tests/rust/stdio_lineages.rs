//! Our client against our server over stdio in every revision, with every message both sides
//! emitted validated against the negotiated revision's schema.json.

use mcpcore::client::ClientOptions;
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore_tests::{bin, connect, schema};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Validates a tap log: probe messages (server/discover) against 2026-07-28, the rest against `version`.
fn validate_log(path: &std::path::Path, version: ProtocolVersion) -> usize {
    let log = std::fs::read_to_string(path).unwrap();
    let mut methods: HashMap<String, String> = HashMap::new();
    let mut checked = 0;
    for line in log.lines() {
        let msg: Value = serde_json::from_str(&line[2..]).unwrap();
        let id = msg.get("id").map(|i| i.to_string());
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        if let (Some(id), Some(m)) = (&id, &method) {
            methods.insert(id.clone(), m.clone());
        }
        let request_method = method.clone().or_else(|| id.as_ref().and_then(|i| methods.get(i).cloned()));
        let v = if request_method.as_deref() == Some("server/discover") {
            ProtocolVersion::V2026_07_28
        } else {
            version
        };
        if let Err(e) = schema::validate_message(v, &msg, request_method.as_deref()) {
            panic!("{v}: invalid message {msg}: {e}");
        }
        checked += 1;
    }
    checked
}

async fn round_trip(version: ProtocolVersion) {
    let dir = std::env::temp_dir().join(format!("mcpcore-lineage-{}-{}", version, std::process::id()));
    let _ = std::fs::remove_file(&dir);
    let log = dir.to_string_lossy().into_owned();
    let options = ClientOptions { version: Some(version), ..Default::default() };
    let client = connect("tap", &[&log, "--", &bin("fixture_server")], options).await;
    assert_eq!(client.protocol_version(), version);
    assert_eq!(client.server_info().unwrap().name, "fixture");
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "exit", "fail", "panic", "progress", "slow"], "ordinal by name");
    let echo = client.call_tool("echo", json!({"text": "héllo\nworld"})).await.unwrap();
    assert_eq!(echo.first_text(), Some("héllo\nworld"));
    let add = client.call_tool("add", json!({"a": 2, "b": 3.5})).await.unwrap();
    if version >= ProtocolVersion::V2025_06_18 {
        assert_eq!(add.structured_content, Some(json!({"sum": 5.5})));
    } else {
        assert_eq!(add.structured_content, None, "structuredContent does not exist before 2025-06-18");
    }
    assert_eq!(add.first_text(), Some(r#"{"sum":5.5}"#));
    let failed = client.call_tool("fail", json!({"text": "x"})).await.unwrap();
    assert!(failed.is_error());
    client.close().await;
    let checked = validate_log(&dir, version);
    assert!(checked >= 8, "only {checked} messages were captured");
    let _ = std::fs::remove_file(&dir);
}

#[tokio::test]
async fn modern_2026_07_28() {
    round_trip(ProtocolVersion::V2026_07_28).await;
}

#[tokio::test]
async fn legacy_2025_11_25() {
    round_trip(ProtocolVersion::V2025_11_25).await;
}

#[tokio::test]
async fn legacy_2025_06_18() {
    round_trip(ProtocolVersion::V2025_06_18).await;
}

#[tokio::test]
async fn legacy_2025_03_26() {
    round_trip(ProtocolVersion::V2025_03_26).await;
}

#[tokio::test]
async fn legacy_2024_11_05() {
    round_trip(ProtocolVersion::V2024_11_05).await;
}

#[tokio::test]
async fn automatic_negotiation_prefers_modern() {
    let client = connect("echo_server", &[], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.lineage(), Lineage::Modern);
    assert_eq!(client.negotiated().server_versions[0], "2026-07-28");
    client.close().await;
}

#[tokio::test]
async fn pagination_follows_cursors() {
    let client = connect("fixture_server", &["--page-size", "2"], ClientOptions::default()).await;
    let first = client.list_tools_page(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    assert_eq!(first.ttl_ms, Some(60_000));
    assert_eq!(client.list_tools().await.unwrap().len(), 7);
    let bad = client.request("tools/list", json!({"cursor": "not-a-cursor"})).await.unwrap_err();
    assert_eq!(bad.code(), mcpcore::ErrorCode::INVALID_PARAMS);
    client.close().await;
}
