//! JS functions as mcpcore handlers: tools, resource readers, prompt renderers and completers.
//!
//! The wrapper registers `callback(inputJson, call) => Promise<envelopeJson>` where the envelope
//! is one of `{"ok": answer}` (a CallToolResult, ResourceContents array, GetPromptResult or
//! Completion, per handler), `{"rpc": {code, message, data?}}` (a thrown `McpError` with a code:
//! sent as that JSON-RPC error), `{"inputRequired": message}` (a thrown `InputRequired`: the
//! 2026-07-28 server answers `input_required`) or `{"error": "Name: message"}` (any other throw
//! or rejection: an `isError` result for a tool, `-32603` otherwise). The wrapper's callback is
//! an `async` function, so a synchronous `throw` in user code never crosses the boundary as a JS
//! exception. One [`JsCallback`] implements every core handler trait.
//!
//! Each callback is a *weak* thread-safe function: a registered handler does not keep the
//! process alive; a pending server or client promise does.

use crate::{errors, to_json};
use mcpcore::completion::{complete_from, Completer, CompletionRequest};
use mcpcore::prompts::{PromptArguments, PromptHandler};
use mcpcore::protocol::completion::Completion;
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::mrtr::InputRequests;
use mcpcore::protocol::prompts::GetPromptResult;
use mcpcore::protocol::resources::ResourceContents;
use mcpcore::protocol::CallToolResult;
use mcpcore::registry::{Arguments, BoxFuture, ToolContext, ToolHandler};
use mcpcore::resources::{ReadRequest, ResourceHandler};
use mcpcore::{Error, ErrorCode, ErrorData, ErrorKind};
use napi::bindgen_prelude::{Either, FnArgs, Promise, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// What the JS callback receives and returns.
pub(crate) type CallArgs = FnArgs<(String, ToolCall)>;
/// A JS handler callback as a weak, plain-argument (`CalleeHandled = false`) thread-safe function.
pub(crate) type Callback =
    ThreadsafeFunction<CallArgs, Either<String, Promise<String>>, CallArgs, Status, false, true>;

/// Called (once) when the caller abandons the call: cancelled on the wire, timed out, closed.
type CancelCallback = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;
type CancelSlot = Arc<Mutex<CancelState>>;
/// A call's context, shared by its `ToolCall` and the guard that ends the call.
type CtxSlot = Arc<Mutex<Option<ToolContext>>>;

/// Where the cancel callback waits for the end of its call.
#[derive(Default)]
enum CancelState {
    /// The call runs and nobody asked to hear of its cancellation (yet).
    #[default]
    Idle,
    /// The call runs; this is called if it is abandoned.
    Armed(CancelCallback),
    /// The call is over (`true`: abandoned); a callback registered now is called (if abandoned)
    /// or dropped at once, never stored.
    Ended(bool),
}

/// What a running handler may ask of its call: who calls, progress, logging, cancellation, and
/// input from the client (elicitation, sampling, roots) through the core's `ToolContext`.
#[napi]
pub struct ToolCall {
    /// The call's context while it runs; emptied when it ends, so a `ToolCall` the garbage
    /// collector has not reclaimed yet does not keep the connection's senders (and a stdio
    /// server's output) open.
    ctx: CtxSlot,
    on_cancel: CancelSlot,
    /// Changes (its sender drops) when the engine abandons the call: a pending input request
    /// then rejects with `RequestCancelled`.
    abandoned: watch::Receiver<()>,
    /// Set when an input request ended with `InputRequired` (2026-07-28: answers missing).
    needs_input: Arc<AtomicBool>,
}

impl ToolCall {
    /// The context, while the call runs.
    fn ctx(&self) -> Option<ToolContext> {
        self.ctx.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[napi]
impl ToolCall {
    /// The JSON-RPC id of the request (as a string), or null for an in-process call.
    #[napi(getter)]
    pub fn request_id(&self) -> Option<String> {
        self.ctx()?.request_id().map(|id| id.to_string())
    }

    /// The protocol revision of the request, or null for an in-process call.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.ctx()?.protocol_version().map(|v| v.as_str().to_owned())
    }

    /// True when the caller asked for progress notifications.
    #[napi(getter)]
    pub fn wants_progress(&self) -> bool {
        self.ctx().is_some_and(|c| c.wants_progress())
    }

    /// What the client declared (legacy: in `initialize`; 2026-07-28: in this request's
    /// `_meta`), as JSON; null for an in-process call.
    #[napi(getter)]
    pub fn client_capabilities(&self) -> Option<String> {
        self.ctx()?.client_capabilities().map(to_json)
    }

    /// The state stored with `setRequestState` in the previous round of this request
    /// (2026-07-28), as JSON; null when there is none.
    #[napi(getter)]
    pub fn request_state(&self) -> Option<String> {
        self.ctx()?.request_state().map(|v| v.to_string())
    }

    /// Stores state (JSON) for the next round of this request (2026-07-28; sealed in
    /// `requestState`); a no-op on legacy sessions.
    #[napi]
    pub fn set_request_state(&self, state_json: String) -> napi::Result<()> {
        let state = crate::parse_json("request state", &state_json)?;
        if let Some(ctx) = self.ctx() {
            ctx.set_request_state(state);
        }
        Ok(())
    }

    /// Asks the client for input: `requestsJson` is `{key: {method, params}}`; resolves to the
    /// answers by key (JSON). Rejects with `InputRequired` (2026-07-28) when answers are missing
    /// and with -32021 when the client lacks a capability.
    #[napi]
    pub async fn input(&self, requests_json: String) -> napi::Result<String> {
        let requests: InputRequests = serde_json::from_str(&requests_json)
            .map_err(|e| errors::to_js(Error::invalid_input(format!("invalid input requests: {e}"))))?;
        let ctx = self.ctx().ok_or_else(|| {
            errors::to_js(Error::invalid_input("cannot ask the client for input: this call has ended"))
        })?;
        let mut abandoned = self.abandoned.clone();
        let answers = tokio::select! {
            answers = ctx.input(requests) => answers,
            _ = abandoned.changed() => {
                Err(Error::cancelled("the call was cancelled while it waited for client input"))
            }
        };
        if answers.as_ref().is_err_and(|e| e.kind() == ErrorKind::InputRequired) {
            self.needs_input.store(true, Ordering::SeqCst);
        }
        answers.map(|a| to_json(&a)).map_err(errors::to_js)
    }

    /// Registers the function called when the call is abandoned (the JS layer aborts `ctx.signal`).
    #[napi(ts_args_type = "callback: () => void")]
    pub fn on_cancel(&self, callback: CancelCallback) {
        let mut state = self.on_cancel.lock().unwrap_or_else(|e| e.into_inner());
        match *state {
            CancelState::Ended(true) => {
                callback.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
            CancelState::Ended(false) => {}
            _ => *state = CancelState::Armed(callback),
        }
    }

    /// Sends `notifications/message` at `level` ("debug" … "emergency") with `dataJson`, when the
    /// caller asked for that level (legacy: `logging/setLevel`; 2026-07-28: `_meta` logLevel).
    #[napi]
    pub fn log(&self, level: String, data_json: String, logger: Option<String>) -> napi::Result<()> {
        let level = LoggingLevel::parse(&level).ok_or_else(|| {
            errors::to_js(Error::invalid_input(format!(
                "unknown log level {level:?}; use debug, info, notice, warning, error, critical, alert or emergency"
            )))
        })?;
        let data = crate::parse_json("log data", &data_json)?;
        if let Some(ctx) = self.ctx() {
            ctx.log(level, logger.as_deref(), data);
        }
        Ok(())
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    #[napi]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(ctx) = self.ctx() {
            ctx.progress(progress, total, message.as_deref());
        }
    }
}

/// The envelope a JS handler resolves to.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Envelope<T> {
    Ok(T),
    Rpc { code: i32, message: String, data: Option<serde_json::Value> },
    InputRequired(String),
    Error(String),
}

/// Ends a call when dropped: fires the cancel callback unless the call finished, and (dropping
/// `_alive`) ends pending input requests.
struct CallEnd {
    ctx: CtxSlot,
    slot: CancelSlot,
    finished: bool,
    _alive: watch::Sender<()>,
}

impl Drop for CallEnd {
    /// Always empties the slot: the cancel callback's closure references the JS `ToolCall`
    /// object, which owns the slot, so a callback left there after the call is a reference cycle
    /// through native code that the garbage collector cannot see (one leaked call per request).
    fn drop(&mut self) {
        self.ctx.lock().unwrap_or_else(|e| e.into_inner()).take();
        let abandoned = !self.finished;
        let mut state = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let CancelState::Armed(cb) = std::mem::replace(&mut *state, CancelState::Ended(abandoned)) {
            if abandoned {
                cb.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
        }
    }
}

/// A JS function registered as a tool, resource reader, prompt renderer or completer.
#[derive(Clone)]
pub(crate) struct JsCallback {
    callback: Arc<Callback>,
}

impl JsCallback {
    pub(crate) fn new(callback: Callback) -> Self {
        JsCallback { callback: Arc::new(callback) }
    }

    /// Calls the JS function with `input` and parses its envelope's answer as `T`. `what` names
    /// the handler in errors ("tool", "resource"...). When an input request of the call ended
    /// with `InputRequired`, that is the outcome, whatever the handler did with the rejection.
    fn run<T: DeserializeOwned + Send + 'static>(
        &self,
        input: String,
        ctx: ToolContext,
        what: &'static str,
    ) -> BoxFuture<'static, mcpcore::Result<T>> {
        let callback = self.callback.clone();
        Box::pin(async move {
            let slot = CancelSlot::default();
            let needs_input = Arc::new(AtomicBool::new(false));
            let (alive, abandoned) = watch::channel(());
            let ctx: CtxSlot = Arc::new(Mutex::new(Some(ctx)));
            let mut end = CallEnd { ctx: ctx.clone(), slot: slot.clone(), finished: false, _alive: alive };
            let call = ToolCall { ctx, on_cancel: slot, abandoned, needs_input: needs_input.clone() };
            let returned = callback
                .call_async_catch(FnArgs::from((input, call)))
                .await
                .map_err(|e| Error::tool(format!("the {what} could not be called: {}", e.reason)))?;
            let json = match returned {
                // The string is tried first: napi-rs answers a failed `Promise` check with a
                // rejected promise it must then silence (two JS allocations per call).
                Either::A(text) => text,
                Either::B(promise) => promise.await.map_err(|e| Error::tool(e.reason.clone()))?,
            };
            end.finished = true;
            if needs_input.load(Ordering::SeqCst) {
                return Err(Error::new(ErrorKind::InputRequired, "client input required"));
            }
            match serde_json::from_str::<Envelope<T>>(&json) {
                Ok(Envelope::Ok(answer)) => Ok(answer),
                Ok(Envelope::Rpc { code, message, data }) => {
                    let mut e = ErrorData::new(ErrorCode(code), message);
                    e.data = data;
                    Err(Error::rpc(e))
                }
                Ok(Envelope::InputRequired(message)) => Err(Error::new(ErrorKind::InputRequired, message)),
                Ok(Envelope::Error(message)) => Err(Error::tool(message)),
                Err(e) => Err(Error::tool(format!("the {what} returned an invalid result: {e}"))),
            }
        })
    }
}

