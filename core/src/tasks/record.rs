//! One task's state ([`TaskRecord`]) and the rules of its life: terminal states are final,
//! input keys are unique over the task's lifetime, unknown or answered responses are ignored.

use super::clock::iso8601;
use crate::error::ErrorData;
use crate::protocol::mrtr::InputRequests;
use crate::protocol::tasks_ext::{DetailedTask, Task, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime};

/// Everything a server keeps about one task (serializable, for stores on a database).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The task id (unguessable: 128 random bits, drawn by the runtime).
    pub id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Human-readable detail of the state.
    pub status_message: Option<String>,
    /// Creation time.
    pub created_at: SystemTime,
    /// Time of the last change.
    pub last_updated_at: SystemTime,
    /// How long after creation the task is kept; `None`: until evicted.
    pub ttl: Option<Duration>,
    /// Suggested polling interval.
    pub poll_interval: Option<Duration>,
    /// Requests to the client still unanswered, by wire key.
    pub input_requests: InputRequests,
    /// Answers received and not yet taken by the running request, by wire key.
    pub input_responses: Map<String, Value>,
    /// Every input key ever issued for this task (keys are never reused).
    pub issued_keys: BTreeSet<String>,
    /// The request's result, once `completed`.
    pub result: Option<Map<String, Value>>,
    /// The request's JSON-RPC error, once `failed`.
    pub error: Option<ErrorData>,
    /// Who created it (the caller's `Identity::owner`: `sub:<subject>` or `client:<id>`);
    /// `None`: created without an identity, anyone's. Never changes.
    pub owner: Option<String>,
}

impl TaskRecord {
    /// A `working` task created at `now`.
    pub fn new(id: String, now: SystemTime, ttl: Option<Duration>, poll_interval: Option<Duration>) -> Self {
        TaskRecord {
            id,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl,
            poll_interval,
            input_requests: InputRequests::new(),
            input_responses: Map::new(),
            issued_keys: BTreeSet::new(),
            result: None,
            error: None,
            owner: None,
        }
    }

    /// The same record, owned by `owner`.
    pub fn with_owner(mut self, owner: Option<String>) -> Self {
        self.owner = owner;
        self
    }

    /// True when a caller whose owner key is `owner` may see and use the task: a task created
    /// by an identified caller is that caller's alone (to anyone else it does not exist); one
    /// created without an identity is anyone's.
    pub fn belongs_to(&self, owner: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == owner
    }

    /// True once `completed`, `failed` or `cancelled`.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// True when the TTL has elapsed at `now`.
    pub fn expired(&self, now: SystemTime) -> bool {
        self.ttl.is_some_and(|ttl| now.duration_since(self.created_at).is_ok_and(|age| age >= ttl))
    }

