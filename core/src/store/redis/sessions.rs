//! Legacy sessions in Redis: one JSON [`SessionRecord`] per session under
//! `<prefix>:session:<id>`, expiring after the idle timeout; every `load` and `touch` pushes the
//! expiry out again, so only an abandoned session expires. The session's server→client stream
//! has a replay log, the Redis stream `<prefix>:session:<id>:events` (at most
//! [`RedisSessionStore::DEFAULT_REPLAY`] entries, the idle timeout after its last entry), so a
//! client whose GET stream died with its instance resumes on another with `Last-Event-ID`.

use super::{millis, Redis};
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::session::{SessionRecord, SessionStore, Subscription, Topic};
use std::time::{Duration, SystemTime};

/// Appends one message to a session's replay log and publishes it with its event id: KEYS[1]
/// the log, KEYS[2] the `to-client` channel, KEYS[3] (optional) the mark of the change the
/// message announces; ARGV: message, most entries, TTL in ms, the mark's TTL in ms. With a mark
/// that exists already (another instance announced the change) nothing happens and nil comes
/// back.
const APPEND: &str =
    "if KEYS[3] and not redis.call('SET', KEYS[3], 1, 'NX', 'PX', ARGV[4]) then return false end \
    local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[1]) \
    redis.call('PEXPIRE', KEYS[1], ARGV[3]) \
    redis.call('PUBLISH', KEYS[2], id .. ' ' .. ARGV[1]) \
    return id";

/// How long the mark of an announced change stays (every instance announces within moments).
const MARK_TTL: Duration = Duration::from_secs(60);