impl ToolHandler for JsCallback {
    fn call(
        &self,
        arguments: Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<CallToolResult>> {
        self.run(serde_json::Value::Object(arguments).to_string(), ctx, "tool")
    }
}

/// A reader gets `{"uri", "variables"}` and answers a ResourceContents array.
impl ResourceHandler for JsCallback {
    fn read(
        &self,
        request: ReadRequest,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<Vec<ResourceContents>>> {
        let input = json!({"uri": request.uri, "variables": request.variables});
        self.run(input.to_string(), ctx, "resource")
    }
}

/// A renderer gets the arguments and answers a GetPromptResult.
impl PromptHandler for JsCallback {
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<GetPromptResult>> {
        self.run(to_json(&arguments), ctx, "prompt")
    }
}

/// A completer gets `{"argument", "value", "context"}` (and a call outside any request) and
/// answers a Completion.
impl Completer for JsCallback {
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'static, mcpcore::Result<Completion>> {
        let input = json!({"argument": request.argument, "value": request.value, "context": request.context});
        self.run(input.to_string(), ToolContext::local(), "completer")
    }
}

/// A completer from fixed `values` (the core filters them by prefix) or a `callback`.
pub(crate) fn completer(
    values: Option<Vec<String>>,
    callback: Option<Callback>,
) -> napi::Result<Arc<dyn Completer>> {
    match (values, callback) {
        (Some(values), None) => Ok(complete_from(values)),
        (None, Some(callback)) => Ok(Arc::new(JsCallback::new(callback))),
        _ => Err(errors::to_js(Error::invalid_input("give a completer exactly one of values or callback"))),
    }
}
