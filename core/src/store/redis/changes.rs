//! Catalog and task changes between instances: one pub/sub channel, `<prefix>:changes`,
//! carrying [`Announcement`]s (JSON). Pub/sub keeps nothing: an instance that is down, or
//! whose connection is being re-established, misses what is announced meanwhile (changes are
//! hints: clients re-list, task waiters look again every second).

use super::Redis;
use crate::changes::{Announcement, ChangeBus};
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::session::Subscription;

/// A [`ChangeBus`] on Redis pub/sub.
#[derive(Clone)]
pub struct RedisChangeBus {
    redis: Redis,
}

impl std::fmt::Debug for RedisChangeBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisChangeBus").field("channel", &self.channel()).finish_non_exhaustive()
    }
}

impl RedisChangeBus {
    /// A bus on the Redis at `url`; see [`Redis::open`]. To share the connections with the
    /// other stores, use [`Redis::changes`].
    pub fn new(url: &str) -> Result<Self, crate::Error> {
        Ok(Self::on(Redis::open(url)?))
    }

    pub(super) fn on(redis: Redis) -> Self {
        RedisChangeBus { redis }
    }

    /// The channel.
    pub fn channel(&self) -> String {
        self.redis.key("changes")
    }
}

impl ChangeBus for RedisChangeBus {
    fn publish<'a>(&'a self, announcement: &'a Announcement) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(self.redis.publish(self.channel(), announcement.encode()))
    }

    fn subscribe(&self) -> BoxFuture<'_, Result<Subscription, ErrorData>> {
        Box::pin(self.redis.subscribe(self.channel()))
    }
}
