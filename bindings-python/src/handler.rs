//! Python callables as mcpcore host callbacks (tools, resource readers, prompt renderers,
//! completers), through the core's one bridge (`mcpcore::host`): the core decides what a
//! return value becomes on the wire; this module only calls Python and converts values.
//!
//! The facade registers `callback(input, call)`: `input` is the request as Python objects (a
//! tool's arguments, `{"uri", "variables"}`, a prompt's arguments, a completion request), `call`
//! a [`ToolCall`] (None for completers), and the callback returns the handler's value (or an
//! awaitable of it). Sync callbacks run on a blocking thread holding the GIL, so neither tokio
//! nor the asyncio loop stalls (`block_in_place` was measured slower: 94 -> 114 µs per echo call,
//! sequential over stdio), unless the host marks them inline (see [`PyCallback::inline`]); async
//! callbacks run on the host's asyncio loop (captured when the host first awaits an mcpcore
//! coroutine), or on a private loop when there is none.

use crate::gil::{in_inline_tool, InlineGuard};
use crate::{errors, parse_json, to_json, values};
use futures_util::FutureExt as _;
use mcpcore::completion::{complete_from, Completer};
use mcpcore::host::{HandlerKind, HostCall, HostCallback, HostCompleter, HostReply};
use mcpcore::registry::BoxFuture;
use mcpcore::Error;
use pyo3::prelude::*;
use pyo3_async_runtimes::TaskLocals;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The asyncio loop async handlers run on; set by every async entry point.
#[derive(Default)]
pub(crate) struct LoopSlot(Mutex<Option<TaskLocals>>);

impl LoopSlot {
    /// Remembers the running loop (and its context), if there is one.
    pub(crate) fn bind(&self, py: Python<'_>) {
        if let Ok(locals) = TaskLocals::with_running_loop(py).and_then(|l| l.copy_context(py)) {
            *self.0.lock().expect("lock") = Some(locals);
        }
    }

    pub(crate) fn get(&self, py: Python<'_>) -> Option<TaskLocals> {
        let slot = self.0.lock().expect("lock");
        let locals = slot.as_ref()?;
        // A closed loop cannot run handlers any more; fall back to a private loop.
        let closed = locals.event_loop(py).call_method0("is_closed").and_then(|c| c.extract::<bool>());
        if closed.unwrap_or(true) {
            return None;
        }
        Some(locals.clone())
    }
}

/// What a running handler may ask of its call (the core's `HostCall`): who calls, progress and
/// logging, and input from the client (elicitation, sampling, roots).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct ToolCall {
    call: HostCall,
}

fn failed(e: Error) -> PyErr {
    errors::to_py(e)
}

#[pymethods]
impl ToolCall {
    /// The JSON-RPC id of the request (an int or a str, as text), or None for an in-process call.
    #[getter]
    fn request_id(&self) -> Option<String> {
        self.call.request_id()
    }

