//! The Events extension (`io.modelcontextprotocol/events`, SEP-3415): wire names and shapes.
//!
//! Source: SEP-3415 as merged in modelcontextprotocol/modelcontextprotocol
//! (`seps/0000-events-extension.md`, "Events Extension", rev. 5eb6862), §Methods, §Delivery
//! modes and §Error handling; the extension's beta page (`ext-events`,
//! `specification/beta/events/events.mdx`) was not reachable here. Two dialects are in use:
//! the SEP's (`capabilities.extensions[...]`, codes −32023…−32027) and the design sketch's,
//! which the conformance suite and ChatGPT speak (top-level `capabilities.events`, codes
//! −32011…−32015). A server advertises both; [`Dialect`] picks the codes per request.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension's identifier (a key of `capabilities.extensions`).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/events";
/// `events/list`: the event types a caller may subscribe to (paged).
pub const LIST: &str = "events/list";
/// `events/poll`: occurrences after a cursor; the server keeps no state for it.
pub const POLL: &str = "events/poll";
/// `events/stream`: a long-lived request delivering `notifications/events/*`.
pub const STREAM: &str = "events/stream";
/// `events/subscribe`: a webhook subscription (create or refresh).
pub const SUBSCRIBE: &str = "events/subscribe";
/// `events/unsubscribe`: ends a webhook subscription.
pub const UNSUBSCRIBE: &str = "events/unsubscribe";
/// First frame of a stream, and again after a gap (`truncated: true`).
pub const ACTIVE: &str = "notifications/events/active";
/// One occurrence on a stream.
pub const EVENT: &str = "notifications/events/event";
/// Sent at least every 30 s on a quiet stream, with the position checked up to.
pub const HEARTBEAT: &str = "notifications/events/heartbeat";
/// A transient error; the stream stays open.
pub const ERROR: &str = "notifications/events/error";
/// The subscription ended; the stream closes.
pub const TERMINATED: &str = "notifications/events/terminated";
/// The list of event types changed (SEP-3415 §Dynamic event types); on `subscriptions/listen`
/// streams that asked for `eventsListChanged`.
pub const LIST_CHANGED: &str = "notifications/events/list_changed";
/// Occurrences larger than this (serialized) are refused at emit (SEP-3415 §Webhook delivery:
/// "bodies SHOULD NOT exceed 256 KiB").
pub const MAX_OCCURRENCE_BYTES: usize = 256 * 1024;

/// How an event type can be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryMode {
    /// `events/poll`.
    Poll,
    /// `events/stream`.
    Push,
    /// `events/subscribe` with a callback URL.
    Webhook,
}

impl DeliveryMode {
    /// The mode's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryMode::Poll => "poll",
            DeliveryMode::Push => "push",
            DeliveryMode::Webhook => "webhook",
        }
    }
}

/// One entry of `events/list`: an event type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    /// The type's name, e.g. `email.received`.
    pub name: String,
    /// What it reports, for a model or a person choosing subscriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The modes it can be delivered in (not empty).
    pub delivery: Vec<DeliveryMode>,
    /// JSON Schema of a subscription's `arguments`.
    pub input_schema: Value,
    /// JSON Schema of an occurrence's `data`.
    pub payload_schema: Value,
    /// Metadata, as on tools.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Something that happened: an entry of a poll result, a pushed `notifications/events/event`,
/// a webhook delivery's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventOccurrence {
    /// Stable id, for de-duplication.
    pub event_id: String,
    /// The event type's name.
    pub name: String,
    /// When it happened (ISO 8601).
    pub timestamp: String,
    /// The payload (conforms to the type's `payloadSchema`).
    pub data: Value,
    /// The position after this occurrence (push and webhook; poll answers one per result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Metadata (a stream adds its subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Params of `events/poll` and `events/stream` (the stream has no `maxEvents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollParams {
    /// The event type.
    pub name: String,
    /// Subscription arguments, checked against the type's `inputSchema`.
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
    /// Where to resume; absent or `null` starts from now.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Replay no occurrence older than this many milliseconds.
    #[serde(default)]
    pub max_age_ms: Option<u64>,
    /// At most this many occurrences in the answer.
    #[serde(default)]
    pub max_events: Option<usize>,
}

/// Which error codes a client understands. The SEP's numbers are provisional and the deployed
/// consumers (ChatGPT, the conformance suite) use the design sketch's, so [`Dialect::Sketch`]
/// is the default; a request whose client capabilities declare the extension under
/// `extensions` gets [`Dialect::Sep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// −32011…−32015 (design sketch, conformance suite, ChatGPT).
    #[default]
    Sketch,
    /// −32023…−32027 (SEP-3415 §Error handling).
    Sep,
}

/// The extension's error kinds (SEP-3415 §Error handling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsErrorKind {
    /// An unknown event type (or subscription).
    NotFound,
    /// The caller may not subscribe.
    Forbidden,
    /// A quota is used up.
    ResourceExhausted,
    /// The type does not offer the asked delivery mode.
    Unsupported,
    /// A webhook endpoint failed verification or could not be reached.
    CallbackEndpointError,
}

impl EventsErrorKind {
    /// The JSON-RPC code of this kind in `dialect`.
    pub fn code(self, dialect: Dialect) -> i32 {
        let base = match dialect {
            Dialect::Sketch => -32011,
            Dialect::Sep => -32023,
        };
        base - match self {
            EventsErrorKind::NotFound => 0,
            EventsErrorKind::Forbidden => 1,
            EventsErrorKind::ResourceExhausted => 2,
            EventsErrorKind::Unsupported => 3,
            EventsErrorKind::CallbackEndpointError => 4,
        }
    }
}

/// The result of `events/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListEventsResult {
    /// The event types of this page.
    pub events: Vec<EventType>,
    /// The next page's cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The result of `events/poll`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollResult {
    /// The occurrences after the cursor, oldest first.
    #[serde(default)]
    pub events: Vec<EventOccurrence>,
    /// Where the next poll starts; `None` for a type without replay (poll with `null` again).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Occurrences between the cursor and these were dropped.
    #[serde(default)]
    pub truncated: bool,
    /// More wait: poll again at once.
    #[serde(default)]
    pub has_more: bool,
    /// When to poll next, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_poll_ms: Option<u64>,
    /// The design sketch's older name, in seconds (read when `nextPollMs` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_poll_seconds: Option<f64>,
}

/// The result of `events/subscribe`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeResult {
    /// The subscription's id (its deliveries' `X-MCP-Subscription-Id`).
    pub id: String,
    /// When to refresh by (ISO 8601); `None`: no expiry.
    #[serde(default)]
    pub refresh_before: Option<String>,
    /// A safe watermark: delivery has reached it.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Delivery starts later than the cursor asked.
    #[serde(default)]
    pub truncated: bool,
}
