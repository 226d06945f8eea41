//! The gateway's own authorization and per-caller catalogue (issue 35 §5): `mcpcore gateway`
//! with an `"auth"` config checks callers' tokens from a real authorization server
//! (`oauth2-mock-server`, npm, pinned in tests/interop/oauth; driven by `issuer.mjs`), and its
//! `"visibility"` rules show each caller the upstream tools its scopes and claims allow: in
//! `tools/list`, in `search_tools`, and on `tools/call` (a hidden tool is an unknown tool), on
//! HTTP in both lineages and on stdio (the token from `MCP_ACCESS_TOKEN`).
//!
//! The test command runs `npm ci` in tests/interop/oauth; a missing peer fails the test.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::transport::child::StdioCommand;
use mcpcore::Lineage;
use mcpcore_tests::bin;
use mcpcore_tests::issuer::Issuer;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const STDIO_AUDIENCE: &str = "https://gateway.example/stdio";

/// Two echo_server upstreams (`billing__*`, `ops__*`) behind rules: billing tools need the
/// `billing` scope, ops tools the `ops` group, and no intern sees an `add`.
fn config(issuer: &Issuer, resource: &str) -> Value {
    let echo = json!({"command": bin("echo_server")});
    json!({
        "mcpServers": {"billing": echo, "ops": echo},
        "toolSearch": {"pinned": ["billing__echo", "billing__add", "ops__echo", "ops__add"]},
        "auth": {
            "jwksUrl": issuer.jwks(), "issuer": issuer.url, "resource": resource,
            "visibility": [
                {"tools": ["billing__*"], "allow": {"scopes": ["billing"]}},
                {"tools": ["ops__*"], "allow": {"claims": {"groups": "ops"}}},
                {"tools": ["*__add"], "deny": {"claims": {"role": "intern"}}}
            ]
        }
    })
}

struct Gateway(Child);

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A config file, removed on drop.
struct ConfigFile(std::path::PathBuf);

impl ConfigFile {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for ConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write(config: &Value) -> ConfigFile {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("mcpcore-visibility-{}-{n}.json", std::process::id()));
    std::fs::write(&path, config.to_string()).unwrap();
    ConfigFile(path)
}

async fn names(c: &Client) -> Vec<String> {
    let mut n: Vec<String> = c.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    n.sort();
    n
}