    /// The protocol revision of the request, or None for an in-process call.
    #[getter]
    fn protocol_version(&self) -> Option<&'static str> {
        self.call.protocol_version()
    }

    /// True when the caller asked for progress notifications (and the call still runs).
    #[getter]
    fn wants_progress(&self) -> bool {
        self.call.wants_progress()
    }

    /// What the client declared (legacy: in `initialize`; 2026-07-28: in this request's
    /// `_meta`), as JSON text; None for an in-process call.
    #[getter]
    fn client_capabilities(&self) -> Option<String> {
        self.call.client_capabilities().map(|v| to_json(&v))
    }

    /// The authenticated caller (subject, clientId, scopes, claims) as JSON text, when the
    /// server verifies tokens.
    #[getter]
    fn identity(&self) -> Option<String> {
        self.call.identity().map(|v| to_json(&v))
    }

    /// The HTTP request header `name` (over HTTP).
    fn header(&self, name: &str) -> Option<String> {
        self.call.header(name)
    }

    /// The client's `clientInfo` (name, version…) as JSON text, when known.
    #[getter]
    fn client_info(&self) -> Option<String> {
        self.call.client_info().map(|v| to_json(&v))
    }

    /// The OpenTelemetry conventions for MCP of the request this call serves (`method`,
    /// `params` JSON text) as JSON text: span name, attributes, metric attributes, carrier
    /// (`mcpcore::semconv`); None once the call has ended.
    fn telemetry_operation(&self, method: &str, params: &str) -> PyResult<Option<String>> {
        let params = parse_json("params", params)?;
        Ok(self.call.telemetry_operation(method, params).map(|v| v.to_string()))
    }

    /// A middleware's call: passes the request (JSON text `{"method"?, "params"?}`) on to the
    /// rest of the chain, once; resolves to the result as JSON text, or raises the `McpError`
    /// (code and data) the rest of the chain answered.
    fn next<'py>(&self, py: Python<'py>, request: &str) -> PyResult<Bound<'py, PyAny>> {
        let run = self.call.next(parse_json("the request", request)?);
        crate::awaitable::future_into_py(py, async move { run.await.map(|v| v.to_string()).map_err(failed) })
    }

    /// The state stored with `set_request_state` in the previous round of this request
    /// (2026-07-28), as JSON text; None when there is none.
    #[getter]
    fn request_state(&self) -> Option<String> {
        self.call.request_state().map(|v| v.to_string())
    }

    /// Stores state (JSON text) for the next round of this request (2026-07-28; sealed in
    /// `requestState`); a no-op on legacy sessions.
    fn set_request_state(&self, state: &str) -> PyResult<()> {
        self.call.set_request_state(parse_json("request state", state)?).map_err(failed)
    }

    /// Asks the client for input: `requests` is JSON text of `{key: {method, params}}`; resolves
    /// to the answers by key (JSON text). Raises `InputRequired` (2026-07-28) when answers are
    /// missing — let it propagate — and `McpError` -32021 when the client lacks a capability.
    fn input<'py>(&self, py: Python<'py>, requests: &str) -> PyResult<Bound<'py, PyAny>> {
        let requests = parse_json("input requests", requests)?;
        let call = self.call.clone();
        crate::awaitable::future_into_py(py, async move {
            call.input(requests).await.map(|a| a.to_string()).map_err(failed)
        })
    }

    /// Asks for approval of `action` (`mcpcore::context::approval`) under the input key `key`:
    /// resolves to "approved", "declined" or "pending" (the caller cannot be asked). Raises as
    /// `input`.
    fn approve<'py>(&self, py: Python<'py>, key: String, action: String) -> PyResult<Bound<'py, PyAny>> {
        let call = self.call.clone();
        crate::awaitable::future_into_py(py, async move { call.approve(&key, &action).await.map_err(failed) })
    }

    /// `input`, blocking the calling thread (with the GIL released) until answered: for sync
    /// handlers, which run on a worker thread.
    fn input_blocking(&self, py: Python<'_>, requests: &str) -> PyResult<String> {
        let requests = parse_json("input requests", requests)?;
        let call = self.call.clone();
        if in_inline_tool() {
            // An inline tool runs inside its call's task. On a legacy session waiting would stop
            // the very task that delivers the question: a deadlock, so it is refused. Otherwise
            // (2026-07-28, in-process) asking never waits: the answers came with the request, or
            // the round ends with `InputRequired`, or there is no client to ask.
            let legacy = self
                .call
                .protocol_version()
                .and_then(mcpcore::ProtocolVersion::parse)
                .is_some_and(|v| !v.is_modern());
            let answered = if legacy { None } else { call.input(requests).now_or_never() };
            return answered
                .unwrap_or_else(|| {
                    Err(Error::invalid_input(if legacy {
                        "an inline tool cannot wait for client input on a legacy session; register it without inline=True"
                    } else {
                        "an inline tool cannot wait for client input; register it without inline=True"
                    }))
                })
                .map(|a| a.to_string())
                .map_err(failed);
        }
        py.detach(|| pyo3_async_runtimes::tokio::get_runtime().block_on(call.input(requests)))
            .map(|a| a.to_string())
            .map_err(failed)
    }

    /// Sends `notifications/message` at `level` ("debug" … "emergency") with `data` (JSON text),
    /// when the caller asked for that level; a no-op otherwise (and once the call has ended).
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &str, logger: Option<&str>) -> PyResult<()> {
        self.call.log(level, parse_json("log data", data)?, logger).map_err(failed)
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress, and
    /// once the call has ended).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.call.progress(progress, total, message);
    }
}

/// A Python callable the core calls (see the module docs).
pub(crate) struct PyCallback {
    /// Shared, so a call takes it without the GIL (no reference count to touch).
    callback: Arc<Py<PyAny>>,
    is_async: bool,
    /// A sync callback the host marked as quick: it runs on the runtime thread that polls the
    /// call, without the hand-off to a blocking thread and back (bench/NOTES.md, "Python sync
    /// tools inline").
    inline: bool,
    loop_slot: Arc<LoopSlot>,
}

impl PyCallback {
    /// The callback for `callback`; an async one runs on the loop in `loop_slot`.
    pub(crate) fn new(callback: Py<PyAny>, is_async: bool, loop_slot: &Arc<LoopSlot>) -> Arc<Self> {
        Arc::new(PyCallback {
            callback: Arc::new(callback),
            is_async,
            inline: false,
            loop_slot: loop_slot.clone(),
        })
    }

    /// A sync callback that runs inline, on the runtime thread that polls its call: it saves two
    /// thread hand-offs (about 30 µs a call) but holds that thread, and waits there for the GIL,
    /// for as long as it runs, so it is for callbacks that return in microseconds. Nothing can
    /// interrupt it (a timeout or a cancellation takes effect when it returns), and it cannot
    /// call mcpcore's async API (refused: the work would queue behind it on its own thread).
    pub(crate) fn inline(callback: Py<PyAny>, loop_slot: &Arc<LoopSlot>) -> Arc<Self> {
        Arc::new(PyCallback {
            callback: Arc::new(callback),
            is_async: false,
            inline: true,
            loop_slot: loop_slot.clone(),
        })
    }
}

