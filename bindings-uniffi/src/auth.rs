//! [`OAuth`]: the core's OAuth 2.1 client for `Client.connectHttp` (`ConnectOptions.auth`).
//! The host implements [`OAuthHandler`] (the user step: Kotlin `suspend fun authorize`, Swift
//! `func authorize(...) async throws`) and optionally [`OAuthTokenStore`] (records cross as
//! JSON text, like every large payload of this binding).

use crate::errors::McpError;
use mcpcore::auth::client::{
    AuthorizationHandler, ClientAuth, DpopMode, FileTokenStore, Grant, LoopbackRedirect, OAuthConfig,
    PreRegistered, StoredClient, StoredTokens, TokenStore,
};
use mcpcore::auth::AuthError;
use mcpcore::client::BoxFuture;
use mcpcore::{Error, ErrorKind};
use std::sync::Arc;

/// The user-interaction step of the authorization code grant.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait OAuthHandler: Send + Sync {
    /// The redirect URI sent in the authorization request (constant).
    fn redirect_uri(&self) -> String;
    /// Takes the user to `url`; returns the URL the authorization server redirected back to.
    async fn authorize(&self, url: String) -> Result<String, McpError>;
}

/// Where tokens (per MCP server URL) and client registrations (per issuer) survive a restart.
/// Records are JSON objects as text (`null`/`None`: nothing stored); treat them as secrets.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait OAuthTokenStore: Send + Sync {
    /// The tokens stored for `server`.
    async fn load_tokens(&self, server: String) -> Result<Option<String>, McpError>;
    /// Stores (or, with `None`, forgets) the tokens for `server`.
    async fn save_tokens(&self, server: String, tokens: Option<String>) -> Result<(), McpError>;
    /// The registration stored for the authorization server `issuer`.
    async fn load_client(&self, issuer: String) -> Result<Option<String>, McpError>;
    /// Stores (or forgets) the registration for `issuer`.
    async fn save_client(&self, issuer: String, client: Option<String>) -> Result<(), McpError>;
}

/// How tokens are obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum OAuthGrant {
    /// The authorization code grant with PKCE, through the [`OAuthHandler`].
    AuthorizationCode,
    /// Client credentials (machine to machine; needs `client_id`).
    ClientCredentials,
    /// RFC 7523 JWT bearer with a workload identity `assertion`.
    JwtBearer,
}

/// The configuration of an [`OAuth`] client. Every field has a default.
#[derive(Debug, Clone, Default, uniffi::Record)]
pub struct OAuthOptions {
    /// The grant (default: the authorization code grant).
    #[uniffi(default = None)]
    pub grant: Option<OAuthGrant>,
    /// Pre-registered client id (used first).
    #[uniffi(default = None)]
    pub client_id: Option<String>,
    /// Its secret (`client_secret_basic`/`_post`).
    #[uniffi(default = None)]
    pub client_secret: Option<String>,
    /// `private_key_jwt`: a PKCS#8 PEM private key.
    #[uniffi(default = None)]
    pub private_key_pem: Option<String>,
    /// The assertion's algorithm (default: the key's).
    #[uniffi(default = None)]
    pub signing_algorithm: Option<String>,
    /// The issuer the pre-registered credentials belong to (others are refused).
    #[uniffi(default = None)]
    pub issuer: Option<String>,
    /// The JWT of [`OAuthGrant::JwtBearer`].
    #[uniffi(default = None)]
    pub assertion: Option<String>,
    /// Scopes to request instead of the server's (a 403 still adds what it needs).
    #[uniffi(default = None)]
    pub scopes: Option<Vec<String>>,
    /// This client's Client ID Metadata Document (an https URL).
    #[uniffi(default = None)]
    pub client_metadata_url: Option<String>,
    /// `client_name` for Dynamic Client Registration.
    #[uniffi(default = None)]
    pub client_name: Option<String>,
    /// Ask for `offline_access` when offered (default true).
    #[uniffi(default = None)]
    pub offline_access: Option<bool>,
    /// Use DPoP-bound tokens when the resource's metadata and its authorization server both say
    /// they take them (default true; false: bearer tokens only).
    #[uniffi(default = None)]
    pub dpop: Option<bool>,
    /// Authorizations one request may trigger (default 3).
    #[uniffi(default = None)]
    pub max_authorizations: Option<u32>,
    /// A JSON file store (mode 0600), when no [`OAuthTokenStore`] is given.
    #[uniffi(default = None)]
    pub store_path: Option<String>,
}

struct ForeignAuthorize(Arc<dyn OAuthHandler>);

impl AuthorizationHandler for ForeignAuthorize {
    fn redirect_uri(&self) -> String {
        self.0.redirect_uri()
    }

    fn authorize(&self, url: String) -> BoxFuture<'_, mcpcore::Result<String>> {
        Box::pin(async move {
            self.0.authorize(url).await.map_err(|e| {
                Error::auth(AuthError::new(
                    AuthError::INTERACTION_FAILED,
                    format!("authorize failed: {}", e.reason()),
                ))
            })
        })
    }
}

struct ForeignStore(Arc<dyn OAuthTokenStore>);

