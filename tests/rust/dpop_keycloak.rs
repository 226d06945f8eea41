//! DPoP end to end with a real authorization server (issue 49): Keycloak 26 (see
//! `common/keycloak.rs`) offers DPoP to every client. Our client (client credentials, the
//! realm's `gateway` client) asks for DPoP-bound tokens exactly when the resource's Protected
//! Resource Metadata says it takes them: our server with DPoP required gets a token bound to the
//! client's key (`cnf.jkt`) and a proof on every request; our server with bearer tokens only
//! gets a plain bearer token (before, the client followed the authorization server's offer
//! alone, and such a server refused it). A client that never uses DPoP is refused by the
//! DPoP-required server. A server that also demands nonces gets them from our client after its
//! first `use_dpop_nonce`.
//!
//! The test command fetches Keycloak and a Java 21+; a missing one fails the test.

use mcpcore::auth::client::{ClientAuth, DpopMode, OAuth, OAuthConfig};
use mcpcore::auth::server::{AuthConfig, DpopMode as ServerDpop, JwtConfig, JwtVerifier};
use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prelude::*;
use mcpcore_tests::keycloak::Keycloak;
use serde_json::json;
use std::sync::Arc;

/// The token's binding, as this server verified it.
#[tool]
async fn whoami(ctx: RequestContext) -> CallToolResult {
    let id = ctx.identity().expect("an identity");
    let mut r = CallToolResult::text(id.client_id.clone().unwrap_or_default());
    r.structured_content = Some(json!({"azp": id.claims.get("azp"), "cnf": id.claims.get("cnf")}));
    r
}

/// Serves whoami on a free port for Keycloak tokens of audience `upstream`, DPoP in `mode`,
/// demanding server-provided nonces when `nonces`.
async fn serve(
    kc: &Keycloak,
    mode: ServerDpop,
    nonces: bool,
) -> (mcpcore::http::server::HttpServing, String) {
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    let jwt = JwtVerifier::new(JwtConfig::new(kc.jwks(), kc.issuer(), "upstream"));
    let mut auth = AuthConfig::new(Arc::new(jwt), url.clone(), [kc.issuer()]).dpop(mode);
    if nonces {
        auth.dpop.nonce_window = Some(std::time::Duration::from_secs(60));
    }
    let config = HttpServerConfig { auth: Some(auth), ..Default::default() };
    let server = Server::builder("dpop-keycloak", "1.0").tool(whoami).build().unwrap();
    (server.serve_http(addr, config).await.unwrap(), url)
}

/// Our client with the realm's `gateway` client credentials, DPoP in `mode`.
async fn connect(url: &str, mode: DpopMode) -> mcpcore::Result<Client> {
    let mut config = OAuthConfig::client_credentials("gateway", ClientAuth::Secret("gateway-secret".into()));
    config.dpop = mode;
    let http = HttpOptions { auth: Some(OAuth::new(config)), ..Default::default() };
    Client::connect_http(url, http, ClientOptions { cache: false, ..Default::default() }).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keycloak_binds_our_clients_tokens_when_our_server_asks_for_dpop_and_only_then() {
    let kc = tokio::task::spawn_blocking(Keycloak::start).await.unwrap();
    let (required, required_url) = serve(&kc, ServerDpop::Required, false).await;
    let (bearer, bearer_url) = serve(&kc, ServerDpop::Off, false).await;
    let (nonced, nonced_url) = serve(&kc, ServerDpop::Required, true).await;

    // DPoP required: the client's token is bound to its key, and every call carries a proof
    // (a second call needs a fresh jti).
    let c = connect(&required_url, DpopMode::Auto).await.expect("a DPoP-bound token from Keycloak");
    for _ in 0..2 {
        let r = c.call_tool("whoami", json!({})).await.unwrap();
        let seen = r.structured_content.unwrap_or_else(|| panic!("{:?}", r.content));
        assert_eq!(seen["azp"], "gateway");
        assert!(seen["cnf"]["jkt"].is_string(), "a DPoP-bound token: {seen}");
    }
    c.close().await;

    // Nonces demanded (RFC 9449 §9): the client takes the server's nonce from its
    // `use_dpop_nonce` answer and makes the proof again, on every call that needs it.
    let c = connect(&nonced_url, DpopMode::Auto).await.expect("the nonce round is made");
    for _ in 0..2 {
        let r = c.call_tool("whoami", json!({})).await.unwrap();
        assert!(r.structured_content.unwrap()["cnf"]["jkt"].is_string());
    }
    c.close().await;

    // Bearer only: the same client (the same Keycloak, which offers DPoP) presents a plain
    // bearer token, which this server takes.
    let c = connect(&bearer_url, DpopMode::Auto).await.expect("a bearer token for a bearer-only server");
    let r = c.call_tool("whoami", json!({})).await.unwrap();
    let seen = r.structured_content.unwrap();
    assert_eq!(seen["azp"], "gateway");
    assert!(seen["cnf"].is_null(), "a plain bearer token: {seen}");
    c.close().await;

    // A client that never uses DPoP cannot reach the DPoP-required server.
    let Err(e) = connect(&required_url, DpopMode::Off).await else { panic!("a bearer token was taken") };
    assert!(e.to_string().contains("DPoP"), "{e}");

    required.shutdown().await.unwrap();
    nonced.shutdown().await.unwrap();
    bearer.shutdown().await.unwrap();
    drop(kc);
}
