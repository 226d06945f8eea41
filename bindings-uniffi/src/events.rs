//! MCP Events (the Events extension, SEP-3415; docs/events.md): [`Events`] declares event
//! types and emits occurrences for a [`Server`](crate::server::Server) (`with_events`); the
//! [`Client`] methods list, poll and stream them and subscribe webhooks. Schemas, payloads and
//! arguments cross as JSON text; every rule is the core's.

use crate::client::Client;
use crate::errors::McpError;
use crate::rt;
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::protocol::events::EventOccurrence as CoreOccurrence;
use mcpcore::server::webhooks::{WebhookPolicy, Webhooks};
use std::sync::{Arc, Mutex};

fn json(what: &str, text: &str) -> Result<serde_json::Value, McpError> {
    serde_json::from_str(text)
        .map_err(|e| mcpcore::Error::invalid_input(format!("{what} is not JSON: {e}")).into())
}

/// How an event type can be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum DeliveryMode {
    /// `events/poll`.
    Poll,
    /// `events/stream`.
    Push,
    /// `events/subscribe` (signed webhooks).
    Webhook,
}

impl DeliveryMode {
    fn wire(self) -> &'static str {
        match self {
            DeliveryMode::Poll => "poll",
            DeliveryMode::Push => "push",
            DeliveryMode::Webhook => "webhook",
        }
    }
}

/// Something that happened.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct EventOccurrence {
    /// Stable id, for de-duplication (`evt_…`).
    pub event_id: String,
    /// The event type.
    pub name: String,
    /// When it happened (ISO 8601, UTC).
    pub timestamp: String,
    /// The payload as JSON text.
    pub data_json: String,
    /// The position after it (streams), when given.
    pub cursor: Option<String>,
}

impl From<CoreOccurrence> for EventOccurrence {
    fn from(o: CoreOccurrence) -> Self {
        EventOccurrence {
            event_id: o.event_id,
            name: o.name,
            timestamp: o.timestamp,
            data_json: o.data.to_string(),
            cursor: o.cursor,
        }
    }
}

/// Event types and their recent occurrences, for a server.
#[derive(uniffi::Object)]
pub struct Events {
    pub(crate) inner: Arc<EventRegistry>,
}

#[uniffi::export]
impl Events {
    /// No event types yet.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Events { inner: Arc::new(EventRegistry::new()) })
    }

    /// Declares (or replaces) the event type `name`: its `delivery` modes, the JSON Schema text
    /// of its subscription arguments and of its payload (null: any object), how many
    /// occurrences are kept for replay, the `nextPollMs` its polls suggest, and `filter_on`:
    /// subscription arguments that filter occurrences (a subscription giving one receives only
    /// the occurrences whose data has the same value there). Throws `InvalidInput` for a schema
    /// that does not compile.
    #[uniffi::method(default(input_schema_json = None, payload_schema_json = None, retain = 256, poll_interval_ms = 5000, filter_on = []))]
    #[allow(clippy::too_many_arguments)] // the foreign signature: named arguments with defaults
    pub fn declare(
        &self,
        name: String,
        description: String,
        delivery: Vec<DeliveryMode>,
        input_schema_json: Option<String>,
        payload_schema_json: Option<String>,
        retain: u32,
        poll_interval_ms: u64,
        filter_on: Vec<String>,
    ) -> Result<(), McpError> {
        let mut decl = serde_json::json!({
            "name": name, "description": description,
            "delivery": delivery.iter().map(|d| d.wire()).collect::<Vec<_>>(),
            "retain": retain, "pollIntervalMs": poll_interval_ms, "filterOn": filter_on,
        });
        if let Some(s) = input_schema_json {
            decl["inputSchema"] = json("the input schema", &s)?;
        }
        if let Some(s) = payload_schema_json {
            decl["payloadSchema"] = json("the payload schema", &s)?;
        }
        Ok(self.inner.declare(EventDecl::from_json(decl)?)?)
    }

    /// Records an occurrence of `name` with the JSON payload `data_json` and delivers it to
    /// every open stream and webhook; returns it. Throws `InvalidInput` for an undeclared type,
    /// data failing its payload schema, or more than 256 KiB (nothing recorded then).
    pub fn emit(&self, name: String, data_json: String) -> Result<EventOccurrence, McpError> {
        Ok(self.inner.emit(&name, json("the data", &data_json)?)?.into())
    }

    /// Streams opened from now on hear a heartbeat every `ms` while quiet (10 ms to 30 s).
    pub fn set_heartbeat_ms(&self, ms: u64) {
        self.inner.set_heartbeat(std::time::Duration::from_millis(ms));
    }

    /// How webhook subscriptions are accepted: by default `https` callbacks to public addresses
    /// from authenticated subscribers. Development only: `allow_http_loopback` accepts `http`
    /// callbacks on loopback addresses, `allow_anonymous` subscribers without a token.
    pub fn set_webhook_policy(&self, allow_http_loopback: bool, allow_anonymous: bool) {
        let policy = WebhookPolicy::with_options(allow_http_loopback, allow_anonymous);
        self.inner.set_webhooks(Webhooks::new(&self.inner, policy));
    }

    /// Stops offering `name`; false when it was not declared.
    pub fn remove(&self, name: String) -> bool {
        self.inner.remove(&name)
    }
}