impl HostCallback for PyCallback {
    fn call(&self, kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let callback = self.callback.clone();
        let (is_async, inline) = (self.is_async, self.inline);
        // Only an async callback needs the loop (and, to look it up, the GIL).
        let locals = if is_async { crate::gil::attach(|py| self.loop_slot.get(py)) } else { None };
        let call = kind.has_call().then_some(ToolCall { call });
        let job = Job { callback, input, call };
        // The interpreter's exit waits for the call (it enters Python when its thread runs it).
        let busy = crate::gil::Busy::start();
        Box::pin(async move {
            let _busy = busy;
            match (is_async, locals) {
                (true, Some(locals)) => on_loop(job, locals).await,
                (true, None) => blocking(move || job.private_loop()).await,
                (false, _) if inline => {
                    let _inline = InlineGuard::enter();
                    job.sync_call()
                }
                (false, _) => blocking(move || job.sync_call()).await,
            }
        })
    }
}

/// A completer from the facade's `values` (the core filters them by prefix) or its `callback`.
pub(crate) fn completer(
    values: Option<Vec<String>>,
    callback: Option<Py<PyAny>>,
    is_async: bool,
    loop_slot: &Arc<LoopSlot>,
) -> PyResult<Arc<dyn Completer>> {
    match (values, callback) {
        (Some(values), None) => Ok(complete_from(values)),
        (None, Some(callback)) => {
            Ok(Arc::new(HostCompleter::new(PyCallback::new(callback, is_async, loop_slot))))
        }
        _ => Err(errors::to_py(Error::invalid_input("give a completer exactly one of values or callback"))),
    }
}

/// One invocation of a callback.
struct Job {
    callback: Arc<Py<PyAny>>,
    input: Value,
    call: Option<ToolCall>,
}

/// The reply for what the callback returned (or raised).
fn reply(out: PyResult<Bound<'_, PyAny>>) -> HostReply {
    match out.and_then(|v| values::host_value(&v)) {
        Ok(v) => HostReply::Value(v),
        Err(e) => errors::reply_of(e),
    }
}

impl Job {
    fn start<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let input = values::to_py(py, &self.input)?;
        let call = match self.call {
            Some(c) => Some(Bound::new(py, c)?),
            None => None,
        };
        self.callback.bind(py).call1((input, call))
    }

    fn sync_call(self) -> HostReply {
        crate::gil::attach(|py| reply(self.start(py)))
    }

    fn private_loop(self) -> HostReply {
        crate::gil::attach(|py| {
            let out = self.start(py).and_then(|coro| py.import("asyncio")?.call_method1("run", (coro,)));
            reply(out)
        })
    }
}

async fn blocking(f: impl FnOnce() -> HostReply + Send + 'static) -> HostReply {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => HostReply::Failure(format!("the handler crashed: {e}")),
    }
}

/// Receives the outcome of a handler's asyncio task (its done callback).
#[pyclass(module = "mcpcore._native")]
struct TaskDone {
    tx: Mutex<Option<tokio::sync::oneshot::Sender<HostReply>>>,
}

#[pymethods]
impl TaskDone {
    fn __call__(&self, fut: Bound<'_, PyAny>) {
        let outcome = reply(fut.call_method0("result"));
        if let Some(tx) = self.tx.lock().expect("lock").take() {
            let _ = tx.send(outcome);
        }
    }
}

/// Cancels the handler's asyncio task when the call is abandoned (cancelled on the wire, timed
/// out, or its connection closed), so the handler sees `asyncio.CancelledError`.
struct CancelOnDrop {
    future: Option<Py<PyAny>>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.future.take() {
            crate::gil::attach(|py| {
                let _ = f.call_method0(py, "cancel");
            });
        }
    }
}

/// Runs the handler's coroutine as a task on the host loop (`run_coroutine_threadsafe`) and
/// waits for it; dropping this future cancels the task.
async fn on_loop(job: Job, locals: TaskLocals) -> HostReply {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let future = crate::gil::attach(|py| -> PyResult<Py<PyAny>> {
        let coro = job.start(py)?;
        let asyncio = py.import("asyncio")?;
        let fut = asyncio.call_method1("run_coroutine_threadsafe", (coro, locals.event_loop(py)))?;
        fut.call_method1("add_done_callback", (TaskDone { tx: Mutex::new(Some(tx)) },))?;
        Ok(fut.unbind())
    });
    let future = match future {
        Ok(f) => f,
        Err(e) => return errors::reply_of(e),
    };
    let mut guard = CancelOnDrop { future: Some(future) };
    let outcome = rx.await;
    guard.future = None; // finished: nothing to cancel
    outcome.unwrap_or_else(|_| {
        HostReply::Failure("the handler's asyncio task vanished (was its loop closed?)".to_owned())
    })
}
