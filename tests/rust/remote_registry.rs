//! The registry with remote providers: remote tools callable like local ones, collisions per
//! policy, disconnect unregisters, and a registry served as a server of its own (a proxy).

use mcpcore::client::ClientOptions;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, CollisionPolicy, Registration, ToolContext, ToolRegistry};
use mcpcore::remote::RemoteTools;
use mcpcore::ErrorKind;
use mcpcore_tests::connect;
use serde_json::json;
use std::sync::Arc;

fn local_echo(registry: &ToolRegistry) {
    registry
        .register(
            Tool::new(
                "echo",
                "local echo",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
            |a: Arguments, _c: ToolContext| async move {
                Ok(CallToolResult::text(format!("local:{}", a["text"].as_str().unwrap_or_default())))
            },
        )
        .unwrap();
}

#[tokio::test]
async fn remote_tools_mix_with_local_ones() {
    let registry = Arc::new(ToolRegistry::new());
    local_echo(&registry);
    let remote = RemoteTools::new(registry.clone());

    let err = remote
        .connect("fx", connect("echo_server", &[], ClientOptions::default()).await, CollisionPolicy::Error)
        .await;
    assert_eq!(err.unwrap_err().kind(), ErrorKind::InvalidInput, "collision under the error policy");
    assert_eq!(registry.names(), ["echo"], "a refused server leaves nothing behind");

    let done = remote
        .connect("fx", connect("echo_server", &[], ClientOptions::default()).await, CollisionPolicy::Prefix)
        .await
        .unwrap();
    assert!(
        done.contains(&Registration::Renamed { requested: "echo".into(), name: "fx_echo".into() }),
        "{done:?}"
    );
    assert!(done.contains(&Registration::Registered("add".into())));
    assert_eq!(registry.names(), ["add", "echo", "fx_echo"]);

    let local = registry.call("echo", json!({"text": "a"}), ToolContext::local()).await.unwrap();
    assert_eq!(local.first_text(), Some("local:a"));
    let forwarded = registry.call("fx_echo", json!({"text": "b"}), ToolContext::local()).await.unwrap();
    assert_eq!(forwarded.first_text(), Some("b"));
    let sum = registry.call("add", json!({"a": 1, "b": 2}), ToolContext::local()).await.unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 3.0})));

    let skipped = remote
        .connect(
            "legacy",
            connect(
                "echo_server",
                &[],
                ClientOptions { lineage: Some(mcpcore::Lineage::Legacy), ..Default::default() },
            )
            .await,
            CollisionPolicy::Skip,
        )
        .await
        .unwrap();
    assert_eq!(skipped, [Registration::Skipped("add".into()), Registration::Skipped("echo".into())]);

    assert_eq!(remote.disconnect("fx").await, ["add", "fx_echo"]);
    assert_eq!(registry.names(), ["echo"]);
    assert_eq!(remote.servers(), ["legacy"]);
    remote.disconnect("legacy").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_relays_the_remote_tools_progress() {
    use mcpcore::client::{CallOptions, Client};
    use mcpcore::engine::ServerConfig;
    use mcpcore::http::client::HttpOptions;
    use mcpcore::http::server::HttpServerConfig;
    use mcpcore::server::Server;
    use std::sync::Mutex;

    // client → proxy (HTTP, our server over a registry) → fixture_server (stdio, remote tools)
    let registry = Arc::new(ToolRegistry::new());
    let remote = RemoteTools::new(registry.clone());
    remote
        .connect("fx", connect("fixture_server", &[], ClientOptions::default()).await, CollisionPolicy::Error)
        .await
        .unwrap();
    let proxy = Server::new(ServerConfig::new("proxy", "1"), registry);
    let serving =
        proxy.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    for options in [
        ClientOptions::default(),
        ClientOptions { lineage: Some(mcpcore::Lineage::Legacy), ..Default::default() },
    ] {
        let client = Client::connect_http(&serving.url(), HttpOptions::default(), options).await.unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let opts = CallOptions {
            on_progress: Some(std::sync::Arc::new(move |p| {
                sink.lock().unwrap().push((p.progress, p.total, p.message))
            })),
            ..Default::default()
        };
        let r = client.call_tool_with("progress", json!({"n": 3}), &opts).await.unwrap();
        assert_eq!(r.first_text(), Some("3 steps"));
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert_eq!(seen[2], (3.0, Some(3.0), Some("step 3".to_owned())));
        client.close().await;
    }
    serving.shutdown().await.unwrap();
    remote.disconnect("fx").await;
}

/// An `mcpServers` file (the shape editors write, `${env:VAR}` interpolated) loaded into a
/// registry in one call, beside a local tool; a failing entry leaves nothing connected.
#[tokio::test]
async fn an_mcp_servers_config_loads_into_a_registry() {
    use mcpcore::gateway::{load_tools, GatewayConfig};
    let registry = Arc::new(ToolRegistry::new());
    local_echo(&registry);
    let remote = RemoteTools::new(registry.clone());
    let echo_server = mcpcore_tests::bin("echo_server");
    std::env::set_var("MCPCORE_TEST_ECHO_SERVER", &echo_server);
    let config = GatewayConfig::from_value(json!({"mcpServers": {
        "rust": {"command": "${env:MCPCORE_TEST_ECHO_SERVER}", "args": [], "include": ["echo"]},
        "plain": {"command": echo_server, "prefix": "", "exclude": ["echo"]},
        "off": {"command": "nothing", "disabled": true}
    }, "autoApprove": []}))
    .unwrap();
    assert_eq!(load_tools(&config, &remote).await.unwrap(), ["plain", "rust"]);
    assert_eq!(registry.names(), ["add", "echo", "rust__echo"]);
    let r =
        registry.call("rust__echo", json!({"text": "from the file"}), ToolContext::local()).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("from the file"));

    let taken = GatewayConfig::from_value(json!({"mcpServers": {
        "again": {"command": echo_server, "prefix": ""},
        "zz": {"command": "/definitely/not/a/program"}
    }}))
    .unwrap();
    let e = load_tools(&taken, &remote).await.unwrap_err();
    assert!(e.message().contains("\"zz\"") || e.message().contains("\"again\""), "{e}");
    assert_eq!(registry.names(), ["add", "echo", "rust__echo"], "nothing of a failed load stays");
    assert_eq!(remote.servers().len(), 2);
}