/// An `events/poll` result.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PollResult {
    /// The occurrences after the cursor, oldest first.
    pub events: Vec<EventOccurrence>,
    /// Where the next poll starts.
    pub cursor: Option<String>,
    /// Occurrences between the cursor and these were dropped.
    pub truncated: bool,
    /// More wait: poll again at once.
    pub has_more: bool,
    /// When to poll next, in milliseconds.
    pub next_poll_ms: Option<u64>,
}

/// What an events stream delivers.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum StreamItem {
    /// The stream is open at `cursor` (again after a gap, `truncated`).
    Active {
        /// Where it stands.
        cursor: Option<String>,
        /// Occurrences were dropped.
        truncated: bool,
    },
    /// One occurrence.
    Event {
        /// The occurrence.
        occurrence: EventOccurrence,
    },
    /// Alive, checked up to `cursor`.
    Heartbeat {
        /// Where it stands.
        cursor: Option<String>,
    },
    /// A transient error; the stream goes on.
    Error {
        /// The JSON-RPC code.
        code: i32,
        /// The message.
        message: String,
    },
    /// The subscription ended.
    Terminated {
        /// The JSON-RPC code.
        code: i32,
        /// The message.
        message: String,
    },
}

impl From<mcpcore::client::StreamItem> for StreamItem {
    fn from(i: mcpcore::client::StreamItem) -> Self {
        use mcpcore::client::StreamItem as C;
        match i {
            C::Active { cursor, truncated } => StreamItem::Active { cursor, truncated },
            C::Event(o) => StreamItem::Event { occurrence: o.into() },
            C::Heartbeat { cursor } => StreamItem::Heartbeat { cursor },
            C::Error(e) => StreamItem::Error { code: e.code.0, message: e.message },
            C::Terminated(e) => StreamItem::Terminated { code: e.code.0, message: e.message },
        }
    }
}

/// An open `events/stream`.
#[derive(uniffi::Object)]
pub struct EventStream {
    inner: Arc<tokio::sync::Mutex<Option<mcpcore::client::EventStream>>>,
    cursor: Arc<Mutex<Option<String>>>,
}

#[uniffi::export]
impl EventStream {
    /// The next item, or null once the stream ended.
    pub async fn next(&self) -> Option<StreamItem> {
        let (inner, cursor) = (self.inner.clone(), self.cursor.clone());
        rt::in_runtime(async move {
            let mut guard = inner.lock().await;
            let stream = guard.as_mut()?;
            let item = stream.next().await;
            *cursor.lock().expect("lock") = stream.cursor().map(str::to_owned);
            item.map(StreamItem::from)
        })
        .await
    }

    /// Where the stream stands: open a new one from here to miss nothing.
    pub fn cursor(&self) -> Option<String> {
        self.cursor.lock().expect("lock").clone()
    }

