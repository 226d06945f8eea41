//! Fixture tools of the Tasks extension scenarios (`tasks-*`, tests/conformance/NOTES.md §5.6):
//! `greet` (never a task), `slow_compute`, `failing_job`, `protocol_error_job`,
//! `confirm_delete`, `multi_input` (tasks from the start) and `test_tool_with_task` (MRTR on the
//! request first, then a task).

use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequest, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::mrtr::{InputRequest, InputResponse};
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::tasks::TaskPolicy;
use mcpcore::{Error, ErrorData, Result};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

fn form(message: &str, properties: Value) -> ElicitRequestParams {
    let schema = json!({"type": "object", "properties": properties});
    serde_json::from_value(json!({"message": message, "requestedSchema": schema}))
        .expect("fixture form is valid")
}

fn accepted(r: &ElicitResult, key: &str) -> Option<Value> {
    match r.action {
        ElicitAction::Accept => {
            r.content.as_ref().and_then(|c| c.get(key)).and_then(|v| serde_json::to_value(v).ok())
        }
        _ => None,
    }
}

fn tool(name: &str, description: &str, properties: Value) -> Tool {
    Tool::new(name, description, json!({"type": "object", "properties": properties}))
}

fn text_arg<'a>(args: &'a Arguments, key: &str, default: &'a str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or(default)
}

/// Registers the task fixtures.
pub(crate) fn register(tools: &ToolRegistry) -> Result<()> {
    tools.register(
        tool("greet", "Greets `name` at once (never a task).", json!({"name": {"type": "string"}})),
        |args: Arguments, _: ToolContext| async move {
            Ok(CallToolResult::text(format!("Hello, {}!", text_arg(&args, "name", "World"))))
        },
    )?;
    tools.register_with_tasks(
        tool(
            "slow_compute",
            "Sleeps `seconds` seconds, then answers (a task when the client supports tasks).",
            json!({"seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}}),
        ),
        TaskPolicy::optional(),
        |args: Arguments, _: ToolContext| async move {
            let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.0, 3600.0);
            tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
            let label = text_arg(&args, "label", "computation");
            Ok(CallToolResult::text(format!("{label}: done after {seconds} s")))
        },
    )?;
    tools.register_with_tasks(
        tool("failing_job", "Runs only as a task and ends with a tool error after a moment.", json!({})),
        TaskPolicy::required(),
        |_: Arguments, _: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            Err(Error::tool("failing_job failed on purpose"))
        },
    )?;
    tools.register_with_tasks(
        tool("protocol_error_job", "A task that fails with a JSON-RPC error (-32603).", json!({})),
        TaskPolicy::optional(),
        |_: Arguments, _: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err(Error::rpc(ErrorData::internal("Internal error: protocol_error_job failed on purpose")))
        },
    )?;
    tools.register_with_tasks(
        tool(
            "confirm_delete",
            "A task that asks the user to confirm deleting `filename` (elicitation).",
            json!({"filename": {"type": "string"}}),
        ),
        TaskPolicy::optional(),
        |args: Arguments, ctx: ToolContext| async move {
            let filename = text_arg(&args, "filename", "file").to_owned();
            let question = form(&format!("Delete {filename}?"), json!({"confirm": {"type": "boolean"}}));
            let r = ctx.elicit("confirm", question).await?;
            Ok(CallToolResult::text(match accepted(&r, "confirm") {
                Some(Value::Bool(true)) => format!("Deleted {filename}"),
                _ => format!("Kept {filename}"),
            }))
        },
    )?;
    tools.register_with_tasks(
        tool("multi_input", "A task that asks two questions at once (two elicitations).", json!({})),
        TaskPolicy::optional(),
        |_: Arguments, ctx: ToolContext| async move {
            let ask = |m: &str, p: Value| InputRequest::Elicit(ElicitRequest::new(form(m, p)));
            let requests = BTreeMap::from([
                ("name".to_owned(), ask("Your name?", json!({"name": {"type": "string"}}))),
                ("confirm".to_owned(), ask("Proceed?", json!({"confirm": {"type": "boolean"}}))),
            ]);
            let answers = ctx.input(requests).await?;
            let name = match answers.get("name") {
                Some(InputResponse::Elicit(r)) => accepted(r, "name"),
                _ => None,
            };
            Ok(CallToolResult::text(format!("Both answered; name {}", name.unwrap_or(Value::Null))))
        },
    )?;
    tools.register_with_tasks(
        tool(
            "test_tool_with_task",
            "Asks for a name on the request (MRTR), then greets it from a task.",
            json!({}),
        ),
        TaskPolicy::required().deferred(),
        |_: Arguments, ctx: ToolContext| async move {
            let r = ctx
                .elicit("user_name", form("What is your name?", json!({"name": {"type": "string"}})))
                .await?;
            let name = match accepted(&r, "name") {
                Some(Value::String(s)) => s,
                _ => "stranger".to_owned(),
            };
            ctx.start_task().await?;
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(CallToolResult::text(format!("Hello, {name}!")))
        },
    )?;
    Ok(())
}
