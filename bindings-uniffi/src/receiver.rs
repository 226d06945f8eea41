//! The receiving end of webhook deliveries in Kotlin and Swift (SEP-3415 §Webhook delivery;
//! Standard Webhooks "Verifying webhooks"): a [`WebhookReceiver`] checks each POST a host's HTTP
//! server takes (any HTTP stack: the JDK's `HttpServer`, Ktor, Vapor…) and says what to answer.
//! The checks are the core's `events::receiver::Receiver`: the signature against any of the
//! secrets, the timestamp (5 minutes either way), the verification challenge answered, a
//! `webhook-id` taken before dropped as a retry.

use crate::errors::McpError;
use mcpcore::events::receiver::Receiver;
use std::collections::HashMap;
use std::sync::Arc;

/// What one POST got: the status and body to answer with, the delivery as JSON (`None` when
/// refused) and the subscription it is for.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ReceivedDelivery {
    /// The HTTP status to answer with: 200, or 400 (malformed) / 401 (signature, timestamp).
    pub status: u16,
    /// The body to answer with: a verification's `{"challenge"}`, empty for a delivery taken,
    /// the reason when refused (for the host's log; answering it is harmless).
    pub body: String,
    /// The delivery as JSON text: `{"type": "event", …the occurrence}`, `{"type": "gap",
    /// "cursor"}`, `{"type": "terminated", "error"}`, `{"type": "verification"}` (already
    /// answered) or `{"type": "duplicate"}` (a retry of one taken); `None` when refused.
    pub delivery_json: Option<String>,
    /// `X-MCP-Subscription-Id`.
    pub subscription_id: Option<String>,
}

/// Checks webhook deliveries for one subscriber (see the module's documentation).
#[derive(uniffi::Object)]
pub struct WebhookReceiver {
    inner: Receiver,
}

#[uniffi::export]
impl WebhookReceiver {
    /// A receiver for deliveries signed with any of `secrets` (`whsec_` and the base64 of 24
    /// to 64 bytes; the newest first while a refresh rotates the secret).
    #[uniffi::constructor]
    pub fn new(secrets: Vec<String>) -> Result<Arc<Self>, McpError> {
        let inner = Receiver::with_secrets(&secrets)?;
        Ok(Arc::new(WebhookReceiver { inner }))
    }

    /// Checks one POST: its `headers` (names in any case; the first value of each) and its raw
    /// `body`, as received.
    pub fn receive(&self, headers: HashMap<String, String>, body: Vec<u8>) -> ReceivedDelivery {
        let headers: HashMap<String, String> =
            headers.into_iter().map(|(k, v)| (k.to_ascii_lowercase(), v)).collect();
        match self.inner.receive_now(|k| headers.get(k).cloned(), &body) {
            Ok(r) => ReceivedDelivery {
                status: r.status,
                body: String::from_utf8_lossy(&r.body).into_owned(),
                delivery_json: Some(r.delivery.to_json().to_string()),
                subscription_id: r.subscription_id,
            },
            Err(e) => ReceivedDelivery {
                status: e.status,
                body: e.reason,
                delivery_json: None,
                subscription_id: None,
            },
        }
    }
}
