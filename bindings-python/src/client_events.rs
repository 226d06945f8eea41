//! `ClientEvents`, `Poller`, `EventStream`: the Events extension on the client (SEP-3415; see
//! `mcpcore.Client.list_events`, `poll_events`, `poller`, `stream_events`,
//! `subscribe_webhook`). Every rule (the poll floor, cursors, what a stream item is) is the
//! core's; results cross as JSON.

use crate::{errors, parse_json, to_json};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// The events methods of one client connection.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct ClientEvents {
    client: mcpcore::client::Client,
}

#[pymethods]
impl ClientEvents {
    /// The events methods of `client`.
    #[new]
    fn new(client: &crate::client::Client) -> PyResult<Self> {
        Ok(ClientEvents { client: client.inner()? })
    }

    /// The server's Events extension settings as JSON (`{"listChanged": bool}`), or None when
    /// it declared none.
    fn support(&self) -> Option<String> {
        self.client.events_support().map(|s| serde_json::json!({ "listChanged": s.list_changed }).to_string())
    }

    /// One page of `events/list` after `cursor`; resolves to the result JSON.
    #[pyo3(signature = (cursor=None))]
    fn list_page<'py>(&self, py: Python<'py>, cursor: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        crate::awaitable::future_into_py(py, async move {
            c.list_events_page(cursor).await.map(|p| to_json(&p)).map_err(errors::to_py)
        })
    }

    /// One `events/poll`; resolves to the result JSON.
    #[pyo3(signature = (name, arguments, cursor=None, max_events=None))]
    fn poll<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        cursor: Option<String>,
        max_events: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (c, args) = (self.client.clone(), parse_json("arguments", arguments)?);
        crate::awaitable::future_into_py(py, async move {
            c.poll_events(&name, args, cursor, max_events).await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// A poller of `name` from `cursor`, waiting between polls as the server asks.
    #[pyo3(signature = (name, arguments, cursor=None))]
    fn poller(&self, name: String, arguments: &str, cursor: Option<String>) -> PyResult<Poller> {
        let p = self.client.poller(&name, parse_json("arguments", arguments)?, cursor);
        Ok(Poller { inner: Arc::new(tokio::sync::Mutex::new(p)) })
    }

    /// Opens an `events/stream`; resolves to an `EventStream` once it is active.
    #[pyo3(signature = (name, arguments, cursor=None))]
    fn stream<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        cursor: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (c, args) = (self.client.clone(), parse_json("arguments", arguments)?);
        crate::awaitable::future_into_py(py, async move {
            let s = c.stream_events(&name, args, cursor).await.map_err(errors::to_py)?;
            Ok(EventStream {
                cursor: Arc::new(Mutex::new(None)),
                inner: Arc::new(tokio::sync::Mutex::new(Some(s))),
            })
        })
    }

    /// `events/subscribe` to a webhook; resolves to the result JSON.
    #[pyo3(signature = (name, arguments, url, secret, ttl_ms=None))]
    fn subscribe_webhook<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        url: String,
        secret: String,
        ttl_ms: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (c, args) = (self.client.clone(), parse_json("arguments", arguments)?);
        crate::awaitable::future_into_py(py, async move {
            let r = c.subscribe_webhook(&name, args, &url, &secret, ttl_ms).await;
            r.map(|g| to_json(&g)).map_err(errors::to_py)
        })
    }

    /// `events/unsubscribe` of a webhook, by its key.
    fn unsubscribe_webhook<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        url: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (c, args) = (self.client.clone(), parse_json("arguments", arguments)?);
        crate::awaitable::future_into_py(py, async move {
            c.unsubscribe_webhook(&name, args, &url).await.map_err(errors::to_py)
        })
    }
}

/// Polls one event type on and on.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Poller {
    inner: Arc<tokio::sync::Mutex<mcpcore::client::EventPoller>>,
}

#[pymethods]
impl Poller {
    /// Waits as the last answer asked, polls; resolves to the result JSON.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        crate::awaitable::future_into_py(py, async move {
            inner.lock().await.next().await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }
}

/// An open `events/stream`.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct EventStream {
    inner: Arc<tokio::sync::Mutex<Option<mcpcore::client::EventStream>>>,
    cursor: Arc<Mutex<Option<String>>>,
}

#[pymethods]
impl EventStream {
    /// The next item as JSON (`{"type": ...}`), or None once the stream ended.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (inner, cursor) = (self.inner.clone(), self.cursor.clone());
        crate::awaitable::future_into_py(py, async move {
            let mut guard = inner.lock().await;
            let Some(stream) = guard.as_mut() else { return Ok(None) };
            let item = stream.next().await;
            *cursor.lock().expect("lock") = stream.cursor().map(str::to_owned);
            Ok(item.map(|i| i.to_json().to_string()))
        })
    }

    /// Where the stream stands (open a new one from here to miss nothing).
    #[getter]
    fn cursor(&self) -> Option<String> {
        self.cursor.lock().expect("lock").clone()
    }

    /// Ends the stream.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        crate::awaitable::future_into_py(py, async move {
            inner.lock().await.take();
            Ok(())
        })
    }
}
