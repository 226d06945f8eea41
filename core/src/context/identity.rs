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

    /// Whose the caller's server-side state is (legacy sessions, tasks): `sub:<subject>`, else
    /// `client:<client id>`; `None` when the token names neither.
    pub fn owner(&self) -> Option<String> {
        match (&self.subject, &self.client_id) {
            (Some(s), _) => Some(format!("sub:{s}")),
            (None, Some(c)) => Some(format!("client:{c}")),
            (None, None) => None,
        }
    }

    /// True when the token grants every scope of `scopes`.
    pub fn has_scopes<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> bool {
        scopes.into_iter().all(|s| self.has_scope(s))
    }
}

impl Identity {
    /// The identity a token's claims describe (a JWT payload, an RFC 7662 introspection
    /// response): `sub`; `client_id`, else `azp`; the scopes of `scope` (space-separated,
    /// RFC 9068 / RFC 7662), else of `scp` (a list or a string, as some servers send).
    pub fn from_claims(claims: Map<String, Value>) -> Identity {
        let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
        let split = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(s)), _) => split(s),
            (_, Some(Value::String(s))) => split(s),
            (_, Some(Value::Array(a))) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        Identity {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            claims,
        }
    }
}

/// The caller's own bearer token, kept beside its [`Identity`] (a request extension) for one use
/// only: a gateway's on-behalf-of exchange (RFC 8693) for an upstream's token. Crate-private, so
/// no handler, middleware or binding can read it, and it is never sent anywhere as it is.
#[derive(Clone)]
pub(crate) struct CallerToken(pub(crate) std::sync::Arc<str>);

impl CallerToken {
    /// The token's SHA-256: a key for what is kept per caller token (pooled connections, cached
    /// lists) that holds nothing of the token itself.
    pub(crate) fn digest(&self) -> [u8; 32] {
        use sha2::Digest as _;
        sha2::Sha256::digest(self.0.as_bytes()).into()
    }
}

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerToken(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_give_subject_client_and_scopes() {
        let Value::Object(c) = json!({"sub": "u1", "azp": "app", "scope": "a  b"}) else { unreachable!() };
        let id = Identity::from_claims(c);
        assert_eq!((id.subject.as_deref(), id.client_id.as_deref()), (Some("u1"), Some("app")));
        assert_eq!(id.scopes, ["a", "b"]);
        assert!(id.has_scopes(["a", "b"]) && !id.has_scope("c"));
        let Value::Object(c) = json!({"client_id": "c", "azp": "x", "scp": ["s"]}) else { unreachable!() };
        let id = Identity::from_claims(c);
        assert_eq!((id.client_id.as_deref(), id.scopes.as_slice()), (Some("c"), &["s".to_owned()][..]));
    }
}
