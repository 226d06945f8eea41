//! DPoP on our resource server (RFC 9449 §4.3 and §7; SEP-1932; issue 49): DPoP-bound tokens
//! minted by a real authorization server (`oauth2-mock-server`, tests/interop/oauth, with the
//! `cnf.jkt` claim), proofs signed here with P-256 keys, and raw HTTP requests to an
//! in-process server with DPoP required or allowed. Every defect the conformance scenario
//! `auth/dpop-server-validation` (PR #395) probes is refused with 401 and a `DPoP` challenge;
//! a proof is accepted once; a stolen token replayed with another key is refused; a DPoP-bound
//! token is never a bearer token; the PRM advertises the algorithms.
//!
//! The test command runs `npm ci` in tests/interop/oauth; a missing peer fails the test.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey};
use mcpcore::auth::server::{AuthConfig, DpopMode, JwtConfig, JwtVerifier};
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::prelude::*;
use mcpcore_tests::issuer::Issuer;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A client's DPoP key (P-256) and what a proof made with it looks like.
struct Holder {
    key: EncodingKey,
    /// The public JWK (`kty`, `crv`, `x`, `y`).
    jwk: Map<String, Value>,
}

impl Holder {
    fn new() -> Holder {
        let sk = loop {
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed).unwrap();
            if let Ok(sk) = p256::SecretKey::from_slice(&seed) {
                break sk;
            }
        };
        let der = sk.to_pkcs8_der().unwrap();
        let key = EncodingKey::from_ec_der(der.as_bytes());
        let jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        let Value::Object(mut jwk) = serde_json::to_value(jwk).unwrap() else { unreachable!() };
        jwk.retain(|k, _| ["kty", "crv", "x", "y"].contains(&k.as_str()));
        Holder { key, jwk }
    }

    /// The RFC 7638 thumbprint, computed here independently of the server.
    fn jkt(&self) -> String {
        let s = |k: &str| self.jwk[k].as_str().unwrap().to_owned();
        let canonical = format!(r#"{{"crv":"{}","kty":"EC","x":"{}","y":"{}"}}"#, s("crv"), s("x"), s("y"));
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A proof for `POST url` bound to `token`, after `tweak` changed its header or claims.
    fn proof(
        &self,
        url: &str,
        token: &str,
        tweak: impl FnOnce(&mut Map<String, Value>, &mut Map<String, Value>),
    ) -> String {
        let mut header = Map::new();
        header.insert("typ".into(), "dpop+jwt".into());
        header.insert("alg".into(), "ES256".into());
        header.insert("jwk".into(), Value::Object(self.jwk.clone()));
        let mut jti = [0u8; 12];
        getrandom::fill(&mut jti).unwrap();
        let mut claims = Map::new();
        claims.insert("jti".into(), URL_SAFE_NO_PAD.encode(jti).into());
        claims.insert("htm".into(), "POST".into());
        claims.insert("htu".into(), url.into());
        claims.insert("iat".into(), now().into());
        claims.insert("ath".into(), URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())).into());
        tweak(&mut header, &mut claims);
        let alg: Algorithm = header["alg"].as_str().unwrap().parse().unwrap_or(Algorithm::ES256);
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(Value::Object(header).to_string()),
            URL_SAFE_NO_PAD.encode(Value::Object(claims).to_string())
        );
        let key = match alg {
            Algorithm::HS256 => EncodingKey::from_secret(b"a shared secret, not a key pair").unwrap(),
            _ => self.key.clone(),
        };
        format!("{message}.{}", jsonwebtoken::crypto::sign(message.as_bytes(), &key, alg).unwrap())
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Returns who the caller is.
#[tool]
async fn whoami(ctx: RequestContext) -> String {
    ctx.identity().and_then(|i| i.subject.clone()).unwrap_or_default()
}

/// Serves whoami on a random port, DPoP in `mode`, tokens of `issuer`.
async fn serve(issuer: &Issuer, mode: DpopMode) -> (HttpServing, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    (serve_as(issuer, mode, port, &url, None, false).await, url)
}

