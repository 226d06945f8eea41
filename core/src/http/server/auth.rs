//! The resource-server gate in front of the MCP routes (2025-11-25 and 2026-07-28
//! `basic/authorization`), and the Protected Resource Metadata routes (RFC 9728).
//!
//! Each request's `Authorization: Bearer` token goes to the configured
//! [`TokenVerifier`](crate::auth::server::TokenVerifier); the identity it yields and the
//! config's [`CatalogView`](crate::context::CatalogView) become request extensions (the
//! engine reads them through `Origin`), and the header is removed so the token goes no
//! further. See [`crate::auth::server`] for the answers owed.
//!
//! Legacy sessions are bound to their owner (the token's subject, else its client): the
//! `Mcp-Session-Id` handed out is `<id>.<tag>`, the tag an HMAC of the id and the owner under
//! the server's `requestState` keys (so instances sharing keys and a session store agree), and
//! a request whose token belongs to someone else gets the 404 of an unknown session
//! (2025-06-18 security best practices, "Session Hijacking": bind session ids to the user).
//! The 2024-11-05 transport's `sessionId` query parameter is not bound.
//!
//! With DPoP allowed or required ([`crate::auth::server::DpopMode`]), `Authorization: DPoP`
//! tokens come with one `DPoP` proof, checked by [`crate::auth::server::dpop`] against this
//! request (its method, its URI, the token) and the token's `cnf.jkt`; each proof's `jti` is
//! accepted once (the server's `requestState` ledger, so a fleet on Redis shares it). A
//! DPoP-bound token presented as `Bearer` is refused (SEP-1932: no downgrade). With nonces on
//! (`DpopConfig::nonce_window`), a proof must carry a nonce this server issued lately: a 401
//! `use_dpop_nonce` hands one out (`DPoP-Nonce`), so does every DPoP challenge, and a response
//! to a proof whose nonce is from the previous window carries the current one (RFC 9449 §9).

use super::State;
use crate::auth::server::dpop::{self, ProofTarget};
use crate::auth::server::{AuthConfig, DpopMode, Entry, Refusal, Scheme, ScopeMode};
use crate::context::{CatalogView, Identity};
use crate::http::headers::MCP_SESSION_ID;
use crate::state::StateKeys;
use axum::body::Body;
use axum::extract::{Request, State as Shared};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

/// What the gate needs: the config, its catalogue view, the endpoint (for resource templates
/// and the body limit).
pub(crate) struct Gate {
    config: AuthConfig,
    view: CatalogView,
    endpoint: Arc<State>,
    /// Bind session ids to their owners.
    keys: StateKeys,
}

/// The HMAC domain of session bindings.
const SESSION_OWNER: &str = "mcpcore session owner";

impl Gate {
    pub(crate) fn new(config: AuthConfig, endpoint: Arc<State>) -> Arc<Gate> {
        let view = config.catalog_view();
        let mut keys = endpoint.env.engine.config().state_keys.clone();
        if keys.is_empty() {
            keys = crate::runtime::entropy::state_key().into();
        }
        Arc::new(Gate { config, view, endpoint, keys })
    }

    /// The id handed to the client for session `id` of `owner`.
    fn bind(&self, id: &str, owner: &str) -> String {
        let tag = self.keys.tag(SESSION_OWNER, &[id.as_bytes(), owner.as_bytes()]).expect("a key");
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        format!("{id}.{hex}")
    }

    /// The session id inside a bound one, when `owner` is its owner.
    fn unbind<'a>(&self, bound: &'a str, owner: &str) -> Option<&'a str> {
        let (id, hex) = bound.rsplit_once('.')?;
        let tag: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|i| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect();
        let ok = self.keys.verify_tag(SESSION_OWNER, &[id.as_bytes(), owner.as_bytes()], &tag?);
        ok.then_some(id)
    }
}

