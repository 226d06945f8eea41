//! A 2026-07-28 remote's task (Tasks extension, `io.modelcontextprotocol/tasks`;
//! `seps/2663-tasks-extension.md`) followed for the local caller.
//!
//! A remote may answer a forwarded `tools/call` with a `CreateTaskResult`. The forwarded call
//! then becomes a local task when it can (the caller declared the extension:
//! [`RequestContext::start_task`], the tool being registered with a deferred, optional task
//! policy), so the caller gets its own `CreateTaskResult` and polls the local server; otherwise
//! it stays a plain call. Either way the handler follows the remote task by polling
//! `tasks/get` (at the remote's `pollIntervalMs`, between 50 ms and 5 s):
//!
//! - `input_required`: the remote's `inputRequests` (keys unique over the task's life) are
//!   asked of the caller through [`RequestContext::input`] (the local task's `inputRequests`,
//!   real requests on a legacy session) and answered with `tasks/update`; a 2026-07-28 caller
//!   whose call is not a task gets them as its own `input_required` round, the remote task id
//!   kept in the gateway's sealed state, and its retry answers the remote task;
//! - `completed`: its `result` is the call's result; `failed`: its `error` the call's error;
//!   `cancelled`: a tool error.
//!
//! When the local call ends early (the local task was cancelled, the caller went away) the
//! remote task is cancelled too (`tasks/cancel`; `notifications/cancelled` must not be used
//! for tasks).

use crate::client::{CallOptions, Client};
use crate::context::RequestContext;
use crate::error::{Error, ErrorData, Result};
use crate::protocol::mrtr::InputRequests;
use crate::protocol::tasks_ext::EXTENSION_ID;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::time::Duration;

/// What a forwarded call following a remote task needs to know after a round ends.
pub(crate) enum Followed {
    /// The task ended: the call's result.
    Done(Value),
    /// A 2026-07-28 caller (not a task) must answer these first.
    Input(InputRequests),
}

/// Cancels the remote task when dropped, unless it ended.
struct CancelOnDrop {
    client: Client,
    task_id: Option<String>,
    extensions: Map<String, Value>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.task_id.take() {
            let (client, extensions) = (self.client.clone(), std::mem::take(&mut self.extensions));
            tokio::spawn(async move {
                let opts = CallOptions { extensions: Some(extensions), ..CallOptions::default() };
                let mut params = Map::new();
                params.insert("taskId".into(), json!(id));
                let _ = client.request_once("tasks/cancel", params, &opts).await;
            });
        }
    }
}

/// The extensions a forwarded call declares: those of its caller the gateway takes part in
/// (the Tasks extension), so a remote answers as it would answer the caller.
pub(crate) fn extensions(ctx: &RequestContext) -> Map<String, Value> {
    let declared = ctx.client_capabilities().and_then(|c| c.extensions.as_ref());
    declared
        .and_then(|x| x.get(EXTENSION_ID))
        .map(|v| [(EXTENSION_ID.to_owned(), v.clone())].into_iter().collect())
        .unwrap_or_default()
}

fn poll_interval(task: &Value) -> Duration {
    let ms = task.get("pollIntervalMs").and_then(Value::as_u64).unwrap_or(500);
    Duration::from_millis(ms.clamp(50, 5000))
}

/// Follows the remote task `task_id` (just created, or answered by a caller's retry with
/// `answers`) until it ends or a 2026-07-28 caller's input is needed.
pub(crate) async fn follow(
    client: &Client,
    ctx: &RequestContext,
    task_id: &str,
    created: Option<&Value>,
    answers: Option<Map<String, Value>>,
    extensions: Map<String, Value>,
) -> Result<Followed> {
    let opts = CallOptions { extensions: Some(extensions), ..CallOptions::default() };
    let mut guard = CancelOnDrop {
        client: client.clone(),
        task_id: Some(task_id.to_owned()),
        extensions: opts.extensions.clone().unwrap_or_default(),
    };
    if created.is_some() {
        // The caller polls the local task from now on (when it declared the extension).
        ctx.start_task().await?;
    }
    if let Some(answers) = answers.filter(|a| !a.is_empty()) {
        update(client, task_id, answers, &opts).await?;
    }
    let mut interval;
    let mut answered = BTreeSet::new();
    // Bounded: a task the remote keeps working on for a day is given up.
    for _ in 0..(24 * 3600 * 20) {
        let mut params = Map::new();
        params.insert("taskId".into(), json!(task_id));
        let task = client.request_once("tasks/get", params, &opts).await?;
        interval = poll_interval(&task);
        match task.get("status").and_then(Value::as_str) {
            Some("completed") => {
                guard.task_id = None;
                return Ok(Followed::Done(task.get("result").cloned().unwrap_or_else(|| json!({}))));
            }
            Some("failed") => {
                guard.task_id = None;
                let e: ErrorData = task
                    .get("error")
                    .cloned()
                    .and_then(|e| serde_json::from_value(e).ok())
                    .unwrap_or_else(|| ErrorData::internal("the remote task failed"));
                return Err(Error::rpc(e));
            }
            Some("cancelled") => {
                guard.task_id = None;
                return Err(Error::tool(format!("the remote task {task_id} was cancelled")));
            }
            Some("input_required") => {
                let requests: InputRequests = task
                    .get("inputRequests")
                    .cloned()
                    .and_then(|r| serde_json::from_value(r).ok())
                    .unwrap_or_default();
                let fresh: InputRequests =
                    requests.into_iter().filter(|(k, _)| !answered.contains(k)).collect();
                if !fresh.is_empty() {
                    if ctx.input_answers().is_some() && ctx.task_id().is_none() {
                        // A 2026-07-28 caller's round ends here; its retry answers the task.
                        guard.task_id = None;
                        return Ok(Followed::Input(fresh));
                    }
                    answered.extend(fresh.keys().cloned());
                    let answers = ctx.input(fresh).await?;
                    let answers = match serde_json::to_value(answers) {
                        Ok(Value::Object(m)) => m,
                        _ => Map::new(),
                    };
                    update(client, task_id, answers, &opts).await?;
                    continue;
                }
            }
            _ => {}
        }
        tokio::time::sleep(interval).await;
    }
    Err(Error::timeout(format!("the remote task {task_id} did not end")))
}

async fn update(
    client: &Client,
    task_id: &str,
    answers: Map<String, Value>,
    opts: &CallOptions,
) -> Result<()> {
    let mut params = Map::new();
    params.insert("taskId".into(), json!(task_id));
    params.insert("inputResponses".into(), Value::Object(answers));
    client.request_once("tasks/update", params, opts).await.map(drop)
}
