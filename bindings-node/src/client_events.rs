//! The Events extension on the client (SEP-3415; `Client.listEvents`, `pollEvents`, `poller`,
//! `streamEvents`, `subscribeWebhook` in the JS API): more methods of the native `Client`, and
//! the `Poller` and `EventStream` it hands out. Every rule (the poll floor, cursors, what a
//! stream item is) is the core's; results cross as JSON.

use crate::client::Client;
use crate::{errors, parse_json, to_json};
use napi_derive::napi;
use std::sync::{Arc, Mutex};

#[napi]
impl Client {
    /// The server's Events extension settings as JSON (`{"listChanged": bool}`), or null when
    /// it declared none.
    #[napi]
    pub fn events_support(&self) -> napi::Result<Option<String>> {
        let c = self.inner()?;
        Ok(c.events_support().map(|s| serde_json::json!({ "listChanged": s.list_changed }).to_string()))
    }

    /// One page of `events/list` after `cursor`; resolves to the result JSON.
    #[napi]
    pub async fn list_events_page(&self, cursor: Option<String>) -> napi::Result<String> {
        self.inner()?.list_events_page(cursor).await.map(|p| to_json(&p)).map_err(errors::to_js)
    }

    /// One `events/poll`; resolves to the result JSON.
    #[napi]
    pub async fn poll_events(
        &self,
        name: String,
        arguments: String,
        cursor: Option<String>,
        max_events: Option<u32>,
    ) -> napi::Result<String> {
        let args = parse_json("arguments", &arguments)?;
        let r = self.inner()?.poll_events(&name, args, cursor, max_events.map(|n| n as usize)).await;
        r.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// A poller of `name` from `cursor`, waiting between polls as the server asks.
    #[napi]
    pub fn poller(&self, name: String, arguments: String, cursor: Option<String>) -> napi::Result<Poller> {
        let p = self.inner()?.poller(&name, parse_json("arguments", &arguments)?, cursor);
        Ok(Poller { inner: Arc::new(tokio::sync::Mutex::new(p)) })
    }

    /// Opens an `events/stream`; resolves to an `EventStream` once it is active.
    #[napi]
    pub async fn stream_events(
        &self,
        name: String,
        arguments: String,
        cursor: Option<String>,
    ) -> napi::Result<EventStream> {
        let args = parse_json("arguments", &arguments)?;
        let s = self.inner()?.stream_events(&name, args, cursor).await.map_err(errors::to_js)?;
        Ok(EventStream {
            inner: Arc::new(tokio::sync::Mutex::new(Some(s))),
            cursor: Arc::new(Mutex::new(None)),
        })
    }

    /// `events/subscribe` to a webhook; resolves to the result JSON.
    #[napi]
    pub async fn subscribe_webhook(
        &self,
        name: String,
        arguments: String,
        url: String,
        secret: String,
        ttl_ms: Option<u32>,
    ) -> napi::Result<String> {
        let args = parse_json("arguments", &arguments)?;
        let r = self.inner()?.subscribe_webhook(&name, args, &url, &secret, ttl_ms.map(u64::from)).await;
        r.map(|g| to_json(&g)).map_err(errors::to_js)
    }

    /// `events/unsubscribe` of a webhook, by its key.
    #[napi]
    pub async fn unsubscribe_webhook(
        &self,
        name: String,
        arguments: String,
        url: String,
    ) -> napi::Result<()> {
        let args = parse_json("arguments", &arguments)?;
        self.inner()?.unsubscribe_webhook(&name, args, &url).await.map_err(errors::to_js)
    }
}

/// Polls one event type on and on.
#[napi]
pub struct Poller {
    inner: Arc<tokio::sync::Mutex<mcpcore::client::EventPoller>>,
}

#[napi]
impl Poller {
    /// Waits as the last answer asked, polls; resolves to the result JSON.
    #[napi]
    pub async fn next(&self) -> napi::Result<String> {
        let inner = self.inner.clone();
        let mut p = inner.lock().await;
        p.next().await.map(|r| to_json(&r)).map_err(errors::to_js)
    }
}

/// An open `events/stream`.
#[napi]
pub struct EventStream {
    inner: Arc<tokio::sync::Mutex<Option<mcpcore::client::EventStream>>>,
    cursor: Arc<Mutex<Option<String>>>,
}

#[napi]
impl EventStream {
    /// The next item as JSON (`{"type": ...}`), or null once the stream ended.
    #[napi]
    pub async fn next(&self) -> napi::Result<Option<String>> {
        let (inner, cursor) = (self.inner.clone(), self.cursor.clone());
        let mut guard = inner.lock().await;
        let Some(stream) = guard.as_mut() else { return Ok(None) };
        let item = stream.next().await;
        *cursor.lock().expect("lock") = stream.cursor().map(str::to_owned);
        Ok(item.map(|i| i.to_json().to_string()))
    }

    /// Where the stream stands (open a new one from here to miss nothing).
    #[napi(getter)]
    pub fn cursor(&self) -> Option<String> {
        self.cursor.lock().expect("lock").clone()
    }

    /// Ends the stream.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.inner.lock().await.take();
        Ok(())
    }
}
