//! Task-augmented tool calls on the client, both lineages, behind one handle.
//!
//! - 2025-11-25 (spec 2025-11-25 basic/utilities/tasks): `tools/call` with `task: {ttl}` is
//!   answered `{task: Task}`; `tasks/get` reads the status, `tasks/result` waits for the
//!   original result (server→client requests of the task, such as an elicitation, may arrive
//!   meanwhile and are answered by the client's input handler), `tasks/cancel` cancels.
//! - 2026-07-28 (the Tasks extension, `io.modelcontextprotocol/tasks`): the request declares
//!   the extension in its `_meta` clientCapabilities and may be answered `resultType: "task"`
//!   (flat); the client polls `tasks/get` at the server's `pollIntervalMs`, answers
//!   `inputRequests` with `tasks/update` (each key once), and reads `result` or `error` from the
//!   terminal state.
//!
//! [`Client::call_tool`] runs a task by itself when the tool requires one (2025-11-25
//! `execution.taskSupport: "required"`, or a 2026-07-28 `-32021` naming the extension) and
//! returns its result; [`Client::call_tool_as_task`] returns the [`TaskHandle`].
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::client::TaskOptions;
//! let task = client.call_tool_as_task("research", serde_json::json!({"topic": "mcp"}), TaskOptions::default()).await?;
//! println!("{:?}", task.status().await?.status);
//! let result = task.result().await?;
//! # Ok(()) }
//! ```

use super::{mrtr, CallOptions, Client};
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::protocol::mrtr::{InputRequests, InputResponses};
use crate::protocol::tasks::{CreateTaskResult, GetTaskResult, TaskStatus};
use crate::protocol::tasks_ext::{self, DetailedTask};
use crate::protocol::CallToolResult;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

/// How a task-augmented call is made.
#[derive(Debug, Clone, Default)]
pub struct TaskOptions {
    /// How long the server should keep the task (2025-11-25 `task.ttl`; the 2026-07-28
    /// extension lets the server decide).
    pub ttl: Option<Duration>,
    /// How long [`TaskHandle::result`] waits in total (default: the client's request timeout).
    pub wait: Option<Duration>,
}

/// What a task is doing, as the server last said.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskInfo {
    /// The task id.
    pub task_id: String,
    /// Its state.
    pub status: TaskStatus,
    /// The server's words about the state.
    pub status_message: Option<String>,
    /// How often the server suggests polling.
    pub poll_interval: Option<Duration>,
    /// How long the server keeps the task after its creation (`None`: unlimited).
    pub ttl: Option<Duration>,
}

#[derive(Debug)]
enum State {
    /// The server answered at once instead of creating a task (its right on 2026-07-28).
    Done(CallToolResult),
    /// A 2025-11-25 task.
    Legacy(TaskInfo),
    /// A 2026-07-28 Tasks extension task.
    Modern(TaskInfo),
}

/// A task the server runs for a tool call: its status, its result, its cancellation.
#[derive(Debug)]
pub struct TaskHandle {
    client: Client,
    state: State,
    wait: Duration,
    /// 2026-07-28: input request keys already answered (keys are never reused).
    answered: Mutex<HashSet<String>>,
}

/// The smallest and largest wait between two polls.
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(5);

