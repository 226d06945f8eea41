//! Calls to an upstream on behalf of the caller (issue 35 §5): each forwarded request uses a
//! connection authorized with a token of the caller's own, obtained by exchanging the caller's
//! access token at the authorization server (RFC 8693, [`TokenExchange`]), instead of the
//! gateway's own credentials. The upstream then sees (and authorizes, and audits) the user, and
//! a legacy upstream's session belongs to that user.
//!
//! Connections are pooled per caller token (by its SHA-256, never the token itself) until the
//! exchanged token is about to expire, at most [`MAX_CALLERS`] of them; the oldest is closed
//! to make room. The gateway's own connection still lists the upstream's catalogue and follows
//! its changes.

use crate::auth::client::TokenExchange;
use crate::client::Client;
use crate::context::{CallerToken, RequestContext};
use crate::error::{Error, Result};
use crate::future::BoxFuture;
use sha2::Digest as _;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most callers with a pooled connection to one upstream.
pub const MAX_CALLERS: usize = 256;

/// A pooled connection is replaced this long before its token expires.
const MARGIN: Duration = Duration::from_secs(30);

/// Opens a connection to the upstream authorized with the given bearer token.
pub type Connect = Arc<dyn Fn(String) -> BoxFuture<'static, Result<Client>> + Send + Sync>;

/// One upstream's on-behalf-of calls: the exchange, and the pooled connections per caller.
pub struct OnBehalf {
    exchange: TokenExchange,
    connect: Connect,
    http: reqwest::Client,
    pool: tokio::sync::Mutex<HashMap<[u8; 32], Pooled>>,
}

struct Pooled {
    client: Client,
    until: Instant,
}

impl std::fmt::Debug for OnBehalf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnBehalf").field("exchange", &self.exchange).finish_non_exhaustive()
    }
}

impl OnBehalf {
    /// Calls on behalf of callers through connections `connect` opens with the tokens
    /// `exchange` gives.
    pub fn new(exchange: TokenExchange, connect: Connect) -> Arc<OnBehalf> {
        let http = crate::tls::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("a plain reqwest client builds");
        Arc::new(OnBehalf { exchange, connect, http, pool: tokio::sync::Mutex::default() })
    }

    /// The connection to use for the caller of `ctx`: its pooled one, or a new one with a
    /// freshly exchanged token. Errors: no caller token (the gateway serves without
    /// authorization), the exchange refused (the server's OAuth error), the connection failed.
    pub(crate) async fn client_for(&self, ctx: &RequestContext) -> Result<Client> {
        let token = ctx.origin().and_then(|o| o.extensions.get::<CallerToken>()).ok_or_else(|| {
            Error::invalid_input(
                "this upstream is called on behalf of each caller, and the request carries no caller \
                 token: serve the gateway with authorization (\"auth\")",
            )
        })?;
        let key: [u8; 32] = sha2::Sha256::digest(token.0.as_bytes()).into();
        let mut pool = self.pool.lock().await;
        let now = Instant::now();
        if let Some(p) = pool.get(&key).filter(|p| p.until > now + MARGIN) {
            return Ok(p.client.clone());
        }
        let exchanged = self.exchange.exchange(&self.http, &token.0).await.map_err(|e| {
            let said = e.description.clone().unwrap_or_default();
            let description = Some(format!("the on-behalf-of token exchange was refused: {said}"));
            Error::auth(crate::auth::AuthError { description, ..e })
        })?;
        let client = (self.connect)(exchanged.access_token).await?;
        let until = now + exchanged.expires_in;
        let mut closing: Vec<Client> = Vec::new();
        if let Some(old) = pool.remove(&key) {
            closing.push(old.client);
        }
        let stale: Vec<[u8; 32]> =
            pool.iter().filter(|(_, p)| p.until <= now + MARGIN).map(|(k, _)| *k).collect();
        closing.extend(stale.iter().filter_map(|k| pool.remove(k)).map(|p| p.client));
        if pool.len() >= MAX_CALLERS {
            let oldest = pool.iter().min_by_key(|(_, p)| p.until).map(|(k, _)| *k);
            closing.extend(oldest.and_then(|k| pool.remove(&k)).map(|p| p.client));
        }
        pool.insert(key, Pooled { client: client.clone(), until });
        drop(pool);
        if !closing.is_empty() {
            tokio::spawn(async move {
                for c in closing {
                    c.close().await;
                }
            });
        }
        Ok(client)
    }

    /// How many callers have a pooled connection now.
    pub async fn callers(&self) -> usize {
        self.pool.lock().await.len()
    }

    /// Closes every pooled connection.
    pub async fn close(&self) {
        let pooled: Vec<Pooled> = self.pool.lock().await.drain().map(|(_, p)| p).collect();
        for p in pooled {
            p.client.close().await;
        }
    }
}
