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
