//! Our resource server against a real authorization server from the registry
//! (`oauth2-mock-server`, npm, pinned in tests/interop/oauth; driven by `issuer.mjs`, which
//! signs RS256 JWTs, serves its JWKS and metadata, rotates keys and introspects): the example
//! contract's `echo_server --auth-*` (valid, expired, wrong-audience, wrong-issuer,
//! bad-signature, unknown-key, malformed and insufficient-scope tokens; the PRM and
//! `WWW-Authenticate` contents; per-identity `tools/list` in both lineages; hidden `add`
//! refused like an unknown tool), and servers built in-process for key rotation with the
//! refetch cooldown, step-up challenges, required scopes, RFC 7662 introspection, and the
//! identity reaching handlers without the token. The official SDKs' OAuth clients through the
//! whole flow are in auth_sdk_flow.rs.
//!
//! The test command runs `npm ci` in tests/interop/oauth; a missing peer fails the test.

use mcpcore::auth::server::{
    AuthConfig, IntrospectionConfig, IntrospectionVerifier, JwtConfig, JwtVerifier, ScopeMode,
};
use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::prelude::*;
use mcpcore::transport::child::StdioCommand;
use mcpcore::Lineage;
use mcpcore_tests::auth_echo::EchoServer;
use mcpcore_tests::bin;
use mcpcore_tests::issuer::Issuer;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// What a raw request got: status, `WWW-Authenticate`, body.
struct Answer {
    status: u16,
    challenge: Option<String>,
    body: Value,
}

/// A modern `tools/list` or `tools/call` POST, with `token` when given.
async fn raw(url: &str, token: Option<&str>, method: &str, params: Value) -> Answer {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let mut rb = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    // Mcp-Name: `name` of tools/call and prompts/get, `uri` of resources/read (2026-07-28).
    let named = matches!(method, "tools/call" | "prompts/get" | "resources/read");
    if let Some(name) = params.get("name").or(params.get("uri")).and_then(Value::as_str).filter(|_| named) {
        rb = rb.header("mcp-name", name);
    }
    if let Some(t) = token {
        rb = rb.header("authorization", format!("Bearer {t}"));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    send(rb.body(body.to_string())).await
}

async fn send(rb: reqwest::RequestBuilder) -> Answer {
    let resp =
        tokio::time::timeout(Duration::from_secs(10), rb.send()).await.expect("in time").expect("sent");
    let status = resp.status().as_u16();
    let challenge = resp.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Answer { status, challenge, body }
}

async fn client(url: &str, token: &str, lineage: Lineage) -> Client {
    let http = HttpOptions { bearer_token: Some(token.to_owned()), ..Default::default() };
    let options = ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() };
    Client::connect_http(url, http, options).await.expect("connects with a valid token")
}

async fn tool_names(c: &Client) -> Vec<String> {
    c.list_tools().await.unwrap().into_iter().map(|t| t.name).collect()
}

fn prm_url(server: &str) -> String {
    let base = server.strip_suffix("/mcp").unwrap();
    format!("{base}/.well-known/oauth-protected-resource/mcp")
}

