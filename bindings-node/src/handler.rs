//! JS functions as mcpcore host callbacks (tools, resource readers, prompt renderers,
//! completers), through the core's one bridge (`mcpcore::host`): the core decides what a return
//! value becomes on the wire; this module only calls JS and decodes its envelope.
//!
//! The wrapper registers `callback(inputJson, call) => reply | []`, where `[]` means "later":
//! the wrapper calls `call.settle(reply)` when the handler's Promise settles. The reply
//! is `[text]` when the handler returned a string (the text crosses as itself: no JSON pass on
//! either side, which for a large text was a third of the call) or else the envelope JSON, one
//! of `{"value": v}` (what the handler returned, as JSON; bytes at the top level or as list
//! items are `{"$bytes": base64}`), `{"rpc": {code, message, data?}}` (a thrown
//! `McpError` with a code: sent as that JSON-RPC error), `{"inputRequired": message}` (a thrown
//! `InputRequired`) or `{"error": "Name: message"}` (any other throw or rejection). The wrapper
//! never lets a throw cross the boundary.
//!
//! Each callback is a *weak* thread-safe function: a registered handler does not keep the
//! process alive; a pending server or client promise does. A handler registered on a server
//! also keeps a reference to its function, through which it is called in place when the call
//! already runs on the JS thread (a stdio server fed by libuv, `src/stdio.rs`): no thread
//! hand-off there and back ([`on_js_thread`]).

use crate::{errors, parse_json, to_json};
use mcpcore::completion::{complete_from, Completer};
use mcpcore::host::{HandlerKind, HostCall, HostCallback, HostCompleter, HostReply, HostValue};
use mcpcore::registry::BoxFuture;
use mcpcore::{Error, ErrorCode, ErrorData};
use napi::bindgen_prelude::{
    Either, Either3, FnArgs, FromNapiValue, FunctionRef, Promise, TypeName, Unknown, ValidateNapiValue,
};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{sys, Env, Status, ValueType};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;
use std::cell::Cell;
use std::sync::Arc;
use tokio::sync::oneshot;

/// What the JS callback receives and returns.
pub(crate) type CallArgs = FnArgs<(String, ToolCall)>;
/// What the wrapper answers with: the envelope JSON, or `[text]` for a handler's string.
pub(crate) type Reply = Either<String, Vec<String>>;
/// A JS handler callback as a weak, plain-argument (`CalleeHandled = false`) thread-safe function.
/// The string and the array are tried before the Promise: napi-rs answers a failed `Promise`
/// check with a rejected promise it must then silence (two JS allocations per call).
pub(crate) type Callback = ThreadsafeFunction<CallArgs, Returned, CallArgs, Status, false, true>;
/// What the wrapper returns: the reply at once, or a Promise of it.
pub(crate) type Returned = Either3<String, Vec<String>, Promise<Reply>>;

/// A handler function as a server keeps it: the thread-safe function for calls from the
/// runtime's threads, and a reference for calls made on the JS thread itself.
pub struct JsFunction {
    threadsafe: Callback,
    direct: FunctionRef<CallArgs, Returned>,
}

impl FromNapiValue for JsFunction {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: the value napi-rs hands a #[napi] function's argument, on the JS thread.
        let threadsafe = unsafe { Callback::from_napi_value(env, value)? };
        let direct = unsafe { FunctionRef::from_napi_value(env, value)? };
        Ok(JsFunction { threadsafe, direct })
    }
}

impl TypeName for JsFunction {
    fn type_name() -> &'static str {
        "Function"
    }

    fn value_type() -> ValueType {
        ValueType::Function
    }
}

impl ValidateNapiValue for JsFunction {}

thread_local! {
    /// The JS environment while this thread (the JS thread) serves frames in place.
    static JS_THREAD: Cell<Option<sys::napi_env>> = const { Cell::new(None) };
}

