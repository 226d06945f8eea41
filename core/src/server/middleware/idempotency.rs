//! Idempotent writes: a `tools/call` whose arguments carry an idempotency key acts once per
//! key, client and tool ([`crate::idempotency`]).

use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::idempotency::{self, Claimed, IdempotencyStore, MemoryIdempotencyStore};
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The argument that carries the key, by default.
pub const KEY_ARGUMENT: &str = "idempotency_key";

/// Makes keyed tool calls act once. A `tools/call` whose arguments hold a non-empty string
/// `idempotency_key` (the argument a write tool declares in its input schema) is claimed in
/// the store under the client ([`super::client_of`]), the tool and the key:
///
/// - the first call runs; its result (an `isError` result too) is kept for the TTL;
/// - a repeat with the same arguments answers that result without running the tool, and a
///   repeat while the first still runs waits for it (up to the lease, then `-32603`);
/// - a repeat with other arguments is refused: `-32602`, `data`
///   `{"reason": "idempotency_key_reused", "idempotencyKey"}`;
/// - a call that fails with a JSON-RPC error, or is cancelled, keeps nothing: the next one acts;
///   so does a 2026-07-28 round that asks the client for input (`input_required`): the retry
///   with the answers runs.
///
/// In memory by default (one process); with a shared store
/// (`store::redis::RedisIdempotencyStore`) instances behind one load balancer act once
/// between them. Calls without the argument pass untouched.
#[derive(Debug, Clone)]
pub struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    ttl: Duration,
    lease: Duration,
    argument: Arc<str>,
}

impl Default for Idempotency {
    fn default() -> Self {
        Idempotency::new(Arc::new(MemoryIdempotencyStore::default()))
    }
}

impl Idempotency {
    /// Keys in `store`, kept 24 hours; a running call's claim lapses after 5 minutes.
    pub fn new(store: Arc<dyn IdempotencyStore>) -> Self {
        Idempotency {
            store,
            ttl: Duration::from_secs(24 * 3600),
            lease: Duration::from_secs(300),
            argument: KEY_ARGUMENT.into(),
        }
    }

    /// What every binding builds from its options: keys kept `ttl`, a running call's claim
    /// lapsing after `lease`, in the Redis at `store` (`redis://HOST:PORT[/DB]`: instances
    /// behind one balancer act once between them) or in memory. Needs a tokio runtime with a
    /// store.
    pub fn with_options(ttl: Duration, lease: Duration, store: Option<&str>) -> crate::Result<Self> {
        let store: Arc<dyn IdempotencyStore> = match store {
            None => Arc::new(MemoryIdempotencyStore::default()),
            #[cfg(feature = "redis")]
            Some(url) => Arc::new(crate::store::redis::RedisIdempotencyStore::new(url)?),
            #[cfg(not(feature = "redis"))]
            Some(url) => {
                return Err(crate::Error::invalid_input(format!(
                    "idempotency store {url:?}: this build has no Redis support (the mcpcore `redis` feature)"
                )))
            }
        };
        if ttl.is_zero() || lease.is_zero() {
            return Err(crate::Error::invalid_input("the idempotency TTL and lease must be positive"));
        }
        Ok(Idempotency::new(store).ttl(ttl).lease(lease))
    }

    /// [`Idempotency::default`] on the shared store of `scale` when it has one (instances act
    /// once between them), in memory otherwise.
    pub fn on_scale_out(scale: &crate::store::ScaleOut) -> Self {
        match scale.stores() {
            Some(s) => Idempotency::new(s.idempotency.clone()),
            None => Idempotency::default(),
        }
    }

    /// Keeps keys and results for `ttl`.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// A running call's claim lasts `lease` and is renewed every third of it while the call
    /// runs; a claim not renewed (its process died) lapses and the next call acts. A repeat
    /// waits for the running call at most one lease.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Reads the key from the argument `name` instead of `idempotency_key`.
    pub fn argument(mut self, name: impl Into<String>) -> Self {
        self.argument = name.into().into();
        self
    }
}

/// Gives the claim up when the call ends without a result (dropped: cancelled, timed out).
struct Hold {
    store: Arc<dyn IdempotencyStore>,
    key: String,
    holder: String,
    armed: bool,
}