/// A [`SessionStore`] in Redis, shared by every server instance using the same database and
/// prefix.
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: Redis,
    idle_timeout: Duration,
    replay: usize,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("target", &self.redis.target)
            .field("prefix", &self.redis.prefix)
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// How many messages a session's replay log keeps by default (Redis trims it
    /// approximately: a few more may stay).
    pub const DEFAULT_REPLAY: usize = 1000;

    /// A store on the Redis at `url` (`redis://HOST:PORT[/DB]`, optionally with
    /// `USER:PASSWORD@`); a session unused for `idle_timeout` expires. Connects on first use,
    /// so this needs no running Redis, only a valid URL and a tokio runtime. To share the
    /// connections with the other stores, use [`Redis::sessions`].
    pub fn new(url: &str, idle_timeout: Duration) -> Result<Self, crate::Error> {
        Ok(Self::on(Redis::open(url)?, idle_timeout))
    }

    pub(super) fn on(redis: Redis, idle_timeout: Duration) -> Self {
        let idle_timeout = idle_timeout.max(Duration::from_millis(1));
        RedisSessionStore { redis, idle_timeout, replay: Self::DEFAULT_REPLAY }
    }

    /// Keys start with `prefix` instead of `mcpcore` (several deployments on one database).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.redis = self.redis.with_prefix(prefix);
        self
    }

    /// Each session's replay log keeps about `entries` messages (at least 1; default
    /// [`Self::DEFAULT_REPLAY`]): a client away longer than that misses the oldest.
    pub fn with_replay(mut self, entries: usize) -> Self {
        self.replay = entries.max(1);
        self
    }

    /// The key of session `id`.
    pub fn key(&self, id: &str) -> String {
        self.redis.key(&format!("session:{id}"))
    }

    /// The key of session `id`'s replay log (a Redis stream).
    pub fn events_key(&self, id: &str) -> String {
        self.redis.key(&format!("session:{id}:events"))
    }

    /// The pub/sub channel of `topic` of session `id`.
    pub fn channel(&self, id: &str, topic: Topic) -> String {
        self.redis.key(&format!("session:{id}:{}", topic.name()))
    }

    /// How long an unused session lives.
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    fn ttl_ms(&self) -> u64 {
        millis(self.idle_timeout)
    }

    fn encode(record: &SessionRecord) -> String {
        serde_json::to_string(record).expect("a session record serializes")
    }

    fn decode(&self, id: &str, text: &str) -> Result<SessionRecord, ErrorData> {
        serde_json::from_str(text)
            .map_err(|e| ErrorData::internal(format!("the stored record of session {id} is unreadable: {e}")))
    }

    fn set(&self, id: &str, record: &SessionRecord) -> redis::Cmd {
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(id)).arg(Self::encode(record)).arg("PX").arg(self.ttl_ms());
        cmd
    }

    async fn create_now(&self, id: &str, record: &SessionRecord) -> Result<bool, ErrorData> {
        // Ids are 128 random bits (runtime::entropy): no NX, so a retry is idempotent.
        let _: Option<String> = self.redis.run(&self.set(id, record)).await?;
        Ok(true)
    }

    async fn load_now(&self, id: &str) -> Result<Option<SessionRecord>, ErrorData> {
        // GETEX (Redis 6.2, Valkey): read and push the expiry out in one step.
        let text: Option<String> =
            self.redis.run(redis::cmd("GETEX").arg(self.key(id)).arg("PX").arg(self.ttl_ms())).await?;
        text.map(|t| self.decode(id, &t)).transpose()
    }

    async fn store_now(&self, id: &str, record: &SessionRecord) -> Result<(), ErrorData> {
        // XX: a session deleted meanwhile stays deleted.
        let _: Option<String> = self.redis.run(self.set(id, record).arg("XX")).await?;
        Ok(())
    }

    async fn delete_now(&self, id: &str) -> Result<bool, ErrorData> {
        let n: u64 = self.redis.run(redis::cmd("DEL").arg(self.key(id))).await?;
        let _: u64 = self.redis.run(redis::cmd("DEL").arg(self.events_key(id))).await?;
        Ok(n > 0)
    }

    async fn touch_now(&self, id: &str) -> Result<(), ErrorData> {
        let _: bool = self.redis.run(redis::cmd("PEXPIRE").arg(self.key(id)).arg(self.ttl_ms())).await?;
        Ok(())
    }

    /// The key marking that session `id` was told of change `change` (a fleet change id).
    pub fn mark_key(&self, id: &str, change: &str) -> String {
        self.redis.key(&format!("session:{id}:seen:{change}"))
    }

    async fn append_now(
        &self,
        id: &str,
        message: String,
        once: Option<&str>,
    ) -> Result<Option<String>, ErrorData> {
        // Not retried after a lost reply (the entry may exist): the caller's error is the answer.
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(APPEND).arg(if once.is_some() { 3 } else { 2 });
        cmd.arg(self.events_key(id)).arg(self.channel(id, Topic::ToClient));
        if let Some(change) = once {
            cmd.arg(self.mark_key(id, change));
        }
        cmd.arg(message).arg(self.replay).arg(self.ttl_ms()).arg(millis(MARK_TTL));
        let mut conn = self.redis.conn.clone();
        cmd.query_async(&mut conn).await.map_err(|e| self.redis.failed(e))
    }

    async fn head_now(&self, id: &str) -> Result<Option<String>, ErrorData> {
        let newest: Vec<(String, Vec<String>)> = self
            .redis
            .run(redis::cmd("XREVRANGE").arg(self.events_key(id)).arg("+").arg("-").arg("COUNT").arg(1))
            .await?;
        Ok(Some(newest.into_iter().next().map_or_else(|| "0-0".to_owned(), |(event, _)| event)))
    }

    async fn replay_now(&self, id: &str, after: &str) -> Result<Vec<(String, String)>, ErrorData> {
        // `(id`: exclusive (Redis 6.2). At most the log's bound, so the answer is bounded too.
        let entries: Vec<(String, Vec<String>)> = self
            .redis
            .run(
                redis::cmd("XRANGE")
                    .arg(self.events_key(id))
                    .arg(format!("({after}"))
                    .arg("+")
                    .arg("COUNT")
                    .arg(self.replay.saturating_mul(2)),
            )
            .await?;
        Ok(entries
            .into_iter()
            .filter_map(|(event, fields)| {
                let message = fields.chunks(2).find(|kv| kv[0] == "m").and_then(|kv| kv.get(1)).cloned()?;
                Some((event, message))
            })
            .collect())
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
        Box::pin(self.redis.publish(self.channel(id, topic), message))
    }

    fn subscribe<'a>(
        &'a self,
        id: &'a str,
        topic: Topic,
    ) -> BoxFuture<'a, Result<Option<Subscription>, ErrorData>> {
        Box::pin(async move { self.redis.subscribe(self.channel(id, topic)).await.map(Some) })
    }

    fn append<'a>(
        &'a self,
        id: &'a str,
        message: String,
        once: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<String>, ErrorData>> {
        Box::pin(self.append_now(id, message, once))
    }

    fn head<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, ErrorData>> {
        Box::pin(self.head_now(id))
    }

    fn replay<'a>(
        &'a self,
        id: &'a str,
        after: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, ErrorData>> {
        Box::pin(self.replay_now(id, after))
    }
}
