//! A rate limit per client: a token bucket for each ([`super::client_of`]), in memory or in a
//! store shared by every instance behind one load balancer ([`RateStore`]).

use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
pub use crate::rates::RateStore;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most clients a limiter tracks in memory; past that, the buckets of clients idle long
/// enough to be full again are dropped, then the oldest.
const MAX_CLIENTS: usize = 100_000;

/// At most `burst` requests at once per client, refilled at `per_second`. A request over the
/// limit is answered at once with `-32603` whose `data` is `{limit: "rate", max, retryAfter}`
/// ([`ErrorData::over_limit`]'s shape: HTTP answers it with 429 and `Retry-After`). The buckets
/// are this process's unless a [`RateStore`] is given ([`RateLimit::shared`]).
#[derive(Debug, Clone)]
pub struct RateLimit {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    per_second: f64,
    burst: u32,
    methods: Option<Vec<String>>,
    buckets: Mutex<HashMap<String, Bucket>>,
    store: Option<Arc<dyn RateStore>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    /// `per_second` requests a second per client, with bursts of up to `burst` (at least 1).
    pub fn new(per_second: f64, burst: u32) -> Self {
        RateLimit::build(per_second, burst, None, None)
    }

    /// [`RateLimit::new`] with the buckets in `store`, shared by every instance using it.
    pub fn shared(per_second: f64, burst: u32, store: Arc<dyn RateStore>) -> Self {
        RateLimit::build(per_second, burst, None, Some(store))
    }

    fn build(
        per_second: f64,
        burst: u32,
        methods: Option<Vec<String>>,
        store: Option<Arc<dyn RateStore>>,
    ) -> Self {
        let inner = Inner {
            per_second: per_second.max(f64::MIN_POSITIVE),
            burst: burst.max(1),
            methods,
            buckets: Mutex::new(HashMap::new()),
            store,
        };
        RateLimit { inner: Arc::new(inner) }
    }

    /// What every binding builds from its options: in the Redis at `store`
    /// (`redis://HOST:PORT[/DB]`, shared by instances) or in memory; only `methods` when given.
    /// Needs a tokio runtime with a store.
    pub fn with_options(
        per_second: f64,
        burst: u32,
        methods: Option<Vec<String>>,
        store: Option<&str>,
    ) -> crate::Result<Self> {
        if !(per_second.is_finite() && per_second > 0.0) {
            return Err(crate::Error::invalid_input(format!("the rate must be positive, not {per_second}")));
        }
        let store: Option<Arc<dyn RateStore>> = match store {
            None => None,
            #[cfg(feature = "redis")]
            Some(url) => Some(Arc::new(crate::store::redis::Redis::open(url)?.rates())),
            #[cfg(not(feature = "redis"))]
            Some(url) => {
                return Err(crate::Error::invalid_input(format!(
                    "rate limit store {url:?}: this build has no Redis support (the mcpcore `redis` feature)"
                )))
            }
        };
        Ok(RateLimit::build(per_second, burst, methods, store))
    }

    /// [`RateLimit::new`] on the shared store of `scale` when it has one (the fleet shares each
    /// client's bucket), in memory otherwise.
    pub fn on_scale_out(per_second: f64, burst: u32, scale: &crate::store::ScaleOut) -> Self {
        match scale.stores() {
            Some(s) => RateLimit::shared(per_second, burst, s.rates.clone()),
            None => RateLimit::new(per_second, burst),
        }
    }

    /// Counts only these methods (default: every request that reaches the chain).
    pub fn methods<I: IntoIterator<Item = S>, S: Into<String>>(self, methods: I) -> Self {
        let i = &self.inner;
        RateLimit::build(
            i.per_second,
            i.burst,
            Some(methods.into_iter().map(Into::into).collect()),
            i.store.clone(),
        )
    }

    /// Takes a token of `client` at `now` from the in-memory buckets; `Err(seconds until one is
    /// back)` when none is left.
    fn take(&self, client: &str, now: Instant) -> Result<(), f64> {
        let i = &self.inner;
        let burst = f64::from(i.burst);
        let mut buckets = i.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(client) {
            let full_after = Duration::try_from_secs_f64(burst / i.per_second).unwrap_or(Duration::MAX);
            buckets.retain(|_, b| now.saturating_duration_since(b.at) < full_after);
            if buckets.len() >= MAX_CLIENTS {
                if let Some(oldest) = buckets.iter().min_by_key(|(_, b)| b.at).map(|(k, _)| k.clone()) {
                    buckets.remove(&oldest);
                }
            }
        }
        let b = buckets.entry(client.to_owned()).or_insert(Bucket { tokens: burst, at: now });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * i.per_second).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err((1.0 - b.tokens) / i.per_second)
        }
    }

    fn refused(&self, client: &str, wait: f64) -> ErrorData {
        let retry_after = wait.ceil().max(1.0) as u64;
        let burst = self.inner.burst as usize;
        let mut e = ErrorData::over_limit(
            "rate",
            burst,
            format!(
                "Too many requests from {client}: at most {burst} at once, refilled at {} a second; \
                 retry in {retry_after} s",
                self.inner.per_second
            ),
        );
        if let Some(serde_json::Value::Object(d)) = e.data.as_mut() {
            d.insert("retryAfter".into(), retry_after.into());
        }
        e
    }
}

impl Middleware for RateLimit {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        if !self.inner.methods.as_ref().is_none_or(|m| m.contains(&request.method)) {
            return next.run(request);
        }
        let client = super::client_of(&ctx);
        let Some(store) = self.inner.store.clone() else {
            return match self.take(&client, Instant::now()) {
                Ok(()) => next.run(request),
                Err(wait) => {
                    let e = self.refused(&client, wait);
                    Box::pin(async move { Err(e) })
                }
            };
        };
        let me = self.clone();
        Box::pin(async move {
            match store.take(&client, me.inner.per_second, me.inner.burst).await? {
                Ok(()) => next.run(request).await,
                Err(wait) => Err(me.refused(&client, wait)),
            }
        })
    }
}

#[cfg(test)]
pub(super) fn take_at(limit: &RateLimit, client: &str, now: Instant) -> Result<(), f64> {
    limit.take(client, now)
}
