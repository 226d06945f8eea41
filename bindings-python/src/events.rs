//! `Events`: the core's `EventRegistry` (the Events extension, SEP-3415; see
//! `mcpcore.Server.event`, `Server.emit`). Declarations and occurrences cross as JSON; every
//! rule (schemas, retention, the 256 KiB bound) is the core's.

use crate::{errors, to_json};
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::server::webhooks::{WebhookPolicy, Webhooks};
use pyo3::prelude::*;
use std::sync::Arc;

/// Event types and their recent occurrences.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Events {
    pub(crate) inner: Arc<EventRegistry>,
}

#[pymethods]
impl Events {
    /// No event types yet.
    #[new]
    fn new() -> Self {
        Events { inner: Arc::new(EventRegistry::new()) }
    }

    /// Streams opened from now on hear a heartbeat every `ms` milliseconds (10 ms to 30 s).
    fn set_heartbeat(&self, ms: u64) {
        self.inner.set_heartbeat(std::time::Duration::from_millis(ms));
    }

    /// Declares (or replaces) the event type described by the JSON `decl`.
    fn declare(&self, decl: &str) -> PyResult<()> {
        let value = serde_json::from_str(decl)
            .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(e.to_string())))?;
        let decl = EventDecl::from_json(value).map_err(errors::to_py)?;
        self.inner.declare(decl).map_err(errors::to_py)
    }

    /// Records an occurrence of `name` with the JSON payload `data`; returns it as JSON.
    fn emit(&self, name: &str, data: &str) -> PyResult<String> {
        let data = serde_json::from_str(data)
            .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(e.to_string())))?;
        self.inner.emit(name, data).map(|o| to_json(&o)).map_err(errors::to_py)
    }

    /// Delivers webhook subscriptions under the default policy, or with the development
    /// options on (loopback `http` callbacks; subscribers without a token). Drops existing
    /// subscriptions.
    fn set_webhook_policy(&self, allow_http_loopback: bool, allow_anonymous: bool) {
        let policy = WebhookPolicy::with_options(allow_http_loopback, allow_anonymous);
        self.inner.set_webhooks(Webhooks::new(&self.inner, policy));
    }

    /// Stops offering `name`; False when it was not declared.
    fn remove(&self, name: &str) -> bool {
        self.inner.remove(name)
    }

    /// True when no event type is declared.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

/// Checks webhook deliveries for a subscriber (`mcpcore.WebhookReceiver`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct WebhookReceiver {
    inner: mcpcore::events::receiver::Receiver,
}

#[pymethods]
impl WebhookReceiver {
    /// A receiver for deliveries signed with any of `secrets` (the newest first).
    #[new]
    fn new(secrets: Vec<String>) -> PyResult<Self> {
        let inner = mcpcore::events::receiver::Receiver::with_secrets(&secrets).map_err(errors::to_py)?;
        Ok(WebhookReceiver { inner })
    }

    /// Checks one POST (`headers` with lower-case names, the raw `body`): the status and body
    /// to answer with, the delivery as JSON (None when refused) and the subscription id.
    fn receive<'py>(
        &self,
        py: Python<'py>,
        headers: std::collections::HashMap<String, String>,
        body: &[u8],
    ) -> (u16, Bound<'py, pyo3::types::PyBytes>, Option<String>, Option<String>) {
        match self.inner.receive_now(|k| headers.get(k).cloned(), body) {
            Ok(r) => {
                let answer = pyo3::types::PyBytes::new(py, &r.body);
                (r.status, answer, Some(r.delivery.to_json().to_string()), r.subscription_id)
            }
            Err(e) => (e.status, pyo3::types::PyBytes::new(py, e.reason.as_bytes()), None, None),
        }
    }
}