    /// Ends the stream (`close()`, from `AutoCloseable`, also frees the object).
    pub async fn end(&self) {
        let inner = self.inner.clone();
        rt::in_runtime(async move { inner.lock().await.take() }).await;
    }
}

/// What `events/subscribe` granted.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct WebhookGrant {
    /// The subscription's id (its deliveries' `X-MCP-Subscription-Id`).
    pub id: String,
    /// When to subscribe again by (ISO 8601); null: no expiry.
    pub refresh_before: Option<String>,
    /// A safe watermark.
    pub cursor: Option<String>,
    /// Delivery starts later than the cursor asked.
    pub truncated: bool,
}

#[uniffi::export]
impl Client {
    /// True when the server declared the Events extension (then the `events/` methods may be sent).
    pub fn events_supported(&self) -> Result<bool, McpError> {
        Ok(self.inner()?.events_support().is_some())
    }

    /// Every event type the server lists, each as its JSON text.
    pub async fn list_events(&self) -> Result<Vec<String>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let types = c.list_events().await?;
            Ok(types.iter().map(|t| serde_json::to_string(t).expect("serializes")).collect())
        })
        .await
    }

    /// One `events/poll` of `name` with `arguments_json` from `cursor` (null: from now).
    #[uniffi::method(default(cursor = None, max_events = None))]
    pub async fn poll_events(
        &self,
        name: String,
        arguments_json: String,
        cursor: Option<String>,
        max_events: Option<u32>,
    ) -> Result<PollResult, McpError> {
        let (c, args) = (self.inner()?, json("the arguments", &arguments_json)?);
        rt::in_runtime(async move {
            let r = c.poll_events(&name, args, cursor, max_events.map(|n| n as usize)).await?;
            Ok(PollResult {
                events: r.events.into_iter().map(EventOccurrence::from).collect(),
                cursor: r.cursor,
                truncated: r.truncated,
                has_more: r.has_more,
                next_poll_ms: r.next_poll_ms,
            })
        })
        .await
    }

    /// Opens an `events/stream` of `name` from `cursor` (null: from now); returns it once the
    /// server says it is active (its first item).
    #[uniffi::method(default(cursor = None))]
    pub async fn stream_events(
        &self,
        name: String,
        arguments_json: String,
        cursor: Option<String>,
    ) -> Result<Arc<EventStream>, McpError> {
        let (c, args) = (self.inner()?, json("the arguments", &arguments_json)?);
        rt::in_runtime(async move {
            let s = c.stream_events(&name, args, cursor).await?;
            Ok(Arc::new(EventStream {
                inner: Arc::new(tokio::sync::Mutex::new(Some(s))),
                cursor: Arc::default(),
            }))
        })
        .await
    }

    /// Creates or refreshes the webhook subscription of `name` to `url`, signed with `secret`
    /// (`whsec_` and the base64 of 24 to 64 random bytes), for `ttl_ms` (null: the server's).
    #[uniffi::method(default(ttl_ms = None))]
    pub async fn subscribe_webhook(
        &self,
        name: String,
        arguments_json: String,
        url: String,
        secret: String,
        ttl_ms: Option<u64>,
    ) -> Result<WebhookGrant, McpError> {
        let (c, args) = (self.inner()?, json("the arguments", &arguments_json)?);
        rt::in_runtime(async move {
            let g = c.subscribe_webhook(&name, args, &url, &secret, ttl_ms).await?;
            Ok(WebhookGrant {
                id: g.id,
                refresh_before: g.refresh_before,
                cursor: g.cursor,
                truncated: g.truncated,
            })
        })
        .await
    }

    /// Ends the webhook subscription of `name` with `arguments_json` to `url`.
    pub async fn unsubscribe_webhook(
        &self,
        name: String,
        arguments_json: String,
        url: String,
    ) -> Result<(), McpError> {
        let (c, args) = (self.inner()?, json("the arguments", &arguments_json)?);
        rt::in_runtime(async move { Ok(c.unsubscribe_webhook(&name, args, &url).await?) }).await
    }
}
