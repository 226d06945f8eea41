//! `Task`: the handle of a task-augmented tool call (both lineages; the core runs them).

use crate::{errors, to_json};
use mcpcore::client::TaskHandle;
use pyo3::prelude::*;
use std::sync::Arc;

/// A task the server runs for a tool call (see `mcpcore.Task`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Task {
    /// Always set; taken only by `drop`.
    pub(crate) inner: Option<Arc<TaskHandle>>,
}

impl Drop for Task {
    /// The handle holds the connection: its last reference may go here, outside the runtime.
    fn drop(&mut self) {
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        self.inner.take();
    }
}

fn info_json(info: &mcpcore::client::TaskInfo) -> String {
    let ms = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64);
    to_json(&serde_json::json!({
        "taskId": info.task_id,
        "status": info.status,
        "statusMessage": info.status_message,
        "pollIntervalMs": ms(info.poll_interval),
        "ttlMs": ms(info.ttl),
    }))
}

impl Task {
    fn handle(&self) -> Arc<TaskHandle> {
        self.inner.clone().expect("set until dropped")
    }
}

#[pymethods]
impl Task {
    /// The task id; None when the server answered at once instead of creating a task.
    #[getter]
    fn id(&self) -> Option<String> {
        self.handle().id().map(str::to_owned)
    }

    /// Resolves to the task's state as JSON (`taskId`, `status`, `statusMessage`, …).
    fn status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.handle();
        crate::awaitable::future_into_py(py, async move {
            t.status().await.map(|i| info_json(&i)).map_err(errors::to_py)
        })
    }

    /// Resolves to the tool's CallToolResult JSON once the task ends.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.handle();
        crate::awaitable::future_into_py(py, async move {
            t.result().await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// Asks the server to cancel the task.
    fn cancel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.handle();
        crate::awaitable::future_into_py(py, async move { t.cancel().await.map_err(errors::to_py) })
    }
}