impl std::fmt::Debug for ForeignStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ForeignStore")
    }
}

fn io(method: &str, e: McpError) -> Error {
    Error::new(ErrorKind::Io, format!("the token store's {method} failed: {}", e.reason()))
}

fn parse<T: serde::de::DeserializeOwned>(method: &str, text: Option<String>) -> mcpcore::Result<Option<T>> {
    text.filter(|t| t.trim() != "null").map(|t| serde_json::from_str(&t)).transpose().map_err(|e| {
        Error::new(ErrorKind::Io, format!("the token store's {method} returned a bad record: {e}"))
    })
}

impl TokenStore for ForeignStore {
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredTokens>>> {
        let server = server.to_owned();
        Box::pin(async move {
            parse("loadTokens", self.0.load_tokens(server).await.map_err(|e| io("loadTokens", e))?)
        })
    }
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let (server, json) =
            (server.to_owned(), tokens.map(|t| serde_json::to_string(&t).expect("serializes")));
        Box::pin(async move { self.0.save_tokens(server, json).await.map_err(|e| io("saveTokens", e)) })
    }
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredClient>>> {
        let issuer = issuer.to_owned();
        Box::pin(async move {
            parse("loadClient", self.0.load_client(issuer).await.map_err(|e| io("loadClient", e))?)
        })
    }
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let (issuer, json) =
            (issuer.to_owned(), client.map(|c| serde_json::to_string(&c).expect("serializes")));
        Box::pin(async move { self.0.save_client(issuer, json).await.map_err(|e| io("saveClient", e)) })
    }
}

/// An OAuth 2.1 client for one or more MCP servers; pass it as `ConnectOptions.auth`.
#[derive(Debug, uniffi::Object)]
pub struct OAuth {
    pub(crate) inner: mcpcore::auth::client::OAuth,
}

#[uniffi::export]
impl OAuth {
    /// A client with `options`; `handler` is the user step (without it, a 127.0.0.1 loopback
    /// listener opens the system browser); `store` keeps tokens (default: in memory).
    #[uniffi::constructor(default(handler = None, store = None))]
    pub fn new(
        options: OAuthOptions,
        handler: Option<Arc<dyn OAuthHandler>>,
        store: Option<Arc<dyn OAuthTokenStore>>,
    ) -> Result<Arc<Self>, McpError> {
        let grant = match options.grant.unwrap_or(OAuthGrant::AuthorizationCode) {
            OAuthGrant::AuthorizationCode => Grant::AuthorizationCode,
            OAuthGrant::ClientCredentials => Grant::ClientCredentials,
            OAuthGrant::JwtBearer => Grant::JwtBearer {
                assertion: options
                    .assertion
                    .clone()
                    .ok_or_else(|| McpError::invalid("JwtBearer needs an assertion"))?,
            },
        };
        let mut cfg = OAuthConfig::base(grant);
        if let Some(id) = options.client_id {
            let auth = match (options.private_key_pem, options.client_secret) {
                (Some(pem), _) => ClientAuth::PrivateKeyJwt { pem, algorithm: options.signing_algorithm },
                (None, Some(s)) => ClientAuth::Secret(s),
                (None, None) => ClientAuth::None,
            };
            cfg.pre_registered = Some(PreRegistered { client_id: id, auth, issuer: options.issuer });
        }
        cfg.scopes = options.scopes;
        cfg.client_metadata_url = options.client_metadata_url;
        cfg.client_name = options.client_name.unwrap_or_else(|| "mcpcore-uniffi".into());
        cfg.offline_access = options.offline_access.unwrap_or(true);
        cfg.dpop = if options.dpop.unwrap_or(true) { DpopMode::Auto } else { DpopMode::Off };
        if let Some(m) = options.max_authorizations {
            cfg.max_authorizations = m as usize;
        }
        cfg.authorization = match handler {
            Some(h) => Some(Arc::new(ForeignAuthorize(h))),
            None if cfg.grant == Grant::AuthorizationCode => {
                Some(Arc::new(LoopbackRedirect::bind().map_err(|e| McpError::from(Error::from(e)))?))
            }
            None => None,
        };
        cfg.store = match (store, options.store_path) {
            (Some(s), _) => Arc::new(ForeignStore(s)),
            (None, Some(p)) => Arc::new(FileTokenStore::new(p)),
            (None, None) => cfg.store,
        };
        Ok(Arc::new(OAuth { inner: mcpcore::auth::client::OAuth::new(cfg) }))
    }

    /// The tokens held for the MCP server at `url`, as JSON text.
    pub async fn tokens(&self, url: String) -> Result<Option<String>, McpError> {
        let o = self.inner.clone();
        crate::rt::in_runtime(async move {
            Ok(o.tokens(&url).await?.map(|t| serde_json::to_string(&t).expect("serializes")))
        })
        .await
    }

    /// Forgets the tokens for the MCP server at `url` (registrations stay).
    pub async fn forget(&self, url: String) -> Result<(), McpError> {
        let o = self.inner.clone();
        crate::rt::in_runtime(async move { Ok(o.forget(&url).await?) }).await
    }
}
