//! Legacy sessions in Redis: one JSON [`SessionRecord`] per session under
//! `<prefix>:session:<id>` (prefix `mcpcore` by default), expiring after the idle timeout;
//! every `load` and `touch` pushes the expiry out again, so only an abandoned session expires.
//!
//! The connection is a `redis` crate [`ConnectionManager`] opened lazily: the server starts
//! while Redis is down, and reconnects by itself when it comes back. While Redis cannot be
//! reached each call fails within about two seconds with a `-32603` [`ErrorData`], which the
//! HTTP server answers with 503 (2025-11-25 basic/transports: a session the server cannot find
//! would be 404, which would make the client start over; 503 tells it to retry).

use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::session::{SessionRecord, SessionStore, Subscription, Topic};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;

/// Local subscribers by channel name.
type Subscribers = Arc<Mutex<HashMap<String, Vec<(u64, mpsc::UnboundedSender<String>)>>>>;

/// Pub/sub between instances: one RESP3 connection (its manager resubscribes after a
/// reconnect) whose pushed messages are handed to this process's subscribers by channel.
#[derive(Clone)]
struct Bus {
    conn: ConnectionManager,
    subscribers: Subscribers,
    next: Arc<std::sync::atomic::AtomicU64>,
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
        Ok(Bus { conn, subscribers, next: Arc::default() })
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
                let mut conn = self.bus.conn.clone();
                let channel = std::mem::take(&mut self.channel);
                rt.spawn(async move {
                    let _ = conn.unsubscribe(channel).await;
                });
            }
        }
    }
}

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long one command may wait for its answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// A [`SessionStore`] in Redis, shared by every server instance using the same database and
/// prefix.
#[derive(Clone)]
pub struct RedisSessionStore {
    conn: ConnectionManager,
    bus: Bus,
    prefix: String,
    idle_timeout: Duration,
    target: String,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("target", &self.target)
            .field("prefix", &self.prefix)
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// A store on the Redis at `url` (`redis://HOST:PORT[/DB]`, optionally with
    /// `USER:PASSWORD@`); a session unused for `idle_timeout` expires. Connects on first use,
    /// so this needs no running Redis, only a valid URL and a tokio runtime.
    pub fn new(url: &str, idle_timeout: Duration) -> Result<Self, crate::Error> {
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
        let conn = ConnectionManager::new_lazy_with_config(client, config).map_err(|e| bad(e.to_string()))?;
        let idle_timeout = idle_timeout.max(Duration::from_millis(1));
        Ok(RedisSessionStore { conn, bus, prefix: "mcpcore".to_owned(), idle_timeout, target })
    }

    /// Keys start with `prefix` instead of `mcpcore` (several deployments on one database).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The key of session `id`.
    pub fn key(&self, id: &str) -> String {
        format!("{}:session:{id}", self.prefix)
    }

    /// The pub/sub channel of `topic` of session `id`.
    pub fn channel(&self, id: &str, topic: Topic) -> String {
        format!("{}:session:{id}:{}", self.prefix, topic.name())
    }

    async fn publish_now(&self, id: &str, topic: Topic, message: String) -> Result<(), ErrorData> {
        let _: u64 = self.run(redis::cmd("PUBLISH").arg(self.channel(id, topic)).arg(message)).await?;
        Ok(())
    }

    async fn subscribe_now(&self, id: &str, topic: Topic) -> Result<Option<Subscription>, ErrorData> {
        let channel = self.channel(id, topic);
        let (tx, rx) = mpsc::unbounded_channel();
        let n = self.bus.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let first = {
            let mut map = self.bus.subscribers.lock().expect("lock");
            let list = map.entry(channel.clone()).or_default();
            list.push((n, tx));
            list.len() == 1
        };
        let guard = Unsubscribe { bus: self.bus.clone(), channel: channel.clone(), id: n };
        if first {
            // Dropping the guard on failure removes the subscriber again.
            // Once more on a dropped connection, as `run` does.
            let mut conn = self.bus.conn.clone();
            match conn.subscribe(&channel).await {
                Err(e) if e.is_io_error() || e.is_connection_dropped() => conn.subscribe(&channel).await,
                other => other,
            }
            .map_err(|e| self.failed(e))?;
        }
        Ok(Some(Subscription::new(rx, Box::new(guard))))
    }

