//! The OAuth 2.1 client of the HTTP transports (2025-03-26 … 2026-07-28
//! `basic/authorization`, plus the client credentials, DPoP, workload identity and
//! enterprise-managed extensions).
//!
//! Put an [`OAuth`] in [`HttpOptions::auth`](crate::http::client::HttpOptions::auth): every
//! request then carries the current token (`Authorization: Bearer …`, or `DPoP …` with a fresh
//! proof), and a 401 or a 403 `insufficient_scope` runs the whole dance before the request is
//! sent again — PRM and authorization server discovery, registration, the grant, step-up with
//! the union of scopes, at most [`OAuthConfig::max_authorizations`] times per request. A 401
//! first refreshes the token once when a refresh token is at hand. While a flow runs, the
//! client's request timeouts are paused (a user may take a minute to log in).
//!
//! | piece | module |
//! |---|---|
//! | configuration: grant, credentials, DPoP, store, hook | [`config`] |
//! | tokens and registrations that survive a restart | [`store`] |
//! | the user-interaction hook, loopback listener, headless follower | [`redirect`] |
//! | PRM and authorization server discovery | `discovery` |
//! | registration priority, Dynamic Client Registration | `registration` |
//! | scope selection, authorization request, response validation (pure) | `flow` |
//! | token endpoint requests | `token` |
//! | DPoP keys, proofs, nonces | `dpop` |
//! | the per-server state machine | `session` |
//!
//! ```no_run
//! use mcpcore::auth::client::{LoopbackRedirect, OAuth, OAuthConfig};
//! use mcpcore::client::{Client, ClientOptions};
//! use mcpcore::http::client::HttpOptions;
//! use std::sync::Arc;
//!
//! # async fn run() -> mcpcore::Result<()> {
//! let redirect = LoopbackRedirect::bind()?;
//! let oauth = OAuth::new(OAuthConfig::authorization_code(Arc::new(redirect)));
//! let http = HttpOptions { auth: Some(oauth), ..HttpOptions::default() };
//! let client = Client::connect_http("https://mcp.example.com/mcp", http, ClientOptions::default()).await?;
//! println!("{:?}", client.list_tools().await?);
//! # Ok(()) }
//! ```

pub mod config;
pub(crate) mod discovery;
mod dpop;
mod exchange;
mod flow;
pub mod redirect;
mod registration;
mod session;
pub mod store;
mod token;

pub use config::{ClientAuth, DpopMode, Grant, IdentityAssertion, OAuthConfig, PreRegistered};
pub use exchange::{Exchanged, TokenExchange};
pub use redirect::{AuthorizationHandler, Browser, FetchRedirect, LoopbackRedirect};
pub use store::{
    FileTokenStore, MemoryTokenStore, RefreshGuard, StoreContents, StoredClient, StoredTokens, TokenStore,
};

use crate::auth::challenge::OAuthChallenge;
use crate::auth::AuthError;
use crate::error::Result;
use dpop::Nonces;
use session::Session;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// An OAuth client for one or more MCP servers (state is kept per server URL). Cheap to clone.
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

struct Inner {
    config: OAuthConfig,
    /// For metadata, registration and token requests: no redirects, bounded time.
    http: reqwest::Client,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    nonces: Arc<Nonces>,
    clock: Arc<FlowClock>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("config", &self.inner.config).finish_non_exhaustive()
    }
}

/// Counts the authorization flows in progress, so request timeouts can pause meanwhile.
#[derive(Debug, Default)]
pub struct FlowClock {
    active: AtomicUsize,
    epoch: AtomicU64,
}

impl FlowClock {
    /// A number that changes whenever a flow starts or ends.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// True when a flow is running, or one started or ended since `epoch` was read.
    pub fn busy_since(&self, epoch: u64) -> bool {
        self.active.load(Ordering::SeqCst) > 0 || self.epoch() != epoch
    }

    /// Marks a flow running until the guard drops.
    pub(crate) fn busy(self: &Arc<Self>) -> FlowGuard {
        self.active.fetch_add(1, Ordering::SeqCst);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        FlowGuard(self.clone())
    }
}

/// A flow in progress ([`FlowClock::busy`]).
pub(crate) struct FlowGuard(Arc<FlowClock>);

impl Drop for FlowGuard {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
        self.0.epoch.fetch_add(1, Ordering::SeqCst);
    }
}

/// What a request presented, so its response can be judged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Presented {
    generation: u64,
}

/// Per-request counters of retries caused by authorization.
#[derive(Debug, Default)]
pub(crate) struct Tries {
    authorizations: usize,
    nonces: usize,
    refreshed: bool,
}

