//! Idempotency keys in Redis: `<prefix>:idem:<scope>` holds `{"fp", "holder"}` while the first
//! call runs (expiring with its lease, renewed by its holder) and `{"fp", "result"}` once it
//! finished (expiring with the TTL). The claim is one Lua script (read, and set when absent),
//! so of two instances receiving the same key at once exactly one acts; the other waits for its
//! result. Renewal and release check the holder inside their script, so only it can.

use super::{millis, Redis};
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::idempotency::{Claimed, IdempotencyStore};
use serde_json::{json, Value};
use std::time::{Duration, SystemTime};

/// KEYS[1]; ARGV: the running record, the lease in ms, the holder. `{"fresh"}` when claimed
/// now, or already held by this holder (a claim sent again after its connection dropped, by
/// [`Redis::run`], may find its own first execution), else `{"held", record}`.
const CLAIM: &str = "local v = redis.call('GET', KEYS[1]) \
    if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return {'fresh'} end \
    local ok, r = pcall(cjson.decode, v) \
    if ok and type(r) == 'table' and r.holder == ARGV[3] then \
      redis.call('PEXPIRE', KEYS[1], ARGV[2]) return {'fresh'} end \
    return {'held', v}";

/// KEYS[1]; ARGV[1]: the holder. Deletes the key only while that holder's running record is
/// in it (a finished record has no holder).
const RELEASE: &str = "local v = redis.call('GET', KEYS[1]) \
    if v and cjson.decode(v).holder == ARGV[1] then redis.call('DEL', KEYS[1]) end return 1";

/// KEYS[1]; ARGV: the holder, the lease in ms. 1 when extended, 0 when the key is no longer
/// the holder's.
const RENEW: &str = "local v = redis.call('GET', KEYS[1]) \
    if v and cjson.decode(v).holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end \
    return 0";

/// An [`IdempotencyStore`] in Redis, shared by every instance using the same database and
/// prefix. Expiry is Redis's (`now` is unused).
/// Its `Debug` shows the Redis it uses (target and prefix, no credentials).
#[derive(Clone, Debug)]
pub struct RedisIdempotencyStore {
    redis: Redis,
}

impl RedisIdempotencyStore {
    /// A store on the Redis at `url`; see [`Redis::open`]. To share the connections with the
    /// other stores, use [`Redis::idempotency`].
    pub fn new(url: &str) -> Result<Self, crate::Error> {
        Ok(Self::on(Redis::open(url)?))
    }

    pub(super) fn on(redis: Redis) -> Self {
        RedisIdempotencyStore { redis }
    }

    /// The Redis key of the store key `key`.
    pub fn key(&self, key: &str) -> String {
        self.redis.key(&format!("idem:{key}"))
    }

    /// The record of a running call: its fingerprint and its holder.
    fn running(fingerprint: &str, holder: &str) -> String {
        json!({ "fp": fingerprint, "holder": holder }).to_string()
    }

    async fn claim_now(
        &self,
        key: &str,
        fingerprint: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<Claimed, ErrorData> {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(CLAIM)
            .arg(1)
            .arg(self.key(key))
            .arg(Self::running(fingerprint, holder))
            .arg(millis(lease))
            .arg(holder);
        let reply: Vec<String> = self.redis.run(&cmd).await?;
        let Some(held) = reply.get(1) else { return Ok(Claimed::Fresh) };
        let record: Value = serde_json::from_str(held).map_err(|e| {
            ErrorData::internal(format!("Internal error: a corrupt idempotency record in Redis: {e}"))
        })?;
        Ok(match (record.get("fp").and_then(Value::as_str) == Some(fingerprint), record.get("result")) {
            (false, _) => Claimed::Conflict,
            (true, Some(result)) => Claimed::Done(result.clone()),
            (true, None) => Claimed::Running,
        })
    }
}

impl IdempotencyStore for RedisIdempotencyStore {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        holder: &'a str,
        lease: Duration,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<Claimed, ErrorData>> {
        Box::pin(self.claim_now(key, fingerprint, holder, lease))
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        lease: Duration,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(RENEW).arg(1).arg(self.key(key)).arg(holder).arg(millis(lease));
            let renewed: i64 = self.redis.run(&cmd).await?;
            Ok(renewed == 1)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        result: &'a Value,
        ttl: Duration,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(async move {
            let record = json!({ "fp": fingerprint, "result": result }).to_string();
            let mut cmd = redis::cmd("SET");
            cmd.arg(self.key(key)).arg(record).arg("PX").arg(millis(ttl));
            let _: String = self.redis.run(&cmd).await?;
            Ok(())
        })
    }

    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(RELEASE).arg(1).arg(self.key(key)).arg(holder);
            let _: i64 = self.redis.run(&cmd).await?;
            Ok(())
        })
    }
}
