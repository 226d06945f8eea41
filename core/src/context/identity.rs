//! The authenticated caller of a request: what a verified bearer token says.

use serde_json::{Map, Value};

/// Who a verified access token says the caller is. The authorization layer fills it; handlers
/// read it from [`RequestContext::identity`](super::RequestContext::identity).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Identity {
    /// The token's subject (`sub`).
    pub subject: Option<String>,
    /// The OAuth client the token was issued to (`client_id` / `azp`).
    pub client_id: Option<String>,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// Every claim of the token (a JWT's payload, an introspection response).
    pub claims: Map<String, Value>,
}

impl Identity {
    /// True when the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// True when the token grants every scope of `scopes`.
    pub fn has_scopes<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> bool {
        scopes.into_iter().all(|s| self.has_scope(s))
    }
}