/// Asserts a 401 `invalid_token` whose description contains `why`.
fn assert_invalid(a: &Answer, server: &str, why: &str) {
    assert_eq!(a.status, 401, "{}", a.body);
    let c = a.challenge.as_deref().expect("a challenge");
    assert!(c.starts_with("Bearer error=\"invalid_token\""), "{c}");
    assert!(c.contains(&format!("resource_metadata=\"{}\"", prm_url(server))), "{c}");
    let d = a.body["error_description"].as_str().unwrap();
    assert!(d.contains(why), "{d:?} should say {why:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_server_checks_every_token_and_shows_each_caller_its_own_tools() {
    let issuer = Issuer::start();
    let server = EchoServer::start(&issuer);
    let url = server.url.as_str();

    // No token: 401 naming the PRM, no error code (RFC 6750 §3.1), no scope (none required).
    let a = raw(url, None, "tools/list", json!({})).await;
    assert_eq!(a.status, 401);
    assert_eq!(
        a.challenge.as_deref(),
        Some(format!("Bearer resource_metadata=\"{}\"", prm_url(url)).as_str())
    );

    // The PRM, at the path-inserted and at the root well-known URI, names ISS.
    for prm in
        [prm_url(url), format!("{}/.well-known/oauth-protected-resource", url.strip_suffix("/mcp").unwrap())]
    {
        let doc: Value =
            serde_json::from_str(&reqwest::get(&prm).await.unwrap().text().await.unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({"resource": url, "authorization_servers": [issuer.url], "scopes_supported": ["mcp:add"],
                   "bearer_methods_supported": ["header"]}),
            "{prm}"
        );
    }

    // A token without mcp:add: echo works, add does not exist for it, in both lineages.
    let plain = issuer.token(url, "", json!({}));
    for lineage in [Lineage::Modern, Lineage::Legacy] {
        let c = client(url, &plain, lineage).await;
        assert_eq!(tool_names(&c).await, ["echo"], "{lineage:?}");
        let r = c.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("hi"));
        let hidden = c.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap_err();
        let unknown = c.call_tool("nope", json!({})).await.unwrap_err();
        let (h, u) = (hidden.rpc_error().unwrap(), unknown.rpc_error().unwrap());
        assert_eq!((h.code.0, u.code.0), (-32602, -32602));
        assert_eq!(h.message, "Unknown tool: add");
        assert_eq!(h.message.replace("add", "nope"), u.message, "hidden is refused like unknown");
        assert_eq!(h.data, Some(json!({"tool": "add"})));
    }
    // The same refusal on the wire (status and body) for the hidden and the unknown tool.
    let hidden =
        raw(url, Some(&plain), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    let unknown = raw(url, Some(&plain), "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(hidden.status, unknown.status);
    assert_eq!(hidden.body["error"]["code"], unknown.body["error"]["code"]);

    // A token with mcp:add sees and calls add.
    let adder = issuer.token(url, "mcp:add", json!({}));
    let c = client(url, &adder, Lineage::Modern).await;
    assert_eq!(tool_names(&c).await, ["add", "echo"]);
    let r = c.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 5.0})));

    // Refused tokens: 401 invalid_token, each with its reason.
    let list = |t: String| async move { raw(url, Some(&t), "tools/list", json!({})).await };
    let kid_of = |t: &str| {
        use base64::Engine as _;
        let h =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(t.split('.').next().unwrap()).unwrap();
        serde_json::from_slice::<Value>(&h).unwrap()["kid"].as_str().unwrap().to_owned()
    };
    assert_invalid(&list(issuer.token(url, "mcp:add", json!({"expires_in": -120}))).await, url, "expired");
    assert_invalid(
        &list(issuer.token("http://127.0.0.1:1/mcp", "", json!({}))).await,
        url,
        "not for this resource",
    );
    assert_invalid(
        &list(issuer.token(url, "", json!({"iss": "http://evil.example"}))).await,
        url,
        "not issued by",
    );
    let forged = issuer.token(url, "mcp:add", json!({"signer": "foreign"}));
    assert_eq!(kid_of(&forged), kid_of(&adder), "signed under the real kid by another key");
    assert_invalid(&list(forged).await, url, "signature");
    assert_invalid(
        &list(issuer.token(url, "", json!({"signer": "foreign", "kid": "ghost"}))).await,
        url,
        "unknown key",
    );
    assert_invalid(&list("not-a-jwt".to_owned()).await, url, "not a JWT");
    // A malformed header: 400 invalid_request.
    let a = raw(url, Some("two words"), "tools/list", json!({})).await;
    assert_eq!((a.status, a.body["error"].as_str()), (400, Some("invalid_request")));
    // Still fine afterwards.
    assert_eq!(list(plain).await.status, 200);
}

/// Returns who the token says the caller is, and whether the handler could see the token.
#[tool]
async fn whoami(ctx: RequestContext) -> String {
    let id = ctx.identity().expect("an identity");
    let leaked = ctx.headers().is_some_and(|h| h.contains_key("authorization"));
    format!(
        "{}|{}|{}|{leaked}",
        id.subject.clone().unwrap_or_default(),
        id.client_id.clone().unwrap_or_default(),
        id.scopes.join(",")
    )
}