/// Whose session a token may use: its subject, else its client.
fn owner(identity: &Identity) -> String {
    identity.owner().unwrap_or_default()
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut resp = (status, body.to_string()).into_response();
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

/// `401`/`403` with the challenge of `scheme` and an RFC 6750-style JSON body.
fn refuse_in(
    gate: &Gate,
    scheme: Scheme,
    status: StatusCode,
    error: Option<(&str, &str)>,
    scopes: &[String],
) -> Response {
    let body = match error {
        Some((e, d)) => json!({"error": e, "error_description": d}),
        None => {
            json!({"error": "unauthorized", "error_description": "this MCP server requires an access token"})
        }
    };
    let mut resp = json_response(status, &body);
    // No credentials on a server that allows DPoP: both schemes are offered (RFC 9449 §7.1).
    let schemes: &[Scheme] = match (gate.config.dpop.mode, error) {
        (DpopMode::Required, _) => &[Scheme::Dpop],
        (DpopMode::Allowed, None) => &[Scheme::Bearer, Scheme::Dpop],
        _ => std::slice::from_ref(&scheme),
    };
    for s in schemes {
        if let Ok(v) = HeaderValue::from_str(&gate.config.challenge_in(*s, error, scopes)) {
            resp.headers_mut().append(header::WWW_AUTHENTICATE, v);
        }
    }
    if schemes.contains(&Scheme::Dpop) {
        add_nonce(gate, &mut resp);
    }
    resp
}

/// With nonces on: the current DPoP nonce in `DPoP-Nonce` (RFC 9449 §9).
fn add_nonce(gate: &Gate, resp: &mut Response) {
    let Some(window) = gate.config.dpop.nonce_window else { return };
    set_nonce(resp, dpop::issue_nonce(&gate.keys, gate.endpoint.env.now(), window));
}

/// `nonce` in `DPoP-Nonce`.
fn set_nonce(resp: &mut Response, nonce: Option<String>) {
    if let Some(v) = nonce.and_then(|n| HeaderValue::from_str(&n).ok()) {
        resp.headers_mut().insert("dpop-nonce", v);
    }
}

/// [`refuse_in`] for a bearer request.
fn refuse(gate: &Gate, status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]) -> Response {
    refuse_in(gate, Scheme::Bearer, status, error, scopes)
}

/// The credentials of the `Authorization` header: `Ok(None)` when there is no such header (or
/// another scheme; `DPoP` too unless `dpop` is on), `Err` when it is malformed.
fn credentials(headers: &axum::http::HeaderMap, dpop: bool) -> Result<Option<(Scheme, &str)>, &'static str> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else { return Ok(None) };
    if values.next().is_some() {
        return Err("the request carries several Authorization headers");
    }
    let value = value.to_str().map_err(|_| "the Authorization header is not ASCII")?;
    let scheme_of = |s: &str| {
        if s.eq_ignore_ascii_case("bearer") {
            Some(Scheme::Bearer)
        } else if dpop && s.eq_ignore_ascii_case("dpop") {
            Some(Scheme::Dpop)
        } else {
            None
        }
    };
    let Some((scheme, token)) = value.split_once(' ') else {
        return if scheme_of(value).is_some() { Err("the access token is empty") } else { Ok(None) };
    };
    let Some(scheme) = scheme_of(scheme) else { return Ok(None) };
    let token = token.trim();
    // RFC 6750 §2.1 b64token (RFC 9449 §7.1 uses the same syntax).
    let b64token = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
    if token.is_empty() || !token.chars().all(b64token) {
        return Err("the access token is malformed");
    }
    Ok(Some((scheme, token)))
}

/// The URIs a DPoP proof of `req` may name as `htu`: the server's canonical resource URI, and
/// this request's path under the resource's scheme with the `Host` it was sent to and with
/// the resource's own authority.
fn request_uris(gate: &Gate, req: &Request) -> Vec<String> {
    let resource = &gate.config.resource;
    let mut out = vec![resource.clone()];
    let Ok(url) = reqwest::Url::parse(resource) else { return out };
    let path = req.uri().path();
    if let Some(host) = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()) {
        out.push(format!("{}://{host}{path}", url.scheme()));
    }
    out.push(format!("{}{path}", url.origin().ascii_serialization()));
    out
}

