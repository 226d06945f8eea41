//! The Tasks extension in the engine (DIGEST §A.13): which `tools/call` may become a task,
//! `tasks/get`, `tasks/update`, `tasks/cancel`, and the `CreateTaskResult` shape. Only on
//! 2026-07-28 requests that declare the extension.

use super::{parse_params, reply_err, Action, Caller, ServerEngine};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::protocol::meta;
use crate::protocol::tasks_ext::{TaskIdParams, UpdateTaskParams, RESULT_TYPE_TASK};
use crate::protocol::{ClientCapabilities, ProtocolVersion};
use crate::registry::RegisteredTool;
use crate::tasks::{declares_tasks, missing_tasks_capability, TaskMode, TaskRecord, TaskStart};
use serde_json::{json, Value};

fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("Failed to retrieve task: Task not found or expired: {id}"))
        .with_data(json!({ "taskId": id }))
}

impl ServerEngine {
    /// Whether a call of `tool` may become a task: `Some(start)` when the tool opts in and the
    /// 2026-07-28 request declared the extension; `-32021` for a `Required` tool otherwise
    /// (legacy sessions run every tool synchronously).
    pub(super) fn task_plan(
        &self,
        tool: &RegisteredTool,
        caller: &Caller,
    ) -> Result<Option<TaskStart>, ErrorData> {
        let policy = tool.task_policy();
        match (policy.mode, caller) {
            (TaskMode::Forbidden, _) | (_, Caller::Legacy(_)) => Ok(None),
            (_, Caller::Modern(caps)) if declares_tasks(caps) => Ok(Some(policy.start)),
            (TaskMode::Required, Caller::Modern(_)) => {
                Err(missing_tasks_capability(&format!("tool {} runs only as a task", tool.tool().name)))
            }
            (TaskMode::Optional, Caller::Modern(_)) => Ok(None),
        }
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel`.
    pub(super) fn tasks_method(
        &self,
        req: Request,
        version: ProtocolVersion,
        caps: &ClientCapabilities,
    ) -> Action {
        if !declares_tasks(caps) {
            let why = format!("{} needs the Tasks extension declared on the request", req.method);
            return reply_err(req.id, missing_tasks_capability(&why));
        }
        match req.method.as_str() {
            "tasks/update" => {
                let params: UpdateTaskParams = match parse_params(&req) {
                    Ok(p) => p,
                    Err(e) => return reply_err(req.id, e),
                };
                match self.tasks.record_responses(&params.task_id, params.input_responses) {
                    Some(_) => self.reply_ok(req.id, version, json!({})),
                    None => reply_err(req.id, unknown_task(&params.task_id)),
                }
            }
            method => {
                let params: TaskIdParams = match parse_params(&req) {
                    Ok(p) => p,
                    Err(e) => return reply_err(req.id, e),
                };
                if method == "tasks/cancel" {
                    return match self.tasks.cancel(&params.task_id) {
                        true => self.reply_ok(req.id, version, json!({})),
                        false => reply_err(req.id, unknown_task(&params.task_id)),
                    };
                }
                match self.tasks.get(&params.task_id) {
                    Some(record) => {
                        let body = serde_json::to_value(record.detailed()).expect("serializable");
                        self.reply_ok(req.id, version, body)
                    }
                    None => reply_err(req.id, unknown_task(&params.task_id)),
                }
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
