//! `mcpcore call` of a tool that runs only as a task (`execution.taskSupport: "required"`):
//! the task is created, its status is shown on stderr while it runs (a spinner with the
//! server's status message, on a terminal only), and its result is printed like any other.

use mcpcore::client::{Client, TaskOptions};
use mcpcore::protocol::CallToolResult;
use mcpcore::Error;
use serde_json::Value;
use std::time::Duration;

/// True when `tool` (an entry of `tools/list`) says it runs only as a task.
pub(crate) fn required(tool: &mcpcore::protocol::Tool) -> bool {
    tool.execution.as_ref().and_then(|e| e.get("taskSupport")).and_then(Value::as_str) == Some("required")
}

/// Runs `tool` as a task and returns its result, showing the task's status meanwhile.
pub(crate) async fn run(client: &Client, tool: &str, arguments: Value) -> Result<CallToolResult, Error> {
    let task = client.call_tool_as_task(tool, arguments, TaskOptions::default()).await?;
    let spinner = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    spinner.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    let id = task.id().unwrap_or("(answered at once)").to_owned();
    spinner.set_message(format!("task {id}: working"));
    let every = task.created().and_then(|t| t.poll_interval).unwrap_or(Duration::from_secs(1));
    let every = every.clamp(Duration::from_millis(200), Duration::from_secs(5));
    let result = task.result();
    tokio::pin!(result);
    let mut tick = tokio::time::interval(every);
    let out = loop {
        tokio::select! {
            r = &mut result => break r,
            _ = tick.tick() => {
                spinner.tick();
                if task.id().is_some() {
                    if let Ok(info) = task.status().await {
                        let words = info.status_message.map(|m| format!(" — {m}")).unwrap_or_default();
                        let status = serde_json::to_value(info.status).ok();
                        let status = status.as_ref().and_then(Value::as_str).unwrap_or("?");
                        spinner.set_message(format!("task {id}: {status}{words}"));
                    }
                }
            }
        }
    };
    spinner.finish_and_clear();
    out
}
