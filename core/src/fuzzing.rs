//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`, never part of the API):
//! the crate-private functions a target needs, wrapped as they are, nothing widened.

use crate::error::ErrorData;
use crate::state::{self, Binding, StateKey, StateKeys};
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime};

/// Seals `answers` and `user` for `method` on `target` with `arguments`, as the engine does when
/// a handler needs input (`state::seal`).
pub fn seal_request_state(
    key: &[u8],
    method: &str,
    target: &str,
    arguments: &Value,
    answers: Map<String, Value>,
    user: Option<Value>,
    ttl: Duration,
    now: SystemTime,
) -> String {
    let binding = Binding::new(method, target, arguments);
    state::seal(&StateKey::new(key), &binding, answers, user, ttl, now)
}

/// Opens `state` for `method` on `target` with `arguments` (`state::open`): the answers
/// and user state it held, or the `-32602` error a client gets.
pub fn open_request_state(
    key: &[u8],
    state: &str,
    method: &str,
    target: &str,
    arguments: &Value,
    now: SystemTime,
) -> Result<(Map<String, Value>, Option<Value>), ErrorData> {
    let binding = Binding::new(method, target, arguments);
    state::open(&StateKeys::new([StateKey::new(key)]), state, &binding, now).map(|s| (s.answers, s.user))
}

/// The key ids of the usable keys of a JWKS document, as the JWT resource server reads one it
/// fetched (`auth::server::jwks`), or why the document is refused.
pub fn parse_jwks(body: &[u8]) -> Result<Vec<Option<String>>, String> {
    crate::auth::server::jwks::parse_for_fuzzing(body)
}

/// Checks `proof` as a server with DPoP required does for `POST uri` with the access token
/// `token` at `now` (`auth::server::dpop::check_proof`): the thumbprint of its key, or why it
/// is refused.
pub fn check_dpop_proof(proof: &str, uri: &str, token: &str, now: SystemTime) -> Result<String, String> {
    use crate::auth::server::dpop::{check_proof, ProofTarget};
    let config = crate::auth::server::DpopConfig::new(crate::auth::server::DpopMode::Required);
    let uris = [uri.to_owned()];
    check_proof(&config, proof, &ProofTarget { method: "POST", uris: &uris, token, now }).map(|p| p.jkt)
}

/// The RFC 7638 thumbprint of `jwk` (`auth::server::dpop::thumbprint`).
pub fn dpop_thumbprint(jwk: &Map<String, Value>) -> Option<String> {
    crate::auth::server::dpop::thumbprint(jwk)
}
