//! Logging in both lineages: legacy `logging/setLevel` filters a session's `notifications/message`
//! (every level until set); modern requests get log messages only when they carry `_meta`
//! logLevel, at or above it. Over HTTP (the messages precede the result on the SSE stream).

use mcpcore::client::{CallOptions, Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::{CallToolResult, Lineage, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore_tests::http::serve_registry;
use serde_json::json;
use std::sync::{Arc, Mutex};

fn registry() -> ToolRegistry {
    let r = ToolRegistry::new();
    r.register(
        Tool::new("chatty", "Logs at every level.", json!({"type": "object", "properties": {}})),
        |_: Arguments, ctx: ToolContext| async move {
            for level in LoggingLevel::ALL {
                ctx.log(level, Some("chatty"), json!({ "at": level.as_str() }));
            }
            Ok(CallToolResult::text("done"))
        },
    )
    .unwrap();
    r
}

async fn connect(url: &str, lineage: Lineage) -> (Client, Arc<Mutex<Vec<String>>>) {
    let options = ClientOptions { lineage: Some(lineage), ..Default::default() };
    let client = Client::connect_http(url, HttpOptions::default(), options).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    client.on_log(move |m| sink.lock().unwrap().push(m.level.as_str().to_owned()));
    (client, seen)
}

fn take(seen: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    std::mem::take(&mut *seen.lock().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions_filter_by_set_level() {
    let serving = serve_registry(registry(), &[], HttpServerConfig::default()).await;
    let (client, seen) = connect(&serving.url(), Lineage::Legacy).await;
    client.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(take(&seen).len(), 8, "every level until setLevel");
    assert_eq!(client.request("logging/setLevel", json!({"level": "error"})).await.unwrap(), json!({}));
    client.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(take(&seen), ["error", "critical", "alert", "emergency"]);
    let bad = client.request("logging/setLevel", json!({"level": "loud"})).await.unwrap_err();
    assert_eq!(bad.code(), mcpcore::ErrorCode::INVALID_PARAMS);
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_requests_get_logs_only_when_they_ask() {
    let serving = serve_registry(registry(), &[], HttpServerConfig::default()).await;
    let (client, seen) = connect(&serving.url(), Lineage::Modern).await;
    client.call_tool("chatty", json!({})).await.unwrap();
    assert!(take(&seen).is_empty(), "no logLevel, no log messages");
    let opts = CallOptions { log_level: Some(LoggingLevel::Warning), ..Default::default() };
    let r = client.call_tool_with("chatty", json!({}), &opts).await.unwrap();
    assert_eq!(r.first_text(), Some("done"));
    assert_eq!(take(&seen), ["warning", "error", "critical", "alert", "emergency"]);
    let err = client.request("logging/setLevel", json!({"level": "info"})).await.unwrap_err();
    assert_eq!(err.code(), mcpcore::ErrorCode::METHOD_NOT_FOUND, "setLevel is legacy-only");
    // set_log_level: every later request carries the level.
    client.set_log_level(LoggingLevel::Alert).await.unwrap();
    client.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(take(&seen), ["alert", "emergency"]);
    client.ping().await.unwrap();
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_log_level_and_ping_on_a_legacy_session() {
    let serving = serve_registry(registry(), &[], HttpServerConfig::default()).await;
    let (client, seen) = connect(&serving.url(), Lineage::Legacy).await;
    client.ping().await.unwrap();
    client.set_log_level(LoggingLevel::Critical).await.unwrap();
    client.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(take(&seen), ["critical", "alert", "emergency"]);
    client.close().await;
    serving.shutdown().await.unwrap();
}