/// What [`check_dpop`] leaves to do: the claim of the proof's `jti` in the ledger ([`spend`]),
/// and whether the answer should hand out a newer nonce.
struct Checked {
    claim: crate::state::Claim,
    /// The current nonce, when the proof's is from the previous window (the answer hands it out).
    newer_nonce: Option<String>,
}

/// RFC 9449 §4.3 and §7 for an `Authorization: DPoP` request: one proof, valid for this
/// request and this token, made with the key the token is bound to, with a nonce of this
/// server when nonces are on (§9).
fn check_dpop(
    gate: &Gate,
    req: &Request,
    token: &str,
    identity: &Identity,
    now: std::time::SystemTime,
) -> Result<Checked, Response> {
    let refuse_dpop = |error: &str, why: &str| dpop_refusal(gate, error, why);
    let mut proofs = req.headers().get_all("dpop").iter();
    let (Some(proof), None) = (proofs.next(), proofs.next()) else {
        return Err(refuse_dpop("invalid_dpop_proof", "the request needs exactly one DPoP header"));
    };
    let proof =
        proof.to_str().map_err(|_| refuse_dpop("invalid_dpop_proof", "the DPoP header is not ASCII"))?;
    let uris = request_uris(gate, req);
    let target = ProofTarget { method: req.method().as_str(), uris: &uris, token, now };
    let checked = dpop::check_proof(&gate.config.dpop, proof, &target)
        .map_err(|why| refuse_dpop("invalid_dpop_proof", &why))?;
    match dpop::bound_key(&identity.claims) {
        Some(jkt) if jkt == checked.jkt => {}
        Some(_) => {
            return Err(refuse_dpop(
                "invalid_token",
                "the token is bound to another key than the DPoP proof's",
            ))
        }
        None => return Err(refuse_dpop("invalid_token", "the token is not DPoP-bound (it has no cnf.jkt)")),
    }
    let mut newer_nonce = None;
    if let Some(window) = gate.config.dpop.nonce_window {
        let why = match checked.nonce.as_deref() {
            None => "this server requires a DPoP nonce: make the proof again with the one in DPoP-Nonce",
            Some(n) if dpop::nonce_fresh(&gate.keys, n, now, window) => "",
            Some(_) => "the DPoP nonce is stale or not this server's: make the proof again with the one in DPoP-Nonce",
        };
        if !why.is_empty() {
            return Err(refuse_dpop("use_dpop_nonce", why));
        }
        newer_nonce =
            dpop::issue_nonce(&gate.keys, now, window).filter(|n| checked.nonce.as_ref() != Some(n));
    }
    Ok(Checked {
        claim: crate::state::Claim { id: checked.replay_id, expires: checked.fresh_until },
        newer_nonce,
    })
}

/// Claims a checked proof's `jti`: refused when it was used before; 503 when the ledger
/// cannot answer.
async fn spend(gate: &Gate, claim: crate::state::Claim, now: std::time::SystemTime) -> Result<(), Response> {
    match gate.endpoint.env.states.claim(&claim, now).await {
        Ok(true) => Ok(()),
        Ok(false) => {
            Err(dpop_refusal(gate, "invalid_dpop_proof", "the DPoP proof was used before (its jti is spent)"))
        }
        Err(e) => {
            let body = json!({"error": "temporarily_unavailable", "error_description": e.message});
            Err(json_response(StatusCode::SERVICE_UNAVAILABLE, &body))
        }
    }
}

/// 401 with a `DPoP` challenge carrying `error` and `why`.
fn dpop_refusal(gate: &Gate, error: &str, why: &str) -> Response {
    unauthorized(gate, Scheme::Dpop, error, why)
}

/// 401 with a challenge of `scheme` carrying `error`, `why` and the scopes every request needs.
fn unauthorized(gate: &Gate, scheme: Scheme, error: &str, why: &str) -> Response {
    refuse_in(gate, scheme, StatusCode::UNAUTHORIZED, Some((error, why)), &gate.config.required_scopes)
}

