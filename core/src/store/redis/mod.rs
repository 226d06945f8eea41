//! Shared state in Redis (or Valkey), for several server instances behind one load balancer.
//! [`Redis`] is one connection pair to one database with a key prefix (`mcpcore` by default);
//! every store opened from it shares them:
//!
//! | store | keys and channels |
//! |---|---|
//! | [`RedisSessionStore`] (legacy sessions) | `<prefix>:session:<id>`, its replay log `<prefix>:session:<id>:events`, channels `<prefix>:session:<id>:to-client` and `:from-client` |
//! | [`RedisTaskStore`] (Tasks extension) | `<prefix>:task:<id>` |
//! | [`RedisStateLedger`] (single-use `requestState`) | `<prefix>:state:<id>` |
//! | [`RedisChangeBus`] (list changes, resource updates, task changes) | channel `<prefix>:changes` |
//! | [`RedisIdempotencyStore`] (idempotent writes) | `<prefix>:idem:<scope>` |
//! | [`RedisRateStore`] (rate limits shared by a fleet) | `<prefix>:rate:<client>` |
//! | [`RedisEventLog`] (the Events extension's occurrences) | `<prefix>:events:*`, channel `<prefix>:events` |
//! | [`RedisWebhookStore`] (the Events extension's webhook subscriptions) | `<prefix>:webhook:<id>`, `<prefix>:webhooks*` |
//!
//! The connections are `redis` crate [`ConnectionManager`]s opened lazily: a server starts while
//! Redis is down and reconnects by itself when it comes back. While Redis cannot be reached
//! each call fails within about two seconds with a `-32603` [`ErrorData`], which the HTTP server
//! answers with 503 (2025-11-25 basic/transports: a session the server cannot find would be
//! 404, which would make the client start over; 503 tells it to retry).

mod changes;
mod events;
mod idempotency;
mod ledger;
mod rate;
mod sessions;
mod tasks;
mod webhooks;

pub use changes::RedisChangeBus;
pub use events::RedisEventLog;
pub use idempotency::RedisIdempotencyStore;
pub use ledger::RedisStateLedger;
pub use rate::RedisRateStore;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;
pub use webhooks::RedisWebhookStore;

use crate::error::ErrorData;
use crate::session::Subscription;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Local subscribers by channel name.
type Subscribers = Arc<Mutex<HashMap<String, Vec<(u64, mpsc::UnboundedSender<String>)>>>>;

/// Pub/sub between instances: one RESP3 connection (its manager resubscribes after a
/// reconnect) whose pushed messages are handed to this process's subscribers by channel.
#[derive(Clone)]
struct Bus {
    conn: ConnectionManager,
    subscribers: Subscribers,
    next: Arc<AtomicU64>,
    /// The channels subscribed at Redis; held while (un)subscribing, so a SUBSCRIBE and an
    /// UNSUBSCRIBE of one channel never overtake each other.
    active: Arc<tokio::sync::Mutex<HashSet<String>>>,
}

impl Bus {
    fn new(client: &redis::Client, config: ConnectionManagerConfig) -> redis::RedisResult<Bus> {
        let info = client.get_connection_info().clone();
        let settings = info.redis_settings().clone().set_protocol(redis::ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(settings))?;
        let subscribers: Subscribers = Arc::default();
        let subs = subscribers.clone();
        let deliver = move |push: redis::PushInfo| -> Result<(), ()> {
            if push.kind != redis::PushKind::Message {
                return Ok(());
            }
            let (Some(channel), Some(payload)) = (push.data.first(), push.data.get(1)) else { return Ok(()) };
            let (Ok(channel), Ok(payload)) = (
                redis::from_redis_value_ref::<String>(channel),
                redis::from_redis_value_ref::<String>(payload),
            ) else {
                return Ok(());
            };
            if let Some(list) = subs.lock().expect("lock").get_mut(&channel) {
                list.retain(|(_, tx)| tx.send(payload.clone()).is_ok());
            }
            Ok(())
        };
        let config = config.set_push_sender(deliver).set_automatic_resubscription();
        let conn = ConnectionManager::new_lazy_with_config(client, config)?;
        Ok(Bus { conn, subscribers, next: Arc::default(), active: Arc::default() })
    }
}

