//! The Tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663,
//! `modelcontextprotocol/ext-tasks` `schema/draft/schema.ts`): flat task shapes, `ttlMs` and
//! `pollIntervalMs`, `resultType: "task"`. Not the legacy 2025-11-25 tasks of [`super::tasks`],
//! whose shapes are nested and named differently.

use super::mrtr::InputRequests;
use crate::error::ErrorData;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use super::tasks::TaskStatus;

/// The extension identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The `resultType` of a [`CreateTaskResult`](Task) (`"task"`).
pub const RESULT_TYPE_TASK: &str = "task";

/// The method of a task status notification.
pub const NOTIFICATION_METHOD: &str = "notifications/tasks";

/// A task (`Task`): what `CreateTaskResult` carries next to `resultType: "task"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The server-chosen identifier.
    pub task_id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Human-readable detail of the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Integer milliseconds from creation the task is kept; `null` (always sent) = unlimited.
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in integer milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// A task with its status-specific payload (`DetailedTask`): `inputRequests` when
/// `input_required`, `result` when `completed`, `error` when `failed`. The body of a `tasks/get`
/// result and of `notifications/tasks` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task, flattened.
    #[serde(flatten)]
    pub task: Task,
    /// Outstanding requests to the client (`input_required`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The original request's result (`completed`), e.g. a `CallToolResult`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// The JSON-RPC error the request failed with (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorData>,
}

/// Params of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// Params of `tasks/update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to outstanding `inputRequests`, by key (unknown or answered keys are ignored).
    pub input_responses: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_is_flat_and_keeps_a_null_ttl() {
        let v = json!({"taskId": "t", "status": "input_required", "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": null, "pollIntervalMs": 500,
            "inputRequests": {"k": {"method": "roots/list", "params": {}}}});
        let t: DetailedTask = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(t.task.ttl_ms, None);
        assert_eq!(t.task.status, TaskStatus::InputRequired);
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
    }
}
