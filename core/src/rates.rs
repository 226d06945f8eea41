//! The contract of rate-limit buckets shared by several server instances: one token bucket
//! per client, refilled and taken atomically where the instances meet (Redis:
//! `store::redis::RedisRateStore`). The middleware that applies it is
//! [`RateLimit`](crate::server::middleware::RateLimit).

use crate::error::ErrorData;
use crate::future::BoxFuture;

/// Token buckets shared by several instances.
pub trait RateStore: Send + Sync + std::fmt::Debug {
    /// Takes a token of `client`'s bucket (`burst` tokens, refilled at `per_second`):
    /// `Ok(Ok(()))` when there was one, `Ok(Err(seconds))` until the next one otherwise.
    fn take<'a>(
        &'a self,
        client: &'a str,
        per_second: f64,
        burst: u32,
    ) -> BoxFuture<'a, Result<Result<(), f64>, ErrorData>>;
}
