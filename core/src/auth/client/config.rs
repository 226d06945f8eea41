//! How an [`OAuth`](super::OAuth) client obtains tokens: the grant, the client's identity and
//! credentials, the user-interaction hook, the store, DPoP.

use super::redirect::AuthorizationHandler;
use super::store::{MemoryTokenStore, TokenStore};
use std::sync::Arc;

/// How the client authenticates at the token endpoint with pre-registered credentials.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientAuth {
    /// A public client (`none`): only the client id is sent.
    None,
    /// A client secret, sent as `client_secret_basic` or `client_secret_post`, whichever the
    /// authorization server supports (basic preferred).
    Secret(String),
    /// RFC 7523 `private_key_jwt`: a signed assertion with this PEM private key (PKCS#8, EC
    /// P-256 or RSA). `algorithm` (`ES256`, `RS256`…) defaults to the key's natural one.
    PrivateKeyJwt {
        /// The private key, PEM.
        pem: String,
        /// The JWS algorithm.
        algorithm: Option<String>,
    },
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientAuth::None => f.write_str("None"),
            ClientAuth::Secret(_) => f.write_str("Secret(<redacted>)"),
            ClientAuth::PrivateKeyJwt { algorithm, .. } => {
                f.debug_struct("PrivateKeyJwt").field("algorithm", algorithm).finish_non_exhaustive()
            }
        }
    }
}

/// Credentials registered out of band (highest priority, 2026-07-28
/// `basic/authorization/client-registration`, "Pre-registration").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreRegistered {
    /// The client id.
    pub client_id: String,
    /// How to authenticate.
    pub auth: ClientAuth,
    /// The issuer these credentials belong to. `None`: whichever authorization server the MCP
    /// server names. `Some`: only that one; another issuer is refused with
    /// [`AuthError::CREDENTIALS_FOR_OTHER_ISSUER`](crate::auth::AuthError::CREDENTIALS_FOR_OTHER_ISSUER)
    /// (the spec's "Authorization Server Binding").
    pub issuer: Option<String>,
}

/// How tokens are obtained.
#[derive(Clone, PartialEq, Eq)]
pub enum Grant {
    /// The authorization code grant with PKCE, on behalf of a user: the
    /// [`OAuthConfig::authorization`] hook takes the user to the authorization URL and returns
    /// the redirect.
    AuthorizationCode,
    /// The client credentials grant (machine to machine; the
    /// `io.modelcontextprotocol/oauth-client-credentials` extension). Needs
    /// [`OAuthConfig::pre_registered`].
    ClientCredentials,
    /// The RFC 7523 JWT bearer grant with a workload identity assertion (the
    /// `io.modelcontextprotocol/auth/wif` extension): `assertion` is a JWT issued for the
    /// authorization server. Failures are reported, never retried with another grant.
    JwtBearer {
        /// The JWT.
        assertion: String,
    },
    /// Enterprise-managed authorization (the
    /// `io.modelcontextprotocol/enterprise-managed-authorization` extension): the user's
    /// identity assertion (an ID token) is exchanged at the identity provider for an ID-JAG
    /// (RFC 8693), which is then the RFC 7523 grant at the MCP server's authorization server.
    IdentityAssertion(IdentityAssertion),
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Grant::AuthorizationCode => f.write_str("AuthorizationCode"),
            Grant::ClientCredentials => f.write_str("ClientCredentials"),
            Grant::JwtBearer { .. } => f.write_str("JwtBearer { assertion: <redacted> }"),
            Grant::IdentityAssertion(a) => f.debug_tuple("IdentityAssertion").field(a).finish(),
        }
    }
}

/// The identity provider side of [`Grant::IdentityAssertion`].
#[derive(Clone, PartialEq, Eq)]
pub struct IdentityAssertion {
    /// The identity provider's token endpoint.
    pub idp_token_endpoint: String,
    /// The identity assertion (an OpenID Connect ID token).
    pub id_token: String,
    /// The client id at the identity provider.
    pub idp_client_id: Option<String>,
    /// The client secret at the identity provider, if it requires one.
    pub idp_client_secret: Option<String>,
}