impl OAuth {
    /// A client with `config`.
    pub fn new(config: OAuthConfig) -> OAuth {
        let http = crate::tls::authorization_client(std::time::Duration::from_secs(30));
        OAuth {
            inner: Arc::new(Inner {
                config,
                http,
                sessions: Mutex::default(),
                nonces: Arc::default(),
                clock: Arc::default(),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &OAuthConfig {
        &self.inner.config
    }

    /// The clock of this client's authorization flows (the HTTP client pauses its timeouts on it).
    pub fn flow_clock(&self) -> Arc<FlowClock> {
        self.inner.clock.clone()
    }

    fn session(&self, url: &reqwest::Url) -> Arc<Session> {
        let key = discovery::server_key(url);
        self.inner
            .sessions
            .lock()
            .expect("lock")
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Session::new(url.clone(), key)))
            .clone()
    }

    /// The tokens held for the MCP server at `url` (from memory, else the store).
    pub async fn tokens(&self, url: &str) -> Result<Option<StoredTokens>> {
        let url = crate::transport::url::parse_url(url)?;
        let s = self.session(&url);
        s.ensure_loaded(&self.inner).await;
        Ok(s.current().map(|c| c.tokens))
    }

    /// Forgets the tokens for the MCP server at `url`, here and in the store (the
    /// registrations stay).
    pub async fn forget(&self, url: &str) -> Result<()> {
        let url = crate::transport::url::parse_url(url)?;
        let s = self.session(&url);
        s.clear();
        self.inner.config.store.save_tokens(&s.key, None).await
    }

    /// Adds `Authorization` (and `DPoP`) to a request for `url`.
    pub(crate) async fn authorize_request(
        &self,
        rb: reqwest::RequestBuilder,
        method: &reqwest::Method,
        url: &reqwest::Url,
    ) -> Result<(reqwest::RequestBuilder, Presented)> {
        let s = self.session(url);
        s.ensure_loaded(&self.inner).await;
        s.refresh_if_expired(&self.inner).await;
        let generation = s.generation();
        let Some(cur) = s.current() else { return Ok((rb, Presented { generation })) };
        let token = &cur.tokens.access_token;
        let rb = match (&cur.dpop, cur.tokens.token_type.eq_ignore_ascii_case("dpop")) {
            (Some(key), true) => {
                let nonce = self.inner.nonces.get(url);
                let proof = key
                    .proof(method.as_str(), url, Some(token), nonce.as_deref(), token::now_secs())
                    .map_err(|e| AuthError::new(AuthError::INVALID_CONFIG, e))?;
                rb.header("authorization", format!("DPoP {token}")).header("DPoP", proof)
            }
            _ => rb.header("authorization", format!("Bearer {token}")),
        };
        Ok((rb, Presented { generation: cur.generation }))
    }

    /// Judges a response: `Ok(true)` means "send the request again" (after a new token or a
    /// DPoP nonce); `Ok(false)` means "this is the answer"; an error ends the request.
    pub(crate) async fn after_response(
        &self,
        url: &reqwest::Url,
        resp: &reqwest::Response,
        presented: Presented,
        tries: &mut Tries,
        version: Option<&str>,
    ) -> Result<bool> {
        let status = resp.status().as_u16();
        let nonce = resp.headers().get("dpop-nonce").and_then(|v| v.to_str().ok());
        if let Some(n) = nonce {
            self.inner.nonces.set(url, n);
        }
        if status != 401 && status != 403 {
            return Ok(false);
        }
        let challenge = OAuthChallenge::from_headers(
            resp.headers().get_all(reqwest::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()),
        );
        let error = challenge.error.as_deref();
        if status == 401 && error == Some("use_dpop_nonce") && nonce.is_some() {
            tries.nonces += 1;
            return Ok(tries.nonces <= 2);
        }
        if status == 403 && error != Some("insufficient_scope") {
            return Ok(false);
        }
        tries.authorizations += 1;
        if tries.authorizations > self.inner.config.max_authorizations {
            return Err(AuthError {
                error: challenge.error.clone().unwrap_or_else(|| AuthError::RETRY_LIMIT.into()),
                description: Some(format!(
                    "{url} still answers {status} after {} authorizations{}",
                    self.inner.config.max_authorizations,
                    challenge.error_description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
                )),
                uri: None,
                status: Some(status),
                challenge: None,
            }
            .into());
        }
        let s = self.session(url);
        let step_up = status == 403;
        s.reauthorize(&self.inner, presented.generation, &challenge, step_up, tries, version).await?;
        Ok(true)
    }
}
