//! [`ServerAuth`]: a protected HTTP server (an OAuth 2.1 resource server) for
//! `Server.serveHttp(auth = ...)`. The settings are a record; tokens are checked by the core's
//! JWT verifier (`jwksUrl`, `issuer`, `audience`) or by the host's [`TokenVerifier`]
//! (Kotlin `suspend fun verify`, Swift `func verify(token:) async throws`). The rules (JWT
//! checks, scopes, the per-identity catalogue, the 401/403 challenges, the Protected Resource
//! Metadata) are the core's (`mcpcore::auth::server`); handlers read the caller on
//! `ToolCall.identity()`.

use crate::errors::McpError;
use mcpcore::auth::server::{auth_config, AuthConfig, Identity, Refusal, Spelling};
use mcpcore::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Arc;

/// Who a verified token speaks for.
#[derive(Debug, Clone, Default, uniffi::Record)]
pub struct AuthIdentity {
    /// The subject (`sub`), when the token names one.
    #[uniffi(default = None)]
    pub subject: Option<String>,
    /// The OAuth client the token was issued to.
    #[uniffi(default = None)]
    pub client_id: Option<String>,
    /// The granted scopes.
    #[uniffi(default = [])]
    pub scopes: Vec<String>,
    /// Further claims as a JSON object (text), e.g. `{"tenant":"acme"}`.
    #[uniffi(default = None)]
    pub claims: Option<String>,
}

/// Why the host's [`TokenVerifier`] refuses a token. Any other exception thrown by the
/// verifier counts as `Unavailable`.
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum TokenRefused {
    /// Not valid (expired, wrong audience, unknown): 401 with `error="invalid_token"`.
    #[error("invalid token: {description}")]
    InvalidToken {
        /// Said in the challenge's `error_description`.
        description: String,
    },
    /// Valid, but without `scopes`: 403 with `error="insufficient_scope"`.
    #[error("insufficient scope: {description}")]
    InsufficientScope {
        /// The scopes needed.
        scopes: Vec<String>,
        /// Said in the challenge.
        description: String,
    },
    /// It cannot be checked now (the issuer is down): 503.
    #[error("token verification unavailable: {description}")]
    Unavailable {
        /// Why.
        description: String,
    },
}

impl From<uniffi::UnexpectedUniFFICallbackError> for TokenRefused {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        TokenRefused::Unavailable { description: format!("the token verifier failed: {}", e.reason) }
    }
}

/// The host's token check: the identity a bearer token carries, or why it is refused.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token` (the credentials of `Authorization: Bearer <token>`).
    async fn verify(&self, token: String) -> Result<AuthIdentity, TokenRefused>;
}

/// A protected server's settings; every field has a default, but a server needs `issuer` (or
/// `authorizationServers`), `audience` (or `resource`), and `jwksUrl` unless a
/// [`TokenVerifier`] is given.
#[derive(Debug, Clone, Default, uniffi::Record, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthSettings {
    /// Where the authorization server publishes its signing keys (the built-in JWT verifier).
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwks_url: Option<String>,
    /// The tokens' issuer (`iss`), named in the metadata as the authorization server.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The tokens' audience (`aud`); defaults to `resource`.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The server's canonical URI (RFC 8707); defaults to `audience`.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The authorization servers named in the metadata (default: `[issuer]`).
    #[uniffi(default = [])]
    pub authorization_servers: Vec<String>,
    /// `scopes_supported` in the metadata.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs (403 `insufficient_scope` without them).
    #[uniffi(default = [])]
    pub required_scopes: Vec<String>,
    /// Scopes a tool needs, by tool name.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_scopes: Option<HashMap<String, Vec<String>>>,
    /// Scopes a prompt needs, by prompt name.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_scopes: Option<HashMap<String, Vec<String>>>,
    /// Scopes a resource needs, by URI (or URI template).
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_scopes: Option<HashMap<String, Vec<String>>>,
    /// `"hide"` (default: entries a token does not reach are left out of lists and refused like
    /// unknown ones) or `"stepUp"` (listed; using one answers 403 with the scopes it needs).
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_mode: Option<String>,
    /// Clock skew allowed on `exp`/`nbf`, in seconds (default 60).
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leeway_seconds: Option<u64>,
    /// DPoP-bound tokens (RFC 9449: `Authorization: DPoP` with a `DPoP` proof): `"off"`
    /// (default), `"allowed"` or `"required"`. A DPoP-bound token is never a bearer token.
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpop: Option<String>,
    /// Also demand server-provided DPoP nonces (RFC 9449 §9; default false).
    #[uniffi(default = None)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpop_nonce: Option<bool>,
    /// Rules hiding tools and prompts per caller, as JSON text: a list of
    /// `{"tools"|"prompts": [patterns], "allow"|"deny": {"scopes": [...], "claims": {...}}}`.
    #[uniffi(default = None)]
    #[serde(skip)]
    pub visibility_json: Option<String>,
}

/// A protected server's configuration, checked when made; pass it to `Server.serveHttp`.
#[derive(uniffi::Object)]
pub struct ServerAuth {
    pub(crate) config: AuthConfig,
}

#[uniffi::export]
impl ServerAuth {
    /// Checks `settings`; `verifier` replaces the built-in JWT verifier.
    #[uniffi::constructor(default(verifier = None))]
    pub fn new(
        settings: AuthSettings,
        verifier: Option<Arc<dyn TokenVerifier>>,
    ) -> Result<Arc<Self>, McpError> {
        let mut value = serde_json::to_value(&settings).map_err(|e| McpError::invalid(e.to_string()))?;
        if let Some(text) = &settings.visibility_json {
            let rules: serde_json::Value = serde_json::from_str(text)
                .map_err(|e| McpError::invalid(format!("visibilityJson is not JSON: {e}")))?;
            value["visibility"] = rules;
        }
        let json = value.to_string();
        let host = verifier.map(|v| Arc::new(Host(v)) as Arc<dyn mcpcore::auth::server::TokenVerifier>);
        let config = auth_config(&json, Spelling::Camel, host)?;
        Ok(Arc::new(ServerAuth { config }))
    }

    /// The Protected Resource Metadata URL named in challenges.
    pub fn metadata_url(&self) -> Option<String> {
        self.config.metadata_url()
    }
}

/// The host's verifier as the core's.
struct Host(Arc<dyn TokenVerifier>);

impl mcpcore::auth::server::TokenVerifier for Host {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(async move {
            match self.0.verify(token.to_owned()).await {
                Ok(id) => {
                    let claims = match id.claims.as_deref() {
                        None => serde_json::Map::new(),
                        Some(text) => match serde_json::from_str(text) {
                            Ok(serde_json::Value::Object(m)) => m,
                            _ => {
                                return Err(mcpcore::auth::server::verifier_failed(
                                    "AuthIdentity.claims is not a JSON object",
                                ))
                            }
                        },
                    };
                    Ok(Identity { subject: id.subject, client_id: id.client_id, scopes: id.scopes, claims })
                }
                Err(TokenRefused::InvalidToken { description }) => Err(Refusal::InvalidToken(description)),
                Err(TokenRefused::InsufficientScope { scopes, description }) => {
                    Err(Refusal::InsufficientScope { scopes, description })
                }
                Err(TokenRefused::Unavailable { description }) => Err(Refusal::Unavailable(description)),
            }
        })
    }
}