    /// The wire task (`Task`).
    pub fn task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_at),
            last_updated_at: iso8601(self.last_updated_at),
            ttl_ms: self.ttl.map(|d| d.as_millis() as u64),
            poll_interval_ms: self.poll_interval.map(|d| (d.as_millis() as u64).max(1)),
        }
    }

    /// The wire task with its status-specific payload (`DetailedTask`).
    pub fn detailed(&self) -> DetailedTask {
        let status = self.status;
        DetailedTask {
            task: self.task(),
            input_requests: (status == TaskStatus::InputRequired).then(|| self.input_requests.clone()),
            result: if status == TaskStatus::Completed { self.result.clone() } else { None },
            error: if status == TaskStatus::Failed { self.error.clone() } else { None },
        }
    }

    fn touch(&mut self, now: SystemTime) {
        self.last_updated_at = now.max(self.created_at);
    }

    /// Ends the task as `completed` with `result`; false when it already ended.
    pub fn complete(&mut self, result: Map<String, Value>, now: SystemTime) -> bool {
        self.finish(TaskStatus::Completed, now, |r| r.result = Some(result))
    }

    /// Ends the task as `failed` with `error`; false when it already ended.
    pub fn fail(&mut self, error: ErrorData, now: SystemTime) -> bool {
        let message = error.message.clone();
        self.finish(TaskStatus::Failed, now, |r| {
            r.error = Some(error);
            r.status_message = Some(message);
        })
    }

    /// Ends the task as `cancelled`; false when it already ended (cancelling is idempotent).
    pub fn cancel(&mut self, now: SystemTime) -> bool {
        self.finish(TaskStatus::Cancelled, now, |r| r.status_message = Some("Cancelled by the client".into()))
    }

    fn finish(&mut self, status: TaskStatus, now: SystemTime, f: impl FnOnce(&mut Self)) -> bool {
        if self.is_terminal() {
            return false;
        }
        self.status = status;
        self.input_requests.clear();
        self.input_responses.clear();
        f(self);
        self.touch(now);
        true
    }

    /// Issues `requests` (keyed by the handler) to the client: each gets a wire key unique over
    /// the task's lifetime (the handler's key when still unused, else `key.2`, `key.3`, …), and
    /// the task becomes `input_required`. Returns handler key → wire key; empty when terminal.
    pub fn request_inputs(&mut self, requests: InputRequests, now: SystemTime) -> BTreeMap<String, String> {
        let mut keys = BTreeMap::new();
        if self.is_terminal() || requests.is_empty() {
            return keys;
        }
        for (key, req) in requests {
            let mut wire = key.clone();
            let mut n = 2;
            while self.issued_keys.contains(&wire) {
                wire = format!("{key}.{n}");
                n += 1;
            }
            self.issued_keys.insert(wire.clone());
            self.input_requests.insert(wire.clone(), req);
            keys.insert(key, wire);
        }
        self.status = TaskStatus::InputRequired;
        self.touch(now);
        keys
    }

    /// Records the client's answers: only keys still outstanding count (others are ignored);
    /// once none is outstanding the task is `working` again. Returns how many counted.
    pub fn record_responses(&mut self, responses: Map<String, Value>, now: SystemTime) -> usize {
        if self.is_terminal() {
            return 0;
        }
        let mut counted = 0;
        for (key, value) in responses {
            if self.input_requests.remove(&key).is_some() {
                self.input_responses.insert(key, value);
                counted += 1;
            }
        }
        if counted > 0 {
            if self.input_requests.is_empty() && self.status == TaskStatus::InputRequired {
                self.status = TaskStatus::Working;
            }
            self.touch(now);
        }
        counted
    }

    /// Takes the answers to `keys` when every one has arrived (they leave the record).
    pub fn take_responses(&mut self, keys: &[String]) -> Option<Map<String, Value>> {
        if !keys.iter().all(|k| self.input_responses.contains_key(k)) {
            return None;
        }
        Some(keys.iter().filter_map(|k| self.input_responses.remove_entry(k)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::mrtr::InputRequest;
    use crate::protocol::roots::ListRootsRequest;
    use serde_json::json;

    fn roots() -> InputRequest {
        InputRequest::ListRoots(ListRootsRequest::default())
    }

    fn record() -> TaskRecord {
        TaskRecord::new("t1".into(), SystemTime::UNIX_EPOCH, Some(Duration::from_secs(60)), None)
    }

    #[test]
    fn terminal_states_are_final() {
        let now = SystemTime::UNIX_EPOCH;
        let mut r = record();
        assert!(r.complete(Map::new(), now));
        assert!(!r.cancel(now));
        assert!(!r.fail(ErrorData::internal("x"), now));
        assert_eq!(r.status, TaskStatus::Completed);
        assert!(r.detailed().result.is_some() && r.detailed().error.is_none());
    }

    #[test]
    fn input_keys_are_never_reused_and_partial_answers_keep_input_required() {
        let now = SystemTime::UNIX_EPOCH;
        let mut r = record();
        let keys = r.request_inputs([("a".into(), roots()), ("b".into(), roots())].into(), now);
        assert_eq!(keys["a"], "a");
        assert_eq!(r.status, TaskStatus::InputRequired);
        let answer = json!({"roots": []});
        let partial: Map<String, Value> =
            [("a".to_owned(), answer.clone()), ("zzz".into(), answer.clone())].into_iter().collect();
        assert_eq!(r.record_responses(partial, now), 1);
        assert_eq!(r.status, TaskStatus::InputRequired);
        assert_eq!(r.detailed().input_requests.unwrap().keys().collect::<Vec<_>>(), ["b"]);
        assert!(r.take_responses(&["a".into(), "b".into()]).is_none());
        // An answered key counts no more.
        let again: Map<String, Value> = [("a".to_owned(), answer.clone())].into_iter().collect();
        assert_eq!(r.record_responses(again, now), 0);
        let rest: Map<String, Value> = [("b".to_owned(), answer)].into_iter().collect();
        assert_eq!(r.record_responses(rest, now), 1);
        assert_eq!(r.status, TaskStatus::Working);
        assert_eq!(r.take_responses(&["a".into(), "b".into()]).unwrap().len(), 2);
        // Asking under a used key gets a fresh wire key.
        let keys = r.request_inputs([("a".into(), roots())].into(), now);
        assert_eq!(keys["a"], "a.2");
    }

    #[test]
    fn an_owned_task_is_its_owners_alone() {
        let open = record();
        assert!(open.belongs_to(None) && open.belongs_to(Some("sub:a")));
        let owned = record().with_owner(Some("sub:a".into()));
        assert!(owned.belongs_to(Some("sub:a")));
        assert!(!owned.belongs_to(Some("sub:b")) && !owned.belongs_to(Some("client:a")));
        assert!(!owned.belongs_to(None));
    }

    #[test]
    fn ttl_counts_from_creation() {
        let r = record();
        assert!(!r.expired(SystemTime::UNIX_EPOCH + Duration::from_secs(59)));
        assert!(r.expired(SystemTime::UNIX_EPOCH + Duration::from_secs(60)));
        assert_eq!(r.task().ttl_ms, Some(60_000));
    }
}
