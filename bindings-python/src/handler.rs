//! Python callables as mcpcore tools.
//!
//! The facade registers `callback(arguments_json, call) -> result_json` (or an awaitable of it).
//! Sync callbacks run on a blocking thread holding the GIL, so neither tokio nor the asyncio loop
//! stalls; async callbacks run on the host's asyncio loop (captured when the host first awaits an
//! mcpcore coroutine), or on a private loop when there is none.

use crate::errors;
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::CallToolResult;
use mcpcore::registry::{Arguments, BoxFuture, ToolContext, ToolHandler};
use mcpcore::Error;
use pyo3::prelude::*;
use pyo3_async_runtimes::TaskLocals;
use std::sync::{Arc, Mutex};

/// The asyncio loop async tools run on; set by every async entry point.
#[derive(Default)]
pub(crate) struct LoopSlot(Mutex<Option<TaskLocals>>);

impl LoopSlot {
    /// Remembers the running loop (and its context), if there is one.
    pub(crate) fn bind(&self, py: Python<'_>) {
        if let Ok(locals) = TaskLocals::with_running_loop(py).and_then(|l| l.copy_context(py)) {
            *self.0.lock().expect("lock") = Some(locals);
        }
    }

    fn get(&self, py: Python<'_>) -> Option<TaskLocals> {
        let slot = self.0.lock().expect("lock");
        let locals = slot.as_ref()?;
        // A closed loop cannot run tools any more; fall back to a private loop.
        let closed = locals.event_loop(py).call_method0("is_closed").and_then(|c| c.extract::<bool>());
        if closed.unwrap_or(true) {
            return None;
        }
        Some(locals.clone())
    }
}

/// What a running tool may ask of its call: who calls, and progress reporting.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct ToolCall {
    ctx: ToolContext,
}

#[pymethods]
impl ToolCall {
    /// The JSON-RPC id of the request (an int or a str), or None for an in-process call.
    #[getter]
    fn request_id(&self) -> Option<String> {
        self.ctx.request_id().map(|id| id.to_string())
    }

    /// The protocol revision of the request, or None for an in-process call.
    #[getter]
    fn protocol_version(&self) -> Option<&'static str> {
        self.ctx.protocol_version().map(|v| v.as_str())
    }

    /// True when the caller asked for progress notifications.
    #[getter]
    fn wants_progress(&self) -> bool {
        self.ctx.wants_progress()
    }

    /// Sends `notifications/message` at `level` ("debug" … "emergency") with `data` (JSON text),
    /// when the caller asked for that level; a no-op otherwise.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &str, logger: Option<&str>) -> PyResult<()> {
        let level = LoggingLevel::parse(level).ok_or_else(|| {
            errors::to_py(Error::invalid_input(format!(
                "unknown log level {level:?}; use debug, info, notice, warning, error, critical, alert or emergency"
            )))
        })?;
        let data = crate::parse_json("log data", data)?;
        self.ctx.log(level, logger, data);
        Ok(())
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask for progress).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.ctx.progress(progress, total, message);
    }
}

/// A Python callable registered as a tool.
pub(crate) struct PyTool {
    pub(crate) callback: Py<PyAny>,
    pub(crate) is_async: bool,
    pub(crate) loop_slot: Arc<LoopSlot>,
}

impl ToolHandler for PyTool {
    fn call(
        &self,
        arguments: Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, mcpcore::Result<CallToolResult>> {
        let (callback, locals) = Python::attach(|py| (self.callback.clone_ref(py), self.loop_slot.get(py)));
        let is_async = self.is_async;
        let args = serde_json::Value::Object(arguments).to_string();
        Box::pin(async move {
            let json = match (is_async, locals) {
                (true, Some(locals)) => on_loop(callback, args, ctx, locals).await,
                (true, None) => blocking(move || private_loop(callback, args, ctx)).await,
                (false, _) => blocking(move || sync_call(callback, args, ctx)).await,
            }?;
            serde_json::from_str::<CallToolResult>(&json)
                .map_err(|e| Error::tool(format!("the tool returned an invalid result: {e}")))
        })
    }
}

async fn blocking(f: impl FnOnce() -> PyResult<String> + Send + 'static) -> mcpcore::Result<String> {
    match tokio::task::spawn_blocking(f).await {
        Ok(out) => out.map_err(errors::from_py),
        Err(e) => Err(Error::tool(format!("the tool crashed: {e}"))),
    }
}

fn sync_call(callback: Py<PyAny>, args: String, ctx: ToolContext) -> PyResult<String> {
    Python::attach(|py| callback.call1(py, (args, ToolCall { ctx }))?.extract::<String>(py))
}

fn private_loop(callback: Py<PyAny>, args: String, ctx: ToolContext) -> PyResult<String> {
    Python::attach(|py| {
        let coro = callback.call1(py, (args, ToolCall { ctx }))?;
        py.import("asyncio")?.call_method1("run", (coro,))?.extract::<String>()
    })
}

/// Receives the outcome of a tool's asyncio task (its done callback).
#[pyclass(module = "mcpcore._native")]
struct TaskDone {
    tx: Mutex<Option<tokio::sync::oneshot::Sender<PyResult<Py<PyAny>>>>>,
}

#[pymethods]
impl TaskDone {
    fn __call__(&self, fut: Bound<'_, PyAny>) {
        let outcome = fut.call_method0("result").map(Bound::unbind);
        if let Some(tx) = self.tx.lock().expect("lock").take() {
            let _ = tx.send(outcome);
        }
    }
}

/// Cancels the tool's asyncio task when the call is abandoned (cancelled on the wire, timed
/// out, or its connection closed), so the tool sees `asyncio.CancelledError`.
struct CancelOnDrop {
    future: Option<Py<PyAny>>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.future.take() {
            Python::attach(|py| {
                let _ = f.call_method0(py, "cancel");
            });
        }
    }
}

/// Runs the tool's coroutine as a task on the host loop (`run_coroutine_threadsafe`) and waits
/// for it; dropping this future cancels the task.
async fn on_loop(
    callback: Py<PyAny>,
    args: String,
    ctx: ToolContext,
    locals: TaskLocals,
) -> mcpcore::Result<String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let future = Python::attach(|py| -> PyResult<Py<PyAny>> {
        let coro = callback.call1(py, (args, ToolCall { ctx }))?;
        let asyncio = py.import("asyncio")?;
        let fut = asyncio.call_method1("run_coroutine_threadsafe", (coro, locals.event_loop(py)))?;
        fut.call_method1("add_done_callback", (TaskDone { tx: Mutex::new(Some(tx)) },))?;
        Ok(fut.unbind())
    })
    .map_err(errors::from_py)?;
    let mut guard = CancelOnDrop { future: Some(future) };
    let outcome = rx.await;
    guard.future = None; // finished: nothing to cancel
    let out = match outcome {
        Ok(r) => r.map_err(errors::from_py)?,
        Err(_) => return Err(Error::tool("the tool's asyncio task vanished (was its loop closed?)")),
    };
    Python::attach(|py| out.extract::<String>(py)).map_err(errors::from_py)
}
