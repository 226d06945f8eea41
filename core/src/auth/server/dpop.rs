//! DPoP on the resource server (RFC 9449; SEP-1932, the 2026-07-28 `basic/authorization`
//! DPoP extension): the proof checks of RFC 9449 §4.3 and the token binding of §7 (sans-IO; the
//! HTTP gate in `http::server::auth` supplies the request, the clock and the replay ledger).
//!
//! A request presents `Authorization: DPoP <token>` and exactly one `DPoP: <proof>` header. The
//! proof is a JWT whose header carries `typ: "dpop+jwt"`, an asymmetric `alg` the server
//! accepts and the public `jwk` it is signed with; its claims carry `jti`, `htm` (the request
//! method), `htu` (the request URI without query and fragment), `iat` (within the window) and
//! `ath` (base64url SHA-256 of the token). The token's `cnf.jkt` must be the JWK SHA-256
//! thumbprint (RFC 7638) of the proof's key, and each `jti` is accepted once while its proof
//! could still be fresh (the server's `requestState` ledger: one process, or Redis for a
//! fleet). Server-provided nonces (§9), when on, are stateless: the time window sealed with the
//! server's `requestState` keys ([`issue_nonce`]), so instances sharing the keys share them.

use crate::state::StateKeys;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Whether a protected server takes DPoP-bound tokens (RFC 9449).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DpopMode {
    /// Only `Authorization: Bearer` (the default).
    #[default]
    Off,
    /// `Bearer` and `DPoP` alike; a DPoP-bound token (one with `cnf.jkt`) must come with its
    /// proof, never as a bearer token.
    Allowed,
    /// Only `Authorization: DPoP` with a proof; the PRM says
    /// `dpop_bound_access_tokens_required: true`.
    Required,
}

impl DpopMode {
    /// The mode named `off`, `allowed` or `required`.
    pub fn parse(name: &str) -> Option<DpopMode> {
        match name {
            "off" => Some(DpopMode::Off),
            "allowed" => Some(DpopMode::Allowed),
            "required" => Some(DpopMode::Required),
            _ => None,
        }
    }
}

/// What a protected server accepts as DPoP.
#[derive(Debug, Clone)]
pub struct DpopConfig {
    /// Off, allowed or required.
    pub mode: DpopMode,
    /// The proof algorithms accepted: asymmetric only (RFC 9449 §4.3 step 5; HMAC and `none`
    /// are refused whatever this holds). Default ES256, ES384, PS256, PS384, PS512, RS256,
    /// RS384, RS512, EdDSA. The PRM's `dpop_signing_alg_values_supported`.
    pub algorithms: Vec<Algorithm>,
    /// How far a proof's `iat` may be from the server's clock, either way (default 300 s, the
    /// window SEP-1932 names).
    pub iat_window: Duration,
    /// Server-provided nonces (RFC 9449 §9; SEP-1932 recommends them): `Some(window)` demands
    /// a nonce the server issued in the current window or the one before (a 401
    /// `use_dpop_nonce` with a `DPoP-Nonce` header otherwise); `None` (the default) issues none.
    pub nonce_window: Option<Duration>,
}

impl Default for DpopConfig {
    fn default() -> Self {
        use Algorithm::*;
        DpopConfig {
            mode: DpopMode::Off,
            algorithms: vec![ES256, ES384, PS256, PS384, PS512, RS256, RS384, RS512, EdDSA],
            iat_window: Duration::from_secs(300),
            nonce_window: None,
        }
    }
}

impl DpopConfig {
    /// The default algorithms and window, in `mode`.
    pub fn new(mode: DpopMode) -> Self {
        DpopConfig { mode, ..DpopConfig::default() }
    }

    /// The accepted algorithms by their JOSE names (`algs` of the challenge, the PRM's list).
    pub fn algorithm_names(&self) -> Vec<String> {
        self.algorithms.iter().filter(|a| asymmetric(**a)).map(|a| format!("{a:?}")).collect()
    }
}

/// True for the signature algorithms a DPoP proof may use (RFC 9449 §4.3 step 5).
fn asymmetric(alg: Algorithm) -> bool {
    !matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

/// The request a proof is checked against.
#[derive(Debug)]
pub(crate) struct ProofTarget<'a> {
    /// The HTTP method (`htm`).
    pub method: &'a str,
    /// The URIs the request may have been sent to (`htu`; the server's public URL and the one
    /// its `Host` header names), compared without query and fragment.
    pub uris: &'a [String],
    /// The access token the proof must be bound to (`ath`).
    pub token: &'a str,
    /// The server's clock.
    pub now: SystemTime,
}

/// A proof that passed every check but replay.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Proof {
    /// The JWK SHA-256 thumbprint of its key (what the token's `cnf.jkt` must be).
    pub jkt: String,
    /// The replay-ledger id of its `jti` (a digest of the key and the `jti`).
    pub replay_id: String,
    /// Until when a replay of it must be refused (its `iat` plus the window).
    pub fresh_until: SystemTime,
    /// Its `nonce` claim, if any (checked by the caller against [`nonce_fresh`]).
    pub nonce: Option<String>,
}

