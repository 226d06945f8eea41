//! [`Tasks`]: the store plus what only this process knows — the running handlers (to cancel
//! them) and a change feed (to wake handlers waiting for input and to notify listeners).

use crate::changes::{Change, ChangeFeed};
use crate::context::ClientKey;
use crate::error::ErrorData;
use crate::jsonrpc::Response;
use crate::protocol::mrtr::InputRequests;
use crate::runtime::clock::{self, Clock};
use crate::runtime::entropy::random_id;
use crate::tasks::{MemoryTaskStore, TaskRecord, TaskSettings, TaskStore};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use tokio::task::AbortHandle;

/// The tasks of one server: a [`TaskStore`], the handlers running for them, and a feed of
/// [`Change::Task`] announcements.
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    clock: Arc<dyn Clock>,
    running: Mutex<HashMap<String, AbortHandle>>,
    owners: Mutex<Owners>,
    feed: ChangeFeed,
    /// Changes other instances made to tasks in a shared store ([`crate::runtime::fanout`]).
    remote: ChangeFeed,
}

/// Who started each running task, and how many each client has running.
#[derive(Default)]
struct Owners {
    of: HashMap<String, ClientKey>,
    count: HashMap<ClientKey, usize>,
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
        Tasks::with_clock(store, settings, clock::system())
    }

    /// Tasks reading the time from `clock` (tests step a [`crate::runtime::ManualClock`]).
    pub fn with_clock(store: Arc<dyn TaskStore>, settings: TaskSettings, clock: Arc<dyn Clock>) -> Self {
        Tasks {
            store,
            settings,
            clock,
            running: Mutex::new(HashMap::new()),
            owners: Mutex::default(),
            feed: ChangeFeed::default(),
            remote: ChangeFeed::default(),
        }
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

    /// The feed announcing task changes other instances made (a shared store): heard by
    /// handlers waiting for `tasks/update` and by listen streams, as [`Tasks::changes`] is.
    pub fn remote_changes(&self) -> &ChangeFeed {
        &self.remote
    }

    /// Another instance changed task `id`: waiters here hear it, and a handler running here
    /// for a task that has ended (cancelled there) is stopped.
    pub(crate) async fn changed_elsewhere(&self, id: &str) {
        self.remote.send(Change::Task(id.to_owned()));
        if !self.running.lock().expect("lock").contains_key(id) {
            return;
        }
        if let Ok(Some(record)) = self.get(id).await {
            if record.is_terminal() {
                self.stop(id);
            }
        }
    }

    fn announce(&self, id: &str) {
        self.feed.send(Change::Task(id.to_owned()));
    }

    /// Creates a `working` task, stored before this returns; expired tasks go first.
    pub async fn create(&self) -> Result<TaskRecord, ErrorData> {
        self.create_for(None).await
    }

    /// Creates a `working` task for `client`, stored before this returns; expired tasks go
    /// first. Refused (`-32603`, [`ErrorData::over_limit`] `"tasks"`) when `client` has
    /// [`TaskSettings::max_per_client`] tasks running, or when the store is full.
    pub async fn create_for(&self, client: Option<&ClientKey>) -> Result<TaskRecord, ErrorData> {
        self.create_owned(client, None).await
    }

    /// [`Tasks::create_for`], the task belonging to `owner` ([`TaskRecord::owner`]).
    pub async fn create_owned(
        &self,
        client: Option<&ClientKey>,
        owner: Option<String>,
    ) -> Result<TaskRecord, ErrorData> {
        let now = self.clock.now();
        for id in self.store.purge_expired(now).await? {
            self.stop(&id);
        }
        let record = TaskRecord::new(random_id(), now, self.settings.ttl, self.settings.poll_interval)
            .with_owner(owner);
        let max = self.settings.max_per_client;
        if let Some(c) = client {
            // Counted before the store is asked, so concurrent starts cannot pass the quota.
            let mut owners = self.owners.lock().expect("lock");
            let n = owners.count.entry(c.clone()).or_default();
            if *n >= max {
                return Err(ErrorData::over_limit(
                    "tasks",
                    max,
                    format!(
                        "Too many running tasks for this client (at most {max}); retry when one has finished"
                    ),
                ));
            }
            *n += 1;
            owners.of.insert(record.id.clone(), c.clone());
        }
        if let Err(e) = self.store.create(record.clone(), now).await {
            self.release(&record.id);
            return Err(e);
        }
        Ok(record)
    }

    /// How many tasks `client` has running here.
    pub fn running_for(&self, client: &ClientKey) -> usize {
        self.owners.lock().expect("lock").count.get(client).copied().unwrap_or(0)
    }

    /// Task `id` no longer counts against its client's quota.
    fn release(&self, id: &str) {
        let mut owners = self.owners.lock().expect("lock");
        let Some(c) = owners.of.remove(id) else { return };
        if let Some(n) = owners.count.get_mut(&c) {
            *n -= 1;
            if *n == 0 {
                owners.count.remove(&c);
            }
        }
    }

    /// The task with `id`, unless unknown or expired.
    pub async fn get(&self, id: &str) -> Result<Option<TaskRecord>, ErrorData> {
        self.store.get(id, self.clock.now()).await
    }

    /// The task with `id` when it belongs to `owner` ([`TaskRecord::belongs_to`]): another
    /// owner's task is `None`, exactly like an unknown one.
    pub async fn get_owned(&self, id: &str, owner: Option<&str>) -> Result<Option<TaskRecord>, ErrorData> {
        Ok(self.get(id).await?.filter(|r| r.belongs_to(owner)))
    }

    /// Changes the task with `id` with `f` and announces it; `None` when unknown or expired.
    pub async fn modify(
        &self,
        id: &str,
        mut f: impl FnMut(&mut TaskRecord, SystemTime) + Send,
    ) -> Result<Option<TaskRecord>, ErrorData> {
        let now = self.clock.now();
        let out = self.store.modify(id, now, &mut |r| f(r, now)).await?;
        if out.is_some() {
            self.announce(id);
        }
        Ok(out)
    }

    /// Records a client's `inputResponses` (`tasks/update`); the updated task, `None` when it is
    /// unknown.
    pub async fn record_responses(
        &self,
        id: &str,
        responses: Map<String, Value>,
    ) -> Result<Option<TaskRecord>, ErrorData> {
        self.modify(id, |r, now| {
            r.record_responses(responses.clone(), now);
        })
        .await
    }

    /// Issues input requests for the task's handler; handler key → wire key.
    pub async fn request_inputs(
        &self,
        id: &str,
        requests: InputRequests,
    ) -> Result<Option<BTreeMap<String, String>>, ErrorData> {
        let mut keys = BTreeMap::new();
        let found = self.modify(id, |r, now| keys = r.request_inputs(requests.clone(), now)).await?;
        Ok(found.map(|_| keys))
    }

    /// Takes the answers to `keys` once all arrived: `None` when the task is gone, `Some(None)`
    /// while some are missing.
    pub async fn take_responses(
        &self,
        id: &str,
        keys: &[String],
    ) -> Result<Option<Option<Map<String, Value>>>, ErrorData> {
        let mut taken = None;
        let found = self.store.modify(id, self.clock.now(), &mut |r| taken = r.take_responses(keys)).await?;
        Ok(found.map(|_| taken))
    }

    /// Cancels the task (`tasks/cancel`): `cancelled` unless already finished, its handler
    /// aborted. The task as it is now; `None` when it is unknown.
    pub async fn cancel(&self, id: &str) -> Result<Option<TaskRecord>, ErrorData> {
        let out = self
            .modify(id, |r, now| {
                r.cancel(now);
            })
            .await?;
        self.stop(id);
        Ok(out)
    }

    /// The clock tasks are timed with.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// Settles the task with the response its request would have had: a result completes
    /// it, a JSON-RPC error fails it (unless it already ended, e.g. cancelled).
    pub async fn settle(&self, id: &str, response: Response) {
        self.running.lock().expect("lock").remove(id);
        self.release(id);
        let _ = self
            .modify(id, |r, now| {
                match response.outcome.clone() {
                    Ok(Value::Object(result)) => r.complete(result, now),
                    Ok(other) => r.complete([("value".to_owned(), other)].into_iter().collect(), now),
                    Err(e) => r.fail(e, now),
                };
            })
            .await;
    }

    /// Remembers the handler running task `id`, so cancelling can abort it.
    pub(crate) fn attach(&self, id: &str, handle: AbortHandle) {
        self.running.lock().expect("lock").insert(id.to_owned(), handle);
    }

    fn stop(&self, id: &str) {
        self.release(id);
        if let Some(h) = self.running.lock().expect("lock").remove(id) {
            h.abort();
        }
    }
}
