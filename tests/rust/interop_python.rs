//! Interop over stdio with the official Python SDK (`mcp==2.3.0`), both ways, both lineages.
//!
//! The interpreter is `$MCPCORE_PYTHON`, else `<workspace>/.venv/bin/python` (the test command
//! creates it from `tests/interop/python/requirements.txt`). A missing SDK fails the test.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore::transport::child::StdioCommand;
use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn script(name: &str) -> String {
    workspace().join("tests/interop/python").join(name).to_string_lossy().into_owned()
}

/// Runs the SDK client against our echo server; returns its JSON report.
fn sdk_client(flags: &[&str]) -> Value {
    let mut args = vec![script("sdk_client.py")];
    args.extend(flags.iter().map(|s| s.to_string()));
    args.extend(["--text".into(), "from the python sdk".into(), "--".into(), bin("echo_server")]);
    let out = Command::new(python()).args(&args).output().expect("python with mcp==2.3.0 (see README)");
    assert!(out.status.success(), "sdk_client {flags:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn assert_report(r: &Value, version: &str, lineage: &str) {
    assert_eq!(r["protocolVersion"], version, "{r}");
    assert_eq!(r["lineage"], lineage, "{r}");
    assert_eq!(r["tools"], json!(["add", "echo"]));
    assert_eq!(r["echo"], "from the python sdk");
}

#[test]
fn sdk_client_calls_our_server_modern() {
    let r = sdk_client(&[]);
    assert_report(&r, "2026-07-28", "modern");
    assert_eq!(r["add"], json!({"sum": 5.0}));
}

#[test]
fn sdk_client_calls_our_server_legacy() {
    let r = sdk_client(&["--lineage", "legacy"]);
    assert_report(&r, "2025-11-25", "legacy");
    assert_eq!(r["add"], json!({"sum": 5.0}));
    for v in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        let r = sdk_client(&["--lineage", "legacy", "--protocol-version", v]);
        assert_report(&r, v, "legacy");
    }
}

async fn our_client(server_flags: &[&str], options: ClientOptions) -> Client {
    let mut args = vec![script("sdk_server.py")];
    args.extend(server_flags.iter().map(|s| s.to_string()));
    Client::connect_stdio(StdioCommand::new(python(), args), options)
        .await
        .expect("connect to the SDK server")
}

async fn call_both(client: &Client) {
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["add", "echo"]);
    let r = client.call_tool("echo", json!({"text": "from mcpcore"})).await.unwrap();
    assert_eq!(r.first_text(), Some("from mcpcore"));
    let r = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.structured_content.unwrap()["sum"].as_f64(), Some(5.0));
    let err = client.call_tool("no_such_tool", json!({})).await.unwrap_err();
    assert_eq!(err.code(), mcpcore::ErrorCode::INVALID_PARAMS, "{err}");
}

#[tokio::test]
async fn our_client_calls_the_sdk_server_modern() {
    let client = our_client(&[], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    call_both(&client).await;
    client.close().await;
}

#[tokio::test]
async fn our_client_calls_the_sdk_server_legacy() {
    let client =
        our_client(&[], ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() }).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    call_both(&client).await;
    client.close().await;
}

#[tokio::test]
async fn our_client_falls_back_against_a_legacy_only_sdk_server() {
    let client = our_client(&["--legacy-only"], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    call_both(&client).await;
    client.close().await;
}