/// The middleware: verify, refuse, or pass the request on with its identity.
pub(crate) async fn gate(Shared(gate): Shared<Arc<Gate>>, mut req: Request, next: Next) -> Response {
    let mode = gate.config.dpop.mode;
    let (scheme, token) = match credentials(req.headers(), mode != DpopMode::Off) {
        Ok(Some((s, t))) => (s, t.to_owned()),
        Ok(None) => return refuse(&gate, StatusCode::UNAUTHORIZED, None, &gate.config.required_scopes),
        Err(why) => return refuse(&gate, StatusCode::BAD_REQUEST, Some(("invalid_request", why)), &[]),
    };
    if scheme == Scheme::Bearer && mode == DpopMode::Required {
        let why = "this server accepts only DPoP-bound tokens (Authorization: DPoP, with a DPoP proof)";
        return unauthorized(&gate, Scheme::Bearer, "invalid_token", why);
    }
    let identity = match gate.config.verifier.verify(&token).await {
        Ok(id) => id,
        Err(r) => return refused(&gate, scheme, &r),
    };
    let mut newer_nonce = None;
    match scheme {
        Scheme::Dpop => {
            let now = gate.endpoint.env.now();
            let checked = match check_dpop(&gate, &req, &token, &identity, now) {
                Ok(c) => c,
                Err(resp) => return resp,
            };
            if let Err(resp) = spend(&gate, checked.claim, now).await {
                return resp;
            }
            newer_nonce = checked.newer_nonce;
        }
        // SEP-1932: a DPoP-bound token is not a bearer token.
        Scheme::Bearer if mode != DpopMode::Off && dpop::bound_key(&identity.claims).is_some() => {
            let why = "the token is DPoP-bound: present it as Authorization: DPoP with its proof";
            return unauthorized(&gate, Scheme::Bearer, "invalid_token", why);
        }
        Scheme::Bearer => {}
    }
    let required = &gate.config.required_scopes;
    if !identity.has_scopes(required.iter().map(String::as_str)) {
        let why = "the token lacks a scope this server requires";
        return refuse_in(&gate, scheme, StatusCode::FORBIDDEN, Some(("insufficient_scope", why)), required);
    }
    if gate.config.scope_mode == ScopeMode::StepUp && req.method() == Method::POST {
        let (parts, body) = req.into_parts();
        let bytes = match super::guard::read_body(&parts.headers, body, &gate.endpoint).await {
            Ok(b) => b,
            Err(r) => return r,
        };
        if let Some(scopes) = step_up(&gate, &identity, &bytes) {
            let why = "the token lacks a scope this operation requires";
            return refuse_in(
                &gate,
                scheme,
                StatusCode::FORBIDDEN,
                Some(("insufficient_scope", why)),
                &scopes,
            );
        }
        req = Request::from_parts(parts, Body::from(bytes));
    }
    let owner = owner(&identity);
    if let Some(bound) = req.headers().get(MCP_SESSION_ID) {
        let inner = bound.to_str().ok().and_then(|b| gate.unbind(b.trim(), &owner));
        let Some(inner) = inner.and_then(|i| HeaderValue::from_str(i).ok()) else {
            return super::legacy::not_found_session();
        };
        req.headers_mut().insert(MCP_SESSION_ID, inner);
    }
    req.headers_mut().remove(header::AUTHORIZATION);
    // Kept only for a gateway's on-behalf-of exchange (crate-private; never forwarded as is).
    req.extensions_mut().insert(crate::context::CallerToken(token.into()));
    req.extensions_mut().insert(Arc::new(identity));
    req.extensions_mut().insert(gate.view.clone());
    let mut resp = next.run(req).await;
    let minted =
        resp.headers().get(MCP_SESSION_ID).and_then(|v| v.to_str().ok()).map(|id| gate.bind(id, &owner));
    if let Some(v) = minted.and_then(|b| HeaderValue::from_str(&b).ok()) {
        resp.headers_mut().insert(MCP_SESSION_ID, v);
    }
    set_nonce(&mut resp, newer_nonce);
    resp
}