    /// How long an unused session lives.
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.idle_timeout.as_millis()).unwrap_or(u64::MAX).max(1)
    }

    fn failed(&self, e: redis::RedisError) -> ErrorData {
        ErrorData::internal(format!("Redis at {} is unavailable: {e}", self.target))
    }

    fn encode(record: &SessionRecord) -> String {
        serde_json::to_string(record).expect("a session record serializes")
    }

    fn decode(&self, id: &str, text: &str) -> Result<SessionRecord, ErrorData> {
        serde_json::from_str(text)
            .map_err(|e| ErrorData::internal(format!("the stored record of session {id} is unreadable: {e}")))
    }

    /// Runs `cmd`; once more when the connection had dropped (Redis restarted: the manager
    /// reconnects, and the retry goes out on the new connection). Every command here is
    /// idempotent, so a retry after a lost reply does no harm.
    async fn run<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, ErrorData> {
        let mut conn = self.conn.clone();
        match cmd.query_async(&mut conn).await {
            Err(e) if e.is_io_error() || e.is_connection_dropped() => {
                cmd.query_async(&mut conn).await.map_err(|e| self.failed(e))
            }
            other => other.map_err(|e| self.failed(e)),
        }
    }

    fn set(&self, id: &str, record: &SessionRecord) -> redis::Cmd {
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(id)).arg(Self::encode(record)).arg("PX").arg(self.ttl_ms());
        cmd
    }

    async fn create_now(&self, id: &str, record: &SessionRecord) -> Result<bool, ErrorData> {
        // Ids are 128 random bits (runtime::entropy): no NX, so a retry is idempotent.
        let _: Option<String> = self.run(&self.set(id, record)).await?;
        Ok(true)
    }

    async fn load_now(&self, id: &str) -> Result<Option<SessionRecord>, ErrorData> {
        // GETEX (Redis 6.2, Valkey): read and push the expiry out in one step.
        let text: Option<String> =
            self.run(redis::cmd("GETEX").arg(self.key(id)).arg("PX").arg(self.ttl_ms())).await?;
        text.map(|t| self.decode(id, &t)).transpose()
    }

    async fn store_now(&self, id: &str, record: &SessionRecord) -> Result<(), ErrorData> {
        // XX: a session deleted meanwhile stays deleted.
        let _: Option<String> = self.run(self.set(id, record).arg("XX")).await?;
        Ok(())
    }

    async fn delete_now(&self, id: &str) -> Result<bool, ErrorData> {
        let n: u64 = self.run(redis::cmd("DEL").arg(self.key(id))).await?;
        Ok(n > 0)
    }

    async fn touch_now(&self, id: &str) -> Result<(), ErrorData> {
        let _: bool = self.run(redis::cmd("PEXPIRE").arg(self.key(id)).arg(self.ttl_ms())).await?;
        Ok(())
    }
}

/// Expiry is Redis's (its own clock, the TTL set on each write, `load` and `touch`): the `now`
/// the server passes is not used.
impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(self.create_now(id, record))
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, ErrorData>> {
        Box::pin(self.load_now(id))
    }

    fn store<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(self.store_now(id, record))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(self.delete_now(id))
    }

    fn touch<'a>(&'a self, id: &'a str, _now: SystemTime) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(self.touch_now(id))
    }

    fn shared(&self) -> bool {
        true
    }

    fn publish<'a>(
        &'a self,
        id: &'a str,
        topic: Topic,
        message: String,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        Box::pin(self.publish_now(id, topic, message))
    }

    fn subscribe<'a>(
        &'a self,
        id: &'a str,
        topic: Topic,
    ) -> BoxFuture<'a, Result<Option<Subscription>, ErrorData>> {
        Box::pin(self.subscribe_now(id, topic))
    }
}
