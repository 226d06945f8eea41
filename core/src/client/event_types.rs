//! The Events extension on the client (SEP-3415; docs/events.md): listing a server's event
//! types, polling them ([`Client::poll_events`], and [`EventPoller`], which waits as the server
//! asks), streaming them ([`Client::stream_events`]), and webhook subscriptions.
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use serde_json::json;
//! for t in client.list_events().await? {
//!     println!("{}: {:?}", t.name, t.delivery);
//! }
//! let mut stream = client.stream_events("build.finished", json!({}), None).await?;
//! while let Some(item) = stream.next().await {
//!     println!("{item:?} (resume from {:?})", stream.cursor());
//! }
//! # Ok(()) }
//! ```

use super::listen::Opening;
use super::{all_pages, page_params, Client, ServerEvent, Subscription};
use crate::error::{Error, ErrorData, Result};
use crate::protocol::events::{
    self as ext, EventOccurrence, EventType, ListEventsResult, PollResult, SubscribeResult,
};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The shortest wait between two polls, whatever the server suggests (SEP-3415 §Poll: clients
/// SHOULD apply a floor).
pub const POLL_FLOOR: Duration = Duration::from_secs(1);

/// What the server declared of the Events extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventsSupport {
    /// The server sends `notifications/events/list_changed`.
    pub list_changed: bool,
}

fn malformed(method: &str, e: serde_json::Error) -> Error {
    Error::protocol(format!("malformed {method} result: {e}"))
}

impl Client {
    /// The server's Events extension settings (under `extensions`, or the design sketch's
    /// top-level `events`), or `None` when it declared neither: then send no `events/*`.
    pub fn events_support(&self) -> Option<EventsSupport> {
        let caps = self.negotiated().capabilities;
        let settings = caps.extensions.as_ref().and_then(|e| e.get(ext::EXTENSION_ID).cloned());
        let settings = settings.or_else(|| caps.events.map(Value::Object))?;
        Some(EventsSupport { list_changed: settings.get("listChanged") == Some(&Value::Bool(true)) })
    }

    /// A receiver that changes at each `notifications/events/list_changed` of a legacy
    /// session (the client must declare the Events extension in its capabilities for a server
    /// to send them); several in a row may be seen as one. A 2026-07-28 server sends them on a
    /// listen stream instead ([`Client::listen`] with `eventsListChanged`).
    pub(crate) fn events_list_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.shared.events_list_changed.0.subscribe()
    }

    /// True when the server declared the Events extension with `listChanged: true` (false
    /// before negotiation).
    pub(crate) fn sends_events_list_changed(&self) -> bool {
        self.current_version().is_some() && self.events_support().is_some_and(|s| s.list_changed)
    }

    /// One page of `events/list`.
    pub async fn list_events_page(&self, cursor: Option<String>) -> Result<ListEventsResult> {
        let v = self.request(ext::LIST, page_params(cursor)).await?;
        serde_json::from_value(v).map_err(|e| malformed(ext::LIST, e))
    }

    /// Every event type the server lists, following `nextCursor` (at most 1000 pages).
    pub async fn list_events(&self) -> Result<Vec<EventType>> {
        all_pages(ext::LIST, |c| self.list_events_page(c), |p| (p.events, p.next_cursor)).await
    }

    /// One `events/poll` of `name` with `arguments` from `cursor` (`None`: from now), at most
    /// `max_events` occurrences.
    pub async fn poll_events(
        &self,
        name: &str,
        arguments: Value,
        cursor: Option<String>,
        max_events: Option<usize>,
    ) -> Result<PollResult> {
        let mut params = json!({ "name": name, "arguments": arguments, "cursor": cursor });
        if let Some(n) = max_events {
            params["maxEvents"] = json!(n);
        }
        let v = self.request(ext::POLL, params).await?;
        serde_json::from_value(v).map_err(|e| malformed(ext::POLL, e))
    }

    /// A poller of `name` from `cursor`: each [`EventPoller::next`] waits as the last answer
    /// asked (`nextPollMs`, at least [`POLL_FLOOR`]; not at all after `hasMore`) and polls on
    /// from the last cursor.
    pub fn poller(&self, name: &str, arguments: Value, cursor: Option<String>) -> EventPoller {
        EventPoller { client: self.clone(), name: name.to_owned(), arguments, cursor, wait: None }
    }

    /// Opens an `events/stream` of `name` with `arguments` from `cursor` (`None`: from now) and
    /// waits (up to the request timeout) for `notifications/events/active`, which is its first
    /// item. An unknown type, a bad cursor or arguments are the request's error.
    pub async fn stream_events(
        &self,
        name: &str,
        arguments: Value,
        cursor: Option<String>,
    ) -> Result<EventStream> {
        let version = self.current_version().ok_or_else(|| Error::closed("not connected"))?;
        let mut params = Map::new();
        params.insert("name".into(), json!(name));
        params.insert("arguments".into(), arguments);
        params.insert("cursor".into(), json!(cursor));
        let sub = self.open_stream(ext::STREAM, params, version, Opening::Events, true).await?;
        Ok(EventStream { sub, cursor })
    }

    /// Creates or refreshes the webhook subscription of `name` with `arguments` to `url`,
    /// signed with `secret` (`whsec_` and the base64 of 24 to 64 random bytes), for `ttl_ms`
    /// (`None`: the server's default).
    pub async fn subscribe_webhook(
        &self,
        name: &str,
        arguments: Value,
        url: &str,
        secret: &str,
        ttl_ms: Option<u64>,
    ) -> Result<SubscribeResult> {
        let mut params = json!({ "name": name, "arguments": arguments,
            "delivery": { "mode": "webhook", "url": url, "secret": secret } });
        if let Some(ms) = ttl_ms {
            params["ttlMs"] = json!(ms);
        }
        let v = self.request(ext::SUBSCRIBE, params).await?;
        serde_json::from_value(v).map_err(|e| malformed(ext::SUBSCRIBE, e))
    }

    /// Ends the webhook subscription of `name` with `arguments` to `url`.
    pub async fn unsubscribe_webhook(&self, name: &str, arguments: Value, url: &str) -> Result<()> {
        let params =
            json!({ "name": name, "arguments": arguments, "delivery": { "mode": "webhook", "url": url } });
        self.request(ext::UNSUBSCRIBE, params).await.map(|_| ())
    }
}