/// Adds two numbers.
#[tool]
async fn add(a: f64, b: f64) -> String {
    (a + b).to_string()
}

/// Serves whoami and add on a random port behind `auth(url)`.
async fn serve(auth: impl FnOnce(&str) -> AuthConfig) -> (HttpServing, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let config = HttpServerConfig { auth: Some(auth(&url)), ..Default::default() };
    let server = Server::builder("auth-test", "1.0").tool(whoami).tool(add).build().unwrap();
    let serving = server.serve_http(format!("127.0.0.1:{port}").parse().unwrap(), config).await.unwrap();
    (serving, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotated_keys_are_fetched_on_an_unknown_kid_at_most_once_per_cooldown() {
    let issuer = Issuer::start();
    let mut handle = None;
    let (_serving, url) = serve(|url| {
        let mut jwt = JwtConfig::new(issuer.jwks(), issuer.url.clone(), url);
        // Long enough that the three requests before the first sleep fit in it on a loaded
        // machine (800 ms did not, once, with a full build beside it).
        jwt.jwks_cooldown = Duration::from_millis(3_000);
        let verifier = Arc::new(JwtVerifier::new(jwt));
        handle = Some(verifier.clone());
        AuthConfig::new(verifier, url, [issuer.url.clone()])
    })
    .await;
    let verifier = handle.unwrap();
    let status = |t: String| {
        let url = url.clone();
        async move { raw(&url, Some(&t), "tools/list", json!({})).await }
    };

    // Minted first: the issuer's key generation must not eat into the cooldown.
    let ghost = issuer.token(&url, "", json!({"signer": "foreign", "kid": "ghost"}));
    let old = issuer.token(&url, "", json!({}));
    assert_eq!(status(old.clone()).await.status, 200);
    assert_eq!(verifier.jwks_fetches(), 1, "fetched on first use");
    // A made-up kid right after a fetch: refused without fetching again (cooldown).
    assert_invalid(&status(ghost.clone()).await, &url, "unknown key");
    assert_eq!(verifier.jwks_fetches(), 1, "no refetch within the cooldown");
    // The issuer rotates; once the cooldown has passed, the new kid makes the verifier refetch.
    let kid = issuer.rotate();
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let new = issuer.token(&url, "", json!({"kid": kid}));
    assert_eq!(status(new.clone()).await.status, 200, "the rotated key is fetched");
    assert_eq!(verifier.jwks_fetches(), 2);
    // Both keys verify now, without fetching; the ghost within the cooldown fetches nothing.
    assert_eq!(status(old).await.status, 200);
    assert_eq!(status(new).await.status, 200);
    assert_invalid(&status(ghost.clone()).await, &url, "unknown key");
    assert_eq!(verifier.jwks_fetches(), 2);
    // After the cooldown an unknown kid does fetch again (once), and is still refused.
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    assert_invalid(&status(ghost).await, &url, "unknown key");
    assert_eq!(verifier.jwks_fetches(), 3);
}

/// Key rotation under the same `kid` (issue 49; conformance `auth-token-audience-validation`,
/// PR #386, run twice against one server): a token whose signature fails under a key id the
/// cached set has makes the verifier refetch once and retry, at most once per cooldown; a
/// forged signature is still refused and costs at most one fetch per cooldown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_replaced_under_the_same_kid_is_refetched_at_most_once_per_cooldown() {
    let issuer = Issuer::start();
    let mut handle = None;
    let (_serving, url) = serve(|url| {
        let mut jwt = JwtConfig::new(issuer.jwks(), issuer.url.clone(), url);
        // As above: 3 s, so the requests before the first sleep fit in it on a loaded machine.
        jwt.jwks_cooldown = Duration::from_millis(3_000);
        let verifier = Arc::new(JwtVerifier::new(jwt));
        handle = Some(verifier.clone());
        AuthConfig::new(verifier, url, [issuer.url.clone()])
    })
    .await;
    let verifier = handle.unwrap();
    let status = |t: String| {
        let url = url.clone();
        async move { raw(&url, Some(&t), "tools/list", json!({})).await }
    };

    let old = issuer.token(&url, "", json!({}));
    assert_eq!(status(old.clone()).await.status, 200);
    assert_eq!(verifier.jwks_fetches(), 1, "fetched on first use");
    // The issuer replaces its key under the same kid (the TTL of 5 minutes has not passed).
    let kid = issuer.rekey();
    let new = issuer.token(&url, "", json!({"kid": kid}));
    let forged = issuer.token(&url, "", json!({"signer": "foreign"}));
    // Within the cooldown of the first fetch: refused, nothing fetched.
    assert_invalid(&status(new.clone()).await, &url, "signature does not verify");
    assert_eq!(verifier.jwks_fetches(), 1, "no refetch within the cooldown");
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    // After it: one refetch, and the new key verifies; then without fetching again.
    assert_eq!(status(new.clone()).await.status, 200, "the replaced key is fetched");
    assert_eq!(verifier.jwks_fetches(), 2);
    assert_eq!(status(new.clone()).await.status, 200);
    assert_eq!(verifier.jwks_fetches(), 2);
    // The old key is gone from the issuer: its token is refused, within the cooldown unfetched.
    assert_invalid(&status(old).await, &url, "signature does not verify");
    // A forged signature under the same kid is refused, fetching nothing within the cooldown...
    assert_invalid(&status(forged.clone()).await, &url, "signature does not verify");
    assert_eq!(verifier.jwks_fetches(), 2);
    // ...and once after it, however many arrive.
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    for _ in 0..5 {
        assert_invalid(&status(forged.clone()).await, &url, "signature does not verify");
    }
    assert_eq!(verifier.jwks_fetches(), 3);
    assert_eq!(status(new).await.status, 200);
}

/// The JWT verifier's algorithm allow-list and clock-skew leeway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_algorithm_allow_list_and_the_clock_skew_leeway_decide() {
    use mcpcore::auth::server::Algorithm;
    let issuer = Issuer::start();
    let jwt = |url: &str, f: &dyn Fn(&mut JwtConfig)| {
        let mut config = JwtConfig::new(issuer.jwks(), issuer.url.clone(), url);
        f(&mut config);
        AuthConfig::new(Arc::new(JwtVerifier::new(config)), url, [issuer.url.clone()])
    };
    let list = |url: &str, token: String| {
        let url = url.to_owned();
        async move { raw(&url, Some(&token), "tools/list", json!({})).await }
    };
    // Only ES256 accepted: the issuer's RS256 tokens are refused, naming the algorithm.
    let (_es, url) = serve(|url| jwt(url, &|c| c.algorithms = vec![Algorithm::ES256])).await;
    assert_invalid(&list(&url, issuer.token(&url, "", json!({}))).await, &url, "algorithm");
    // Expired 20 s ago: within the default 60 s leeway it passes; without leeway it is refused.
    let (_lenient, url) = serve(|url| jwt(url, &|_| {})).await;
    assert_eq!(list(&url, issuer.token(&url, "", json!({"expires_in": -20}))).await.status, 200);
    let (_strict, url) = serve(|url| jwt(url, &|c| c.leeway = Duration::ZERO)).await;
    assert_invalid(&list(&url, issuer.token(&url, "", json!({"expires_in": -20}))).await, &url, "expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_up_mode_challenges_with_the_needed_scopes_and_required_scopes_gate_everything() {
    let issuer = Issuer::start();
    let (_serving, url) = serve(|url| {
        let verifier = JwtVerifier::new(JwtConfig::new(issuer.jwks(), issuer.url.clone(), url));
        AuthConfig::new(Arc::new(verifier), url, [issuer.url.clone()])
            .require(["mcp"])
            .tool_scopes("add", ["mcp:add"])
            .scope_mode(ScopeMode::StepUp)
    })
    .await;
    let prm = prm_url(&url);

    // No token: the 401 names the scope every request needs.
    let a = raw(&url, None, "tools/list", json!({})).await;
    assert_eq!(a.challenge, Some(format!("Bearer scope=\"mcp\", resource_metadata=\"{prm}\"")));
    // A token without it: 403 insufficient_scope for it.
    let a = raw(&url, Some(&issuer.token(&url, "other", json!({}))), "tools/list", json!({})).await;
    assert_eq!(a.status, 403);
    let c = a.challenge.unwrap();
    assert!(c.starts_with("Bearer error=\"insufficient_scope\"") && c.contains("scope=\"mcp\""), "{c}");

    // With `mcp`: add is listed (step-up mode), and calling it is a 403 naming every scope
    // the call needs, in one challenge.
    let base = issuer.token(&url, "mcp", json!({}));
    let a = raw(&url, Some(&base), "tools/list", json!({})).await;
    let names: Vec<&str> =
        a.body["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "whoami"]);
    assert_eq!(a.body["result"]["cacheScope"], "private", "a per-caller list is not shareable");
    let a = raw(&url, Some(&base), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(a.status, 403);
    let c = a.challenge.unwrap();
    assert!(c.contains("error=\"insufficient_scope\""), "{c}");
    assert!(
        c.contains("scope=\"mcp mcp:add\"") && c.contains(&format!("resource_metadata=\"{prm}\"")),
        "{c}"
    );
    // The identity reaches the handler; the token does not.
    let a = raw(&url, Some(&base), "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(a.body["result"]["content"][0]["text"], "user-1|test-client|mcp|false", "{}", a.body);
    // After step-up the call goes through.
    let up = issuer.token(&url, "mcp mcp:add", json!({}));
    let a = raw(&url, Some(&up), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(a.body["result"]["content"][0]["text"], "2", "{}", a.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_verifies_with_the_authorization_server() {
    let issuer = Issuer::start();
    let endpoint = format!("{}/introspect", issuer.url);
    let (_serving, url) = serve(|url| {
        let config = IntrospectionConfig::new(endpoint.clone(), url).credentials("rs", "rs-secret");
        AuthConfig::new(Arc::new(IntrospectionVerifier::new(config)), url, [issuer.url.clone()])
            .tool_scopes("add", ["mcp:add"])
    })
    .await;
    let token = issuer.token(&url, "mcp:add", json!({"sub": "alice"}));
    let a = raw(&url, Some(&token), "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(a.body["result"]["content"][0]["text"], "alice|test-client|mcp:add|false", "{}", a.body);
    let names = raw(&url, Some(&token), "tools/list", json!({})).await.body["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(names, 2);
    // Issued for another resource, expired, or never issued: inactive or refused.
    assert_invalid(
        &raw(&url, Some(&issuer.token("http://127.0.0.1:1/mcp", "", json!({}))), "tools/list", json!({}))
            .await,
        &url,
        "not for this resource",
    );
    assert_invalid(
        &raw(&url, Some(&issuer.token(&url, "", json!({"expires_in": -5}))), "tools/list", json!({})).await,
        &url,
        "not active",
    );
    assert_invalid(&raw(&url, Some("never.issued.token"), "tools/list", json!({})).await, &url, "not active");
    // Wrong resource-server credentials: the AS refuses to answer, the server cannot decide (503).
    let (_bad, bad_url) = serve(|url| {
        let config = IntrospectionConfig::new(endpoint.clone(), url).credentials("rs", "wrong");
        AuthConfig::new(Arc::new(IntrospectionVerifier::new(config)), url, [issuer.url.clone()])
    })
    .await;
    let a = raw(&bad_url, Some(&token), "tools/list", json!({})).await;
    assert_eq!((a.status, a.body["error"].as_str()), (503, Some("temporarily_unavailable")), "{}", a.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_resources_and_templates_are_per_identity_too_and_the_host_filter_hides() {
    use mcpcore::protocol::prompts::{GetPromptResult, Prompt};
    use mcpcore::protocol::resources::{ResourceContents, ResourceTemplate};
    use mcpcore::{PromptRegistry, ResourceRegistry, ServerConfig, ToolRegistry};
    let issuer = Issuer::start();
    let prompts = Arc::new(PromptRegistry::default());
    for name in ["open", "secret"] {
        prompts
            .add(Prompt::new(name).argument("who", "Whom", false), |_a, _c| async {
                Ok(GetPromptResult::user_text("hello"))
            })
            .unwrap();
    }
    let resources = Arc::new(ResourceRegistry::default());
    resources.add_text("mem://open", "open", "text/plain", "o").unwrap();
    resources.add_text("mem://secret", "secret", "text/plain", "s").unwrap();
    let template: ResourceTemplate =
        serde_json::from_value(json!({"uriTemplate": "files:///{name}", "name": "files"})).unwrap();
    resources
        .add_template(template, |r: mcpcore::resources::ReadRequest, _c| async move {
            Ok(vec![ResourceContents::text(r.uri, None, "f")])
        })
        .unwrap();
    let tools = Arc::new(ToolRegistry::new());
    tools.add(whoami).unwrap();
    tools.add(add).unwrap();
    let server = mcpcore::Server::new(ServerConfig::new("auth-test", "1.0"), tools)
        .with_prompts(prompts)
        .with_resources(resources);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let verifier = JwtVerifier::new(JwtConfig::new(issuer.jwks(), issuer.url.clone(), url.clone()));
    let auth = AuthConfig::new(Arc::new(verifier), url.clone(), [issuer.url.clone()])
        .prompt_scopes("secret", ["p:secret"])
        .resource_scopes("mem://secret", ["r:secret"])
        .resource_scopes("files:///{name}", ["r:files"])
        // Beyond scopes: only the subject "root" sees `add`, whatever its token grants.
        .filter(|id, entry| {
            *entry != mcpcore::auth::server::Entry::Tool("add") || id.subject.as_deref() == Some("root")
        });
    let config = HttpServerConfig { auth: Some(auth), ..Default::default() };
    let _serving = server.serve_http(format!("127.0.0.1:{port}").parse().unwrap(), config).await.unwrap();

    let names = |v: &Value, key: &str, field: &str| -> Vec<String> {
        v["result"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|i| i[field].as_str().unwrap().to_owned())
            .collect()
    };
    let plain = issuer.token(&url, "mcp:add", json!({}));
    let all = issuer.token(&url, "mcp:add p:secret r:secret r:files", json!({"sub": "root"}));
    let ask = |t: String, method: &'static str, params: Value| {
        let url = url.clone();
        async move { raw(&url, Some(&t), method, params).await.body }
    };

    // Without the scopes: lists leave the entries out, and naming them is "unknown".
    assert_eq!(names(&ask(plain.clone(), "prompts/list", json!({})).await, "prompts", "name"), ["open"]);
    assert_eq!(
        names(&ask(plain.clone(), "resources/list", json!({})).await, "resources", "uri"),
        ["mem://open"]
    );
    assert!(names(
        &ask(plain.clone(), "resources/templates/list", json!({})).await,
        "resourceTemplates",
        "uriTemplate"
    )
    .is_empty());
    assert_eq!(
        names(&ask(plain.clone(), "tools/list", json!({})).await, "tools", "name"),
        ["whoami"],
        "the filter hides add"
    );
    let e = ask(plain.clone(), "prompts/get", json!({"name": "secret"})).await;
    assert_eq!(
        (e["error"]["code"].as_i64(), e["error"]["message"].as_str()),
        (Some(-32602), Some("Unknown prompt: secret"))
    );
    let e = ask(plain.clone(), "resources/read", json!({"uri": "mem://secret"})).await;
    assert_eq!(e["error"]["message"], "Resource not found: mem://secret", "{e}");
    let e = ask(plain.clone(), "resources/read", json!({"uri": "files:///a.txt"})).await;
    assert_eq!(e["error"]["message"], "Resource not found: files:///a.txt", "{e}");
    let complete =
        json!({"ref": {"type": "ref/prompt", "name": "secret"}, "argument": {"name": "who", "value": ""}});
    let e = ask(plain.clone(), "completion/complete", complete.clone()).await;
    assert_eq!(e["error"]["message"], "Unknown prompt: secret", "{e}");
    // A template's completion, by the template or by a URI it matches.
    for uri in ["files:///{name}", "files:///a.txt"] {
        let c =
            json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": "name", "value": ""}});
        let e = ask(plain.clone(), "completion/complete", c.clone()).await;
        assert_eq!(e["error"]["message"], format!("Unknown resource template: {uri}"), "{e}");
        assert!(ask(all.clone(), "completion/complete", c).await.get("result").is_some());
    }
    let e = ask(plain, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    assert_eq!(e["error"]["message"], "Unknown tool: add");

    // With them (and the subject the filter wants), everything is there.
    assert_eq!(
        names(&ask(all.clone(), "prompts/list", json!({})).await, "prompts", "name"),
        ["open", "secret"]
    );
    assert_eq!(
        names(&ask(all.clone(), "resources/list", json!({})).await, "resources", "uri"),
        ["mem://open", "mem://secret"]
    );
    assert_eq!(
        names(
            &ask(all.clone(), "resources/templates/list", json!({})).await,
            "resourceTemplates",
            "uriTemplate"
        ),
        ["files:///{name}"]
    );
    assert_eq!(names(&ask(all.clone(), "tools/list", json!({})).await, "tools", "name"), ["add", "whoami"]);
    let r = ask(all.clone(), "prompts/get", json!({"name": "secret"})).await;
    assert_eq!(r["result"]["messages"][0]["content"]["text"], "hello", "{r}");
    let r = ask(all.clone(), "resources/read", json!({"uri": "files:///a.txt"})).await;
    assert_eq!(r["result"]["contents"][0]["text"], "f", "{r}");
    assert!(ask(all.clone(), "completion/complete", complete).await.get("result").is_some());
    let r = ask(all, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    assert_eq!(r["result"]["content"][0]["text"], "3", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_issuer_costs_one_fetch_per_cooldown_and_known_keys_keep_verifying() {
    use mcpcore::auth::server::{Refusal, TokenVerifier};
    // Nothing listens on port 1: the fetch fails at once.
    let mut jwt = JwtConfig::new("http://127.0.0.1:1/jwks", "http://127.0.0.1:1", "http://127.0.0.1:2/mcp");
    jwt.jwks_cooldown = Duration::from_secs(3600);
    let verifier = JwtVerifier::new(jwt);
    let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.e30.c2ln"; // {"alg":"RS256","kid":"k"}.{}.sig
    for _ in 0..3 {
        assert!(matches!(verifier.verify(token).await, Err(Refusal::Unavailable(_))));
    }
    assert_eq!(verifier.jwks_fetches(), 1, "one attempt per cooldown");

    // Keys fetched before the issuer went away still verify, with a fetch attempt per cooldown.
    let issuer = Issuer::start();
    let aud = "http://127.0.0.1:2/mcp";
    let mut jwt = JwtConfig::new(issuer.jwks(), issuer.url.clone(), aud);
    jwt.jwks_ttl = Duration::ZERO; // always stale
    jwt.jwks_cooldown = Duration::ZERO;
    let verifier = JwtVerifier::new(jwt);
    let token = issuer.token(aud, "s", json!({}));
    assert_eq!(verifier.verify(&token).await.unwrap().scopes, ["s"]);
    drop(issuer);
    assert_eq!(verifier.verify(&token).await.unwrap().scopes, ["s"], "the issuer is down, its key is known");
    assert_eq!(verifier.jwks_fetches(), 2, "a stale set is fetched again (which failed)");
}

/// A legacy POST: the status, the `Mcp-Session-Id` answered, the body.
async fn legacy_post(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Value) {
    let mut rb = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"));
    if let Some(s) = session {
        rb = rb.header("mcp-session-id", s).header("mcp-protocol-version", "2025-11-25");
    }
    let resp = rb.body(body.to_string()).send().await.unwrap();
    let status = resp.status().as_u16();
    let sid = resp.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    (status, sid, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_belongs_to_the_subject_that_opened_it() {
    let issuer = Issuer::start();
    let (_serving, url) = serve(|url| {
        let verifier = JwtVerifier::new(JwtConfig::new(issuer.jwks(), issuer.url.clone(), url));
        AuthConfig::new(Arc::new(verifier), url, [issuer.url.clone()])
    })
    .await;
    let alice = issuer.token(&url, "", json!({"sub": "alice"}));
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, sid, _) = legacy_post(&url, &alice, None, init).await;
    assert_eq!(status, 200);
    let sid = sid.expect("a session id");
    let (inner, tag) = sid.rsplit_once('.').expect("<id>.<tag>");
    assert_eq!(tag.len(), 32);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(legacy_post(&url, &alice, Some(&sid), initialized).await.0, 202);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    // Alice, with a fresh token, uses her session.
    let alice2 = issuer.token(&url, "", json!({"sub": "alice"}));
    let (status, _, body) = legacy_post(&url, &alice2, Some(&sid), list.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["tools"].is_array());
    // Bob's valid token with Alice's session id, or the bare id, or a forged tag: unknown session.
    let bob = issuer.token(&url, "", json!({"sub": "bob"}));
    let forged = format!("{inner}.{}", "0".repeat(32));
    for (token, id) in [(&bob, sid.as_str()), (&alice2, inner), (&alice2, forged.as_str())] {
        let (status, _, body) = legacy_post(&url, token, Some(id), list.clone()).await;
        assert_eq!(status, 404, "{id}: {body}");
    }
    // DELETE is bound too: Bob cannot end it, Alice can.
    let delete = |token: String| {
        let (url, sid) = (url.clone(), sid.clone());
        async move {
            let rb = mcpcore_tests::http::client_builder()
                .build()
                .unwrap()
                .delete(&url)
                .header("authorization", format!("Bearer {token}"));
            rb.header("mcp-session-id", sid).send().await.unwrap().status().as_u16()
        }
    };
    assert_eq!(delete(bob).await, 404);
    assert_eq!(delete(alice2.clone()).await, 200);
    assert_eq!(legacy_post(&url, &alice2, Some(&sid), list).await.0, 404, "ended");
}

/// `echo_server --auth-*` on stdio, its token in `MCP_ACCESS_TOKEN` (if any).
async fn stdio_echo(issuer: &Issuer, token: Option<&str>, lineage: Lineage) -> mcpcore::Result<Client> {
    let mut cmd = StdioCommand::new(
        bin("echo_server"),
        ["--auth-jwks", &issuer.jwks(), "--auth-issuer", &issuer.url, "--auth-audience", STDIO_AUDIENCE],
    );
    if let Some(t) = token {
        cmd = cmd.env(mcpcore::auth::server::TOKEN_ENV, t);
    }
    Client::connect_stdio(cmd, ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() })
        .await
}

const STDIO_AUDIENCE: &str = "https://mcp.example/stdio";

/// 2025-11-25 basic/authorization: a stdio server takes its credentials from the environment.
/// The same verifier, scopes and per-identity catalogue as over HTTP; a missing or refused
/// token stops the server at start, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_takes_its_token_from_the_environment() {
    let issuer = Issuer::start();
    let reader = issuer.token(STDIO_AUDIENCE, "mcp:read", json!({}));
    let adder = issuer.token(STDIO_AUDIENCE, "mcp:read mcp:add", json!({}));
    for lineage in [Lineage::Modern, Lineage::Legacy] {
        let c = stdio_echo(&issuer, Some(&reader), lineage).await.expect("a valid token serves");
        assert_eq!(tool_names(&c).await, ["echo"], "{lineage:?}");
        let hidden = c.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap_err();
        assert!(hidden.to_string().contains("Unknown tool"), "{lineage:?}: {hidden}");
        let echoed = c.call_tool("echo", json!({"text": "from the environment"})).await.unwrap();
        assert_eq!(serde_json::to_value(&echoed).unwrap()["content"][0]["text"], "from the environment");
        c.close().await;

        let c = stdio_echo(&issuer, Some(&adder), lineage).await.unwrap();
        assert_eq!(tool_names(&c).await, ["add", "echo"], "{lineage:?}");
        assert_eq!(
            c.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap().structured_content,
            Some(json!({"sum": 5.0}))
        );
        c.close().await;
    }
    let wrong_audience = issuer.token("https://elsewhere.example", "mcp:add", json!({}));
    for (token, why) in [
        (None, "MCP_ACCESS_TOKEN"),
        (Some("not-a-jwt"), "invalid_token"),
        (Some(wrong_audience.as_str()), "invalid_token"),
    ] {
        let e = stdio_echo(&issuer, token, Lineage::Modern).await.map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), mcpcore::ErrorKind::Closed, "{token:?}: {e}");
        assert!(
            e.to_string().contains("exited with code 1") && e.to_string().contains(why),
            "{token:?}: {e}"
        );
    }
}
