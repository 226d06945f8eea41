//! Our OAuth client against real peers: a real authorization server from the registry
//! (`oauth2-mock-server`, npm, pinned in tests/interop/oauth: RS256 JWTs, JWKS, PKCE, refresh
//! tokens) in front of a protected MCP server built with the official Python SDK (`mcp==2.3.0`,
//! its own `TokenVerifier`/`AuthSettings` resource-server support, checking signature, issuer,
//! audience = its URL, expiry and scopes): 401 → PRM and metadata discovery → authorization
//! code with PKCE and `resource` → the call succeeds; a 401 with an expired token → one refresh,
//! no new authorization; 403 `insufficient_scope` → step-up with the union of scopes; the CLI
//! with its loopback redirect listener and file token store, driven by a scripted browser.
//!
//! The test command runs `npm ci` in tests/interop/oauth and creates `.venv`; a missing peer
//! fails the test.

use mcpcore::auth::client::{
    AuthorizationHandler, ClientAuth, FetchRedirect, MemoryTokenStore, OAuth, OAuthConfig, PreRegistered,
    TokenStore,
};
use mcpcore::client::{BoxFuture, Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::ProtocolVersion;
use mcpcore::ErrorKind;
use mcpcore_tests::bin;
use mcpcore_tests::mock_as::MockAs;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn interop(path: &str) -> String {
    workspace().join("tests/interop").join(path).to_string_lossy().into_owned()
}

/// The official Python SDK's protected server (tests/interop/python/sdk_auth_server.py).
struct PyServer {
    child: Child,
    url: String,
}

impl PyServer {
    fn start(issuer: &str, scopes: &[&str]) -> PyServer {
        let mut cmd = Command::new(python());
        cmd.arg(interop("python/sdk_auth_server.py")).args(["--issuer", issuer]);
        for s in scopes {
            cmd.args(["--scope", s]);
        }
        let mut child =
            cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("the venv's python runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("python server said {line:?}"))
            .to_owned();
        PyServer { child, url }
    }
}

impl Drop for PyServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The mock AS approves at once: the authorization URL redirects straight to the redirect URI.
fn config(store: Arc<dyn TokenStore>) -> OAuthConfig {
    let mut c = OAuthConfig::authorization_code(Arc::new(FetchRedirect::new("http://127.0.0.1:9/callback")));
    // oauth2-mock-server has no registration endpoint: a pre-registered public client.
    c.pre_registered =
        Some(PreRegistered { client_id: "mcpcore-tests".into(), auth: ClientAuth::None, issuer: None });
    c.store = store;
    c
}

async fn connect(url: &str, oauth: &OAuth, options: ClientOptions) -> Client {
    let http = HttpOptions { auth: Some(oauth.clone()), ..HttpOptions::default() };
    Client::connect_http(url, http, options).await.expect("connects through the OAuth flow")
}

async fn echo(client: &Client, text: &str) {
    let r = client.call_tool("echo", json!({ "text": text })).await.expect("echo is callable with the token");
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(r.first_text(), Some(text));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_code_flow_against_the_python_sdk_server_both_lineages() {
    let asrv = MockAs::start(&[]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let store = Arc::new(MemoryTokenStore::new());
    let oauth = OAuth::new(config(store.clone()));

    let client = connect(&server.url, &oauth, ClientOptions::default()).await;
    assert_eq!(client.negotiated().version, ProtocolVersion::V2026_07_28);
    echo(&client, "modern").await;
    client.close().await;

    let authorize = asrv.events("authorize");
    assert_eq!(authorize.len(), 1, "one authorization: {authorize:?}");
    let a = &authorize[0];
    assert_eq!(a["code_challenge_method"], "S256");
    assert_eq!(a["resource"], server.url.as_str(), "RFC 8707 resource = the PRM's resource");
    assert_eq!(a["scope"], "mcp:read", "the PRM's scopes_supported (no scope in the SDK's challenge)");
    let tokens = asrv.events("token");
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    assert_eq!(tokens[0]["grant_type"], "authorization_code");
    assert_eq!(tokens[0]["resource"], server.url.as_str());

    // The stored token serves a second connection, on the legacy lineage, without a new flow.
    let stored = store.snapshot();
    let t = stored.tokens.values().next().expect("the token was stored");
    assert_eq!(t.issuer, asrv.issuer);
    assert_eq!(t.resource.as_deref(), Some(server.url.as_str()));
    assert!(t.refresh_token.is_some());
    let legacy = ClientOptions { version: Some(ProtocolVersion::V2025_11_25), ..ClientOptions::default() };
    let client = connect(&server.url, &oauth, legacy).await;
    assert_eq!(client.negotiated().version, ProtocolVersion::V2025_11_25);
    echo(&client, "legacy").await;
    client.close().await;
    assert_eq!(asrv.events("authorize").len(), 1, "no second authorization");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_once_without_a_new_authorization() {
    // The first access token's JWT expires after 2 s while the token response says 3600 s: only
    // the server's 401 can tell the client. (It is read right after connecting: on a loaded
    // machine, 1 s let it expire during the first call, whose refresh then made `first` the
    // refreshed token.)
    let asrv = MockAs::start(&["--first-token-ttl", "2"]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let oauth = OAuth::new(config(Arc::new(MemoryTokenStore::new())));
    let client = connect(&server.url, &oauth, ClientOptions::default()).await;
    let first = oauth.tokens(&server.url).await.unwrap().unwrap();
    echo(&client, "before").await;
    tokio::time::sleep(Duration::from_millis(3100)).await;
    // Four requests meet the expired token at once: one refresh serves them all.
    let calls = ["a", "b", "c", "d"].map(|t| {
        let c = client.clone();
        tokio::spawn(async move { echo(&c, t).await })
    });
    for c in calls {
        c.await.unwrap();
    }
    client.close().await;
    let grants: Vec<Value> = asrv.events("token").iter().map(|e| e["grant_type"].clone()).collect();
    assert_eq!(grants, [json!("authorization_code"), json!("refresh_token")]);
    assert_eq!(asrv.events("authorize").len(), 1, "refreshed, not re-authorized");
    let second = oauth.tokens(&server.url).await.unwrap().unwrap();
    assert_ne!(first.access_token, second.access_token);
    assert_eq!(asrv.events("token")[1]["resource"], server.url.as_str(), "refresh keeps the resource");
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

fn grants(asrv: &MockAs) -> Vec<Value> {
    asrv.events("token").iter().map(|e| e["grant_type"].clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_lived_token_is_refreshed_just_ahead_of_its_expiry_not_on_every_call() {
    // Every token lives 20 s (its JWT and expires_in): refreshed from 2 s (a tenth) ahead on.
    let asrv = MockAs::start(&["--expires-in", "20"]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let oauth = OAuth::new(config(Arc::new(MemoryTokenStore::new())));
    let client = connect(&server.url, &oauth, ClientOptions::default()).await;
    let first = oauth.tokens(&server.url).await.unwrap().unwrap();
    let expires_at = first.expires_at.expect("expires_in 20 gives an expiry");
    assert_eq!(first.issued_at.map(|i| expires_at - i), Some(20));
    for i in 0..5 {
        echo(&client, &format!("early {i}")).await;
    }
    assert_eq!(grants(&asrv), [json!("authorization_code")], "no refresh while the token is young");
    // 1.7 s before it expires: the server would still take it, so only the client's own rule
    // can refresh it now.
    let at = std::time::UNIX_EPOCH + Duration::from_millis((expires_at - 2) * 1000 + 300);
    tokio::time::sleep(at.duration_since(std::time::SystemTime::now()).unwrap_or_default()).await;
    echo(&client, "late").await;
    assert!(now_secs() < expires_at, "the call ran before the first token expired");
    assert_eq!(grants(&asrv), [json!("authorization_code"), json!("refresh_token")]);
    let second = oauth.tokens(&server.url).await.unwrap().unwrap();
    assert_ne!(first.access_token, second.access_token);
    echo(&client, "after").await;
    assert_eq!(grants(&asrv).len(), 2, "the new token is young again");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expires_in_zero_is_no_expiry_and_refreshes_nothing() {
    let asrv = MockAs::start(&["--expires-in", "0"]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let oauth = OAuth::new(config(Arc::new(MemoryTokenStore::new())));
    let client = connect(&server.url, &oauth, ClientOptions::default()).await;
    for i in 0..4 {
        echo(&client, &format!("call {i}")).await;
    }
    client.close().await;
    assert_eq!(oauth.tokens(&server.url).await.unwrap().unwrap().expires_at, None);
    assert_eq!(grants(&asrv), [json!("authorization_code")], "not refreshed before every request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_oauths_sharing_a_token_store_refresh_once() {
    // rmcp parity (issue 34): two clients of one server (two OAuth instances, as two parts of a
    // host or two processes would have) share one store. When the token expires, one refreshes
    // under the store's refresh guard; the other finds the new token stored and uses it.
    let asrv = MockAs::start(&["--first-token-ttl", "2"]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let store = Arc::new(MemoryTokenStore::new());
    let (a, b) = (OAuth::new(config(store.clone())), OAuth::new(config(store.clone())));
    let first = connect(&server.url, &a, ClientOptions::default()).await;
    let second = connect(&server.url, &b, ClientOptions::default()).await;
    echo(&first, "a").await;
    echo(&second, "b").await;
    assert_eq!(asrv.events("authorize").len(), 1, "the second found the first's token in the store");
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let (x, y) = (first.clone(), second.clone());
    let calls =
        [tokio::spawn(async move { echo(&x, "c").await }), tokio::spawn(async move { echo(&y, "d").await })];
    for c in calls {
        c.await.unwrap();
    }
    first.close().await;
    second.close().await;
    let grants: Vec<Value> = asrv.events("token").iter().map(|e| e["grant_type"].clone()).collect();
    assert_eq!(grants, [json!("authorization_code"), json!("refresh_token")], "one refresh for both");
    assert_eq!(asrv.events("authorize").len(), 1);
    assert_eq!(a.tokens(&server.url).await.unwrap(), b.tokens(&server.url).await.unwrap());
}

/// A user who takes longer than the client's timeouts: they pause while the flow runs.
struct SlowUser(FetchRedirect);

impl AuthorizationHandler for SlowUser {
    fn redirect_uri(&self) -> String {
        self.0.redirect_uri()
    }
    fn authorize(&self, url: String) -> BoxFuture<'_, mcpcore::Result<String>> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            self.0.authorize(url).await
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_timeouts_pause_while_the_user_authorizes() {
    let asrv = MockAs::start(&[]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let mut cfg = config(Arc::new(MemoryTokenStore::new()));
    cfg.authorization = Some(Arc::new(SlowUser(FetchRedirect::new("http://127.0.0.1:9/callback"))));
    let oauth = OAuth::new(cfg);
    // The modern probe may take 500 ms and requests 1 s; the user takes 1.5 s.
    let options = ClientOptions {
        probe_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(1),
        ..ClientOptions::default()
    };
    let client = connect(&server.url, &oauth, options).await;
    assert_eq!(client.negotiated().version, ProtocolVersion::V2026_07_28, "the probe did not time out");
    echo(&client, "patient").await;
    client.close().await;
    assert_eq!(asrv.events("authorize").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_scope_steps_up_with_the_union_of_scopes() {
    // The server needs mcp:read and mcp:write; the client starts with mcp:read only.
    let asrv = MockAs::start(&[]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read", "mcp:write"]);
    let mut cfg = config(Arc::new(MemoryTokenStore::new()));
    cfg.scopes = Some(vec!["mcp:read".into()]);
    let oauth = OAuth::new(cfg);
    let client = connect(&server.url, &oauth, ClientOptions::default()).await;
    let who = client.call_tool("whoami", json!({})).await.unwrap();
    let who: Value = serde_json::from_str(who.first_text().unwrap()).unwrap();
    assert_eq!(who["scopes"], json!(["mcp:read", "mcp:write"]), "{who}");
    client.close().await;
    let scopes: Vec<Value> = asrv.events("authorize").iter().map(|e| e["scope"].clone()).collect();
    assert_eq!(scopes, [json!("mcp:read"), json!("mcp:read mcp:write")], "initial, then step-up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_oauth_a_protected_server_is_a_typed_auth_error() {
    let asrv = MockAs::start(&[]);
    let server = PyServer::start(&asrv.issuer, &[]);
    let Err(err) = Client::connect_http(&server.url, HttpOptions::default(), ClientOptions::default()).await
    else {
        panic!("connected without a token")
    };
    assert_eq!(err.kind(), ErrorKind::Auth, "{err}");
    assert_eq!(err.http_status(), Some(401));
    let a = err.auth_error().unwrap();
    assert_eq!(a.error, "invalid_token");
    assert_eq!(a.status, Some(401));
    assert!(asrv.events("authorize").is_empty());
}

#[test]
fn the_cli_authorizes_through_its_loopback_listener_and_keeps_the_token() {
    let asrv = MockAs::start(&[]);
    let server = PyServer::start(&asrv.issuer, &["mcp:read"]);
    let dir = std::env::temp_dir().join(format!("mcpcore-cli-oauth-{}", std::process::id()));
    let store = dir.join("oauth.json");
    let run = || {
        Command::new(bin("mcpcore"))
            .args([
                "call",
                "echo",
                r#"{"text":"via the cli"}"#,
                &server.url,
                "--oauth",
                "--client-id",
                "cli-test",
            ])
            .arg("--token-store")
            .arg(&store)
            // The scripted browser follows the redirects to the CLI's 127.0.0.1 listener.
            .env("BROWSER", format!("{} {}", python(), interop("oauth/browser.py")))
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(String::from_utf8_lossy(&first.stdout).contains("via the cli"));
    let authorize = asrv.events("authorize");
    assert_eq!(authorize.len(), 1);
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("/authorize?"),
        "the CLI shows the authorization URL"
    );
    let saved: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    assert_eq!(saved["tokens"][&server.url]["issuer"], asrv.issuer.as_str());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // A new process: the token comes from the file, no new authorization.
    let second = run();
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    assert_eq!(asrv.events("authorize").len(), 1, "the stored token survived the restart");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mcpcore gateway`'s `Gateway` in front of the Python SDK's protected server: the config's
/// `oauth` (client credentials, pre-registered) gets the gateway its own token there; its
/// callers' tokens are never passed on (an unprotected upstream reports the `Authorization` it
/// received: the config's header, not the caller's bearer token).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_authorizes_at_a_protected_upstream_with_its_own_client() {
    use mcpcore::gateway::{Gateway, GatewayConfig};
    use mcpcore::http::server::HttpServerConfig;
    use mcpcore::protocol::{CallToolResult, Tool};
    use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
    let auth = MockAs::start(&[]);
    let py = PyServer::start(&auth.issuer, &[]);
    let tools = ToolRegistry::new();
    tools
        .register(
            Tool::new("auth_header", "The Authorization header received.", json!({"type": "object"})),
            |_: Arguments, ctx: ToolContext| async move {
                let h = ctx
                    .headers()
                    .and_then(|h| h.get("authorization"))
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("(none)");
                Ok(CallToolResult::text(h))
            },
        )
        .unwrap();
    let plain =
        mcpcore::server::Server::new(mcpcore::engine::ServerConfig::new("plain", "1"), Arc::new(tools))
            .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
            .await
            .unwrap();
    let config = GatewayConfig::from_value(json!({"mcpServers": {
        "py": {"url": py.url, "type": "http", "oauth": {"clientId": "mcpcore-gateway", "clientSecret": "gw-secret"}},
        "plain": {"url": plain.url(), "type": "http", "headers": {"Authorization": "Bearer upstream-secret"}}
    }}))
    .unwrap();
    let gateway = Gateway::start(&config).await.expect("the gateway authorizes at the protected upstream");
    let tokens = auth.events("token");
    assert!(
        tokens.iter().any(|e| e["grant_type"] == "client_credentials"
            && e["status"] == 200
            && e["resource"] == json!(py.url)),
        "{tokens:?}"
    );
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let http = HttpOptions { bearer_token: Some("the-callers-own-token".into()), ..HttpOptions::default() };
    for lineage in [mcpcore::protocol::Lineage::Modern, mcpcore::protocol::Lineage::Legacy] {
        let options = ClientOptions { lineage: Some(lineage), ..ClientOptions::default() };
        let client = Client::connect_http(&serving.url(), http.clone(), options).await.unwrap();
        let r = client.call_tool("py__echo", json!({"text": "behind oauth"})).await.unwrap();
        assert_eq!(r.first_text(), Some("behind oauth"), "{lineage:?}: {r:?}");
        let r = client.call_tool("plain__auth_header", json!({})).await.unwrap();
        assert_eq!(
            r.first_text(),
            Some("Bearer upstream-secret"),
            "{lineage:?}: the caller's token stayed at the gateway"
        );
        client.close().await;
    }
    serving.shutdown().await.unwrap();
    gateway.shutdown().await;
    plain.shutdown().await.unwrap();
}
