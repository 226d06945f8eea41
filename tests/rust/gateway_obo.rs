//! On-behalf-of calls through the gateway (issue 35 §5, RFC 8693) against a real authorization
//! server: Keycloak (Maven Central's `keycloak-quarkus-dist`, its standard token exchange; see
//! `common/keycloak.rs`). An upstream MCP server accepts only Keycloak tokens for audience
//! `upstream`; the gateway lists it with its own client credentials, and forwards each call
//! with a token of the caller's own, exchanged for the caller's token (audience `gateway`):
//! the upstream sees alice as alice and bob as bob (subject, `azp` the gateway), on both
//! lineages. Served without authorization, the gateway has no caller token to exchange and the
//! call fails saying so.
//!
//! The test command fetches Keycloak and a Java 21+; a missing one fails the test.

use mcpcore::auth::server::{AuthConfig, JwtConfig, JwtVerifier};
use mcpcore::client::{Client, ClientOptions};
use mcpcore::gateway::{Gateway, GatewayConfig};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prelude::*;
use mcpcore::Lineage;
use mcpcore_tests::keycloak::Keycloak;
use serde_json::{json, Value};
use std::sync::Arc;

/// Who the caller is, as this server verified it.
#[tool]
async fn whoami(ctx: RequestContext) -> CallToolResult {
    let id = ctx.identity().expect("an identity");
    let mut r = CallToolResult::text(id.subject.clone().unwrap_or_default());
    r.structured_content =
        Some(json!({"sub": id.subject, "azp": id.claims.get("azp"), "aud": id.claims.get("aud")}));
    r
}

fn claims(token: &str) -> Value {
    use base64::Engine as _;
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap())
        .unwrap()
}

fn protected(kc: &Keycloak, audience: &str, resource: &str) -> HttpServerConfig {
    let jwt = JwtVerifier::new(JwtConfig::new(kc.jwks(), kc.issuer(), audience));
    HttpServerConfig {
        auth: Some(AuthConfig::new(Arc::new(jwt), resource, [kc.issuer()])),
        ..Default::default()
    }
}

fn reserve() -> (std::net::SocketAddr, String) {
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    (addr, format!("http://{addr}/mcp"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_caller_reaches_the_upstream_as_itself_through_a_token_exchange() {
    let kc = tokio::task::spawn_blocking(Keycloak::start).await.unwrap();
    let (up_addr, up_url) = reserve();
    let upstream = Server::builder("upstream", "1.0").tool(whoami).build().unwrap();
    let up = upstream.serve_http(up_addr, protected(&kc, "upstream", &up_url)).await.unwrap();

    let config = GatewayConfig::from_value(json!({"mcpServers": {"up": {
        "url": up_url, "type": "http",
        "oauth": {"clientId": "gateway", "clientSecret": "gateway-secret",
                  "onBehalfOf": {"tokenEndpoint": kc.token_endpoint(), "audience": "upstream"}}
    }}}))
    .unwrap();
    let gateway =
        Gateway::start(&config).await.expect("the gateway lists the upstream with its own credentials");
    let (gw_addr, gw_url) = reserve();
    let front = gateway.server().serve_http(gw_addr, protected(&kc, "gateway", &gw_url)).await.unwrap();

    let users = [("alice", "alice-pw"), ("bob", "bob-pw")];
    for lineage in [Lineage::Modern, Lineage::Legacy] {
        for (user, password) in users {
            let token = kc.user_token(user, password);
            let sub = claims(&token)["sub"].clone();
            let http = HttpOptions { bearer_token: Some(token), ..Default::default() };
            let options = ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() };
            let c = Client::connect_http(&gw_url, http, options).await.unwrap();
            let r = c.call_tool("up__whoami", json!({})).await.unwrap();
            let seen = r.structured_content.unwrap_or_else(|| panic!("{lineage:?} {user}: {:?}", r.content));
            assert_eq!(seen["sub"], sub, "{lineage:?}: the upstream saw {user} as {user}");
            assert_eq!(seen["azp"], "gateway", "{lineage:?}: exchanged by the gateway");
            assert_eq!(seen["aud"], "upstream");
            c.close().await;
        }
    }

    // Served without authorization, the gateway has no caller token to exchange.
    let open = gateway
        .server()
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
        .await
        .unwrap();
    let c = Client::connect_http(&open.url(), Default::default(), ClientOptions::default()).await.unwrap();
    let r = c.call_tool("up__whoami", json!({})).await.unwrap();
    assert!(r.is_error(), "{r:?}");
    assert!(r.first_text().unwrap().contains("no caller token"), "{:?}", r.first_text());
    c.close().await;
    open.shutdown().await.unwrap();
    front.shutdown().await.unwrap();
    gateway.shutdown().await;
    up.shutdown().await.unwrap();
    drop(kc);
}
