//! Tasks (Tasks extension) in Redis: one hash per task, `<prefix>:task:<id>`, holding the
//! [`TaskRecord`] as JSON (`r`, with its result or error once finished) and a version (`v`).
//! A change is a compare-and-set on the version (a Lua script), retried on a conflict, so two
//! instances changing one task (the handler's instance settling it, another answering
//! `tasks/update` or `tasks/cancel`) never lose each other's change. The key expires with the
//! task's TTL (from its creation; [`RedisTaskStore::DEFAULT_TTL`] for a task without one).

use super::{millis, Redis};
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::tasks::{TaskRecord, TaskStore};
use std::time::{Duration, SystemTime};

/// Stores a new task: KEYS[1]; ARGV: record, TTL in ms.
const CREATE: &str = "redis.call('HSET', KEYS[1], 'v', 1, 'r', ARGV[1]) \
    redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1";

/// Replaces a task's record if its version is still ARGV[1]: KEYS[1]; ARGV: old version, new
/// version, record. 1 when replaced, 0 on a conflict (or when the task is gone).
const SWAP: &str = "if redis.call('HGET', KEYS[1], 'v') == ARGV[1] then \
    redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3]) return 1 end return 0";

/// How many times a change is retried after conflicting with another instance's.
const MAX_ATTEMPTS: usize = 32;

/// A [`TaskStore`] in Redis, shared by every instance using the same database and prefix. It
/// has no capacity of its own (Redis's `maxmemory` bounds it); expiry is Redis's.
/// Its `Debug` shows the Redis it uses (target and prefix, no credentials).
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    redis: Redis,
}

impl RedisTaskStore {
    /// How long a task without a TTL is kept.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);

    /// A store on the Redis at `url`; see [`Redis::open`]. To share the connections with the
    /// other stores, use [`Redis::tasks`].
    pub fn new(url: &str) -> Result<Self, crate::Error> {
        Ok(Self::on(Redis::open(url)?))
    }

    pub(super) fn on(redis: Redis) -> Self {
        RedisTaskStore { redis }
    }

    /// The key of task `id`.
    pub fn key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}"))
    }

    fn encode(record: &TaskRecord) -> String {
        serde_json::to_string(record).expect("a task record serializes")
    }

    fn decode(id: &str, text: &str) -> Result<TaskRecord, ErrorData> {
        serde_json::from_str(text)
            .map_err(|e| ErrorData::internal(format!("the stored record of task {id} is unreadable: {e}")))
    }

    /// Runs a script once: a compare-and-set is not sent again after a lost reply (it may
    /// have been applied), its error is the answer.
    async fn once<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, ErrorData> {
        let mut conn = self.redis.conn.clone();
        cmd.query_async(&mut conn).await.map_err(|e| self.redis.failed(e))
    }

    async fn create_now(&self, record: TaskRecord) -> Result<(), ErrorData> {
        let ttl = millis(record.ttl.unwrap_or(Self::DEFAULT_TTL));
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(CREATE).arg(1).arg(self.key(&record.id)).arg(Self::encode(&record)).arg(ttl);
        // Task ids are 128 random bits: storing twice is harmless.
        let _: i64 = self.redis.run(&cmd).await?;
        Ok(())
    }

    /// The stored version and record of task `id`.
    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, ErrorData> {
        let (version, text): (Option<String>, Option<String>) =
            self.redis.run(redis::cmd("HMGET").arg(self.key(id)).arg("v").arg("r")).await?;
        match (version, text) {
            (Some(v), Some(t)) => Ok(Some((v, Self::decode(id, &t)?))),
            _ => Ok(None),
        }
    }

    async fn get_now(&self, id: &str, now: SystemTime) -> Result<Option<TaskRecord>, ErrorData> {
        Ok(self.read(id).await?.map(|(_, r)| r).filter(|r| !r.expired(now)))
    }

    async fn modify_now(
        &self,
        id: &str,
        now: SystemTime,
        f: &mut (dyn FnMut(&mut TaskRecord) + Send),
    ) -> Result<Option<TaskRecord>, ErrorData> {
        for _ in 0..MAX_ATTEMPTS {
            let Some((version, mut record)) = self.read(id).await? else { return Ok(None) };
            if record.expired(now) {
                return Ok(None);
            }
            f(&mut record);
            let next = version.parse::<u64>().unwrap_or(0).wrapping_add(1);
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(SWAP).arg(1).arg(self.key(id)).arg(&version).arg(next).arg(Self::encode(&record));
            let swapped: i64 = self.once(&cmd).await?;
            if swapped == 1 {
                return Ok(Some(record));
            }
        }
        Err(ErrorData::internal(format!(
            "Internal error: task {id} is being changed by too many requests at once; try again"
        )))
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord, _now: SystemTime) -> BoxFuture<'_, Result<(), ErrorData>> {
        Box::pin(self.create_now(record))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>> {
        Box::pin(self.get_now(id, now))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
        f: &'a mut (dyn FnMut(&mut TaskRecord) + Send),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>> {
        Box::pin(self.modify_now(id, now, f))
    }

    /// Redis expires tasks itself: nothing to purge.
    fn purge_expired(&self, _now: SystemTime) -> BoxFuture<'_, Result<Vec<String>, ErrorData>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}
