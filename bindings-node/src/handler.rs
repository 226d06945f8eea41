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

use mcpcore::protocol::CallToolResult;
use mcpcore::registry::{Arguments, BoxFuture, ToolContext, ToolHandler};
use mcpcore::{Error, ErrorCode, ErrorData};
use napi::bindgen_prelude::{Either, FnArgs, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use napi_derive::napi;
use serde::Deserialize;

/// What the JS callback receives and returns.
pub(crate) type ToolArgs = FnArgs<(String, ToolCall)>;
/// The JS tool callback as a weak, plain-argument (`CalleeHandled = false`) thread-safe function.
pub(crate) type ToolCallback =
    ThreadsafeFunction<ToolArgs, Either<Promise<String>, String>, ToolArgs, Status, false, true>;

/// What a running tool may ask of its call: who calls, and progress reporting.
#[napi]
pub struct ToolCall {
    ctx: ToolContext,
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
            let returned = callback
                .call_async_catch(FnArgs::from((args, ToolCall { ctx })))
                .await
                .map_err(|e| Error::tool(format!("the tool could not be called: {}", e.reason)))?;
            let json = match returned {
                Either::A(promise) => promise.await.map_err(|e| Error::tool(e.reason.clone()))?,
                Either::B(text) => text,
            };
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