/// Polls one event type on and on (see [`Client::poller`]).
#[derive(Debug)]
pub struct EventPoller {
    client: Client,
    name: String,
    arguments: Value,
    cursor: Option<String>,
    wait: Option<Duration>,
}

impl EventPoller {
    /// Waits as the last answer asked, polls, and returns the answer (its occurrences may be
    /// none). The cursor moves on; a `truncated` answer's fresh cursor too.
    pub async fn next(&mut self) -> Result<PollResult> {
        if let Some(w) = self.wait.take() {
            tokio::time::sleep(w).await;
        }
        let r =
            self.client.poll_events(&self.name, self.arguments.clone(), self.cursor.clone(), None).await?;
        self.cursor = r.cursor.clone();
        let asked = match (r.next_poll_ms, r.next_poll_seconds) {
            (Some(ms), _) => Duration::from_millis(ms),
            (None, Some(s)) if s.is_finite() && s >= 0.0 => Duration::from_secs_f64(s.min(86_400.0)),
            _ => POLL_FLOOR,
        };
        self.wait = (!r.has_more).then(|| asked.max(POLL_FLOOR));
        Ok(r)
    }

    /// Where the next poll starts.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
}

/// What an events stream delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// `notifications/events/active`: open at `cursor`; `truncated` when occurrences before
    /// it were dropped (again after a gap).
    Active {
        /// Where the stream stands.
        cursor: Option<String>,
        /// Occurrences were dropped.
        truncated: bool,
    },
    /// One occurrence.
    Event(EventOccurrence),
    /// `notifications/events/heartbeat`: alive, checked up to `cursor`.
    Heartbeat {
        /// Where the stream stands.
        cursor: Option<String>,
    },
    /// `notifications/events/error`: a transient error; the stream goes on.
    Error(ErrorData),
    /// `notifications/events/terminated`: the subscription ended.
    Terminated(ErrorData),
}

impl StreamItem {
    /// The item as the bindings hand it over: `{"type": "active"|"event"|"heartbeat"|"error"|
    /// "terminated", …}` with the notification's members (`cursor`, `truncated`; the
    /// occurrence's; `error`).
    pub fn to_json(&self) -> Value {
        match self {
            StreamItem::Active { cursor, truncated } => {
                json!({ "type": "active", "cursor": cursor, "truncated": truncated })
            }
            StreamItem::Heartbeat { cursor } => json!({ "type": "heartbeat", "cursor": cursor }),
            StreamItem::Event(o) => {
                let mut v = serde_json::to_value(o).expect("serializable");
                v["type"] = json!("event");
                v
            }
            StreamItem::Error(e) => json!({ "type": "error", "error": e }),
            StreamItem::Terminated(e) => json!({ "type": "terminated", "error": e }),
        }
    }
}

/// An open `events/stream` (see [`Client::stream_events`]). Ends when dropped.
#[derive(Debug)]
pub struct EventStream {
    sub: Subscription,
    cursor: Option<String>,
}

impl EventStream {
    /// The next item; `None` once the stream ended (see [`EventStream::ended`]).
    pub async fn next(&mut self) -> Option<StreamItem> {
        loop {
            let ServerEvent::Other(n) = self.sub.next().await? else { continue };
            let params = Value::Object(n.params.unwrap_or_default());
            let cursor = || params.get("cursor").and_then(Value::as_str).map(str::to_owned);
            let error = || serde_json::from_value::<ErrorData>(params["error"].clone()).ok();
            let item = match n.method.as_str() {
                ext::ACTIVE => {
                    StreamItem::Active { cursor: cursor(), truncated: params["truncated"] == true }
                }
                ext::HEARTBEAT => StreamItem::Heartbeat { cursor: cursor() },
                ext::EVENT => match serde_json::from_value::<EventOccurrence>(params.clone()) {
                    Ok(o) => StreamItem::Event(o),
                    Err(_) => continue,
                },
                ext::ERROR => match error() {
                    Some(e) => StreamItem::Error(e),
                    None => continue,
                },
                ext::TERMINATED => match error() {
                    Some(e) => StreamItem::Terminated(e),
                    None => continue,
                },
                _ => continue,
            };
            match &item {
                StreamItem::Active { cursor, .. } | StreamItem::Heartbeat { cursor } => {
                    self.cursor = cursor.clone()
                }
                StreamItem::Event(o) if o.cursor.is_some() => self.cursor = o.cursor.clone(),
                _ => {}
            }
            return Some(item);
        }
    }

    /// Where the stream stands: open a new one from here after it ended to miss nothing.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }

    /// Why the stream ended, once it has.
    pub fn ended(&self) -> Option<&super::SubscriptionEnd> {
        self.sub.ended()
    }
}
