//! Single-use `requestState` claims in Redis: `<prefix>:state:<id>`, set only if absent and
//! expiring with the state (`SET … NX PXAT expiry`), so a state accepted by one instance is
//! refused by every other.

use super::Redis;
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::state::{Claim, StateLedger};
use std::time::{SystemTime, UNIX_EPOCH};

/// A [`StateLedger`] in Redis, shared by every instance using the same database and prefix.
/// Its `Debug` shows the Redis it uses (target and prefix, no credentials).
#[derive(Clone, Debug)]
pub struct RedisStateLedger {
    redis: Redis,
}

impl RedisStateLedger {
    /// A ledger on the Redis at `url`; see [`Redis::open`]. To share the connections with the
    /// other stores, use [`Redis::state_ledger`].
    pub fn new(url: &str) -> Result<Self, crate::Error> {
        Ok(Self::on(Redis::open(url)?))
    }

    pub(super) fn on(redis: Redis) -> Self {
        RedisStateLedger { redis }
    }

    /// The key of the claim of state `id`.
    pub fn key(&self, id: &str) -> String {
        self.redis.key(&format!("state:{id}"))
    }

    async fn claim_now(&self, claim: &Claim) -> Result<bool, ErrorData> {
        let expires = claim.expires.duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let expires = u64::try_from(expires).unwrap_or(u64::MAX).max(1);
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(&claim.id)).arg(1).arg("NX").arg("PXAT").arg(expires);
        // Not sent again after a lost reply: the first may have set the key, and the retry
        // would then refuse the state its own request is presenting.
        let mut conn = self.redis.conn.clone();
        let set: Option<String> = cmd.query_async(&mut conn).await.map_err(|e| self.redis.failed(e))?;
        Ok(set.is_some())
    }
}

impl StateLedger for RedisStateLedger {
    /// Redis's clock decides expiry: `now` is unused.
    fn claim<'a>(&'a self, claim: &'a Claim, _now: SystemTime) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(self.claim_now(claim))
    }
}
