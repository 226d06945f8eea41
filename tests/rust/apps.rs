//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`; issue 34) with real peers: `echo_server
//! --apps` (a real child on stdio) declares the extension on both lineages, binds `show_echo` to
//! the app `ui://echo/view.html` and serves its HTML as `text/html;profile=mcp-app` with its
//! `_meta.ui`; our client and the official Python SDK client (2.3.0, as an apps host) find and
//! read it and get the text fallback from the tool; through `mcpcore gateway` the tool's pointer
//! follows the app to its prefixed URI.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::apps::{tool_ui, MIME_TYPE};
use mcpcore::protocol::ProtocolVersion;
use mcpcore::transport::child::StdioCommand;
use serde_json::{json, Value};

fn echo_apps() -> StdioCommand {
    StdioCommand::new(mcpcore_tests::bin("echo_server"), vec!["--apps".to_owned()])
}

#[tokio::test]
async fn our_client_finds_reads_and_calls_the_echo_app_on_both_lineages() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let options = ClientOptions { version: Some(version), ..Default::default() }.with_apps();
        let client = Client::connect_stdio(echo_apps(), options).await.unwrap();
        assert!(client.offers_apps(), "{version}");
        let tools = client.list_tools().await.unwrap();
        let show = tools.iter().find(|t| t.name == "show_echo").expect("listed");
        let ui = tool_ui(show).unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://echo/view.html"));
        assert!(ui.visible_to_model());
        assert!(tools.iter().filter(|t| t.name != "show_echo").all(|t| tool_ui(t).is_none()));
        let app = client.read_app("ui://echo/view.html").await.unwrap();
        assert!(app.html.starts_with("<!DOCTYPE html>") && app.html.contains("ui/initialize"));
        assert_eq!(app.meta.prefers_border, Some(true));
        let listed = client.list_resources().await.unwrap();
        assert_eq!(listed[0].mime_type.as_deref(), Some(MIME_TYPE));
        let r = client.call_tool("show_echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(r.first_text(), Some("hi"), "the text fallback");
        assert_eq!(r.structured_content, Some(json!({"text": "hi"})));
        // Not an app: a protocol error, not HTML handed over as one.
        let e = client.read_app("ui://echo/missing.html").await.unwrap_err();
        assert!(e.is_resource_not_found(), "{e:?}");
        client.close().await;
    }
    // Without --apps nothing is declared.
    let plain = StdioCommand::new(mcpcore_tests::bin("echo_server"), Vec::<String>::new());
    let client = Client::connect_stdio(plain, ClientOptions::default()).await.unwrap();
    assert!(!client.offers_apps());
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_reads_our_app_and_calls_its_tool() {
    let script = mcpcore_tests::workspace().join("tests/interop/python/sdk_apps_client.py");
    for mode in ["modern", "legacy"] {
        let out = std::process::Command::new(mcpcore_tests::fleet::python())
            .arg(&script)
            .args(["--mode", mode, "--stdio", &mcpcore_tests::bin("echo_server"), "--apps"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["bound"], json!({"show_echo": {"resourceUri": "ui://echo/view.html"}}), "{mode}");
        assert_eq!(
            got["app"],
            json!({"uri": "ui://echo/view.html", "mimeType": MIME_TYPE, "html": true, "meta": {"prefersBorder": true}})
        );
        assert_eq!(got["fallback"], json!(["hi from the python sdk"]));
        assert_eq!(got["structured"], json!({"text": "hi from the python sdk"}));
        if mode == "legacy" {
            // (The SDK fills server_capabilities from initialize only.)
            assert_eq!(got["declared"], true);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_gateway_the_tool_points_at_the_app_under_its_prefix() {
    use mcpcore::gateway::{Gateway, GatewayConfig};
    let config =
        json!({"mcpServers": {"echo": {"command": mcpcore_tests::bin("echo_server"), "args": ["--apps"]}}});
    let gateway = Gateway::start(&GatewayConfig::from_value(config).unwrap()).await.unwrap();
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();
    assert!(client.offers_apps());
    let tools = client.list_tools().await.unwrap();
    let show = tools.iter().find(|t| t.name.ends_with("show_echo")).expect("listed");
    let uri = tool_ui(show).and_then(|u| u.resource_uri).unwrap();
    assert_eq!(uri, "echo+ui://echo/view.html");
    let app = client.read_app(&uri).await.unwrap();
    assert!(app.html.contains("ui/initialize"));
    assert_eq!(app.meta.prefers_border, Some(true));
    client.close().await;
    serving.shutdown().await.unwrap();
    gateway.shutdown().await;
}