/// Serves whoami on `port` as the resource `resource`, spending proofs in `ledger` when given.
async fn serve_as(
    issuer: &Issuer,
    mode: DpopMode,
    port: u16,
    resource: &str,
    ledger: Option<Arc<dyn mcpcore::state::StateLedger>>,
    nonces: bool,
) -> HttpServing {
    let verifier = Arc::new(JwtVerifier::new(JwtConfig::new(issuer.jwks(), issuer.url.clone(), resource)));
    let mut auth = AuthConfig::new(verifier, resource, [issuer.url.clone()]).dpop(mode);
    if nonces {
        auth.dpop.nonce_window = Some(Duration::from_secs(60));
    }
    let config = HttpServerConfig { auth: Some(auth), ..Default::default() };
    let mut server = Server::builder("dpop-test", "1.0").tool(whoami).build().unwrap();
    if let Some(l) = ledger {
        server = server.with_state_ledger(l);
    }
    server.serve_http(format!("127.0.0.1:{port}").parse().unwrap(), config).await.unwrap()
}

/// What a request got: status, every `WWW-Authenticate` value, the body.
#[derive(Debug)]
struct Answer {
    status: u16,
    challenges: Vec<String>,
    body: Value,
    /// `DPoP-Nonce`, when the server sent one.
    nonce: Option<String>,
}

impl Answer {
    /// A 401 with a `DPoP` challenge whose `error` is `error` and whose description says `why`.
    fn refused(&self, error: &str, why: &str) {
        assert_eq!(self.status, 401, "{self:?}");
        let dpop =
            self.challenges.iter().find(|c| c.starts_with("DPoP ")).unwrap_or_else(|| panic!("{self:?}"));
        assert!(dpop.contains(&format!("error=\"{error}\"")), "{dpop}");
        assert!(dpop.contains("algs=\"ES256 "), "{dpop}");
        let d = self.body["error_description"].as_str().unwrap_or_default();
        assert!(d.contains(why), "{d:?} should say {why:?}");
    }
}

/// A 2026-07-28 `tools/call whoami` with `authorization` and the `dpop` header values.
async fn call(url: &str, authorization: Option<&str>, dpop: &[&str]) -> Answer {
    let params = json!({"name": "whoami", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }});
    let mut rb = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami");
    if let Some(a) = authorization {
        rb = rb.header("authorization", a);
    }
    for p in dpop {
        rb = rb.header("dpop", *p);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let resp = tokio::time::timeout(Duration::from_secs(10), rb.body(body.to_string()).send())
        .await
        .expect("in time")
        .expect("sent");
    let status = resp.status().as_u16();
    let challenges =
        resp.headers().get_all("www-authenticate").iter().map(|v| v.to_str().unwrap().to_owned()).collect();
    let nonce = resp.headers().get("dpop-nonce").map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    Answer { status, challenges, body: serde_json::from_str(&text).unwrap_or(Value::String(text)), nonce }
}

/// The server's Protected Resource Metadata.
async fn prm(url: &str) -> Value {
    let prm = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let http = mcpcore_tests::http::client_builder().build().unwrap();
    serde_json::from_str(&http.get(&prm).send().await.unwrap().text().await.unwrap()).unwrap()
}

