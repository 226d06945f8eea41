//! Webhook subscriptions of the Events extension shared by a fleet: [`RedisWebhookStore`], a
//! [`SubscriptionStore`] in Redis (SEP-3415 §Webhook delivery: a subscription is the server's,
//! not one process's, so it survives the instance that took it).
//!
//! | key | holds | expires |
//! |---|---|---|
//! | `<prefix>:webhook:<id>` | hash: `r` the subscription (JSON: key, secret, dialect, expiry), `epoch` and `seq` where its deliveries stand | at the subscription's expiry |
//! | `<prefix>:webhook:<id>:holder` | the instance delivering it | the lease (renewed while that instance lives) |
//! | `<prefix>:webhooks` | sorted set of every id by expiry | members dropped when expired |
//! | `<prefix>:webhooks:principal:<principal>` | sorted set of one principal's ids by expiry (the per-principal limit) | the same |

use super::Redis;
use crate::error::ErrorData;
use crate::events::webhook::{StoredSubscription, SubscriptionKey, SubscriptionStore};
use crate::events::Position;
use crate::future::BoxFuture;
use crate::protocol::events::Dialect;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// Create or refresh: the record, its position only when new, the indexes, the expiry, and the
/// lease when a holder is given and nobody holds it (1: that holder holds it). KEYS: hash, all, principal's, holder. ARGV: record, epoch, seq,
/// expiry ms (0: none), id, holder ('' : none), lease ms.
const PUT: &str = r#"
redis.call('HSET', KEYS[1], 'r', ARGV[1])
redis.call('HSETNX', KEYS[1], 'epoch', ARGV[2])
redis.call('HSETNX', KEYS[1], 'seq', ARGV[3])
local score = '+inf'
if ARGV[4] ~= '0' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
  score = ARGV[4]
else
  redis.call('PERSIST', KEYS[1])
end
redis.call('ZADD', KEYS[2], score, ARGV[5])
redis.call('ZADD', KEYS[3], score, ARGV[5])
if ARGV[6] == '' then return 0 end
redis.call('SET', KEYS[4], ARGV[6], 'NX', 'PX', ARGV[7])
if redis.call('GET', KEYS[4]) == ARGV[6] then return 1 end
return 0
"#;

/// Moves the position forward (or to a new epoch). KEYS: hash. ARGV: epoch, seq.
const ADVANCE: &str = r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local e = redis.call('HGET', KEYS[1], 'epoch')
local s = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if e ~= ARGV[1] or s < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'seq', ARGV[2])
end
return 1
"#;

/// Drops expired ids, renews this holder's leases, takes free ones (at most ARGV[4] new).
/// KEYS: all. ARGV: now ms, holder, lease ms, max new, key prefix (`<prefix>:webhook:`).
const CLAIM: &str = r#"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
local held, taken = {}, 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local hash = ARGV[5] .. id
  if redis.call('EXISTS', hash) == 0 then
    redis.call('ZREM', KEYS[1], id)
  else
    local hk = hash .. ':holder'
    local h = redis.call('GET', hk)
    if h == ARGV[2] or (not h and taken < tonumber(ARGV[4])) then
      if not h then taken = taken + 1 end
      redis.call('SET', hk, ARGV[2], 'PX', ARGV[3])
      held[#held + 1] = id
    end
  end
end
return held
"#;

/// Counts live ids, in all and of one principal. KEYS: all, principal's. ARGV: now ms.
const COUNT: &str = r#"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1])
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
"#;

/// The `r` field of a subscription's hash.
#[derive(Serialize, Deserialize)]
struct Record {
    principal: String,
    url: String,
    name: String,
    arguments: Value,
    secret: String,
    dialect: String,
    expires: Option<u64>,
}

/// Webhook subscriptions in Redis, shared by every instance (see the module's documentation).
/// Open it with [`Redis::webhooks`].
#[derive(Clone)]
pub struct RedisWebhookStore {
    redis: Redis,
}

impl std::fmt::Debug for RedisWebhookStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisWebhookStore").field("redis", &self.redis).finish_non_exhaustive()
    }
}

impl RedisWebhookStore {
    pub(super) fn on(redis: Redis) -> Self {
        RedisWebhookStore { redis }
    }

    fn hash(&self, id: &str) -> String {
        self.redis.key(&format!("webhook:{id}"))
    }

    fn principal(&self, principal: &str) -> String {
        self.redis.key(&format!("webhooks:principal:{principal}"))
    }

