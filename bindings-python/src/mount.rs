//! `Mount` and `MountResponse`: the server's endpoint fed request by request from an ASGI app
//! (`mcpcore.asgi`), through the core's `InProcess`, with no listener and no loopback hop.

use crate::errors;
use mcpcore::http::server::{BodyReader, InProcess};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// The endpoint of one server, served in process (see `mcpcore.asgi.AsgiApp`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Mount {
    pub(crate) inner: Arc<InProcess>,
}

#[pymethods]
impl Mount {
    /// Serves one request: the method, the full path (with the query), the headers and the whole
    /// body; resolves to a `MountResponse` once the head is known (its body may still stream).
    fn handle<'py>(
        &self,
        py: Python<'py>,
        method: String,
        path: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        crate::awaitable::future_into_py(py, async move {
            let r = inner.handle(&method, &path, &headers, body).await.map_err(errors::to_py)?;
            Ok(MountResponse { status: r.status, headers: r.headers, body: r.body })
        })
    }

    /// Begins shutdown: open streams end, sessions end once their calls finish.
    fn shutdown(&self) {
        self.inner.shutdown();
    }
}

/// One answer: `status`, `headers`, and the body read with `next()` until it gives `None`.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct MountResponse {
    #[pyo3(get)]
    status: u16,
    #[pyo3(get)]
    headers: Vec<(String, String)>,
    body: BodyReader,
}

#[pymethods]
impl MountResponse {
    /// The next chunk of the body (bytes), or None at its end (or after `close()`).
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let body = self.body.clone();
        crate::awaitable::future_into_py(py, async move {
            let chunk = body.next().await;
            Ok(crate::gil::attach(|py| chunk.map(|c| PyBytes::new(py, &c).unbind())))
        })
    }

    /// Drops the body (the client went away): a call still running for it is cancelled.
    fn close(&self) {
        self.body.close();
    }
}
