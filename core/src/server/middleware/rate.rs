//! A rate limit per client: a token bucket for each ([`super::client_of`]), in memory.

use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most clients a limiter tracks; past that, the buckets of clients idle long enough to be
/// full again are dropped, then the oldest.
const MAX_CLIENTS: usize = 100_000;

/// At most `burst` requests at once per client, refilled at `per_second`. A request over the
/// limit is answered at once with `-32603` whose `data` is `{limit: "rate", max, retryAfter}`
/// ([`ErrorData::over_limit`]'s shape: HTTP answers it with 429 and `Retry-After`).
#[derive(Debug, Clone)]
pub struct RateLimit {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    per_second: f64,
    burst: f64,
    methods: Option<Vec<String>>,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    /// `per_second` requests a second per client, with bursts of up to `burst` (at least 1).
    pub fn new(per_second: f64, burst: u32) -> Self {
        let inner = Inner {
            per_second: per_second.max(f64::MIN_POSITIVE),
            burst: burst.max(1) as f64,
            methods: None,
            buckets: Mutex::new(HashMap::new()),
        };
        RateLimit { inner: Arc::new(inner) }
    }

    /// Counts only these methods (default: every request that reaches the chain).
    pub fn methods<I: IntoIterator<Item = S>, S: Into<String>>(self, methods: I) -> Self {
        let inner = Inner {
            per_second: self.inner.per_second,
            burst: self.inner.burst,
            methods: Some(methods.into_iter().map(Into::into).collect()),
            buckets: Mutex::new(HashMap::new()),
        };
        RateLimit { inner: Arc::new(inner) }
    }

    /// Takes a token of `client` at `now`; `Err(seconds until one is back)` when none is left.
    fn take(&self, client: &str, now: Instant) -> Result<(), f64> {
        let i = &self.inner;
        let mut buckets = i.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(client) {
            let full_after = Duration::from_secs_f64(i.burst / i.per_second);
            buckets.retain(|_, b| now.saturating_duration_since(b.at) < full_after);
            if buckets.len() >= MAX_CLIENTS {
                if let Some(oldest) = buckets.iter().min_by_key(|(_, b)| b.at).map(|(k, _)| k.clone()) {
                    buckets.remove(&oldest);
                }
            }
        }
        let b = buckets.entry(client.to_owned()).or_insert(Bucket { tokens: i.burst, at: now });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * i.per_second).min(i.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err((1.0 - b.tokens) / i.per_second)
        }
    }
}

impl Middleware for RateLimit {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let counted = self.inner.methods.as_ref().is_none_or(|m| m.contains(&request.method));
        if counted {
            let client = super::client_of(&ctx);
            if let Err(wait) = self.take(&client, Instant::now()) {
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
                return Box::pin(async move { Err(e) });
            }
        }
        next.run(request)
    }
}

#[cfg(test)]
pub(super) fn take_at(limit: &RateLimit, client: &str, now: Instant) -> Result<(), f64> {
    limit.take(client, now)
}