async fn found(c: &Client, query: &str) -> Vec<String> {
    let r = c.call_tool("search_tools", json!({"query": query, "limit": 10})).await.unwrap();
    let tools = r.structured_content.unwrap()["tools"].as_array().unwrap().clone();
    let mut n: Vec<String> = tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    n.sort();
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_caller_sees_lists_searches_and_calls_only_the_upstream_tools_its_token_allows() {
    let issuer = Issuer::start();
    // The audience is the gateway's own URL, known only once bound: reserve a port first.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let file = write(&config(&issuer, &url));
    let mut child = Command::new(bin("mcpcore"))
        .args([
            "gateway",
            "--config",
            &file.path().to_string_lossy(),
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("mcpcore gateway");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let _gateway = Gateway(child);
    assert_eq!(line.trim(), format!("listening on {url}"));

    // No token: 401, as for any protected server.
    let resp = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);

    let nobody = issuer.token(&url, "", json!({}));
    let intern = issuer.token(&url, "billing", json!({"claims": {"role": "intern", "groups": ["ops"]}}));
    let staff = issuer.token(&url, "billing", json!({"claims": {"groups": ["staff", "ops"]}}));
    for lineage in [Lineage::Modern, Lineage::Legacy] {
        let connect = |token: &str| {
            let http = HttpOptions { bearer_token: Some(token.to_owned()), ..Default::default() };
            let options = ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() };
            Client::connect_http(&url, http, options)
        };
        let c = connect(&nobody).await.unwrap();
        assert_eq!(names(&c).await, ["search_tools"], "{lineage:?}");
        assert!(found(&c, "add two numbers echo").await.is_empty(), "{lineage:?}: search reveals nothing");
        let e = c.call_tool("billing__echo", json!({"text": "x"})).await.unwrap_err();
        assert_eq!(
            e.rpc_error().map(|e| (e.code.0, e.message.as_str())),
            Some((-32602, "Unknown tool: billing__echo"))
        );
        c.close().await;

        let c = connect(&intern).await.unwrap();
        assert_eq!(names(&c).await, ["billing__echo", "ops__echo", "search_tools"], "{lineage:?}");
        assert_eq!(found(&c, "add two numbers").await, Vec::<String>::new(), "{lineage:?}");
        let r = c.call_tool("ops__echo", json!({"text": "through"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("through"));
        let e = c.call_tool("billing__add", json!({"a": 1, "b": 2})).await.unwrap_err();
        assert_eq!(e.rpc_error().map(|e| e.code.0), Some(-32602), "{lineage:?}: hidden is unknown");
        c.close().await;

        let c = connect(&staff).await.unwrap();
        assert_eq!(
            names(&c).await,
            ["billing__add", "billing__echo", "ops__add", "ops__echo", "search_tools"]
        );
        assert_eq!(found(&c, "add two numbers").await, ["billing__add", "ops__add"], "{lineage:?}");
        let r = c.call_tool("billing__add", json!({"a": 2, "b": 3})).await.unwrap();
        assert_eq!(r.structured_content, Some(json!({"sum": 5.0})));
        c.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_stdio_the_gateway_serves_the_catalogue_of_the_token_in_its_environment() {
    let issuer = Issuer::start();
    let file = write(&config(&issuer, STDIO_AUDIENCE));
    let intern = issuer.token(STDIO_AUDIENCE, "billing", json!({"claims": {"role": "intern"}}));
    let cmd = StdioCommand::new(bin("mcpcore"), ["gateway", "--config", &file.path().to_string_lossy()])
        .env(mcpcore::auth::server::TOKEN_ENV, &intern);
    let c = Client::connect_stdio(cmd, ClientOptions { cache: false, ..Default::default() }).await.unwrap();
    assert_eq!(names(&c).await, ["billing__echo", "search_tools"]);
    let e = c.call_tool("ops__echo", json!({"text": "x"})).await.unwrap_err();
    assert_eq!(e.rpc_error().map(|e| e.code.0), Some(-32602));
    c.close().await;

    // Without a token the gateway does not start, and says why.
    let out = Command::new(bin("mcpcore"))
        .args(["gateway", "--config", &file.path().to_string_lossy()])
        .env_remove(mcpcore::auth::server::TOKEN_ENV)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("MCP_ACCESS_TOKEN"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_visibility_rules_stop_the_config_naming_the_rule() {
    let bad = json!({"mcpServers": {"a": {"command": "x"}}, "auth": {"jwksUrl": "http://127.0.0.1:9/jwks",
        "issuer": "http://127.0.0.1:9", "resource": "http://127.0.0.1:8/mcp",
        "visibility": [{"tools": ["a__*"], "allow": {"scope": ["x"]}}]}});
    let e = mcpcore::gateway::GatewayConfig::from_value(bad).unwrap_err();
    assert!(e.to_string().contains("visibility[0]"), "{e}");
}

#[test]
fn an_upstream_called_on_behalf_of_callers_needs_the_gateways_auth() {
    let config = json!({"mcpServers": {"crm": {"url": "http://127.0.0.1:9/mcp", "type": "http",
        "oauth": {"clientId": "gw", "clientSecret": "s",
                  "onBehalfOf": {"tokenEndpoint": "http://127.0.0.1:9/token", "audience": "crm"}}}}});
    let file = write(&config);
    let out = Command::new(bin("mcpcore"))
        .args(["gateway", "--config", &file.path().to_string_lossy()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("crm called on behalf of each caller") && err.contains("add \"auth\""), "{err}");
}
