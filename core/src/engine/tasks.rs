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

#[cfg(test)]
mod tests {
    use super::super::{Action, Connection, ServerConfig, ServerEngine};
    use crate::jsonrpc::{from_value, Message, Response};
    use crate::protocol::{CallToolResult, Tool};
    use crate::registry::{Arguments, NotificationSink, ToolContext, ToolRegistry};
    use crate::tasks::TaskPolicy;
    use serde_json::{json, Value};
    use std::sync::Arc;
    use std::time::Duration;

    fn engine() -> Arc<ServerEngine> {
        let reg = ToolRegistry::new();
        let t = |n: &str| Tool::new(n, n, json!({"type": "object"}));
        reg.register(t("plain"), |_: Arguments, _: ToolContext| async move { Ok(CallToolResult::text("p")) })
            .unwrap();
        reg.register_with_tasks(
            t("maybe"),
            TaskPolicy::optional(),
            |_: Arguments, _: ToolContext| async move { Ok(CallToolResult::text("done")) },
        )
        .unwrap();
        reg.register_with_tasks(
            t("must"),
            TaskPolicy::required(),
            |_: Arguments, _: ToolContext| async move {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(CallToolResult::text("never"))
            },
        )
        .unwrap();
        reg.register_with_tasks(
            t("ask"),
            TaskPolicy::optional(),
            |_: Arguments, ctx: ToolContext| async move {
                let form = serde_json::from_value(json!({"message": "name?", "requestedSchema":
                {"type": "object", "properties": {"name": {"type": "string"}}}}))
                .unwrap();
                let r = ctx.elicit("name", form).await?;
                Ok(CallToolResult::text(format!("hi {:?}", r.content.unwrap()["name"])))
            },
        )
        .unwrap();
        Arc::new(ServerEngine::new(ServerConfig::new("test", "1.0"), Arc::new(reg)))
    }

    fn caps(tasks: bool) -> Value {
        let mut c = json!({"elicitation": {}});
        if tasks {
            c["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
        }
        c
    }

    fn request(id: u64, method: &str, mut params: Value, tasks: bool) -> Message {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps(tasks)});
        from_value(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap()
    }

    fn reply(a: Action) -> Value {
        match a {
            Action::Reply(r) => Message::Response(r).to_value(),
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    fn ask(e: &ServerEngine, id: u64, method: &str, params: Value) -> Value {
        reply(e.handle(&mut Connection::new(), request(id, method, params, true)))
    }

    async fn call(e: &Arc<ServerEngine>, name: &str, tasks: bool) -> Value {
        let action = e.handle(&mut Connection::new(), request(9, "tools/call", json!({"name": name}), tasks));
        let Action::CallTool(c) = action else { return reply(action) };
        let sink: NotificationSink = Arc::new(|_| {});
        let (_, resp): (_, Response) = crate::server::run_call(e.clone(), c, sink, None).await;
        Message::Response(resp).to_value()
    }

    async fn until(e: &ServerEngine, task: &str, status: &str) -> Value {
        for _ in 0..200 {
            let r = ask(e, 1, "tasks/get", json!({"taskId": task}));
            if r["result"]["status"] == status {
                return r["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {task} never reached {status}")
    }

    #[test]
    fn the_extension_is_advertised_and_gated() {
        let e = engine();
        let r = ask(&e, 1, "server/discover", json!({}));
        assert_eq!(r["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
        for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
            let params = json!({"taskId": "x", "inputResponses": {}});
            let r = reply(e.handle(&mut Connection::new(), request(2, method, params, false)));
            assert_eq!(r["error"]["code"], -32021, "{method}");
            assert_eq!(
                r["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
                json!({})
            );
            let r = ask(&e, 3, method, json!({"taskId": "x", "inputResponses": {}}));
            assert_eq!(r["error"]["code"], -32602, "{method}: unknown task");
        }
        let listen = request(4, "subscriptions/listen", json!({"notifications": {"taskIds": ["x"]}}), false);
        assert_eq!(reply(e.handle(&mut Connection::new(), listen))["error"]["code"], -32021);
    }

    #[test]
    fn which_calls_may_become_tasks() {
        let e = engine();
        let plan = |name: &str, tasks: bool| match e
            .handle(&mut Connection::new(), request(1, "tools/call", json!({"name": name}), tasks))
        {
            Action::CallTool(c) => Ok(c.task),
            other => Err(reply(other)),
        };
        assert_eq!(plan("plain", true), Ok(None));
        assert_eq!(plan("maybe", false), Ok(None));
        assert_eq!(plan("maybe", true), Ok(Some(crate::tasks::TaskStart::Immediate)));
        assert_eq!(plan("must", false).unwrap_err()["error"]["code"], -32021);
        assert!(plan("must", true).unwrap().is_some());
    }

    #[tokio::test]
    async fn a_task_completes_and_is_polled() {
        let e = engine();
        let created = call(&e, "maybe", true).await;
        let r = &created["result"];
        assert_eq!(r["resultType"], "task");
        assert!(r.get("task").is_none() && r.get("result").is_none());
        assert!(r["ttlMs"].as_u64().is_some() && r["pollIntervalMs"].as_u64().is_some());
        let done = until(&e, r["taskId"].as_str().unwrap(), "completed").await;
        assert_eq!(done["resultType"], "complete");
        assert_eq!(done["result"]["content"][0]["text"], "done");
        // Without the extension the same tool answers at once.
        assert_eq!(call(&e, "maybe", false).await["result"]["content"][0]["text"], "done");
    }

    #[tokio::test]
    async fn input_inside_a_task_waits_for_tasks_update() {
        let e = engine();
        let created = call(&e, "ask", true).await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let waiting = until(&e, &id, "input_required").await;
        assert_eq!(waiting["inputRequests"]["name"]["method"], "elicitation/create");
        let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}, "other": {}});
        let ack = ask(&e, 5, "tasks/update", json!({"taskId": id, "inputResponses": answer}));
        assert_eq!(ack["result"]["resultType"], "complete");
        assert!(ack["result"].get("status").is_none());
        let done = until(&e, &id, "completed").await;
        assert!(done["result"]["content"][0]["text"].as_str().unwrap().contains("Ada"));
    }

    #[tokio::test]
    async fn cancelling_stops_the_task_and_is_idempotent() {
        let e = engine();
        let created = call(&e, "must", true).await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let listen = match e.handle(
            &mut Connection::new(),
            request(7, "subscriptions/listen", json!({"notifications": {"taskIds": [id, "nope"]}}), true),
        ) {
            Action::Listen(l) => l,
            other => panic!("{other:?}"),
        };
        assert_eq!(listen.filter.task_ids, Some(vec![id.clone()]));
        for _ in 0..2 {
            let ack = ask(&e, 6, "tasks/cancel", json!({"taskId": id}));
            assert_eq!(ack["result"], json!({"resultType": "complete", "_meta": ack["result"]["_meta"]}));
        }
        let cancelled = until(&e, &id, "cancelled").await;
        assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());
        let note =
            e.listen_notification(&listen, &crate::changes::Change::Task(id.clone())).unwrap().to_value();
        assert_eq!(note["method"], "notifications/tasks");
        assert_eq!(note["params"]["status"], "cancelled");
        assert_eq!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    }
}
