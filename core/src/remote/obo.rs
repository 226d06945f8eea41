//! Calls to an upstream on behalf of the caller (issue 35 §5): each forwarded request uses a
//! connection authorized with a token of the caller's own, obtained by exchanging the caller's
//! access token at the authorization server (RFC 8693, [`TokenExchange`]), instead of the
//! gateway's own credentials. The upstream then sees (and authorizes, and audits) the user, and
//! a legacy upstream's session belongs to that user.
//!
//! Connections are pooled per caller token (by its SHA-256, never the token itself) until the
//! exchanged token is about to expire, at most [`MAX_CALLERS`] of them (the one expiring first
//! leaves to make room). Each has its own routes for what the upstream sends on it (requests for
//! input, log messages), so they reach only that caller's calls. A connection leaving the pool
//! is closed only after the longest a call on it may still run. No lock is held while a token is
//! exchanged or a connection opened. The gateway's own connection still lists the upstream's
//! catalogue and follows its changes.

use super::logs::LogRoute;
use super::relay::{Conn, Dispatch};
use crate::auth::client::TokenExchange;
use crate::client::Client;
use crate::context::{CallerToken, RequestContext};
use crate::error::{Error, Result};
use crate::future::BoxFuture;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most callers with a pooled connection to one upstream.
pub const MAX_CALLERS: usize = 256;

/// A pooled connection is replaced this long before its token expires (and a token valid for
/// less is used for one request only).
const MARGIN: Duration = Duration::from_secs(30);

/// Opens a connection to the upstream authorized with the given bearer token.
pub type Connect = Arc<dyn Fn(String) -> BoxFuture<'static, Result<Client>> + Send + Sync>;

/// One upstream's on-behalf-of calls: the exchange, and the pooled connections per caller.
pub struct OnBehalf {
    exchange: TokenExchange,
    connect: Connect,
    http: reqwest::Client,
    pool: Mutex<HashMap<[u8; 32], Pooled>>,
    closed: AtomicBool,
}

#[derive(Clone)]
struct Pooled {
    client: Client,
    dispatch: Arc<Dispatch>,
    logs: Arc<LogRoute>,
    until: Instant,
}

impl Pooled {
    fn conn(&self) -> Conn {
        Conn { client: self.client.clone(), dispatch: self.dispatch.clone(), logs: self.logs.clone() }
    }
}

impl std::fmt::Debug for OnBehalf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnBehalf").field("exchange", &self.exchange).finish_non_exhaustive()
    }
}

/// Closes `client` once every call that may still run on it is over.
fn retire(client: Client) {
    let grace = client.options().request_timeout + super::parked::PARK_TTL;
    tokio::spawn(async move {
        tokio::time::sleep(grace).await;
        client.close().await;
    });
}

impl OnBehalf {
    /// Calls on behalf of callers through connections `connect` opens with the tokens
    /// `exchange` gives.
    pub fn new(exchange: TokenExchange, connect: Connect) -> Arc<OnBehalf> {
        let http = crate::tls::authorization_client(Duration::from_secs(30));
        Arc::new(OnBehalf { exchange, connect, http, pool: Mutex::default(), closed: AtomicBool::new(false) })
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Pooled>> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connection to use for the caller of `ctx`: its pooled one, or a new one with a
    /// freshly exchanged token. Errors: no caller token (the gateway serves without
    /// authorization), the exchange refused (the server's OAuth error), the connection failed.
    pub(crate) async fn conn_for(&self, ctx: &RequestContext) -> Result<Conn> {
        let token = ctx.origin().and_then(|o| o.extensions.get::<CallerToken>()).ok_or_else(|| {
            Error::invalid_input(
                "this upstream is called on behalf of each caller, and the request carries no caller \
                 token: serve the gateway with authorization (\"auth\")",
            )
        })?;
        let key = token.digest();
        let now = Instant::now();
        if let Some(p) = self.pool().get(&key).filter(|p| p.until > now + MARGIN) {
            return Ok(p.conn());
        }
        let exchanged = self.exchange.exchange(&self.http, &token.0).await.map_err(|e| {
            let said = e.description.clone().unwrap_or_default();
            let description = Some(format!("the on-behalf-of token exchange was refused: {said}"));
            Error::auth(crate::auth::AuthError { description, ..e })
        })?;
        let client = (self.connect)(exchanged.access_token).await?;
        let logs = Arc::new(LogRoute::default());
        logs.attach(&client);
        let until = now.checked_add(exchanged.expires_in).unwrap_or(now + Duration::from_secs(86_400));
        let fresh = Pooled { client, dispatch: Arc::default(), logs, until };
        let conn = fresh.conn();
        if self.closed.load(Ordering::SeqCst) || exchanged.expires_in <= MARGIN {
            // Not kept: the upstream is gone, or the token is too short-lived to share.
            retire(fresh.client);
            return Ok(conn);
        }
        let mut leaving = Vec::new();
        {
            let mut pool = self.pool();
            let stale: Vec<[u8; 32]> =
                pool.iter().filter(|(_, p)| p.until <= now + MARGIN).map(|(k, _)| *k).collect();
            leaving.extend(stale.iter().filter_map(|k| pool.remove(k)));
            leaving.extend(pool.remove(&key));
            if pool.len() >= MAX_CALLERS {
                let first = pool.iter().min_by_key(|(_, p)| p.until).map(|(k, _)| *k);
                leaving.extend(first.and_then(|k| pool.remove(&k)));
            }
            pool.insert(key, fresh);
        }
        for p in leaving {
            retire(p.client);
        }
        Ok(conn)
    }

    /// How many callers have a pooled connection now.
    pub fn callers(&self) -> usize {
        self.pool().len()
    }

    /// Closes every pooled connection; connections opened later are not kept.
    pub async fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let pooled: Vec<Pooled> = self.pool().drain().map(|(_, p)| p).collect();
        for p in pooled {
            p.client.close().await;
        }
    }
}
