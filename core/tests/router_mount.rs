//! The MCP endpoint mounted in a host's own axum app: nested under `/api`, next to the host's
//! own routes, behind the host's middleware. The middleware authenticates the request and hands
//! the handler an `Identity` and a typed extension; the handler reads them, and a header, from
//! its `RequestContext`, on every lineage and transport (2026-07-28, a legacy session, and the
//! 2024-11-05 SSE transport, whose `endpoint` event must name the nested path). Real HTTP on
//! 127.0.0.1, mcpcore's client.
#![allow(clippy::disallowed_methods)] // a test serves the host app on its own task

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mcpcore::client::{Client, ClientOptions};
use mcpcore::context::{Identity, RequestContext};
use mcpcore::engine::ServerConfig;
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::{CallToolResult, Lineage, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolRegistry};
use mcpcore::server::Server;
use mcpcore::ErrorKind;
use serde_json::{json, Value};
use std::sync::Arc;

/// What the host's middleware attaches for its handlers.
#[derive(Clone, Debug)]
struct Tenant(&'static str);

/// The host's authentication: an API key in `X-Api-Key`, else 401 before MCP sees anything.
async fn authenticate(mut req: Request, next: Next) -> Response {
    if req.headers().get("x-api-key").is_none_or(|k| k != "key-1") {
        return (StatusCode::UNAUTHORIZED, "missing or wrong X-Api-Key").into_response();
    }
    let identity =
        Identity { subject: Some("ada".into()), scopes: vec!["read".into()], ..Identity::default() };
    req.extensions_mut().insert(Arc::new(identity));
    req.extensions_mut().insert(Tenant("acme"));
    next.run(req).await
}

fn mcp_server() -> Server {
    let tools = ToolRegistry::new();
    tools
        .register(
            Tool::new("whoami", "Who the host says the caller is.", json!({"type": "object"})),
            |_args: Arguments, ctx: RequestContext| async move {
                let who = json!({
                    "subject": ctx.identity().and_then(|i| i.subject.clone()),
                    "reads": ctx.identity().is_some_and(|i| i.has_scope("read")),
                    "tenant": ctx.extension::<Tenant>().map(|t| t.0),
                    "key": ctx.headers().and_then(|h| h.get("x-api-key")).and_then(|v| v.to_str().ok()),
                });
                Ok(CallToolResult::structured(who))
            },
        )
        .unwrap();
    Server::new(ServerConfig::new("mounted", "1.0.0"), Arc::new(tools))
}

/// Serves the host app on a loopback port; returns its base URL.
async fn serve_app() -> String {
    let mcp = mcp_server().router(HttpServerConfig::default()).layer(middleware::from_fn(authenticate));
    let app = axum::Router::new().route("/health", get(|| async { "ok" })).nest("/api", mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn keyed(transport: HttpTransport) -> HttpOptions {
    HttpOptions { headers: vec![("X-Api-Key".into(), "key-1".into())], transport, ..HttpOptions::default() }
}

async fn whoami(url: &str, http: HttpOptions, options: ClientOptions) -> (Client, Value) {
    let client = Client::connect_http(url, http, options).await.unwrap();
    let r = client.call_tool("whoami", json!({})).await.unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    // 2024-11-05 has no structuredContent: the same JSON is the text block.
    let who = r
        .structured_content
        .clone()
        .unwrap_or_else(|| serde_json::from_str(r.first_text().expect("a text block")).unwrap());
    (client, who)
}

fn expected() -> Value {
    json!({"subject": "ada", "reads": true, "tenant": "acme", "key": "key-1"})
}

#[tokio::test]
async fn a_modern_request_sees_the_hosts_identity_extension_and_headers() {
    let base = serve_app().await;
    let options = ClientOptions { lineage: Some(Lineage::Modern), ..ClientOptions::default() };
    let (client, who) = whoami(&format!("{base}/api/mcp"), keyed(HttpTransport::Streamable), options).await;
    assert_eq!(client.lineage(), Lineage::Modern);
    assert_eq!(who, expected());
}

#[tokio::test]
async fn a_legacy_session_sees_them_on_every_request() {
    let base = serve_app().await;
    let options = ClientOptions { lineage: Some(Lineage::Legacy), ..ClientOptions::default() };
    let (client, who) = whoami(&format!("{base}/api/mcp"), keyed(HttpTransport::Streamable), options).await;
    assert_eq!(client.lineage(), Lineage::Legacy);
    assert_eq!(who, expected());
    // The session's later requests pass the middleware too.
    let again = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(again.structured_content, Some(expected()));
}

#[tokio::test]
async fn the_2024_sse_transport_announces_the_nested_messages_path() {
    let base = serve_app().await;
    let options = ClientOptions { version: Some(ProtocolVersion::V2024_11_05), ..ClientOptions::default() };
    let (client, who) = whoami(&format!("{base}/api/sse"), keyed(HttpTransport::Sse), options).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    assert_eq!(who, expected());
}

#[tokio::test]
async fn the_hosts_middleware_refuses_before_mcp_and_its_routes_still_serve() {
    let base = serve_app().await;
    let options = ClientOptions { lineage: Some(Lineage::Modern), ..ClientOptions::default() };
    let e =
        Client::connect_http(&format!("{base}/api/mcp"), HttpOptions::default(), options).await.unwrap_err();
    // A 401 to a client with no OAuth configured is an authorization error.
    assert_eq!(e.kind(), ErrorKind::Auth, "{e}");
    assert_eq!(e.http_status(), Some(401), "{e}");
    // The host's own reqwest client shares mcpcore's reqwest build (rustls without a provider
    // of its own): install mcpcore's first, as a host doing this would.
    mcpcore::tls::install_provider();
    let health = reqwest::get(format!("{base}/health")).await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok");
}