/// Unsubscribes one local subscriber when dropped (and the channel when it was the last).
struct Unsubscribe {
    bus: Bus,
    channel: String,
    id: u64,
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        let last = {
            let mut map = self.bus.subscribers.lock().expect("lock");
            let list = map.entry(self.channel.clone()).or_default();
            list.retain(|(i, _)| *i != self.id);
            let last = list.is_empty();
            if last {
                map.remove(&self.channel);
            }
            last
        };
        if last {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                let bus = self.bus.clone();
                let channel = std::mem::take(&mut self.channel);
                rt.spawn(async move {
                    let mut active = bus.active.lock().await;
                    // Someone may have subscribed again meanwhile.
                    let wanted = bus.subscribers.lock().expect("lock").contains_key(&channel);
                    if !wanted && active.remove(&channel) {
                        let _ = bus.conn.clone().unsubscribe(&channel).await;
                    }
                });
            }
        }
    }
}

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long one command may wait for its answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// One Redis database shared by several server instances: a command connection and a pub/sub
/// connection, both reconnecting by themselves, and the prefix of every key and channel. Cheap
/// to clone (clones share the connections); open the stores from it.
#[derive(Clone)]
pub struct Redis {
    conn: ConnectionManager,
    /// For the few blocking reads a server makes before it serves.
    client: redis::Client,
    bus: Bus,
    prefix: String,
    target: String,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("target", &self.target)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// The Redis at `url` (`redis://HOST:PORT[/DB]`, optionally with `USER:PASSWORD@`).
    /// Connects on first use, so this needs no running Redis, only a valid URL and a tokio
    /// runtime.
    pub fn open(url: &str) -> Result<Self, crate::Error> {
        let bad = |why: String| {
            crate::Error::new(crate::ErrorKind::InvalidInput, format!("bad Redis URL {url:?}: {why}"))
        };
        let rest = url.strip_prefix("redis://").ok_or_else(|| bad("it must start with redis://".into()))?;
        let host_part = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
        if host_part.split('/').next().unwrap_or("").is_empty() {
            return Err(bad("it names no host".into()));
        }
        let client = redis::Client::open(url).map_err(|e| bad(e.to_string()))?;
        let info = client.get_connection_info();
        let target = format!("{}/{}", info.addr(), info.redis_settings().db());
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(200));
        let bus = Bus::new(&client, config.clone()).map_err(|e| bad(e.to_string()))?;
        let conn = ConnectionManager::new_lazy_with_config(client.clone(), config)
            .map_err(|e| bad(e.to_string()))?;
        Ok(Redis { conn, client, bus, prefix: "mcpcore".to_owned(), target })
    }

    /// Keys and channels start with `prefix` instead of `mcpcore` (several deployments on one
    /// database).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The prefix of every key and channel.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Legacy sessions here; one unused for `idle_timeout` expires.
    pub fn sessions(&self, idle_timeout: Duration) -> RedisSessionStore {
        RedisSessionStore::on(self.clone(), idle_timeout)
    }

    /// Tasks (Tasks extension) here.
    pub fn tasks(&self) -> RedisTaskStore {
        RedisTaskStore::on(self.clone())
    }

    /// The claims of single-use `requestState`s here.
    pub fn state_ledger(&self) -> RedisStateLedger {
        RedisStateLedger::on(self.clone())
    }

    /// Rate-limit buckets here (every instance draws from the same ones).
    pub fn rates(&self) -> RedisRateStore {
        RedisRateStore::on(self.clone())
    }

    /// Idempotency keys and first results (idempotent writes) here.
    pub fn idempotency(&self) -> RedisIdempotencyStore {
        RedisIdempotencyStore::on(self.clone())
    }

    /// The Events extension's occurrences, shared by every instance (starts the task that
    /// appends them).
    pub fn events(&self) -> RedisEventLog {
        RedisEventLog::on(self.clone())
    }

    /// Webhook subscriptions of the Events extension here (a [`RedisEventLog`] opens them
    /// for its registry).
    pub fn webhooks(&self) -> RedisWebhookStore {
        RedisWebhookStore::on(self.clone())
    }

    /// Catalog and task changes announced to every instance through here.
    pub fn changes(&self) -> RedisChangeBus {
        RedisChangeBus::on(self.clone())
    }

    /// `<prefix>:<rest>`.
    fn key(&self, rest: &str) -> String {
        format!("{}:{rest}", self.prefix)
    }

    fn failed(&self, e: redis::RedisError) -> ErrorData {
        ErrorData::internal(format!("Redis at {} is unavailable: {e}", self.target))
    }

    /// Runs `cmd`; once more when the connection had dropped (Redis restarted: the manager
    /// reconnects, and the retry goes out on the new connection). Only for commands whose
    /// retry after a lost reply does no harm (every command here: idempotent, or a
    /// compare-and-set the caller checks).
    async fn run<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, ErrorData> {
        let mut conn = self.conn.clone();
        match cmd.query_async(&mut conn).await {
            Err(e) if e.is_io_error() || e.is_connection_dropped() => {
                cmd.query_async(&mut conn).await.map_err(|e| self.failed(e))
            }
            other => other.map_err(|e| self.failed(e)),
        }
    }

    /// Runs `pipe` (in order, one round trip), once more on a dropped connection as
    /// [`Redis::run`] does, and for the same commands only: those whose resend does no harm.
    async fn run_pipe<T: redis::FromRedisValue>(&self, pipe: &redis::Pipeline) -> Result<T, ErrorData> {
        let mut conn = self.conn.clone();
        match pipe.query_async(&mut conn).await {
            Err(e) if e.is_io_error() || e.is_connection_dropped() => {
                pipe.query_async(&mut conn).await.map_err(|e| self.failed(e))
            }
            other => other.map_err(|e| self.failed(e)),
        }
    }

    /// Publishes `message` on `channel`.
    async fn publish(&self, channel: String, message: String) -> Result<(), ErrorData> {
        let _: u64 = self.run(redis::cmd("PUBLISH").arg(channel).arg(message)).await?;
        Ok(())
    }

    /// What is published on `channel` from now on.
    async fn subscribe(&self, channel: String) -> Result<Subscription, ErrorData> {
        let (tx, rx) = mpsc::unbounded_channel();
        let n = self.bus.next.fetch_add(1, Ordering::Relaxed);
        self.bus.subscribers.lock().expect("lock").entry(channel.clone()).or_default().push((n, tx));
        // Dropping the guard on failure removes the subscriber again.
        let guard = Unsubscribe { bus: self.bus.clone(), channel: channel.clone(), id: n };
        let mut active = self.bus.active.lock().await;
        if !active.contains(&channel) {
            // Once more on a dropped connection, as `run` does.
            let mut conn = self.bus.conn.clone();
            match conn.subscribe(&channel).await {
                Err(e) if e.is_io_error() || e.is_connection_dropped() => conn.subscribe(&channel).await,
                other => other,
            }
            .map_err(|e| self.failed(e))?;
            active.insert(channel);
        }
        drop(active);
        Ok(Subscription::new(rx, Box::new(guard)))
    }
}

/// Milliseconds of `d`, at least 1.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