fn refused(gate: &Gate, scheme: Scheme, r: &Refusal) -> Response {
    match r {
        Refusal::InvalidToken(d) => unauthorized(gate, scheme, r.error(), d),
        Refusal::InsufficientScope { scopes, description } => {
            refuse_in(gate, scheme, StatusCode::FORBIDDEN, Some((r.error(), description)), scopes)
        }
        Refusal::Unavailable(d) => {
            let body = json!({"error": r.error(), "error_description": d});
            json_response(StatusCode::SERVICE_UNAVAILABLE, &body)
        }
    }
}

/// Under [`ScopeMode::StepUp`]: the scopes to challenge for when the body uses an entry whose
/// scopes the token lacks (every scope the operation needs, in one challenge). The host
/// filter is not consulted: what it hides stays unknown (the engine answers).
fn step_up(gate: &Gate, identity: &Identity, body: &[u8]) -> Option<Vec<String>> {
    let messages = match serde_json::from_slice::<Value>(body).ok()? {
        Value::Array(batch) => batch,
        one => vec![one],
    };
    let resources = gate.endpoint.env.engine.resources();
    for m in &messages {
        let params = m.get("params");
        let text = |k: &str| params.and_then(|p| p.get(k)).and_then(Value::as_str);
        let template;
        let entry = match m.get("method").and_then(Value::as_str) {
            Some("tools/call") => Entry::Tool(text("name")?),
            Some("prompts/get") => Entry::Prompt(text("name")?),
            Some("resources/read") => {
                let uri = text("uri")?;
                template = resources.and_then(|r| r.template_of(uri));
                Entry::Resource { uri, template: template.as_deref() }
            }
            _ => continue,
        };
        let needed = gate.config.entry_scopes(&entry);
        if !identity.has_scopes(needed.iter().map(String::as_str)) {
            return Some(gate.config.operation_scopes(&entry));
        }
    }
    None
}

/// The PRM document (unauthenticated, cacheable, readable cross-origin by browser clients).
pub(crate) async fn metadata(Shared(gate): Shared<Arc<Gate>>) -> Response {
    let doc = serde_json::to_value(gate.config.metadata_document()).expect("serializable");
    let mut resp = json_response(StatusCode::OK, &doc);
    let h = resp.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    resp
}

#[cfg(test)]
mod tests {
    use super::{credentials, Scheme};
    use axum::http::{HeaderMap, HeaderValue};

    fn with(v: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in v {
            h.append("authorization", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn bearer(h: &HeaderMap) -> Result<Option<&str>, &'static str> {
        credentials(h, false).map(|c| c.map(|(_, t)| t))
    }

    #[test]
    fn bearer_tokens_are_read_and_malformed_ones_refused() {
        assert_eq!(bearer(&with(&[])), Ok(None));
        assert_eq!(bearer(&with(&["Basic dXNlcg=="])), Ok(None));
        assert_eq!(bearer(&with(&["Bearer abc.DEF-_~+/="])), Ok(Some("abc.DEF-_~+/=")));
        assert_eq!(bearer(&with(&["bearer  t1 "])), Ok(Some("t1")));
        assert!(bearer(&with(&["Bearer"])).is_err());
        assert!(bearer(&with(&["Bearer a b"])).is_err());
        assert!(bearer(&with(&["Bearer a", "Bearer b"])).is_err());
    }

    #[test]
    fn the_dpop_scheme_is_read_only_when_dpop_is_on() {
        assert_eq!(bearer(&with(&["DPoP t1"])), Ok(None), "DPoP off: another scheme");
        assert_eq!(credentials(&with(&["DPoP t1"]), true), Ok(Some((Scheme::Dpop, "t1"))));
        assert_eq!(credentials(&with(&["dpop t1"]), true), Ok(Some((Scheme::Dpop, "t1"))));
        assert_eq!(credentials(&with(&["Bearer t1"]), true), Ok(Some((Scheme::Bearer, "t1"))));
        assert!(credentials(&with(&["DPoP"]), true).is_err());
        assert!(credentials(&with(&["DPoP a,b"]), true).is_err());
    }
}