/// Runs `f` (on the JS thread, with its `env`) inside the engine's runtime, so that what it
/// spawns or times has a runtime and a handler it reaches is called in place instead of through
/// its thread-safe function.
pub(crate) fn on_js_thread<R>(env: &Env, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<sys::napi_env>);
    impl Drop for Restore {
        fn drop(&mut self) {
            JS_THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(JS_THREAD.with(|t| t.replace(Some(env.raw()))));
    napi::bindgen_prelude::within_runtime_if_available(f)
}

/// Called (once) when the caller abandons the call: cancelled on the wire, timed out, closed.
type CancelCallback = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;

/// What a running handler may ask of its call (the core's `HostCall`): who calls, progress,
/// logging, cancellation, and input from the client (elicitation, sampling, roots).
#[napi]
pub struct ToolCall {
    call: Option<HostCall>,
    /// Where the wrapper settles a reply it could not give at once ([`ToolCall::settle`]).
    settled: std::sync::Mutex<Option<oneshot::Sender<Reply>>>,
}

impl ToolCall {
    fn call(&self) -> Option<&HostCall> {
        self.call.as_ref()
    }
}

#[napi]
impl ToolCall {
    /// The wrapper's, not a handler's: the reply of a handler whose Promise settled (the
    /// wrapper returned `[]` for "later"). The first reply counts; later ones are ignored.
    /// One native call instead of napi-rs's conversion of a returned Promise into a future
    /// (two new JS functions attached with `then` on every call) and the wrapper's own
    /// `Promise.resolve(out).then(...)`.
    #[napi]
    pub fn settle(&self, reply: Reply) {
        let tx = self.settled.lock().ok().and_then(|mut s| s.take());
        if let Some(tx) = tx {
            let _ = tx.send(reply);
        }
    }

    /// The JSON-RPC id of the request (as a string), or null for an in-process call.
    #[napi(getter)]
    pub fn request_id(&self) -> Option<String> {
        self.call()?.request_id()
    }

    /// The protocol revision of the request, or null for an in-process call.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.call()?.protocol_version().map(str::to_owned)
    }

    /// True when the caller asked for progress notifications.
    #[napi(getter)]
    pub fn wants_progress(&self) -> bool {
        self.call().is_some_and(HostCall::wants_progress)
    }

    /// What the client declared (legacy: in `initialize`; 2026-07-28: in this request's
    /// `_meta`), as JSON; null for an in-process call.
    #[napi(getter)]
    pub fn client_capabilities(&self) -> Option<String> {
        self.call()?.client_capabilities().map(|v| to_json(&v))
    }

    /// The authenticated caller (subject, clientId, scopes, claims) as JSON, when the server
    /// verifies tokens.
    #[napi(getter)]
    pub fn identity(&self) -> Option<String> {
        self.call()?.identity().map(|v| to_json(&v))
    }

    /// The HTTP request header `name` (over HTTP).
    #[napi]
    pub fn header(&self, name: String) -> Option<String> {
        self.call()?.header(&name)
    }

    /// The client's `clientInfo` (name, version…) as JSON, when known.
    #[napi(getter)]
    pub fn client_info(&self) -> Option<String> {
        self.call()?.client_info().map(|v| to_json(&v))
    }

    /// The OpenTelemetry conventions for MCP of the request this call serves (`method`,
    /// `paramsJson`) as JSON: span name, attributes, metric attributes, carrier
    /// (`mcpcore::semconv`); null once the call has ended.
    #[napi]
    pub fn telemetry_operation(&self, method: String, params_json: String) -> napi::Result<Option<String>> {
        let params = parse_json("params", &params_json)?;
        Ok(self.call().and_then(|c| c.telemetry_operation(&method, params)).map(|v| v.to_string()))
    }

    /// A middleware's call: passes the request (JSON `{method?, params?}`) on to the rest of
    /// the chain, once; resolves to the result as JSON, or rejects with the JSON-RPC error
    /// (code and data) the rest of the chain answered.
    #[napi]
    pub async fn next(&self, request_json: String) -> napi::Result<String> {
        let request = parse_json("the request", &request_json)?;
        let call = self.call.clone().ok_or_else(|| {
            errors::to_js(Error::invalid_input("next() is a middleware's, outside a request"))
        })?;
        call.next(request).await.map(|v| v.to_string()).map_err(errors::to_js)
    }

    /// The state stored with `setRequestState` in the previous round of this request
    /// (2026-07-28), as JSON; null when there is none.
    #[napi(getter)]
    pub fn request_state(&self) -> Option<String> {
        self.call()?.request_state().map(|v| v.to_string())
    }

    /// Stores state (JSON) for the next round of this request (2026-07-28; sealed in
    /// `requestState`); a no-op on legacy sessions.
    #[napi]
    pub fn set_request_state(&self, state_json: String) -> napi::Result<()> {
        let state = parse_json("request state", &state_json)?;
        match self.call() {
            Some(c) => c.set_request_state(state).map_err(errors::to_js),
            None => Ok(()),
        }
    }

    /// Asks the client for input: `requestsJson` is `{key: {method, params}}`; resolves to the
    /// answers by key (JSON). Rejects with `InputRequired` (2026-07-28) when answers are missing
    /// and with -32021 when the client lacks a capability.
    #[napi]
    pub async fn input(&self, requests_json: String) -> napi::Result<String> {
        let requests = parse_json("input requests", &requests_json)?;
        let call = self.call.clone().ok_or_else(|| {
            errors::to_js(Error::invalid_input("cannot ask the client for input outside a request"))
        })?;
        call.input(requests).await.map(|a| a.to_string()).map_err(errors::to_js)
    }

    /// Asks for approval of `action` (`mcpcore::context::approval`) under the input key `key`:
    /// resolves to "approved", "declined" or "pending" (the caller cannot be asked). Rejects as
    /// `input`.
    #[napi]
    pub async fn approve(&self, key: String, action: String) -> napi::Result<String> {
        let call = self.call.clone().ok_or_else(|| {
            errors::to_js(Error::invalid_input("cannot ask for approval outside a request"))
        })?;
        call.approve(&key, &action).await.map(str::to_owned).map_err(errors::to_js)
    }

    /// Registers the function called when the call is abandoned (the JS layer aborts `ctx.signal`).
    #[napi(ts_args_type = "callback: () => void")]
    pub fn on_cancel(&self, callback: CancelCallback) {
        if let Some(c) = self.call() {
            c.on_abandon(Box::new(move || {
                callback.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }));
        }
    }

    /// Sends `notifications/message` at `level` ("debug" … "emergency") with `dataJson`, when the
    /// caller asked for that level (legacy: `logging/setLevel`; 2026-07-28: `_meta` logLevel).
    #[napi]
    pub fn log(&self, level: String, data_json: String, logger: Option<String>) -> napi::Result<()> {
        let data = parse_json("log data", &data_json)?;
        match self.call() {
            Some(c) => c.log(&level, data, logger.as_deref()).map_err(errors::to_js),
            None => Ok(()),
        }
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    #[napi]
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(c) = self.call() {
            c.progress(progress, total, message.as_deref());
        }
    }
}

