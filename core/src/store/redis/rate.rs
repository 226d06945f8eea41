//! Rate-limit buckets in Redis: `<prefix>:rate:<client>`, a hash of the tokens left and when
//! they were counted, refilled and taken in one Lua script on Redis's own clock, so every
//! instance behind one load balancer draws from the same bucket.

use super::Redis;
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::rates::RateStore;

/// KEYS[1]; ARGV: rate a second, burst. `{1, "0"}` when a token was taken, `{0, seconds}`
/// until the next one otherwise. The bucket expires once it would be full again.
const TAKE: &str = "local rate = tonumber(ARGV[1]) local burst = tonumber(ARGV[2]) \
    local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1000000 \
    local b = redis.call('HMGET', KEYS[1], 'tokens', 'at') \
    local tokens = tonumber(b[1]) or burst local at = tonumber(b[2]) or now \
    tokens = math.min(burst, tokens + math.max(0, now - at) * rate) \
    local ok = 0 local wait = 0 \
    if tokens >= 1 then tokens = tokens - 1 ok = 1 else wait = (1 - tokens) / rate end \
    redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now)) \
    redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000) \
    return {ok, tostring(wait)}";

/// A [`RateStore`] in Redis, shared by every instance using the same database and prefix.
/// Its `Debug` shows the Redis it uses (target and prefix, no credentials).
#[derive(Clone, Debug)]
pub struct RedisRateStore {
    redis: Redis,
}

impl RedisRateStore {
    pub(super) fn on(redis: Redis) -> Self {
        RedisRateStore { redis }
    }

    /// The Redis key of `client`'s bucket.
    pub fn key(&self, client: &str) -> String {
        self.redis.key(&format!("rate:{client}"))
    }
}

impl RateStore for RedisRateStore {
    fn take<'a>(
        &'a self,
        client: &'a str,
        per_second: f64,
        burst: u32,
    ) -> BoxFuture<'a, Result<Result<(), f64>, ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(TAKE).arg(1).arg(self.key(client)).arg(per_second).arg(burst);
            let (ok, wait): (i64, String) = self.redis.run(&cmd).await?;
            Ok(if ok == 1 { Ok(()) } else { Err(wait.parse::<f64>().unwrap_or(1.0)) })
        })
    }
}
