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

/// Checks webhook deliveries for a subscriber (`WebhookReceiver` in the JS API).
#[napi]
pub struct WebhookReceiver {
    inner: mcpcore::events::receiver::Receiver,
}

/// What one POST got: the status and body to answer with, the delivery as JSON (null when
/// refused) and the subscription id.
#[napi(object)]
pub struct ReceivedDelivery {
    /// The HTTP status to answer with.
    pub status: u16,
    /// The body to answer with (a verification's challenge; the reason when refused).
    pub body: String,
    /// The delivery as JSON, or null when refused.
    pub delivery: Option<String>,
    /// `X-MCP-Subscription-Id`.
    pub subscription_id: Option<String>,
}

#[napi]
impl WebhookReceiver {
    /// A receiver for deliveries signed with any of `secrets` (the newest first).
    #[napi(constructor)]
    pub fn new(secrets: Vec<String>) -> napi::Result<Self> {
        let inner = mcpcore::events::receiver::Receiver::with_secrets(&secrets).map_err(errors::to_js)?;
        Ok(WebhookReceiver { inner })
    }

    /// Checks one POST: `headers` with lower-case names, the raw `body`.
    #[napi]
    pub fn receive(
        &self,
        headers: std::collections::HashMap<String, String>,
        body: napi::bindgen_prelude::Buffer,
    ) -> ReceivedDelivery {
        match self.inner.receive_now(|k| headers.get(k).cloned(), &body) {
            Ok(r) => ReceivedDelivery {
                status: r.status,
                body: String::from_utf8_lossy(&r.body).into_owned(),
                delivery: Some(r.delivery.to_json().to_string()),
                subscription_id: r.subscription_id,
            },
            Err(e) => {
                ReceivedDelivery { status: e.status, body: e.reason, delivery: None, subscription_id: None }
            }
        }
    }
}
