//! JS functions as mcpcore tools.
//!
//! The wrapper registers `callback(argumentsJson, call) => Promise<envelopeJson>` where the
//! envelope is one of `{"ok": CallToolResult}`, `{"rpc": {code, message, data?}}` (a thrown
//! `McpError` with a code: sent as that JSON-RPC error) or `{"error": "Name: message"}` (any other
//! throw or rejection: an `isError` result). The wrapper's callback is an `async` function, so a
//! synchronous `throw` in user code never crosses the boundary as a JS exception.
//!
//! Each callback is a *weak* thread-safe function: a registered tool does not keep the process
//! alive; a pending server or client promise does.

use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::CallToolResult;
use mcpcore::registry::{Arguments, BoxFuture, ToolContext, ToolHandler};
use mcpcore::{Error, ErrorCode, ErrorData};
use napi::bindgen_prelude::{Either, FnArgs, Promise, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde::Deserialize;
use std::sync::{Arc, Mutex};

/// What the JS callback receives and returns.
pub(crate) type ToolArgs = FnArgs<(String, ToolCall)>;
/// The JS tool callback as a weak, plain-argument (`CalleeHandled = false`) thread-safe function.
pub(crate) type ToolCallback =
    ThreadsafeFunction<ToolArgs, Either<Promise<String>, String>, ToolArgs, Status, false, true>;

/// Called (once) when the caller abandons the call: cancelled on the wire, timed out, closed.
type CancelCallback = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;
type CancelSlot = Arc<Mutex<Option<CancelCallback>>>;

/// What a running tool may ask of its call: who calls, progress reporting, cancellation.
#[napi]
pub struct ToolCall {
    ctx: ToolContext,
    on_cancel: CancelSlot,
}

#[napi]
impl ToolCall {
    /// The JSON-RPC id of the request (as a string), or null for an in-process call.
    #[napi(getter)]
    pub fn request_id(&self) -> Option<String> {
        self.ctx.request_id().map(|id| id.to_string())
    }

    /// The protocol revision of the request, or null for an in-process call.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version().map(|v| v.as_str().to_owned())
    }

    /// True when the caller asked for progress notifications.
    #[napi(getter)]
    pub fn wants_progress(&self) -> bool {
        self.ctx.wants_progress()
    }

    /// Registers the function called when the call is abandoned (the JS layer aborts `ctx.signal`).
    #[napi(ts_args_type = "callback: () => void")]
    pub fn on_cancel(&self, callback: CancelCallback) {
        *self.on_cancel.lock().expect("lock") = Some(callback);
    }

    /// Sends `notifications/message` at `level` ("debug" … "emergency") with `dataJson`, when the
    /// caller asked for that level (legacy: `logging/setLevel`; 2026-07-28: `_meta` logLevel).
    #[napi]
    pub fn log(&self, level: String, data_json: String, logger: Option<String>) -> napi::Result<()> {
        let level = LoggingLevel::parse(&level).ok_or_else(|| {
            crate::errors::to_js(Error::invalid_input(format!(
                "unknown log level {level:?}; use debug, info, notice, warning, error, critical, alert or emergency"
            )))
        })?;
        let data = crate::parse_json("log data", &data_json)?;
        self.ctx.log(level, logger.as_deref(), data);
        Ok(())
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    #[napi]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.ctx.progress(progress, total, message.as_deref());
    }
}

/// The envelope a JS tool resolves to.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Envelope {
    Ok(CallToolResult),
    Rpc { code: i32, message: String, data: Option<serde_json::Value> },
    Error(String),
}

/// Fires the cancel callback unless the call finished.
struct CancelOnDrop {
    slot: CancelSlot,
    finished: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if let Some(cb) = self.slot.lock().expect("lock").take() {
            cb.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A JS function registered as a tool.
pub(crate) struct JsTool {
    pub(crate) callback: std::sync::Arc<ToolCallback>,
}

impl ToolHandler for JsTool {
    fn call(
        &self,
        arguments: Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<CallToolResult>> {
        let callback = self.callback.clone();
        let args = serde_json::Value::Object(arguments).to_string();
        Box::pin(async move {
            let slot = CancelSlot::default();
            let mut guard = CancelOnDrop { slot: slot.clone(), finished: false };
            let returned = callback
                .call_async_catch(FnArgs::from((args, ToolCall { ctx, on_cancel: slot })))
                .await
                .map_err(|e| Error::tool(format!("the tool could not be called: {}", e.reason)))?;
            let json = match returned {
                Either::A(promise) => promise.await.map_err(|e| Error::tool(e.reason.clone()))?,
                Either::B(text) => text,
            };
            guard.finished = true;
            match serde_json::from_str::<Envelope>(&json) {
                Ok(Envelope::Ok(result)) => Ok(result),
                Ok(Envelope::Rpc { code, message, data }) => {
                    let mut e = ErrorData::new(ErrorCode(code), message);
                    e.data = data;
                    Err(Error::rpc(e))
                }
                Ok(Envelope::Error(message)) => Err(Error::tool(message)),
                Err(e) => Err(Error::tool(format!("the tool returned an invalid result: {e}"))),
            }
        })
    }
}