impl Drop for Hold {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (key, holder) = (std::mem::take(&mut self.key), std::mem::take(&mut self.holder));
        release_soon(self.store.clone(), key, holder, 1);
    }
}

/// Releases `holder`'s claim of `key` in the background, in at most `attempts` tries a second
/// apart while the store fails: a call dropped without a result (one try), or the claim of a
/// call that never ran because the claim's answer was lost (30 tries, until the store is back).
fn release_soon(store: Arc<dyn IdempotencyStore>, key: String, holder: String, attempts: u32) {
    let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
    rt.spawn(async move {
        for attempt in 1..=attempts {
            if store.release(&key, &holder).await.is_ok() || attempt == attempts {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
}

impl Middleware for Idempotency {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let Some(tool) = super::tool_of(&request).map(str::to_owned) else { return next.run(request) };
        let arguments =
            request.params.as_ref().and_then(|p| p.get("arguments")).cloned().unwrap_or(json!({}));
        let Some(given) = arguments.get(&*self.argument).and_then(Value::as_str).filter(|k| !k.is_empty())
        else {
            return next.run(request);
        };
        let given = given.to_owned();
        let key = idempotency::scope(&super::client_of(&ctx), &tool, &given);
        let fingerprint = idempotency::fingerprint(&arguments);
        let (store, ttl, lease) = (self.store.clone(), self.ttl, self.lease);
        Box::pin(async move {
            // This call's token: only it renews or releases its claim.
            let holder = crate::runtime::entropy::random_id();
            let deadline = tokio::time::Instant::now() + lease;
            let mut pause = Duration::from_millis(10);
            loop {
                let claimed = store.claim(&key, &fingerprint, &holder, lease, SystemTime::now()).await;
                let claimed = claimed.inspect_err(|_| {
                    // The store may have made the claim though its answer was lost (Redis cut
                    // off mid-command): give it up, or a retry would wait a whole lease for a
                    // call that never ran.
                    release_soon(store.clone(), key.clone(), holder.clone(), 30);
                })?;
                match claimed {
                    Claimed::Fresh => break,
                    Claimed::Done(result) => return Ok(result),
                    Claimed::Conflict => {
                        return Err(ErrorData::invalid_params(format!(
                            "Invalid params: idempotency key {given:?} was already used with other arguments \
                             for {tool}; use a new key for a new request"
                        ))
                        .with_data(json!({ "reason": "idempotency_key_reused", "idempotencyKey": given })))
                    }
                    Claimed::Running if tokio::time::Instant::now() >= deadline => {
                        return Err(ErrorData::internal(format!(
                            "Internal error: the first call with idempotency key {given:?} is still running; retry later"
                        ))
                        .with_data(json!({ "reason": "idempotency_key_busy", "idempotencyKey": given })))
                    }
                    Claimed::Running => {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_millis(250));
                    }
                }
            }
            let mut hold =
                Hold { store: store.clone(), key: key.clone(), holder: holder.clone(), armed: true };
            // The claim is renewed while the tool runs, so a long call keeps its key.
            let period = (lease / 3).max(Duration::from_millis(1));
            let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            let mut run = next.run(request);
            let reply = loop {
                tokio::select! {
                    reply = &mut run => break reply,
                    _ = renew.tick() => {
                        let _ = store.renew(&key, &holder, lease, SystemTime::now()).await;
                    }
                }
            };
            hold.armed = false;
            match &reply {
                // A 2026-07-28 round that asks the client for input is not the call's result:
                // the retry with the answers carries the same key and must run.
                Ok(result) if result.get("resultType").and_then(Value::as_str) == Some("input_required") => {
                    let _ = store.release(&key, &holder).await;
                }
                Ok(result) => {
                    if let Err(e) = store.complete(&key, &fingerprint, result, ttl, SystemTime::now()).await {
                        // The tool acted: its result goes back. The claim is left to lapse with
                        // its lease (freeing it now would let a retry act a second time).
                        tracing::warn!(target: "mcpcore::server", "idempotency key not stored: {e}");
                    }
                }
                Err(_) => {
                    let _ = store.release(&key, &holder).await;
                }
            }
            reply
        })
    }
}
