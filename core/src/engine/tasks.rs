//! The Tasks extension in the engine (`seps/2663-tasks-extension.md` of the spec repository):
//! which `tools/call` may become a task, `tasks/get`, `tasks/update`, `tasks/cancel`, and the
//! `CreateTaskResult` shape. Only on 2026-07-28 requests that declare the extension. The task
//! methods read and change the task store, which is async: the engine checks them and hands
//! them to the runtime as [`Work::Task`], then shapes the runtime's answer
//! ([`ServerEngine::task_reply`]).

use super::{parse_params, reply_err, Action, PendingCall, ServerEngine, TaskOp, Who, Work};
use crate::context::Caller;
use crate::error::ErrorData;
use crate::jsonrpc::{Request, Response};
use crate::protocol::meta;
use crate::protocol::tasks_ext::{TaskIdParams, UpdateTaskParams, RESULT_TYPE_TASK};
use crate::protocol::ProtocolVersion;
use crate::registry::RegisteredTool;
use crate::tasks::{declares_tasks, missing_tasks_capability, TaskMode, TaskRecord, TaskStart};
use serde_json::{json, Value};
use std::sync::Arc;

fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("Failed to retrieve task: Task not found or expired: {id}"))
        .with_data(json!({ "taskId": id }))
}

impl ServerEngine {
    /// Whether a call of `tool` may become a task: `Some(start)` when the tool opts in and the
    /// 2026-07-28 request declared the extension; `-32021` for a `Required` tool otherwise
    /// (legacy sessions run every tool synchronously).
    pub(super) fn task_plan(&self, tool: &RegisteredTool, who: &Who) -> Result<Option<TaskStart>, ErrorData> {
        let policy = tool.task_policy();
        match (policy.mode, who) {
            (TaskMode::Forbidden, _) | (_, Who::Legacy(_)) => Ok(None),
            (_, Who::Modern(c)) if declares_tasks(&c.client_capabilities) => Ok(Some(policy.start)),
            (TaskMode::Required, Who::Modern(_)) => {
                Err(missing_tasks_capability(&format!("tool {} runs only as a task", tool.tool().name)))
            }
            (TaskMode::Optional, Who::Modern(_)) => Ok(None),
        }
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel`: checked here, run by the runtime.
    pub(super) fn tasks_method(&self, req: Request, version: ProtocolVersion, caller: Arc<Caller>) -> Action {
        if !declares_tasks(&caller.client_capabilities) {
            let why = format!("{} needs the Tasks extension declared on the request", req.method);
            return reply_err(req.id, missing_tasks_capability(&why));
        }
        let op = if req.method == "tasks/update" {
            match parse_params::<UpdateTaskParams>(&req) {
                Ok(p) => TaskOp::Update { id: p.task_id, responses: p.input_responses },
                Err(e) => return reply_err(req.id, e),
            }
        } else {
            match parse_params::<TaskIdParams>(&req) {
                Ok(p) if req.method == "tasks/cancel" => TaskOp::Cancel(p.task_id),
                Ok(p) => TaskOp::Get(p.task_id),
                Err(e) => return reply_err(req.id, e),
            }
        };
        Action::CallTool(Box::new(PendingCall {
            id: req.id,
            version,
            caller,
            work: Work::Task(op),
            progress_token: None,
            log_level: None,
            input: None,
            binding: None,
            task: None,
        }))
    }

    /// The response to a task method, from what the store said: `Ok(Some(record))` for a known
    /// task (after the operation), `Ok(None)` for an unknown or expired one, `Err` when the
    /// store failed.
    pub fn task_reply(&self, call: &PendingCall, outcome: Result<Option<TaskRecord>, ErrorData>) -> Response {
        let Work::Task(op) = &call.work else {
            return Response::error(
                Some(call.id.clone()),
                ErrorData::internal("Internal error: not a task method"),
            );
        };
        match outcome {
            Err(e) => Response::error(Some(call.id.clone()), e),
            Ok(None) => Response::error(Some(call.id.clone()), unknown_task(op.task_id())),
            Ok(Some(record)) => {
                let body = match op {
                    TaskOp::Get(_) => serde_json::to_value(record.detailed()).expect("serializable"),
                    TaskOp::Update { .. } | TaskOp::Cancel(_) => json!({}),
                };
                self.ok(call.id.clone(), call.version, body)
            }
        }
    }

    /// The `CreateTaskResult` answering a request that became the task `record`: the flat
    /// task, `resultType: "task"`, the server's identity in `_meta`.
    pub fn create_task_result(&self, record: &TaskRecord) -> Value {
        let mut v = serde_json::to_value(record.task()).expect("serializable");
        v["resultType"] = json!(RESULT_TYPE_TASK);
        v["_meta"] = json!({ meta::SERVER_INFO: self.config.info });
        v
    }
}