/// The envelope a JS handler resolves to.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Envelope {
    Value(Value),
    Rpc { code: i32, message: String, data: Option<Value> },
    InputRequired(String),
    Error(String),
}

fn reply_of(json: &str) -> HostReply {
    match serde_json::from_str::<Envelope>(json) {
        Ok(Envelope::Value(v)) => HostReply::Value(HostValue::from_marked_json(v)),
        Ok(Envelope::Rpc { code, message, data }) => {
            let mut e = ErrorData::new(ErrorCode(code), message);
            e.data = data;
            HostReply::Rpc(e)
        }
        Ok(Envelope::InputRequired(message)) => HostReply::InputRequired(message),
        Ok(Envelope::Error(message)) => HostReply::Failure(message),
        Err(e) => HostReply::Failure(format!("the handler returned an invalid envelope: {e}")),
    }
}

/// The reply of `[text]`: the handler's string as the value, as `{"value": text}` would give.
fn text_reply(mut items: Vec<String>) -> HostReply {
    match (items.pop(), items.is_empty()) {
        (Some(text), true) => HostReply::Value(HostValue::Json(Value::String(text))),
        _ => HostReply::Failure("the handler returned an invalid envelope: not one text".to_owned()),
    }
}

pub(crate) fn reply_from(reply: Reply) -> HostReply {
    match reply {
        Either::A(envelope) => reply_of(&envelope),
        Either::B(text) => text_reply(text),
    }
}