    async fn get_now(&self, id: &str) -> Result<Option<StoredSubscription>, ErrorData> {
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(self.hash(id)).arg("r").arg("epoch").arg("seq");
        let (r, epoch, seq): (Option<String>, Option<String>, Option<u64>) = self.redis.run(&cmd).await?;
        let Some(r) = r else { return Ok(None) };
        let corrupt = |why: String| {
            ErrorData::internal(format!("Internal error: a corrupt webhook subscription in Redis: {why}"))
        };
        let rec: Record = serde_json::from_str(&r).map_err(|e| corrupt(e.to_string()))?;
        let secret = STANDARD.decode(&rec.secret).map_err(|e| corrupt(e.to_string()))?;
        let epoch = epoch.and_then(|e| e.parse().ok()).unwrap_or(0);
        Ok(Some(StoredSubscription {
            key: SubscriptionKey {
                principal: rec.principal,
                url: rec.url,
                name: rec.name,
                arguments: rec.arguments,
            },
            secret,
            dialect: if rec.dialect == "sep" { Dialect::Sep } else { Dialect::Sketch },
            expires_ms: rec.expires,
            position: Position { epoch, seq: seq.unwrap_or(0) },
        }))
    }

    async fn put_now(
        &self,
        id: &str,
        sub: &StoredSubscription,
        holder: Option<&str>,
        lease: Duration,
    ) -> Result<bool, ErrorData> {
        let rec = Record {
            principal: sub.key.principal.clone(),
            url: sub.key.url.clone(),
            name: sub.key.name.clone(),
            arguments: sub.key.arguments.clone(),
            secret: STANDARD.encode(&sub.secret),
            dialect: if sub.dialect == Dialect::Sep { "sep" } else { "sketch" }.to_owned(),
            expires: sub.expires_ms,
        };
        let hash = self.hash(id);
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(PUT)
            .arg(4)
            .arg(&hash)
            .arg(self.redis.key("webhooks"))
            .arg(self.principal(&sub.key.principal))
            .arg(format!("{hash}:holder"))
            .arg(serde_json::to_string(&rec).expect("serializable"))
            .arg(sub.position.epoch.to_string())
            .arg(sub.position.seq)
            .arg(sub.expires_ms.unwrap_or(0))
            .arg(id)
            .arg(holder.unwrap_or(""))
            .arg(super::millis(lease));
        let held: i64 = self.redis.run(&cmd).await?;
        Ok(held == 1)
    }

    async fn remove_now(&self, id: &str) -> Result<bool, ErrorData> {
        let Some(sub) = self.get_now(id).await? else { return Ok(false) };
        let hash = self.hash(id);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .del(&hash)
            .del(format!("{hash}:holder"))
            .zrem(self.redis.key("webhooks"), id)
            .zrem(self.principal(&sub.key.principal), id);
        let (deleted, _, _, _): (i64, i64, i64, i64) = self.redis.run_pipe(&pipe).await?;
        Ok(deleted > 0)
    }
}

impl SubscriptionStore for RedisWebhookStore {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSubscription>, ErrorData>> {
        Box::pin(self.get_now(id))
    }

    fn put<'a>(
        &'a self,
        id: &'a str,
        sub: &'a StoredSubscription,
        holder: Option<&'a str>,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(self.put_now(id, sub, holder, lease))
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(self.remove_now(id))
    }

    fn advance<'a>(&'a self, id: &'a str, position: Position) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(ADVANCE).arg(1).arg(self.hash(id)).arg(position.epoch.to_string()).arg(position.seq);
            let _: i64 = self.redis.run(&cmd).await?;
            Ok(())
        })
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        lease: Duration,
        max_new: usize,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Vec<String>, ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(CLAIM)
                .arg(1)
                .arg(self.redis.key("webhooks"))
                .arg(now_ms)
                .arg(holder)
                .arg(super::millis(lease))
                .arg(max_new)
                .arg(self.redis.key("webhook:"));
            self.redis.run(&cmd).await
        })
    }

    fn count<'a>(
        &'a self,
        principal: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<(usize, usize), ErrorData>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(COUNT).arg(2).arg(self.redis.key("webhooks")).arg(self.principal(principal)).arg(now_ms);
            let (all, mine): (usize, usize) = self.redis.run(&cmd).await?;
            Ok((all, mine))
        })
    }
}
