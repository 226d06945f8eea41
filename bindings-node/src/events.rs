//! `Events`: the core's `EventRegistry` (the Events extension, SEP-3415; see `Server.event`
//! and `Server.emit` in the JS API). Declarations and occurrences cross as JSON; every rule
//! (schemas, retention, the 256 KiB bound) is the core's.

use crate::errors;
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::server::webhooks::{WebhookPolicy, Webhooks};
use napi_derive::napi;
use std::sync::Arc;

fn parse(json: &str) -> napi::Result<serde_json::Value> {
    serde_json::from_str(json).map_err(|e| errors::to_js(mcpcore::Error::invalid_input(e.to_string())))
}

/// Event types and their recent occurrences.
#[napi]
pub struct Events {
    pub(crate) inner: Arc<EventRegistry>,
}

#[napi]
impl Events {
    /// No event types yet.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Events { inner: Arc::new(EventRegistry::new()) }
    }

    /// Declares (or replaces) the event type described by the JSON `decl`.
    #[napi]
    pub fn declare(&self, decl: String) -> napi::Result<()> {
        let decl = EventDecl::from_json(parse(&decl)?).map_err(errors::to_js)?;
        self.inner.declare(decl).map_err(errors::to_js)
    }

    /// Records an occurrence of `name` with the JSON payload `data`; returns it as JSON.
    #[napi]
    pub fn emit(&self, name: String, data: String) -> napi::Result<String> {
        let occurrence = self.inner.emit(&name, parse(&data)?).map_err(errors::to_js)?;
        Ok(serde_json::to_string(&occurrence).expect("an occurrence serializes"))
    }

    /// Streams opened from now on hear a heartbeat every `ms` milliseconds (10 ms to 30 s).
    #[napi]
    pub fn set_heartbeat(&self, ms: u32) {
        self.inner.set_heartbeat(std::time::Duration::from_millis(u64::from(ms)));
    }

    /// Delivers webhook subscriptions under the default policy, or with the development
    /// options on (loopback `http` callbacks; subscribers without a token). Drops existing
    /// subscriptions.
    #[napi]
    pub fn set_webhook_policy(&self, allow_http_loopback: bool, allow_anonymous: bool) {
        let policy = WebhookPolicy::with_options(allow_http_loopback, allow_anonymous);
        self.inner.set_webhooks(Webhooks::new(&self.inner, policy));
    }

    /// Stops offering `name`; false when it was not declared.
    #[napi]
    pub fn remove(&self, name: String) -> bool {
        self.inner.remove(&name)
    }
}
