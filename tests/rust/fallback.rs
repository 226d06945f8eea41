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