/// Largest proof read (a JWT with an RSA-4096 key and the claims fits in 4 KiB).
const MAX_PROOF: usize = 8 * 1024;
/// Largest `jti` accepted.
const MAX_JTI: usize = 256;
/// JWK members that belong to a private or symmetric key (RFC 7518 §6): never in a proof.
const PRIVATE_MEMBERS: [&str; 7] = ["d", "p", "q", "dp", "dq", "qi", "k"];

/// Checks `proof` (the one `DPoP` header value) against the request (RFC 9449 §4.3 steps 2-9,
/// 11 and 12a): the reason it is refused, for `error_description`.
pub(crate) fn check_proof(
    config: &DpopConfig,
    proof: &str,
    target: &ProofTarget<'_>,
) -> Result<Proof, String> {
    if proof.len() > MAX_PROOF {
        return Err(format!("the DPoP proof is longer than {MAX_PROOF} bytes"));
    }
    let header = raw_header(proof)?;
    let typ = header.get("typ").and_then(Value::as_str);
    if !typ.is_some_and(|t| t.eq_ignore_ascii_case("dpop+jwt")) {
        return Err("the DPoP proof's typ is not dpop+jwt".to_owned());
    }
    let alg_name = header.get("alg").and_then(Value::as_str).unwrap_or_default();
    let alg: Algorithm =
        alg_name.parse().map_err(|_| format!("the DPoP proof's alg {alg_name:?} is not accepted"))?;
    if !asymmetric(alg) || !config.algorithms.contains(&alg) {
        return Err(format!("the DPoP proof's alg {alg_name:?} is not accepted"));
    }
    let Some(Value::Object(jwk)) = header.get("jwk") else {
        return Err("the DPoP proof's header has no jwk".to_owned());
    };
    if PRIVATE_MEMBERS.iter().any(|m| jwk.contains_key(*m)) {
        return Err("the DPoP proof's jwk holds a private or symmetric key".to_owned());
    }
    let jkt = thumbprint(jwk).ok_or("the DPoP proof's jwk is not a public EC, RSA or OKP key")?;
    let typed: jsonwebtoken::jwk::Jwk = serde_json::from_value(Value::Object(jwk.clone()))
        .map_err(|e| format!("the DPoP proof's jwk is unusable: {e}"))?;
    let key = DecodingKey::from_jwk(&typed).map_err(|e| format!("the DPoP proof's jwk is unusable: {e}"))?;
    let mut v = Validation::new(alg);
    v.validate_exp = false;
    v.validate_aud = false;
    v.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &v)
        .map_err(|e| format!("the DPoP proof does not verify: {e}"))?
        .claims;
    let text = |name: &str| claims.get(name).and_then(Value::as_str);
    let jti = text("jti").filter(|j| !j.is_empty()).ok_or("the DPoP proof has no jti")?;
    if jti.len() > MAX_JTI {
        return Err(format!("the DPoP proof's jti is longer than {MAX_JTI} characters"));
    }
    let htm = text("htm").ok_or("the DPoP proof has no htm")?;
    if htm != target.method {
        return Err(format!("the DPoP proof is for {htm}, not {}", target.method));
    }
    let htu = text("htu").ok_or("the DPoP proof has no htu")?;
    let htu_norm = normalize(htu).ok_or("the DPoP proof's htu is not an absolute URI")?;
    if !target.uris.iter().filter_map(|u| normalize(u)).any(|u| u == htu_norm) {
        return Err(format!("the DPoP proof is for {htu}, not this resource"));
    }
    let iat = claims.get("iat").and_then(Value::as_u64).ok_or("the DPoP proof has no iat")?;
    let now = target.now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let window = config.iat_window.as_secs();
    if iat.abs_diff(now) > window {
        return Err(format!("the DPoP proof's iat is more than {window} s from the server's clock"));
    }
    let ath = text("ath").ok_or("the DPoP proof has no ath (the hash of the access token)")?;
    if ath != access_token_hash(target.token) {
        return Err("the DPoP proof's ath does not match the access token".to_owned());
    }
    let digest = Sha256::new().chain_update(jkt.as_bytes()).chain_update([0]).chain_update(jti.as_bytes());
    let replay_id = format!("dpop.{}", URL_SAFE_NO_PAD.encode(digest.finalize()));
    let fresh_until = UNIX_EPOCH + Duration::from_secs(iat.max(now).saturating_add(window));
    Ok(Proof { jkt, replay_id, fresh_until, nonce: text("nonce").map(str::to_owned) })
}

/// The HMAC domain of DPoP nonces.
const NONCE_DOMAIN: &str = "mcpcore dpop nonce";

fn window_of(now: SystemTime, window: Duration) -> u64 {
    now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() / window.as_secs().max(1)
}