impl std::fmt::Debug for IdentityAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityAssertion")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

/// When to use DPoP (RFC 9449) sender-constrained tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DpopMode {
    /// When both sides take them: the resource's Protected Resource Metadata lists `ES256` in
    /// `dpop_signing_alg_values_supported` or says `dpop_bound_access_tokens_required` (RFC 9728
    /// §2), and the authorization server lists `ES256` in its own
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1). An authorization server that offers
    /// DPoP to every client (Keycloak does) then does not make the client present DPoP tokens
    /// to a resource that takes only bearer tokens.
    #[default]
    Auto,
    /// Whenever the authorization server offers `ES256`, whatever the resource's metadata says
    /// (for a resource that takes DPoP without saying so).
    Offered,
    /// Never: plain bearer tokens.
    Off,
}

/// The configuration of an [`OAuth`](super::OAuth) client.
#[derive(Clone)]
pub struct OAuthConfig {
    /// The grant (default: the authorization code grant).
    pub grant: Grant,
    /// Pre-registered client credentials, used first.
    pub pre_registered: Option<PreRegistered>,
    /// An `https` URL serving this client's Client ID Metadata Document, used as the client id
    /// when the authorization server advertises `client_id_metadata_document_supported`.
    pub client_metadata_url: Option<String>,
    /// `client_name` for Dynamic Client Registration (default `mcpcore`).
    pub client_name: String,
    /// Scopes to request instead of the spec's selection (challenge, then PRM
    /// `scopes_supported`); a 403 `insufficient_scope` still adds the challenged ones.
    pub scopes: Option<Vec<String>>,
    /// Ask for `offline_access` (a refresh token) when the authorization server lists it
    /// (default on; SEP-2207 in 2026-07-28 `basic/authorization`, "Refresh Tokens").
    pub offline_access: bool,
    /// The user-interaction step of [`Grant::AuthorizationCode`].
    pub authorization: Option<Arc<dyn AuthorizationHandler>>,
    /// Where tokens and registrations live (default: in memory).
    pub store: Arc<dyn TokenStore>,
    /// DPoP policy.
    pub dpop: DpopMode,
    /// How many authorizations one request may trigger (401 and 403 `insufficient_scope` alike)
    /// before it fails (default 3).
    pub max_authorizations: usize,
}

impl OAuthConfig {
    /// The authorization code grant through `authorization`, with an in-memory store.
    pub fn authorization_code(authorization: Arc<dyn AuthorizationHandler>) -> Self {
        OAuthConfig { authorization: Some(authorization), ..Self::base(Grant::AuthorizationCode) }
    }

    /// The client credentials grant with pre-registered credentials.
    pub fn client_credentials(client_id: impl Into<String>, auth: ClientAuth) -> Self {
        OAuthConfig {
            pre_registered: Some(PreRegistered { client_id: client_id.into(), auth, issuer: None }),
            ..Self::base(Grant::ClientCredentials)
        }
    }

    /// A configuration for `grant` with nothing else set.
    pub fn base(grant: Grant) -> Self {
        OAuthConfig {
            grant,
            pre_registered: None,
            client_metadata_url: None,
            client_name: "mcpcore".into(),
            scopes: None,
            offline_access: true,
            authorization: None,
            store: Arc::new(MemoryTokenStore::new()),
            dpop: DpopMode::Auto,
            max_authorizations: 3,
        }
    }
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("grant", &self.grant)
            .field("pre_registered", &self.pre_registered)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("offline_access", &self.offline_access)
            .field("authorization", &self.authorization.as_ref().map(|a| a.redirect_uri()))
            .field("store", &self.store)
            .field("dpop", &self.dpop)
            .field("max_authorizations", &self.max_authorizations)
            .finish()
    }
}