/// A JS function registered as a tool, resource reader, prompt renderer or completer.
#[derive(Clone)]
pub(crate) struct JsCallback {
    callback: Arc<Callback>,
    /// The function itself, for calls on the JS thread ([`on_js_thread`]).
    direct: Option<Arc<FunctionRef<CallArgs, Returned>>>,
}

impl JsCallback {
    /// A handler called in place on the JS thread when its call runs there.
    pub(crate) fn new(f: JsFunction) -> Arc<Self> {
        Arc::new(JsCallback { callback: Arc::new(f.threadsafe), direct: Some(Arc::new(f.direct)) })
    }

    /// A callback always called through its thread-safe function (a client's input handlers,
    /// whose calls never start on the JS thread).
    pub(crate) fn threadsafe(callback: Callback) -> Arc<Self> {
        Arc::new(JsCallback { callback: Arc::new(callback), direct: None })
    }

    /// Calls `direct` now, on the JS thread (`env`): the reply when it answered at once.
    fn call_here(
        direct: &FunctionRef<CallArgs, Returned>,
        env: sys::napi_env,
        kind: HandlerKind,
        args: CallArgs,
        later: oneshot::Receiver<Reply>,
    ) -> BoxFuture<'static, HostReply> {
        let env = Env::from_raw(env);
        let returned = direct.borrow_back(&env).and_then(|f| f.call(args));
        match returned {
            Ok(returned) => Box::pin(settle(returned, later)),
            Err(e) => {
                let failure = could_not_call(kind, &e.reason);
                Box::pin(async move { failure })
            }
        }
    }
}

fn could_not_call(kind: HandlerKind, reason: &str) -> HostReply {
    HostReply::Failure(format!("the {} could not be called: {reason}", kind.as_str()))
}

/// The reply of what the wrapper returned: at once, or (`[]`) the one it settles later through
/// [`ToolCall::settle`], or the one its Promise resolves to.
async fn settle(returned: Returned, later: oneshot::Receiver<Reply>) -> HostReply {
    let reply = match returned {
        Either3::A(envelope) => Either::A(envelope),
        Either3::B(text) if text.is_empty() => match later.await {
            Ok(reply) => reply,
            Err(_) => return HostReply::Failure("the handler's call ended without a reply".to_owned()),
        },
        Either3::B(text) => Either::B(text),
        Either3::C(promise) => match promise.await {
            Ok(reply) => reply,
            Err(e) => return HostReply::Failure(e.reason.clone()),
        },
    };
    reply_from(reply)
}

impl HostCallback for JsCallback {
    fn call(&self, kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let (tx, later) = oneshot::channel();
        let call =
            ToolCall { call: kind.has_call().then_some(call), settled: std::sync::Mutex::new(Some(tx)) };
        let args = FnArgs::from((input.to_string(), call));
        if let (Some(env), Some(direct)) = (JS_THREAD.with(Cell::get), &self.direct) {
            return Self::call_here(direct, env, kind, args, later);
        }
        let callback = self.callback.clone();
        Box::pin(async move {
            match callback.call_async_catch(args).await {
                Ok(returned) => settle(returned, later).await,
                Err(e) => could_not_call(kind, &e.reason),
            }
        })
    }
}

/// A completer from fixed `values` (the core filters them by prefix) or a `callback`.
pub(crate) fn completer(
    values: Option<Vec<String>>,
    callback: Option<JsFunction>,
) -> napi::Result<Arc<dyn Completer>> {
    match (values, callback) {
        (Some(values), None) => Ok(complete_from(values)),
        (None, Some(callback)) => Ok(Arc::new(HostCompleter::new(JsCallback::new(callback)))),
        _ => Err(errors::to_js(Error::invalid_input("give a completer exactly one of values or callback"))),
    }
}