impl Client {
    /// Calls a tool as a task and returns its handle (see the module docs). On 2026-07-28 the
    /// server may still answer at once: the handle then holds the result.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        options: TaskOptions,
    ) -> Result<TaskHandle> {
        let modern = self.current_version().is_some_and(|v| v.is_modern());
        let mut params = Map::new();
        params.insert("name".into(), json!(name));
        params.insert("arguments".into(), arguments);
        let wait = options.wait.unwrap_or(self.inner.options.request_timeout);
        if !modern {
            let mut task = Map::new();
            if let Some(ttl) = options.ttl {
                task.insert("ttl".into(), json!(ttl.as_millis() as u64));
            }
            params.insert("task".into(), Value::Object(task));
            let v = self.request_once("tools/call", params, &CallOptions::default()).await?;
            let created: CreateTaskResult = serde_json::from_value(v.clone()).map_err(|_| {
                Error::protocol(format!(
                    "tools/call {name}: the server answered without creating a task: {v}"
                ))
            })?;
            let t = created.task;
            let info = TaskInfo {
                task_id: t.task_id,
                status: t.status,
                status_message: t.status_message,
                poll_interval: t.poll_interval.map(Duration::from_millis),
                ttl: t.ttl.map(Duration::from_millis),
            };
            return Ok(self.handle(State::Legacy(info), wait));
        }
        let opts = CallOptions { tasks: true, ..CallOptions::default() };
        let (v, _) = self.request_inner("tools/call", params, &opts).await?;
        if v.get("resultType").and_then(Value::as_str) == Some(tasks_ext::RESULT_TYPE_TASK) {
            let t: tasks_ext::Task = serde_json::from_value(v)
                .map_err(|e| Error::protocol(format!("tools/call {name}: malformed task: {e}")))?;
            return Ok(self.handle(State::Modern(modern_info(t)), wait));
        }
        let result = serde_json::from_value(v)
            .map_err(|e| Error::protocol(format!("malformed tools/call result: {e}")))?;
        Ok(self.handle(State::Done(result), wait))
    }

    fn handle(&self, state: State, wait: Duration) -> TaskHandle {
        TaskHandle { client: self.clone(), state, wait, answered: Mutex::default() }
    }

    /// Whether `e`, the answer to a plain `tools/call` of `name`, says the tool runs only as a
    /// task: 2026-07-28 `-32021` naming the Tasks extension; 2025-11-25 a refusal (`-32601` or
    /// `-32600`, the revision's page names both) of a tool that lists `taskSupport: "required"`.
    pub(crate) async fn needs_task(&self, name: &str, e: &Error) -> bool {
        let Some(d) = e.rpc_error() else { return false };
        if self.current_version().is_some_and(|v| v.is_modern()) {
            return d.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                && d.data.as_ref().is_some_and(|data| {
                    data.pointer("/requiredCapabilities/extensions")
                        .and_then(Value::as_object)
                        .is_some_and(|x| x.contains_key(tasks_ext::EXTENSION_ID))
                });
        }
        if d.code != ErrorCode::METHOD_NOT_FOUND && d.code != ErrorCode::INVALID_REQUEST {
            return false;
        }
        // Learn the tool's execution mode from the server's list when it is not known yet.
        if !self.inner.task_tools.lock().expect("lock").contains(name) {
            self.clear_tools_cache();
            let _ = self.list_tools().await;
        }
        self.inner.task_tools.lock().expect("lock").contains(name)
    }

    /// Whether an `isError` result of a plain `tools/call` of `name` is a refusal because the
    /// tool runs only as a task: some servers (the TypeScript SDK's, e.g. server-everything's
    /// `simulate-research-query`) answer so instead of with a JSON-RPC error. Legacy lineage,
    /// and only while no `tools/list` has been read (else [`Client::task_required`] already
    /// knew): then the list is read once, and tells.
    pub(crate) async fn refused_for_want_of_task(&self, name: &str) -> bool {
        if self.current_version().is_some_and(|v| v.is_modern())
            || self.inner.tools_learned.load(std::sync::atomic::Ordering::Relaxed)
        {
            return false;
        }
        let _ = self.list_tools().await;
        self.task_required(name)
    }

    /// 2025-11-25: `tools/list` said the tool runs only as a task.
    pub(crate) fn task_required(&self, name: &str) -> bool {
        !self.current_version().is_some_and(|v| v.is_modern())
            && self.inner.task_tools.lock().expect("lock").contains(name)
    }

    /// Notes which tools of a `tools/list` page require a task (2025-11-25).
    pub(crate) fn learn_task_tools(&self, tools: &[crate::protocol::Tool]) {
        self.inner.tools_learned.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut set = self.inner.task_tools.lock().expect("lock");
        for t in tools {
            let required = t.execution.as_ref().and_then(|e| e.get("taskSupport")).and_then(Value::as_str)
                == Some("required");
            if required {
                set.insert(t.name.clone());
            } else {
                set.remove(&t.name);
            }
        }
    }
}

fn modern_info(t: tasks_ext::Task) -> TaskInfo {
    TaskInfo {
        task_id: t.task_id,
        status: t.status,
        status_message: t.status_message,
        poll_interval: t.poll_interval_ms.map(Duration::from_millis),
        ttl: t.ttl_ms.map(Duration::from_millis),
    }
}

fn id_params(id: &str) -> Value {
    json!({ "taskId": id })
}

impl TaskHandle {
    /// The task id; `None` when the server answered at once instead of creating a task.
    pub fn id(&self) -> Option<&str> {
        match &self.state {
            State::Done(_) => None,
            State::Legacy(i) | State::Modern(i) => Some(&i.task_id),
        }
    }

    /// What the server said when it created the task (`None` when it answered at once).
    pub fn created(&self) -> Option<&TaskInfo> {
        match &self.state {
            State::Done(_) => None,
            State::Legacy(i) | State::Modern(i) => Some(i),
        }
    }

    fn task_opts(&self) -> CallOptions {
        CallOptions { tasks: true, ..CallOptions::default() }
    }

