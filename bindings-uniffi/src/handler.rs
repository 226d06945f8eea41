//! Foreign handlers through the core's host bridge (`mcpcore::host`): a [`ToolHandler`] is
//! implemented in Kotlin (`suspend fun call`) or Swift (`func call(...) async throws`) and
//! registered as a `mcpcore::host::HostTool`; resource readers and prompt renderers
//! ([`crate::catalog`]) likewise. [`ToolCall`] is what a running handler gets: its input, its
//! caller, progress and logging, and input from the client (elicitation, sampling, roots).

use crate::errors::{self, McpError};
use crate::results::ToolResult;
use mcpcore::host::{HandlerKind, HostCall, HostCallback, HostReply, HostValue};
use mcpcore::registry::BoxFuture;
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

/// One call of a host handler (a tool, a resource reader, a prompt renderer): its input, who is
/// calling, progress and logs, and input from the client. Every method is safe after the call
/// ended (a no-op, or an error naming it).
#[derive(uniffi::Object)]
pub struct ToolCall {
    input: Value,
    pub(crate) call: HostCall,
}

impl ToolCall {
    pub(crate) fn new(input: Value, call: HostCall) -> Arc<Self> {
        Arc::new(ToolCall { input, call })
    }

    fn arg(&self, name: &str) -> Option<&Value> {
        self.input.get(name)
    }
}

#[uniffi::export]
impl ToolCall {
    /// The input as JSON text: a tool's arguments object, a prompt's arguments, or a resource
    /// read's `{"uri", "variables"}`.
    pub fn arguments(&self) -> String {
        serde_json::to_string(&self.input).expect("JSON values serialize")
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

    /// The JSON-RPC id of the request (an integer id as its digits), or `None` in-process.
    pub fn request_id(&self) -> Option<String> {
        self.call.request_id()
    }

    /// The protocol revision of the request (e.g. `2026-07-28`), or `None` in-process.
    pub fn protocol_version(&self) -> Option<String> {
        self.call.protocol_version().map(str::to_owned)
    }

    /// True when the caller asked for progress notifications (and the call still runs).
    pub fn wants_progress(&self) -> bool {
        self.call.wants_progress()
    }

    /// What the client declared (legacy: in `initialize`; 2026-07-28: in this request's
    /// `_meta`), as JSON text; `None` in-process.
    pub fn client_capabilities(&self) -> Option<String> {
        self.call.client_capabilities().map(|v| v.to_string())
    }

    /// The authenticated caller (`{subject, clientId, scopes, claims}`) as JSON text, when the
    /// server verifies tokens.
    pub fn identity(&self) -> Option<String> {
        self.call.identity().map(|v| v.to_string())
    }

    /// The state stored with [`ToolCall::set_request_state`] in the previous round of this
    /// request (2026-07-28), as JSON text.
    pub fn request_state(&self) -> Option<String> {
        self.call.request_state().map(|v| v.to_string())
    }

    /// Stores state (JSON text) for the next round of this request (2026-07-28, sealed in
    /// `requestState`); a no-op on legacy sessions.
    pub fn set_request_state(&self, state: String) -> Result<(), McpError> {
        Ok(self.call.set_request_state(crate::parse_json("request state", &state)?)?)
    }

    /// The HTTP request header `name` (over HTTP), the first value as text.
    pub fn header(&self, name: String) -> Option<String> {
        self.call.header(&name)
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    /// `progress` must increase from one report to the next.
    #[uniffi::method(default(total = None, message = None))]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.call.progress(progress, total, message.as_deref());
    }

    /// Sends `notifications/message` at `level` (`debug` … `emergency`) with `data` (JSON
    /// text), when the caller asked for that level; a no-op otherwise.
    #[uniffi::method(default(logger = None))]
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> Result<(), McpError> {
        let data = crate::parse_json("log data", &data)?;
        Ok(self.call.log(&level, data, logger.as_deref())?)
    }
}

/// The reply of a foreign handler that threw `e`: [`McpError::Rpc`] (and a
/// [`McpError::ResourceNotFound`]) is the JSON-RPC error to send, [`McpError::InputRequired`]
/// ends a 2026-07-28 round, anything else is a failure (a tool's `isError`, `-32603` otherwise).
pub(crate) fn reply_of(e: McpError) -> HostReply {
    match e {
        McpError::Rpc { code, reason, data } | McpError::ResourceNotFound { code, reason, data } => {
            HostReply::Rpc(errors::error_data(code, reason, data.as_deref()))
        }
        McpError::InputRequired { reason, .. } => HostReply::InputRequired(reason),
        other => HostReply::Failure(other.reason().to_owned()),
    }
}

/// A [`ToolHandler`] as the core's host callback (registered as a `HostTool`).
pub(crate) struct ForeignTool(pub(crate) Arc<dyn ToolHandler>);

impl HostCallback for ForeignTool {
    fn call(&self, _kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let handler = self.0.clone();
        Box::pin(async move {
            // Dropping this future (cancelled, timed out, connection gone) drops the foreign
            // future, which cancels the Kotlin coroutine or Swift task.
            match handler.call(ToolCall::new(input, call)).await {
                // A CallToolResult object passes the core's tool rules unchanged.
                Ok(result) => match result.into_core() {
                    Ok(r) => {
                        HostReply::Value(HostValue::Json(serde_json::to_value(r).expect("serializable")))
                    }
                    Err(e) => {
                        HostReply::Failure(format!("the tool returned an invalid result: {}", e.reason()))
                    }
                },
                Err(e) => reply_of(e),
            }
        })
    }
}
