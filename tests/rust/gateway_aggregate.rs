//! The gateway's aggregate, against real upstream servers on 127.0.0.1 HTTP (mcpcore servers
//! with their own catalogues and caching settings):
//!
//! - `server/discover` and `initialize` declare the union of what the upstreams offer
//!   (prompts, resources with `subscribe`, completions only once an upstream has them);
//! - the lists' caching hints are the upstreams' merged (the shortest `ttlMs`, `private` when
//!   one is), and a `resources/read` passes its upstream's hints on;
//! - resource URIs and templates are namespaced `<entry>+<uri>`, also inside tool results,
//!   and read back through the gateway;
//! - a completion reaches the upstream owning the prompt;
//! - a client's subscription to a namespaced URI subscribes on the upstream (legacy and
//!   2026-07-28 upstreams), and the upstream's update reaches the client under the local URI.

use mcpcore::client::{Client, ClientOptions, ServerEvent};
use mcpcore::completion::complete_from;
use mcpcore::engine::ServerConfig;
use mcpcore::gateway::{Gateway, GatewayConfig};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::prompts::{PromptArguments, PromptRegistry};
use mcpcore::protocol::prompts::{GetPromptResult, Prompt};
use mcpcore::protocol::resources::{ResourceContents, ResourceTemplate};
use mcpcore::protocol::subscriptions::SubscriptionFilter;
use mcpcore::protocol::{CacheScope, CallToolResult, Lineage, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::resources::{ReadRequest, ResourceRegistry};
use mcpcore::server::Server;
use mcpcore_tests::http::{send, Raw, MODERN};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// An upstream with one tool; with `rich`, also a resource, a template, a prompt with a
/// completer, and a tool returning a resource link. Lists are fresh for `ttl_ms`, shared as
/// `scope`.
async fn upstream(
    rich: bool,
    ttl_ms: u64,
    scope: CacheScope,
    lineage: Option<Lineage>,
) -> (HttpServing, Arc<ResourceRegistry>) {
    let tools = ToolRegistry::new();
    tools
        .register(
            Tool::new("ping", "ping", json!({"type": "object"})),
            |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("pong")) },
        )
        .unwrap();
    let resources = Arc::new(ResourceRegistry::new());
    let prompts = Arc::new(PromptRegistry::new());
    if rich {
        tools
            .register(
                Tool::new("link", "link", json!({"type": "object"})),
                |_: Arguments, _: ToolContext| async {
                    Ok(serde_json::from_value::<CallToolResult>(json!({"content": [
                        {"type": "resource_link", "uri": "notes://today", "name": "today"}
                    ]}))
                    .unwrap())
                },
            )
            .unwrap();
        resources.add_text("notes://today", "today", "text/plain", "buy milk").unwrap();
        let template: ResourceTemplate = serde_json::from_value(json!({
            "uriTemplate": "notes://day/{day}", "name": "day"
        }))
        .unwrap();
        resources
            .add_template(template, |req: ReadRequest, _: ToolContext| async move {
                Ok(vec![ResourceContents::text(&req.uri, Some("text/plain".into()), "a day")])
            })
            .unwrap();
        prompts
            .add(
                Prompt::new("plan").argument("day", "which day", true),
                |args: PromptArguments, _: ToolContext| async move {
                    Ok(GetPromptResult::user_text(format!(
                        "plan {}",
                        args.get("day").cloned().unwrap_or_default()
                    )))
                },
            )
            .unwrap();
        prompts.complete_argument("plan", "day", complete_from(["monday", "tuesday"])).unwrap();
    }
    let mut config = ServerConfig::new("upstream", "1");
    config.ttl_ms = ttl_ms;
    config.cache_scope = scope;
    if let Some(l) = lineage {
        config.versions = ProtocolVersion::ALL.iter().copied().filter(|v| v.lineage() == l).collect();
    }
    let mut server = Server::new(config, Arc::new(tools));
    if rich {
        server = server.with_resources(resources.clone()).with_prompts(prompts);
    }
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    (serving, resources)
}

async fn gateway(entries: Value) -> (Gateway, HttpServing) {
    let gateway =
        Gateway::start(&GatewayConfig::from_value(json!({ "mcpServers": entries })).unwrap()).await.unwrap();
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    (gateway, serving)
}