/// The nonce of the current window (RFC 9449 §9): `<window number>.<tag>`, the tag an HMAC of
/// the window under `keys`; `None` without keys.
pub(crate) fn issue_nonce(keys: &StateKeys, now: SystemTime, window: Duration) -> Option<String> {
    let w = window_of(now, window);
    let tag = keys.tag(NONCE_DOMAIN, &[&w.to_be_bytes()])?;
    Some(format!("{w}.{}", URL_SAFE_NO_PAD.encode(tag)))
}

/// True when `nonce` was issued under `keys` in the current window or the one before.
pub(crate) fn nonce_fresh(keys: &StateKeys, nonce: &str, now: SystemTime, window: Duration) -> bool {
    let Some((w, tag)) = nonce.split_once('.') else { return false };
    let (Ok(w), Ok(tag)) = (w.parse::<u64>(), URL_SAFE_NO_PAD.decode(tag)) else { return false };
    let current = window_of(now, window);
    (w == current || w.checked_add(1) == Some(current))
        && keys.verify_tag(NONCE_DOMAIN, &[&w.to_be_bytes()], &tag)
}

/// The `cnf.jkt` a token's claims bind it to (RFC 9449 §6.1), if any.
pub(crate) fn bound_key(claims: &Map<String, Value>) -> Option<&str> {
    claims.get("cnf")?.get("jkt")?.as_str()
}

/// `ath`: base64url(SHA-256(token)) (RFC 9449 §4.2).
pub(crate) fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// The JOSE header of a compact JWS, as JSON.
fn raw_header(jws: &str) -> Result<Map<String, Value>, String> {
    let malformed = || "the DPoP proof is not a signed JWT".to_owned();
    let mut parts = jws.split('.');
    let (Some(h), Some(_), Some(_), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(malformed());
    };
    let bytes = URL_SAFE_NO_PAD.decode(h).map_err(|_| malformed())?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(malformed()),
    }
}

/// The JWK SHA-256 thumbprint (RFC 7638 §3): the required members of the key type, in
/// lexicographic order, as JSON without whitespace, hashed and base64url-encoded.
pub(crate) fn thumbprint(jwk: &Map<String, Value>) -> Option<String> {
    let members: &[&str] = match jwk.get("kty")?.as_str()? {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut required = BTreeMap::new();
    for m in members {
        required.insert(*m, jwk.get(*m)?.as_str()?);
    }
    let json = serde_json::to_string(&required).ok()?;
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(json.as_bytes())))
}

/// A URI as compared for `htu`: scheme and host lowercased, the default port dropped, no
/// query or fragment; `None` when it is not an absolute URI.
fn normalize(uri: &str) -> Option<String> {
    let mut u = reqwest::Url::parse(uri).ok()?;
    u.set_query(None);
    u.set_fragment(None);
    u.host_str()?;
    Some(u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thumbprint_matches_rfc_7638_example() {
        // RFC 7638 §3.1.
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        let Value::Object(jwk) = jwk else { unreachable!() };
        assert_eq!(thumbprint(&jwk).as_deref(), Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"));
        let mut no_n = jwk.clone();
        no_n.remove("n");
        assert_eq!(thumbprint(&no_n), None);
    }

    #[test]
    fn htu_compares_without_query_fragment_and_default_port() {
        assert_eq!(normalize("HTTPS://Example.COM:443/mcp?x=1#f"), normalize("https://example.com/mcp"));
        assert_ne!(normalize("https://example.com/mcp"), normalize("https://example.com/mcp/"));
        assert_eq!(normalize("/mcp"), None);
    }

    #[test]
    fn nonces_hold_for_their_window_and_the_next_under_the_keys_that_issued_them() {
        let keys = StateKeys::from(crate::state::StateKey::new(vec![7u8; 32]));
        let other = StateKeys::from(crate::state::StateKey::new(vec![8u8; 32]));
        let w = Duration::from_secs(60);
        let t = UNIX_EPOCH + Duration::from_secs(1_800_000_010);
        let n = issue_nonce(&keys, t, w).unwrap();
        assert!(nonce_fresh(&keys, &n, t, w));
        assert!(nonce_fresh(&keys, &n, t + w, w), "the next window still takes it");
        assert!(!nonce_fresh(&keys, &n, t + 2 * w, w), "two windows later it is stale");
        assert!(!nonce_fresh(&keys, &n, t - w, w), "not before it was issued");
        assert!(!nonce_fresh(&other, &n, t, w), "another server's keys");
        let (num, tag) = n.split_once('.').unwrap();
        let forged = format!("{}.{tag}", num.parse::<u64>().unwrap() + 1);
        assert!(!nonce_fresh(&keys, &forged, t + w, w), "the tag binds the window");
        assert!(!nonce_fresh(&keys, "definitely-not-the-server-nonce", t, w));
        assert!(n.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)), "NQCHAR only");
    }

    #[test]
    fn modes_parse_by_name() {
        assert_eq!(DpopMode::parse("required"), Some(DpopMode::Required));
        assert_eq!(DpopMode::parse("Required"), None);
        assert_eq!(DpopConfig::default().algorithm_names()[0], "ES256");
    }
}
