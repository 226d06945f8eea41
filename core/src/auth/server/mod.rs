//! The resource-server half (2025-11-25 and 2026-07-28 `basic/authorization`): an MCP server
//! as an OAuth 2.1 resource server.
//!
//! Put an [`AuthConfig`] in [`HttpServerConfig::auth`](crate::http::server::HttpServerConfig::auth):
//! every request to the MCP endpoint then needs `Authorization: Bearer <token>`, checked by a
//! [`TokenVerifier`] — [`JwtVerifier`] (signature from a JWKS URL, issuer, audience = the
//! server's canonical resource URI, allowed algorithms, clock skew) or
//! [`IntrospectionVerifier`] (RFC 7662), or the host's own. The HTTP layer answers
//!
//! - no token: 401 `WWW-Authenticate: Bearer resource_metadata="<PRM URL>"` (and `scope` with
//!   the scopes every request needs, when configured);
//! - a refused token: 401 with `error="invalid_token"` and a description;
//! - a token without a scope every request needs: 403 `error="insufficient_scope"` naming the
//!   scopes;
//!
//! and serves the RFC 9728 Protected Resource Metadata document at
//! `/.well-known/oauth-protected-resource<resource path>` and at the root well-known URI
//! (the two URIs clients try, 2026-07-28 `basic/authorization/authorization-server-discovery`).
//!
//! **The caller's catalogue.** Tools, prompts and resources may need scopes
//! ([`AuthConfig::tool_scopes`]…); [`Visibility`] rules (tool and prompt name patterns
//! allowed or denied by scopes and token claims) and a [`HostFilter`] may add rules beyond
//! scopes. Under
//! [`ScopeMode::Hide`] (the default) an entry the caller's token does not reach does not exist
//! for it: `tools/list` leaves it out and `tools/call` answers "Unknown tool" (`-32602`), the
//! same as for a name never registered, so the catalogue reveals nothing a caller cannot use.
//! Under [`ScopeMode::StepUp`] lists show every entry and using one whose scopes the token
//! lacks gets the spec's runtime scope challenge instead (403 `insufficient_scope` with every
//! scope the operation needs, 2026-07-28 `basic/authorization` "Scope Challenge Handling"), so
//! a client can step up. Visibility rules and the host filter always hide.
//!
//! The verified [`Identity`] reaches every handler (`RequestContext::identity`). The bearer
//! token itself does not: the `Authorization` header is removed once verified, so neither
//! handlers nor a forwarded call can pass it on (the spec forbids token passthrough).

mod config;
pub(crate) mod dpop;
mod introspection;
pub(crate) mod jwks;
mod jwt;
mod settings;
mod stdio;
mod visibility;

pub use crate::context::{Access, Entry, Identity};
pub use config::{AuthConfig, HostFilter, Scheme, ScopeMode};
pub use dpop::{DpopConfig, DpopMode};
pub use introspection::{IntrospectionConfig, IntrospectionVerifier};
/// The signing algorithms [`JwtConfig::algorithms`] lists (from `jsonwebtoken`).
pub use jsonwebtoken::Algorithm;
pub use jwt::{JwtConfig, JwtVerifier};
pub use settings::{auth_config, host_verdict, verifier_failed, Spelling};
pub use stdio::TOKEN_ENV;
pub use visibility::{Condition, Visibility, VisibilityRule};

use crate::future::BoxFuture;

/// Checks a bearer token: the identity it carries, or why it is refused. Implemented by the
/// built-in verifiers and by hosts (a binding adapts a host-language callback to it).
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token` (the credentials of `Authorization: Bearer <token>`).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Refusal>>;
}

/// Any `Fn(String) -> impl Future<Output = Result<Identity, Refusal>>` is a verifier: what a
/// binding wraps a host callback in, and the quickest way to write one.
///
/// ```
/// use mcpcore::auth::server::{Identity, Refusal, TokenVerifier};
/// let verifier = |token: String| async move {
///     match token.as_str() {
///         "letmein" => Ok(Identity { subject: Some("ops".into()), ..Identity::default() }),
///         _ => Err(Refusal::InvalidToken("unknown token".into())),
///     }
/// };
/// let _: std::sync::Arc<dyn TokenVerifier> = std::sync::Arc::new(verifier);
/// ```
impl<F, Fut> TokenVerifier for F
where
    F: Fn(String) -> Fut + Send + Sync,
    Fut: std::future::Future<Output = Result<Identity, Refusal>> + Send + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self(token.to_owned()))
    }
}

/// Why a token is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Expired, revoked, malformed, badly signed, for another audience or issuer (401
    /// `invalid_token`, RFC 6750 §3.1).
    InvalidToken(String),
    /// Valid, but without the scopes the request needs (403 `insufficient_scope`).
    InsufficientScope {
        /// The scopes the request needs.
        scopes: Vec<String>,
        /// Why, for `error_description`.
        description: String,
    },
    /// The verifier could not decide (keys or the introspection endpoint unreachable): 503.
    Unavailable(String),
}

impl Refusal {
    /// The HTTP status of the refusal.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::InvalidToken(_) => 401,
            Refusal::InsufficientScope { .. } => 403,
            Refusal::Unavailable(_) => 503,
        }
    }

    /// The RFC 6750 `error` code (`temporarily_unavailable` for [`Refusal::Unavailable`]).
    pub fn error(&self) -> &'static str {
        match self {
            Refusal::InvalidToken(_) => "invalid_token",
            Refusal::InsufficientScope { .. } => "insufficient_scope",
            Refusal::Unavailable(_) => "temporarily_unavailable",
        }
    }

    /// The `error_description`.
    pub fn description(&self) -> &str {
        match self {
            Refusal::InvalidToken(d) | Refusal::Unavailable(d) => d,
            Refusal::InsufficientScope { description, .. } => description,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error(), self.description())
    }
}

impl std::error::Error for Refusal {}