    /// Asks the server for the task's state (`tasks/get`).
    pub async fn status(&self) -> Result<TaskInfo> {
        match &self.state {
            State::Done(_) => Ok(TaskInfo {
                task_id: String::new(),
                status: TaskStatus::Completed,
                status_message: None,
                poll_interval: None,
                ttl: None,
            }),
            State::Legacy(i) => {
                let v = self.client.request("tasks/get", id_params(&i.task_id)).await?;
                let t: GetTaskResult = serde_json::from_value(v)
                    .map_err(|e| Error::protocol(format!("malformed tasks/get result: {e}")))?;
                let t = t.task;
                Ok(TaskInfo {
                    task_id: t.task_id,
                    status: t.status,
                    status_message: t.status_message,
                    poll_interval: t.poll_interval.map(Duration::from_millis),
                    ttl: t.ttl.map(Duration::from_millis),
                })
            }
            State::Modern(i) => Ok(modern_info(self.detailed(&i.task_id).await?.task)),
        }
    }

    async fn detailed(&self, id: &str) -> Result<DetailedTask> {
        let v = self.client.request_with("tasks/get", id_params(id), &self.task_opts()).await?;
        serde_json::from_value(v).map_err(|e| Error::protocol(format!("malformed tasks/get result: {e}")))
    }

    /// Asks the server to cancel the task (`tasks/cancel`; cooperative: the task may still
    /// finish otherwise). Nothing to do for a call answered at once.
    pub async fn cancel(&self) -> Result<()> {
        match &self.state {
            State::Done(_) => Ok(()),
            State::Legacy(i) => self.client.request("tasks/cancel", id_params(&i.task_id)).await.map(drop),
            State::Modern(i) => self
                .client
                .request_with("tasks/cancel", id_params(&i.task_id), &self.task_opts())
                .await
                .map(drop),
        }
    }

    /// Waits for the task to end and returns the tool's result (a failing tool is a result
    /// with `isError`); a task that failed with a JSON-RPC error is that error, a cancelled
    /// task is [`ErrorKind::Cancelled`]. Waits at most [`TaskOptions::wait`].
    pub async fn result(&self) -> Result<CallToolResult> {
        let wait = self.wait;
        match tokio::time::timeout(wait, self.result_inner()).await {
            Ok(r) => r,
            Err(_) => Err(Error::timeout(format!("the task did not end within {wait:?}"))),
        }
    }

    async fn result_inner(&self) -> Result<CallToolResult> {
        match &self.state {
            State::Done(r) => Ok(r.clone()),
            State::Legacy(i) => {
                // Blocks until the task is terminal (spec 2025-11-25 basic/utilities/tasks).
                let opts = CallOptions { timeout: Some(self.wait), ..CallOptions::default() };
                let v = self.client.request_with("tasks/result", id_params(&i.task_id), &opts).await?;
                serde_json::from_value(v)
                    .map_err(|e| Error::protocol(format!("malformed tasks/result result: {e}")))
            }
            State::Modern(i) => self.poll(&i.task_id, i.poll_interval).await,
        }
    }

    /// 2026-07-28: polls `tasks/get` until a terminal state, answering input requests.
    async fn poll(&self, id: &str, first: Option<Duration>) -> Result<CallToolResult> {
        let mut interval = first.unwrap_or(Duration::from_millis(500));
        // Ends by the terminal state, or by the wait bound of `result`.
        loop {
            let d = self.detailed(id).await?;
            interval = d.task.poll_interval_ms.map(Duration::from_millis).unwrap_or(interval);
            match d.task.status {
                TaskStatus::Completed => {
                    let result = d.result.ok_or_else(|| {
                        Error::protocol(format!("tasks/get: task {id} is completed but carries no result"))
                    })?;
                    return serde_json::from_value(Value::Object(result))
                        .map_err(|e| Error::protocol(format!("malformed task result: {e}")));
                }
                TaskStatus::Failed => {
                    return Err(match d.error {
                        Some(e) => Error::rpc(e),
                        None => Error::protocol(format!("task {id} failed without an error")),
                    })
                }
                TaskStatus::Cancelled => {
                    return Err(Error::new(
                        ErrorKind::Cancelled,
                        d.task.status_message.unwrap_or_else(|| format!("task {id} was cancelled")),
                    ))
                }
                TaskStatus::InputRequired => {
                    if let Some(requests) = d.input_requests {
                        self.answer(id, requests).await?;
                        continue;
                    }
                }
                TaskStatus::Working => {}
            }
            tokio::time::sleep(interval.clamp(MIN_POLL, MAX_POLL)).await;
        }
    }

    /// Answers the input requests not answered before with `tasks/update`.
    async fn answer(&self, id: &str, requests: InputRequests) -> Result<()> {
        let fresh: InputRequests = {
            let answered = self.answered.lock().expect("lock");
            requests.into_iter().filter(|(k, _)| !answered.contains(k)).collect()
        };
        if fresh.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = fresh.keys().cloned().collect();
        let responses: InputResponses =
            mrtr::gather(&self.client, "tasks/get", fresh, &CallOptions::default()).await?;
        self.answered.lock().expect("lock").extend(keys);
        let params = json!({ "taskId": id, "inputResponses": responses });
        self.client.request_with("tasks/update", params, &self.task_opts()).await.map(drop)
    }
}