fn bound(issuer: &Issuer, aud: &str, jkt: &str) -> String {
    issuer.token(aud, "", json!({"sub": "alice", "claims": {"cnf": {"jkt": jkt}}}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_required_accepts_a_valid_proof_once_and_refuses_every_defect() {
    let issuer = Issuer::start();
    let (_serving, url) = serve(&issuer, DpopMode::Required).await;
    let alice = Holder::new();
    let token = bound(&issuer, &url, &alice.jkt());
    let authz = format!("DPoP {token}");

    // The PRM names the algorithms and that only DPoP-bound tokens are taken.
    let doc = prm(&url).await;
    assert_eq!(doc["dpop_bound_access_tokens_required"], true, "{doc}");
    assert_eq!(doc["dpop_signing_alg_values_supported"][0], "ES256", "{doc}");

    // No credentials: one DPoP challenge naming the PRM and the algorithms.
    let a = call(&url, None, &[]).await;
    assert_eq!(a.status, 401);
    assert_eq!(a.challenges.len(), 1, "{a:?}");
    assert!(a.challenges[0].starts_with("DPoP resource_metadata=\""), "{a:?}");
    assert!(a.challenges[0].contains("algs=\"ES256 ES384"), "{a:?}");

    // A valid proof: the call runs as the token's subject.
    let proof = alice.proof(&url, &token, |_, _| {});
    let ok = call(&url, Some(&authz), &[&proof]).await;
    assert_eq!(ok.status, 200, "{ok:?}");
    assert_eq!(ok.body["result"]["content"][0]["text"], "alice", "{ok:?}");
    // The same proof again: its jti is spent.
    call(&url, Some(&authz), &[&proof]).await.refused("invalid_dpop_proof", "used before");
    // A query string does not change htu (RFC 9449 §4.3 step 9).
    let with_query = alice.proof(&format!("{url}?x=1"), &token, |_, _| {});
    assert_eq!(call(&url, Some(&authz), &[&with_query]).await.status, 200);

    // Each defect of RFC 9449 §4.3, one at a time.
    type Tweak = fn(&mut Map<String, Value>, &mut Map<String, Value>);
    let defects: [(&str, Tweak, &str); 13] = [
        ("typ jwt", |h, _| drop(h.insert("typ".into(), "jwt".into())), "typ"),
        ("alg HS256", |h, _| drop(h.insert("alg".into(), "HS256".into())), "alg"),
        ("no jwk", |h, _| drop(h.remove("jwk")), "no jwk"),
        (
            "a private key in jwk",
            |h, _| drop(h["jwk"].as_object_mut().unwrap().insert("d".into(), "AAAA".into())),
            "private",
        ),
        ("no jti", |_, c| drop(c.remove("jti")), "no jti"),
        ("no htm", |_, c| drop(c.remove("htm")), "no htm"),
        ("htm GET", |_, c| drop(c.insert("htm".into(), "GET".into())), "for GET"),
        ("no htu", |_, c| drop(c.remove("htu")), "no htu"),
        (
            "another htu",
            |_, c| drop(c.insert("htu".into(), "https://wrong.example.com/mcp".into())),
            "not this resource",
        ),
        ("no iat", |_, c| drop(c.remove("iat")), "no iat"),
        ("stale iat", |_, c| drop(c.insert("iat".into(), (now() - 303).into())), "iat"),
        ("future iat", |_, c| drop(c.insert("iat".into(), (now() + 303).into())), "iat"),
        ("wrong ath", |_, c| drop(c.insert("ath".into(), "not-the-right-hash".into())), "ath"),
    ];
    for (name, tweak, why) in defects {
        let p = alice.proof(&url, &token, tweak);
        let a = call(&url, Some(&authz), &[&p]).await;
        assert_eq!(a.status, 401, "{name}: {a:?}");
        a.refused("invalid_dpop_proof", why);
    }
    let no_ath = alice.proof(&url, &token, |_, c| drop(c.remove("ath")));
    call(&url, Some(&authz), &[&no_ath]).await.refused("invalid_dpop_proof", "no ath");
    let mut tampered = alice.proof(&url, &token, |_, _| {});
    tampered.push_str("AA");
    call(&url, Some(&authz), &[&tampered]).await.refused("invalid_dpop_proof", "does not verify");
    call(&url, Some(&authz), &["this-is-not-a-jwt"]).await.refused("invalid_dpop_proof", "not a signed JWT");
    call(&url, Some(&authz), &[]).await.refused("invalid_dpop_proof", "exactly one DPoP header");
    let (p1, p2) = (alice.proof(&url, &token, |_, _| {}), alice.proof(&url, &token, |_, _| {}));
    call(&url, Some(&authz), &[&p1, &p2]).await.refused("invalid_dpop_proof", "exactly one DPoP header");

    // A stolen token, replayed with the thief's own key: bound to another key.
    let mallory = Holder::new();
    let stolen = mallory.proof(&url, &token, |_, _| {});
    call(&url, Some(&authz), &[&stolen]).await.refused("invalid_token", "bound to another key");
    // The stolen token as a bearer token: this server takes only DPoP.
    call(&url, Some(&format!("Bearer {token}")), &[]).await.refused("invalid_token", "only DPoP-bound");
    // A token that is not bound at all, with a valid proof.
    let unbound = issuer.token(&url, "", json!({"sub": "bob"}));
    let p = alice.proof(&url, &unbound, |_, _| {});
    call(&url, Some(&format!("DPoP {unbound}")), &[&p]).await.refused("invalid_token", "not DPoP-bound");
    // A bound token for another audience, with a valid proof: refused as a token, in DPoP.
    let elsewhere = bound(&issuer, "https://not-this-server.example.com/mcp", &alice.jkt());
    let p = alice.proof(&url, &elsewhere, |_, _| {});
    call(&url, Some(&format!("DPoP {elsewhere}")), &[&p])
        .await
        .refused("invalid_token", "not for this resource");

    // The server still serves.
    let p = alice.proof(&url, &token, |_, _| {});
    assert_eq!(call(&url, Some(&authz), &[&p]).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_allowed_takes_both_schemes_but_never_a_bound_token_as_bearer() {
    let issuer = Issuer::start();
    let (_serving, url) = serve(&issuer, DpopMode::Allowed).await;
    let alice = Holder::new();

    let doc = prm(&url).await;
    assert!(doc.get("dpop_bound_access_tokens_required").is_none(), "{doc}");
    assert!(doc["dpop_signing_alg_values_supported"].is_array(), "{doc}");

    // No credentials: both schemes are offered.
    let a = call(&url, None, &[]).await;
    assert_eq!(a.status, 401);
    assert!(a.challenges.iter().any(|c| c.starts_with("Bearer resource_metadata=")), "{a:?}");
    assert!(a.challenges.iter().any(|c| c.starts_with("DPoP ") && c.contains("algs=")), "{a:?}");

    // A plain bearer token works as before.
    let plain = issuer.token(&url, "", json!({"sub": "bob"}));
    let ok = call(&url, Some(&format!("Bearer {plain}")), &[]).await;
    assert_eq!(ok.body["result"]["content"][0]["text"], "bob", "{ok:?}");
    // A bound token with its proof works; as a bearer token it is refused (no downgrade).
    let token = bound(&issuer, &url, &alice.jkt());
    let p = alice.proof(&url, &token, |_, _| {});
    let ok = call(&url, Some(&format!("DPoP {token}")), &[&p]).await;
    assert_eq!(ok.body["result"]["content"][0]["text"], "alice", "{ok:?}");
    let a = call(&url, Some(&format!("Bearer {token}")), &[]).await;
    assert_eq!(a.status, 401, "{a:?}");
    assert!(a.challenges[0].starts_with("Bearer error=\"invalid_token\""), "{a:?}");
    assert!(a.body["error_description"].as_str().unwrap().contains("DPoP-bound"), "{a:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_off_keeps_bearer_only() {
    let issuer = Issuer::start();
    let (_serving, url) = serve(&issuer, DpopMode::Off).await;
    let doc = prm(&url).await;
    assert!(doc.get("dpop_signing_alg_values_supported").is_none(), "{doc}");
    let alice = Holder::new();
    let token = bound(&issuer, &url, &alice.jkt());
    let p = alice.proof(&url, &token, |_, _| {});
    // The DPoP scheme is not one this server knows: no credentials, a Bearer challenge only.
    let a = call(&url, Some(&format!("DPoP {token}")), &[&p]).await;
    assert_eq!(a.status, 401);
    assert_eq!(a.challenges.len(), 1, "{a:?}");
    assert!(a.challenges[0].starts_with("Bearer "), "{a:?}");
}

/// Two instances of one resource behind a load balancer, sharing Redis: a proof spent at one
/// is refused at the other (RFC 9449 §11.1; the `requestState` ledger on Redis).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proof_spent_on_one_instance_is_refused_by_another_sharing_redis() {
    use mcpcore_tests::fleet::{free_port, redis_tool, start_redis, Scratch};
    let Some(redis) = redis_tool("a_proof_spent_on_one_instance_is_refused_by_another_sharing_redis") else {
        return;
    };
    let scratch = Scratch::new("dpop-fleet");
    let redis_port = free_port();
    let _redis = start_redis(&redis, redis_port, &scratch.0);
    let issuer = Issuer::start();
    // The public URL the balancer answers on: what tokens and proofs name.
    let public = "http://mcp.example/mcp";
    let store = format!("redis://127.0.0.1:{redis_port}/0");
    let mut instances = Vec::new();
    for _ in 0..2 {
        let port = free_port();
        let ledger = Arc::new(mcpcore::store::redis::RedisStateLedger::new(&store).unwrap());
        let serving = serve_as(&issuer, DpopMode::Required, port, public, Some(ledger), false).await;
        instances.push((serving, format!("http://127.0.0.1:{port}/mcp")));
    }
    let alice = Holder::new();
    let token = bound(&issuer, public, &alice.jkt());
    let authz = format!("DPoP {token}");
    let proof = alice.proof(public, &token, |_, _| {});
    let ok = call(&instances[0].1, Some(&authz), &[&proof]).await;
    assert_eq!(ok.status, 200, "{ok:?}");
    call(&instances[1].1, Some(&authz), &[&proof]).await.refused("invalid_dpop_proof", "used before");
    // A fresh proof is taken by either.
    let fresh = alice.proof(public, &token, |_, _| {});
    assert_eq!(call(&instances[1].1, Some(&authz), &[&fresh]).await.status, 200);
}

/// Server-provided nonces (RFC 9449 §9): a proof without one, or with one this server did not
/// issue, gets 401 `use_dpop_nonce` and a nonce; the proof made again with it is accepted; a
/// nonce of another server (other keys) is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_nonces_are_handed_out_and_demanded() {
    use mcpcore_tests::fleet::free_port;
    let issuer = Issuer::start();
    let (port, other_port) = (free_port(), free_port());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let _serving = serve_as(&issuer, DpopMode::Required, port, &url, None, true).await;
    let other_url = format!("http://127.0.0.1:{other_port}/mcp");
    let _other = serve_as(&issuer, DpopMode::Required, other_port, &other_url, None, true).await;
    let alice = Holder::new();
    let token = bound(&issuer, &url, &alice.jkt());
    let authz = format!("DPoP {token}");

    // No credentials: the DPoP challenge comes with a nonce.
    assert!(call(&url, None, &[]).await.nonce.is_some());
    // A valid proof without a nonce: refused, with the nonce to use.
    let a = call(&url, Some(&authz), &[&alice.proof(&url, &token, |_, _| {})]).await;
    a.refused("use_dpop_nonce", "requires a DPoP nonce");
    let nonce = a.nonce.clone().expect("a DPoP-Nonce header");
    // Made again with it: accepted.
    let with = |n: String| {
        move |_: &mut Map<String, Value>, c: &mut Map<String, Value>| drop(c.insert("nonce".into(), n.into()))
    };
    let ok = call(&url, Some(&authz), &[&alice.proof(&url, &token, with(nonce.clone()))]).await;
    assert_eq!(ok.status, 200, "{ok:?}");
    // A made-up nonce, and the other server's nonce: refused the same way.
    let a = call(
        &url,
        Some(&authz),
        &[&alice.proof(&url, &token, with("definitely-not-the-server-nonce".into()))],
    )
    .await;
    a.refused("use_dpop_nonce", "stale or not this server's");
    let theirs = call(&other_url, None, &[]).await.nonce.unwrap();
    assert_ne!(theirs, nonce);
    let a = call(&url, Some(&authz), &[&alice.proof(&url, &token, with(theirs))]).await;
    a.refused("use_dpop_nonce", "stale or not this server's");
    // Other defects are still named as themselves when the nonce is good.
    let a = call(
        &url,
        Some(&authz),
        &[&alice.proof(&url, &token, |h, c| {
            h.insert("typ".into(), "jwt".into());
            c.insert("nonce".into(), nonce.clone().into());
        })],
    )
    .await;
    a.refused("invalid_dpop_proof", "typ");
}
