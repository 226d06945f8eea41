//! Where tasks live: the [`TaskStore`] trait and the bounded in-memory default.

use super::record::TaskRecord;
use crate::error::ErrorData;
use crate::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

/// Storage for task records. Implement it to keep tasks elsewhere (a database shared by several
/// server instances); the rules of a task's life are in [`TaskRecord`], so a store only keeps
/// records. Every method is async, and a store that cannot answer (its database is down) fails
/// with the JSON-RPC error the client should get (`-32603`).
pub trait TaskStore: Send + Sync + std::fmt::Debug + 'static {
    /// Stores a new record (the task must be readable by [`TaskStore::get`] when this returns:
    /// the client may ask for it right after `CreateTaskResult`). Fails when full (`-32603`).
    fn create(&self, record: TaskRecord, now: SystemTime) -> BoxFuture<'_, Result<(), ErrorData>>;

    /// The record with `id`, unless unknown or expired at `now`.
    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>>;

    /// Applies `f` to the record with `id` atomically and returns the updated record; `None`
    /// when unknown or expired.
    fn modify<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
        f: &'a mut (dyn FnMut(&mut TaskRecord) + Send),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>>;

    /// Removes every record expired at `now`; returns their ids.
    fn purge_expired(&self, now: SystemTime) -> BoxFuture<'_, Result<Vec<String>, ErrorData>>;
}

/// The default store: records in memory, at most `capacity` of them. Expired tasks are removed
/// when a new one is created; a full store first evicts the oldest finished task, and refuses
/// new tasks when every stored task is still running.
#[derive(Debug)]
pub struct MemoryTaskStore {
    capacity: usize,
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// The default capacity.
    pub const DEFAULT_CAPACITY: usize = 10_000;

    /// A store holding at most `capacity` tasks (at least 1).
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore { capacity: capacity.max(1), records: Mutex::new(HashMap::new()) }
    }

    /// Number of stored tasks (expired ones included until purged).
    pub fn len(&self) -> usize {
        self.records.lock().expect("lock").len()
    }

    /// True when no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl MemoryTaskStore {
    fn create_now(&self, record: TaskRecord, now: SystemTime) -> Result<(), ErrorData> {
        let mut records = self.records.lock().expect("lock");
        records.retain(|_, r| !r.expired(now));
        if records.len() >= self.capacity {
            let oldest_finished = records
                .values()
                .filter(|r| r.is_terminal())
                .min_by_key(|r| r.last_updated_at)
                .map(|r| r.id.clone());
            match oldest_finished {
                Some(id) => {
                    records.remove(&id);
                }
                None => {
                    return Err(ErrorData::internal(
                        "Internal error: too many running tasks; try again later",
                    ))
                }
            }
        }
        records.insert(record.id.clone(), record);
        Ok(())
    }

    fn get_now(&self, id: &str, now: SystemTime) -> Option<TaskRecord> {
        self.records.lock().expect("lock").get(id).filter(|r| !r.expired(now)).cloned()
    }

    fn modify_now(
        &self,
        id: &str,
        now: SystemTime,
        f: &mut dyn FnMut(&mut TaskRecord),
    ) -> Option<TaskRecord> {
        let mut records = self.records.lock().expect("lock");
        let record = records.get_mut(id).filter(|r| !r.expired(now))?;
        f(record);
        Some(record.clone())
    }

    fn purge_now(&self, now: SystemTime) -> Vec<String> {
        let mut records = self.records.lock().expect("lock");
        let gone: Vec<String> = records.values().filter(|r| r.expired(now)).map(|r| r.id.clone()).collect();
        for id in &gone {
            records.remove(id);
        }
        gone
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord, now: SystemTime) -> BoxFuture<'_, Result<(), ErrorData>> {
        let out = self.create_now(record, now);
        Box::pin(std::future::ready(out))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.get_now(id, now))))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
        f: &'a mut (dyn FnMut(&mut TaskRecord) + Send),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.modify_now(id, now, f))))
    }

    fn purge_expired(&self, now: SystemTime) -> BoxFuture<'_, Result<Vec<String>, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.purge_now(now))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tasks_ext::TaskStatus;
    use serde_json::Map;
    use std::time::{Duration, UNIX_EPOCH};

    fn rec(id: &str, at: u64, ttl: Option<u64>) -> TaskRecord {
        TaskRecord::new(id.into(), UNIX_EPOCH + Duration::from_secs(at), ttl.map(Duration::from_secs), None)
    }

    #[test]
    fn records_expire_by_ttl() {
        let s = MemoryTaskStore::default();
        let t0 = UNIX_EPOCH;
        s.create_now(rec("a", 0, Some(10)), t0).unwrap();
        s.create_now(rec("b", 0, None), t0).unwrap();
        assert!(s.get_now("a", t0 + Duration::from_secs(9)).is_some());
        assert!(s.get_now("a", t0 + Duration::from_secs(10)).is_none());
        assert!(s.modify_now("a", t0 + Duration::from_secs(10), &mut |_| {}).is_none());
        assert_eq!(s.purge_now(t0 + Duration::from_secs(11)), ["a"]);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_full_store_evicts_the_oldest_finished_task_or_refuses() {
        let s = MemoryTaskStore::new(2);
        let now = UNIX_EPOCH + Duration::from_secs(5);
        s.create_now(rec("a", 1, None), now).unwrap();
        s.create_now(rec("b", 2, None), now).unwrap();
        assert!(s.create_now(rec("c", 3, None), now).is_err(), "both still running");
        s.modify_now("b", now, &mut |r| {
            r.complete(Map::new(), now);
        })
        .unwrap();
        s.create_now(rec("c", 3, None), now).unwrap();
        assert!(s.get_now("b", now).is_none());
        assert_eq!(s.get_now("a", now).unwrap().status, TaskStatus::Working);
    }
}
