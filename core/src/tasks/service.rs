//! [`Tasks`]: the store plus what only this process knows — the running handlers (to cancel
//! them) and a change feed (to wake handlers waiting for input and to notify listeners).

use super::clock::new_task_id;
use super::record::TaskRecord;
use super::store::{MemoryTaskStore, TaskStore};
use crate::changes::{Change, ChangeFeed};
use crate::error::ErrorData;
use crate::jsonrpc::Response;
use crate::protocol::mrtr::InputRequests;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::task::AbortHandle;

/// What new tasks are created with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSettings {
    /// How long a task is kept after creation (`ttlMs`); `None`: until evicted (default 30 min).
    pub ttl: Option<Duration>,
    /// The suggested polling interval (`pollIntervalMs`; default 500 ms).
    pub poll_interval: Option<Duration>,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings { ttl: Some(Duration::from_secs(1800)), poll_interval: Some(Duration::from_millis(500)) }
    }
}

/// The tasks of one server: a [`TaskStore`], the handlers running for them, and a feed of
/// [`Change::Task`] announcements.
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    running: Mutex<HashMap<String, AbortHandle>>,
    feed: ChangeFeed,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks").field("store", &self.store).field("settings", &self.settings).finish()
    }
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks::new(Arc::new(MemoryTaskStore::default()), TaskSettings::default())
    }
}

impl Tasks {
    /// Tasks kept in `store`, created with `settings`.
    pub fn new(store: Arc<dyn TaskStore>, settings: TaskSettings) -> Self {
        Tasks { store, settings, running: Mutex::new(HashMap::new()), feed: ChangeFeed::default() }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The settings.
    pub fn settings(&self) -> &TaskSettings {
        &self.settings
    }

    /// The feed announcing every task change ([`Change::Task`]).
    pub fn changes(&self) -> &ChangeFeed {
        &self.feed
    }

    fn announce(&self, id: &str) {
        self.feed.send(Change::Task(id.to_owned()));
    }

    /// Creates a `working` task, stored before this returns; expired tasks go first.
    pub fn create(&self) -> Result<TaskRecord, ErrorData> {
        let now = SystemTime::now();
        for id in self.store.purge_expired(now) {
            self.stop(&id);
        }
        let record = TaskRecord::new(new_task_id(), now, self.settings.ttl, self.settings.poll_interval);
        self.store.create(record.clone(), now)?;
        Ok(record)
    }

    /// The task with `id`, unless unknown or expired.
    pub fn get(&self, id: &str) -> Option<TaskRecord> {
        self.store.get(id, SystemTime::now())
    }

    /// Changes the task with `id` with `f` and announces it; `None` when unknown or expired.
    pub fn modify(&self, id: &str, mut f: impl FnMut(&mut TaskRecord, SystemTime)) -> Option<TaskRecord> {
        let now = SystemTime::now();
        let out = self.store.modify(id, now, &mut |r| f(r, now));
        if out.is_some() {
            self.announce(id);
        }
        out
    }

    /// Records a client's `inputResponses` (`tasks/update`); `None` when the task is unknown.
    pub fn record_responses(&self, id: &str, responses: Map<String, Value>) -> Option<usize> {
        let mut counted = 0;
        self.modify(id, |r, now| counted = r.record_responses(responses.clone(), now))?;
        Some(counted)
    }

    /// Issues input requests for the task's handler; handler key → wire key.
    pub fn request_inputs(&self, id: &str, requests: InputRequests) -> Option<BTreeMap<String, String>> {
        let mut keys = BTreeMap::new();
        self.modify(id, |r, now| keys = r.request_inputs(requests.clone(), now))?;
        Some(keys)
    }

    /// Takes the answers to `keys` once all arrived: `None` when the task is gone, `Some(None)`
    /// while some are missing.
    pub fn take_responses(&self, id: &str, keys: &[String]) -> Option<Option<Map<String, Value>>> {
        let mut taken = None;
        self.store.modify(id, SystemTime::now(), &mut |r| taken = r.take_responses(keys))?;
        Some(taken)
    }

    /// Cancels the task (`tasks/cancel`): `cancelled` unless already finished, its handler
    /// aborted. False when the task is unknown.
    pub fn cancel(&self, id: &str) -> bool {
        let known = self
            .modify(id, |r, now| {
                r.cancel(now);
            })
            .is_some();
        self.stop(id);
        known
    }

    /// Settles the task with the response its request would have had: a result completes
    /// it, a JSON-RPC error fails it (unless it already ended, e.g. cancelled).
    pub fn settle(&self, id: &str, response: Response) {
        self.running.lock().expect("lock").remove(id);
        self.modify(id, |r, now| {
            match response.outcome.clone() {
                Ok(Value::Object(result)) => r.complete(result, now),
                Ok(other) => r.complete([("value".to_owned(), other)].into_iter().collect(), now),
                Err(e) => r.fail(e, now),
            };
        });
    }

    /// Remembers the handler running task `id`, so cancelling can abort it.
    pub(crate) fn attach(&self, id: &str, handle: AbortHandle) {
        self.running.lock().expect("lock").insert(id.to_owned(), handle);
    }

    fn stop(&self, id: &str) {
        if let Some(h) = self.running.lock().expect("lock").remove(id) {
            h.abort();
        }
    }
}
