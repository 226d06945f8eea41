//! Foreign tools: [`ToolHandler`] is implemented in Kotlin (`suspend fun call`) or Swift
//! (`func call(...) async throws`), and [`ForeignTool`] adapts it to the core's handler trait.
//! [`ToolCall`] is what a running tool gets: its arguments and its caller.

use crate::errors::{self, McpError};
use crate::results::ToolResult;
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::CallToolResult;
use mcpcore::registry::{Arguments, BoxFuture, ToolContext};
use serde_json::Value;
use std::sync::Arc;

/// A tool implemented by the host. The server calls it for each `tools/call`, with arguments
/// already validated against the tool's input schema.
///
/// Throwing [`McpError::Rpc`] sends that JSON-RPC error (code and data) to the caller; any other
/// exception becomes a result with `isError: true` carrying its description. When the caller
/// cancels or times out, the coroutine (Kotlin) or task (Swift) running `call` is cancelled.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait ToolHandler: Send + Sync {
    /// Runs the tool for one call.
    async fn call(&self, call: Arc<ToolCall>) -> Result<ToolResult, McpError>;
}

/// One call of a tool: its arguments, who is calling, and how to report progress and logs.
#[derive(uniffi::Object)]
pub struct ToolCall {
    arguments: Arguments,
    ctx: ToolContext,
}

impl ToolCall {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.arguments.get(name)
    }
}

#[uniffi::export]
impl ToolCall {
    /// The arguments object as JSON text.
    pub fn arguments(&self) -> String {
        serde_json::to_string(&self.arguments).expect("JSON values serialize")
    }

    /// The argument `name` when it is a string.
    pub fn string_arg(&self, name: String) -> Option<String> {
        self.arg(&name).and_then(Value::as_str).map(str::to_owned)
    }

    /// The argument `name` when it is a number.
    pub fn number_arg(&self, name: String) -> Option<f64> {
        self.arg(&name).and_then(Value::as_f64)
    }

    /// The argument `name` when it is a boolean.
    pub fn bool_arg(&self, name: String) -> Option<bool> {
        self.arg(&name).and_then(Value::as_bool)
    }

    /// The argument `name` as JSON text, whatever its type.
    pub fn arg_json(&self, name: String) -> Option<String> {
        self.arg(&name).map(Value::to_string)
    }

    /// The JSON-RPC id of the request, or `None` for an in-process call.
    pub fn request_id(&self) -> Option<String> {
        self.ctx.request_id().map(|id| id.to_string())
    }

    /// The protocol revision of the request (e.g. `2026-07-28`), or `None` in-process.
    pub fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version().map(|v| v.as_str().to_owned())
    }

    /// True when the caller asked for progress notifications.
    pub fn wants_progress(&self) -> bool {
        self.ctx.wants_progress()
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    /// `progress` must increase from one report to the next.
    #[uniffi::method(default(total = None, message = None))]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.ctx.progress(progress, total, message.as_deref());
    }

    /// Sends `notifications/message` at `level` (`debug` … `emergency`) with `data` (JSON
    /// text), when the caller asked for that level; a no-op otherwise.
    #[uniffi::method(default(logger = None))]
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> Result<(), McpError> {
        let level = LoggingLevel::parse(&level).ok_or_else(|| {
            McpError::invalid(format!(
                "unknown log level {level:?}; use debug, info, notice, warning, error, critical, alert or emergency"
            ))
        })?;
        let data = crate::parse_json("log data", &data)?;
        self.ctx.log(level, logger.as_deref(), data);
        Ok(())
    }
}

/// A [`ToolHandler`] registered in the core registry.
pub(crate) struct ForeignTool(pub(crate) Arc<dyn ToolHandler>);

impl mcpcore::registry::ToolHandler for ForeignTool {
    fn call(
        &self,
        arguments: Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<CallToolResult>> {
        let handler = self.0.clone();
        Box::pin(async move {
            let call = Arc::new(ToolCall { arguments, ctx });
            // Dropping this future (cancelled, timed out, connection gone) drops the foreign
            // future, which cancels the Kotlin coroutine or Swift task.
            let result = handler.call(call).await.map_err(errors::from_tool)?;
            result.into_core().map_err(|e| {
                mcpcore::Error::tool(format!("the tool returned an invalid result: {}", e.reason()))
            })
        })
    }
}
