//! The Tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, `seps/2663-tasks-extension.md` of the spec repository), server
//! side: a `tools/call` may be answered with a task handle (`CreateTaskResult`) while the tool
//! runs on in the background; the client polls `tasks/get`, answers input requests with
//! `tasks/update`, cancels with `tasks/cancel`, or listens for `notifications/tasks`.
//!
//! A tool opts in when registered ([`crate::registry::ToolRegistry::register_with_tasks`]) with a
//! [`TaskPolicy`]: its [`TaskMode`] says whether it may (`Optional`) or must (`Required`) run as a
//! task, its [`TaskStart`] whether the task starts before the handler runs (`Immediate`) or when
//! the handler calls [`RequestContext::start_task`](crate::context::RequestContext::start_task)
//! (`Deferred`: input gathered before that goes through MRTR on the original request). A call
//! becomes a task only when its request declared the extension in `_meta` clientCapabilities;
//! otherwise an `Optional` tool runs synchronously and a `Required` one is refused with `-32021`.
//! Inside a task, [`RequestContext::input`](crate::context::RequestContext::input) waits for
//! `tasks/update` (the task is `input_required` meanwhile).
//!
//! Tasks are kept by a [`TaskStore`] (default: [`MemoryTaskStore`], bounded; expired tasks are
//! removed); choose another with [`crate::server::Server::with_task_store`]. The rules of a
//! task's life are here ([`TaskRecord`], pure, time passed in); running handlers and waking
//! waiters is the runtime's ([`crate::runtime::tasks::Tasks`]). The legacy
//! 2025-11-25 tasks (nested shapes, `tasks/result`, `tasks/list`) are not served.

pub mod clock;
mod record;
mod store;

pub use record::TaskRecord;
pub use store::{MemoryTaskStore, TaskStore};

use crate::protocol::tasks_ext::EXTENSION_ID;
use crate::protocol::ClientCapabilities;

/// What new tasks are created with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSettings {
    /// How long a task is kept after creation (`ttlMs`); `None`: until evicted (default 30 min).
    pub ttl: Option<std::time::Duration>,
    /// The suggested polling interval (`pollIntervalMs`; default 500 ms).
    pub poll_interval: Option<std::time::Duration>,
    /// The most tasks one client ([`crate::context::Origin::client_key`]) has running at once
    /// on this process (default 1,000). Past it, or when the store is full, an `Optional` tool
    /// runs synchronously instead, and a `Required` one is refused with `-32603` naming the
    /// limit ([`crate::ErrorData::over_limit`]).
    pub max_per_client: usize,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Some(std::time::Duration::from_secs(1800)),
            poll_interval: Some(std::time::Duration::from_millis(500)),
            max_per_client: 1_000,
        }
    }
}

/// Whether a tool runs as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskMode {
    /// Never: always answered synchronously (the default).
    #[default]
    Forbidden,
    /// As a task when the request declares the extension, synchronously otherwise.
    Optional,
    /// Only as a task: a request that does not declare the extension gets `-32021`.
    Required,
}

/// When a task-capable call becomes a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskStart {
    /// Before the handler runs: the request is answered with `CreateTaskResult` at once.
    #[default]
    Immediate,
    /// When the handler calls `RequestContext::start_task`; until then it runs on the request
    /// (MRTR input included), and a handler that never calls it is answered synchronously.
    Deferred,
}

/// How a tool takes part in tasks: [`TaskMode`] and [`TaskStart`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskPolicy {
    /// Whether it runs as a task.
    pub mode: TaskMode,
    /// When the task starts.
    pub start: TaskStart,
}

impl TaskPolicy {
    /// May run as a task, starting at once.
    pub fn optional() -> Self {
        TaskPolicy { mode: TaskMode::Optional, start: TaskStart::Immediate }
    }

    /// Must run as a task, starting at once.
    pub fn required() -> Self {
        TaskPolicy { mode: TaskMode::Required, start: TaskStart::Immediate }
    }

    /// The same policy, the task starting when the handler calls `RequestContext::start_task`.
    pub fn deferred(mut self) -> Self {
        self.start = TaskStart::Deferred;
        self
    }
}

/// True when `caps` declares the Tasks extension.
pub fn declares_tasks(caps: &ClientCapabilities) -> bool {
    caps.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID))
}

/// The `data.requiredCapabilities` of a `-32021` for the Tasks extension.
pub fn required_capabilities() -> serde_json::Value {
    serde_json::json!({ "extensions": { EXTENSION_ID: {} } })
}

/// `-32021` naming the Tasks extension.
pub fn missing_tasks_capability(why: &str) -> crate::ErrorData {
    crate::ErrorData::new(
        crate::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: extensions[\"{EXTENSION_ID}\"] ({why})"),
    )
    .with_data(serde_json::json!({ "requiredCapabilities": required_capabilities() }))
}