fn modern(id: i64, method: &str, params: Value) -> Value {
    mcpcore_tests::http::modern(id, method, params)
}

/// `server/discover`'s capabilities and the legacy `initialize`'s.
async fn capabilities(raw: &Raw) -> (Value, Value) {
    let d = send(raw.post_modern(&modern(1, "server/discover", json!({})))).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let i = send(raw.post_legacy(None, &init)).await;
    (d.json["result"]["capabilities"].clone(), i.json["result"]["capabilities"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_are_the_union_of_the_upstreams() {
    let (plain, _) = upstream(false, 60_000, CacheScope::Public, None).await;
    let (rich, _) = upstream(true, 60_000, CacheScope::Public, Some(Lineage::Legacy)).await;
    let (gw, serving) = gateway(json!({"plain": {"url": plain.url(), "type": "http"}})).await;
    let (modern_caps, legacy_caps) = capabilities(&Raw::new(&serving.url())).await;
    for caps in [&modern_caps, &legacy_caps] {
        assert_eq!(caps["tools"], json!({"listChanged": true}), "{caps}");
        assert!(caps.get("prompts").is_none() && caps.get("resources").is_none(), "{caps}");
        assert!(caps.get("completions").is_none(), "{caps}");
        assert_eq!(caps["logging"], json!({}), "{caps}");
    }
    assert!(modern_caps["extensions"].get("io.modelcontextprotocol/tasks").is_some(), "{modern_caps}");
    assert!(legacy_caps.get("extensions").is_none(), "{legacy_caps}");
    serving.shutdown().await.unwrap();
    gw.shutdown().await;

    let (gw, serving) = gateway(json!({
        "plain": {"url": plain.url(), "type": "http"},
        "rich": {"url": rich.url(), "type": "http"}
    }))
    .await;
    let (modern_caps, legacy_caps) = capabilities(&Raw::new(&serving.url())).await;
    for caps in [&modern_caps, &legacy_caps] {
        assert_eq!(caps["prompts"], json!({"listChanged": true}), "{caps}");
        assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}), "{caps}");
        assert_eq!(caps["completions"], json!({}), "{caps}");
    }
    serving.shutdown().await.unwrap();
    gw.shutdown().await;
    plain.shutdown().await.unwrap();
    rich.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_hints_merge_and_uris_are_namespaced() {
    let (short, _) = upstream(true, 5_000, CacheScope::Public, Some(Lineage::Modern)).await;
    let (private, _) = upstream(false, 120_000, CacheScope::Private, Some(Lineage::Modern)).await;
    let (gw, serving) = gateway(json!({
        "short": {"url": short.url(), "type": "http"},
        "private": {"url": private.url(), "type": "http"}
    }))
    .await;
    let raw = Raw::new(&serving.url());
    // tools/list: the shortest freshness (5 s), private because one upstream's list is.
    let r = send(raw.post_modern(&modern(1, "tools/list", json!({})))).await;
    let names: Vec<&str> =
        r.json["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["private__ping", "short__link", "short__ping"], "sorted");
    assert_eq!(
        (r.json["result"]["ttlMs"].clone(), r.json["result"]["cacheScope"].clone()),
        (json!(5000), json!("private"))
    );
    // resources/list: only `short` has resources: its hints (5 s, public).
    let r = send(raw.post_modern(&modern(2, "resources/list", json!({})))).await;
    assert_eq!(r.json["result"]["resources"][0]["uri"], "short+notes://today", "{}", r.json);
    assert_eq!(
        (r.json["result"]["ttlMs"].clone(), r.json["result"]["cacheScope"].clone()),
        (json!(5000), json!("public"))
    );
    let r = send(raw.post_modern(&modern(3, "resources/templates/list", json!({})))).await;
    assert_eq!(
        r.json["result"]["resourceTemplates"][0]["uriTemplate"], "short+notes://day/{day}",
        "{}",
        r.json
    );
    assert_eq!(r.json["result"]["resourceTemplates"][0]["name"], "short__day");
    // A read passes its upstream's hints on, and its contents carry the local URI.
    let r = send(raw.post_modern(&modern(4, "resources/read", json!({"uri": "short+notes://today"})))).await;
    assert_eq!(r.json["result"]["contents"][0]["uri"], "short+notes://today", "{}", r.json);
    assert_eq!(r.json["result"]["contents"][0]["text"], "buy milk");
    assert_eq!(r.json["result"]["ttlMs"], 5000);
    let r =
        send(raw.post_modern(&modern(5, "resources/read", json!({"uri": "short+notes://day/monday"})))).await;
    assert_eq!(r.json["result"]["contents"][0]["uri"], "short+notes://day/monday", "{}", r.json);
    // The upstream's own URI is not one the gateway serves.
    let r = send(raw.post_modern(&modern(6, "resources/read", json!({"uri": "notes://today"})))).await;
    assert_eq!(r.json["error"]["code"], -32602, "{}", r.json);
    // A tool's resource link points at the local URI.
    let r = send(raw.post_modern(&modern(7, "tools/call", json!({"name": "short__link", "arguments": {}}))))
        .await;
    assert_eq!(r.json["result"]["content"][0]["uri"], "short+notes://today", "{}", r.json);
    // Completion reaches the upstream owning the prompt.
    let r = send(raw.post_modern(&modern(
        8,
        "completion/complete",
        json!({
            "ref": {"type": "ref/prompt", "name": "short__plan"}, "argument": {"name": "day", "value": "tu"}
        }),
    )))
    .await;
    assert_eq!(r.json["result"]["completion"]["values"], json!(["tuesday"]), "{}", r.json);
    let r = send(raw.post_modern(&modern(
        9,
        "prompts/get",
        json!({"name": "short__plan", "arguments": {"day": "monday"}}),
    )))
    .await;
    assert_eq!(r.json["result"]["messages"][0]["content"]["text"], "plan monday", "{}", r.json);
    assert_eq!(MODERN, "2026-07-28");
    serving.shutdown().await.unwrap();
    gw.shutdown().await;
    short.shutdown().await.unwrap();
    private.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_reaches_the_upstream_and_its_updates_come_back() {
    for upstream_lineage in [Lineage::Legacy, Lineage::Modern] {
        let (up, up_resources) = upstream(true, 60_000, CacheScope::Public, Some(upstream_lineage)).await;
        let (gw, serving) = gateway(json!({"notes": {"url": up.url(), "type": "http"}})).await;
        for caller in [Lineage::Legacy, Lineage::Modern] {
            let case = format!("upstream {upstream_lineage:?}, caller {caller:?}");
            let options = ClientOptions { lineage: Some(caller), ..ClientOptions::default() };
            let http = HttpOptions { standalone_stream: true, ..HttpOptions::default() };
            let client = Client::connect_http(&serving.url(), http, options).await.unwrap();
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let _listening = match caller {
                Lineage::Legacy => {
                    client.on_notification(move |e| {
                        let _ = tx.send(e);
                    });
                    client.subscribe_resource("notes+notes://today").await.unwrap();
                    None
                }
                Lineage::Modern => {
                    let filter = SubscriptionFilter {
                        resource_subscriptions: Some(vec!["notes+notes://today".into()]),
                        ..SubscriptionFilter::default()
                    };
                    let mut sub = client.listen(filter).await.unwrap();
                    Some(tokio::spawn(async move {
                        while let Some(e) = sub.next().await {
                            let _ = tx.send(e);
                        }
                    }))
                }
            };
            // The gateway subscribes upstream in the background: announce until it is heard.
            let heard = tokio::time::timeout(Duration::from_secs(20), async {
                loop {
                    up_resources.notify_updated("notes://today");
                    match tokio::time::timeout(Duration::from_millis(200), rx.recv()).await {
                        Ok(Some(ServerEvent::ResourceUpdated(p))) => return p.uri,
                        Ok(Some(_)) | Err(_) => continue,
                        Ok(None) => return String::new(),
                    }
                }
            })
            .await
            .unwrap_or_default();
            assert_eq!(heard, "notes+notes://today", "{case}");
            client.close().await;
        }
        serving.shutdown().await.unwrap();
        gw.shutdown().await;
        up.shutdown().await.unwrap();
    }
}
