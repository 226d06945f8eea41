//! Cancellation of abandoned reads over Streamable HTTP (issue 49; rmcp #1344): a
//! `prompts/get` or `resources/read` the client stopped waiting for is stopped on the server
//! like a `tools/call` (2026-07-28: the closed response stream; 2025-11-25:
//! `notifications/cancelled`), and the server keeps serving. In-process server, real HTTP on
//! 127.0.0.1.

use mcpcore::client::{CallOptions, Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prompts::{PromptArguments, PromptRegistry};
use mcpcore::protocol::prompts::{GetPromptResult, Prompt, PromptMessage};
use mcpcore::protocol::resources::{Resource, ResourceContents};
use mcpcore::protocol::ProtocolVersion;
use mcpcore::registry::ToolContext;
use mcpcore::resources::{ReadRequest, ResourceRegistry};
use mcpcore::ErrorKind;
use mcpcore_tests::http::{eventually, fixture_registry, Watch};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

const V2026: ProtocolVersion = ProtocolVersion::V2026_07_28;
const V1125: ProtocolVersion = ProtocolVersion::V2025_11_25;

async fn connect(url: &str, version: ProtocolVersion) -> Client {
    let options = ClientOptions {
        version: Some(version),
        request_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    tokio::time::timeout(Duration::from_secs(10), Client::connect_http(url, HttpOptions::default(), options))
        .await
        .unwrap_or_else(|_| panic!("connecting to {url} took over 10 s"))
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"))
}

/// Issue 49 (rmcp #1344): an abandoned `prompts/get` or `resources/read` is stopped on the
/// server like a `tools/call` (2026-07-28: the closed response stream; 2025-11-25:
/// `notifications/cancelled`), and the server keeps serving.
#[tokio::test]
async fn abandoned_prompt_gets_and_resource_reads_are_cancelled_too() {
    for version in [V2026, V1125] {
        let watch = Arc::new(Watch::default());
        let prompts = Arc::new(PromptRegistry::new());
        let w = watch.clone();
        prompts
            .add(Prompt::new("slow_prompt"), move |_: PromptArguments, _: ToolContext| {
                let w = w.clone();
                async move {
                    w.sleep(Duration::from_secs(5)).await;
                    Ok(GetPromptResult::new(vec![PromptMessage::user("late")]))
                }
            })
            .unwrap();
        let resources = Arc::new(ResourceRegistry::new());
        let w = watch.clone();
        let memo = Resource {
            uri: "memo://slow".into(),
            name: "slow".into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        };
        resources
            .add(memo, move |r: ReadRequest, _: ToolContext| {
                let w = w.clone();
                async move {
                    w.sleep(Duration::from_secs(5)).await;
                    Ok(vec![ResourceContents::text(r.uri, None, "late")])
                }
            })
            .unwrap();
        let server = mcpcore::server::Server::new(
            mcpcore::engine::ServerConfig::new("fixture", "1.0.0"),
            Arc::new(fixture_registry()),
        )
        .with_prompts(prompts)
        .with_resources(resources);
        let serving =
            server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
        let client = connect(&serving.url(), version).await;
        let opts = CallOptions { timeout: Some(Duration::from_millis(150)), ..Default::default() };
        let err = client.get_prompt_with("slow_prompt", None, &opts).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{version}: {err}");
        let err = client.read_resource_with("memo://slow", &opts).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{version}: {err}");
        let stopped = eventually(Duration::from_secs(3), || watch.dropped.load(Ordering::SeqCst) == 2).await;
        assert!(stopped, "{version}: the server did not stop both abandoned reads ({watch:?})");
        assert_eq!(watch.finished.load(Ordering::SeqCst), 0, "{version}");
        let r = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(r.first_text(), Some("still here"), "{version}");
        client.close().await;
        serving.shutdown().await.unwrap();
    }
}
