//! Modern subscriptions (spec 2026-07-28 basic/patterns/subscriptions): [`Client::listen`] sends `subscriptions/listen`, waits
//! for the acknowledgement and returns a [`Subscription`] yielding the stream's tagged
//! notifications. Dropping it ends the subscription (stdio: `notifications/cancelled` for the
//! listen id; HTTP: the response stream is closed).
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::protocol::subscriptions::SubscriptionFilter;
//! let filter = SubscriptionFilter {
//!     tools_list_changed: Some(true),
//!     resource_subscriptions: Some(vec!["file:///project/config.json".into()]),
//!     ..SubscriptionFilter::default()
//! };
//! let mut sub = client.listen(filter).await?;
//! println!("the server honours {:?}", sub.acknowledged());
//! while let Some(event) = sub.next().await {
//!     println!("changed: {}", event.method());
//! }
//! # Ok(()) }
//! ```

use super::events::ServerEvent;
use super::router::{ListenMsg, Shared};
use super::{cancelled_frame, Client};
use crate::error::{Error, Result};
use crate::jsonrpc::{Message, Request, RequestId, Response};
use crate::protocol::subscriptions::SubscriptionFilter;
use crate::transport::OutFrame;
use serde_json::Map;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The message that says a long-lived request's stream is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// `notifications/subscriptions/acknowledged` (consumed).
    Listen,
    /// `notifications/events/active` (kept as the stream's first item).
    Events,
}

/// Why a [`Subscription`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionEnd {
    /// The server ended it gracefully (the listen request's result).
    Completed,
    /// The server sent `notifications/cancelled` for it, with this reason.
    Cancelled(Option<String>),
    /// The server answered the listen request with an error, or the connection failed.
    Failed(String),
}

/// An open `subscriptions/listen` stream. Ends when dropped.
#[derive(Debug)]
pub struct Subscription {
    shared: Arc<Shared>,
    /// Where the `notifications/cancelled` ending it goes (stdio; HTTP closes the stream).
    tx: crate::transport::WeakFrameTx,
    /// Keeps the connection open while the host holds the subscription; `None` for the
    /// client's own stream (`listener.rs`), which must not outlive the last `Client`.
    _client: Option<Client>,
    id: RequestId,
    acknowledged: SubscriptionFilter,
    rx: mpsc::UnboundedReceiver<ListenMsg>,
    done: oneshot::Receiver<Result<Response, Error>>,
    early: VecDeque<ServerEvent>,
    ended: Option<SubscriptionEnd>,
}

impl Client {
    /// Opens a modern `subscriptions/listen` stream for `filter` and waits (up to the request
    /// timeout) for the server's acknowledgement. Legacy sessions have no listen: use
    /// [`Client::subscribe_resource`] and [`Client::on_notification`] there.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription> {
        self.open_listen(filter, true).await
    }

    /// [`Client::listen`]; the subscription keeps the connection open only when `keep`.
    pub(crate) async fn open_listen(&self, filter: SubscriptionFilter, keep: bool) -> Result<Subscription> {
        let version = self.current_version().filter(|v| v.is_modern()).ok_or_else(|| {
            Error::invalid_input(
                "subscriptions/listen needs the modern lineage; legacy sessions use subscribe_resource and on_notification",
            )
        })?;
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(&filter).expect("serializable"));
        self.open_stream("subscriptions/listen", params, version, Opening::Listen, keep).await
    }

    /// Sends the long-lived request `method` and waits (up to the request timeout) for the
    /// message that says the stream is open: a listen stream's acknowledgement, or an events
    /// stream's `notifications/events/active` (kept as its first item).
    pub(crate) async fn open_stream(
        &self,
        method: &str,
        params: Map<String, serde_json::Value>,
        version: crate::protocol::ProtocolVersion,
        opening: Opening,
        keep: bool,
    ) -> Result<Subscription> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        // A legacy session's requests carry no per-request `_meta` (events/stream serves both).
        let params = if version.is_modern() { self.with_meta(params, version) } else { params };
        let (tx, rx) = mpsc::unbounded_channel();
        self.inner.shared.add_listen(id.clone(), tx);
        let done = match self.inner.shared.add_pending(id.clone()) {
            Ok(d) => d,
            Err(e) => {
                self.inner.shared.remove_listen(&id);
                return Err(e);
            }
        };
        let mut sub = Subscription {
            shared: self.inner.shared.clone(),
            tx: self.inner.tx.downgrade(),
            _client: keep.then(|| self.clone()),
            id: id.clone(),
            acknowledged: SubscriptionFilter::default(),
            rx,
            done,
            early: VecDeque::new(),
            ended: None,
        };
        let req = Request { id, method: method.into(), params: Some(params) };
        if self.inner.tx.send(OutFrame::One(Message::Request(req))).is_err() {
            sub.ended = Some(SubscriptionEnd::Failed("connection closed".into()));
            return Err(Error::closed(
                self.inner.shared.closed_reason().unwrap_or_else(|| "connection closed".into()),
            ));
        }
        let timeout = self.inner.options.request_timeout;
        let acked = tokio::time::timeout(timeout, async {
            loop {
                tokio::select! {
                    m = sub.rx.recv() => match m {
                        Some(ListenMsg::Ack(f)) if opening == Opening::Listen => return Ok(f),
                        Some(ListenMsg::Ack(_)) => {}
                        Some(ListenMsg::Event(e)) => {
                            let opened = opening == Opening::Events && e.method() == crate::protocol::events::ACTIVE;
                            sub.early.push_back(e);
                            if opened {
                                return Ok(SubscriptionFilter::default());
                            }
                        }
                        Some(ListenMsg::Cancelled(r)) => {
                            return Err(Error::protocol(format!("the server cancelled the subscription before acknowledging it: {}", r.unwrap_or_default())))
                        }
                        None => return Err(Error::closed("connection closed")),
                    },
                    r = &mut sub.done => return Err(match r {
                        Ok(Ok(Response { outcome: Err(e), .. })) => Error::rpc(e),
                        Ok(Ok(_)) => Error::protocol("the server ended the subscription before acknowledging it"),
                        Ok(Err(e)) => e,
                        Err(_) => Error::closed("connection closed"),
                    }),
                }
            }
        })
        .await;
        match acked {
            Ok(Ok(f)) => {
                sub.acknowledged = f;
                Ok(sub)
            }
            Ok(Err(e)) => {
                sub.ended = Some(SubscriptionEnd::Failed(e.message().to_owned()));
                sub.cleanup(false);
                Err(e)
            }
            Err(_) => Err(Error::timeout(format!("{method} was not acknowledged within {timeout:?}"))),
        }
    }
}

impl Subscription {
    /// The listen request's id (the `subscriptionId` of its notifications).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The part of the filter the server honours (from its acknowledgement).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// The next notification; `None` once the subscription ended (see [`Subscription::ended`]).
    pub async fn next(&mut self) -> Option<ServerEvent> {
        loop {
            if let Some(e) = self.early.pop_front() {
                return Some(e);
            }
            if self.ended.is_some() {
                return None;
            }
            let end = loop {
                tokio::select! {
                    biased;
                    m = self.rx.recv() => match m {
                        Some(ListenMsg::Event(e)) => return Some(e),
                        Some(ListenMsg::Ack(_)) => continue,
                        Some(ListenMsg::Cancelled(r)) => break SubscriptionEnd::Cancelled(r),
                        None => break SubscriptionEnd::Failed(
                            self.shared.closed_reason().unwrap_or_else(|| "connection closed".into()),
                        ),
                    },
                    r = &mut self.done => break match r {
                        Ok(Ok(Response { outcome: Ok(_), .. })) => SubscriptionEnd::Completed,
                        Ok(Ok(Response { outcome: Err(e), .. })) => SubscriptionEnd::Failed(e.to_string()),
                        Ok(Err(e)) => SubscriptionEnd::Failed(e.message().to_owned()),
                        Err(_) => SubscriptionEnd::Failed("connection closed".into()),
                    },
                }
            };
            // Notifications queued before the end are still delivered.
            while let Ok(m) = self.rx.try_recv() {
                if let ListenMsg::Event(e) = m {
                    self.early.push_back(e);
                }
            }
            self.ended = Some(end);
            self.cleanup(false);
        }
    }

    /// The notifications already received and not yet taken, without waiting.
    pub(crate) fn drain(&mut self) -> Vec<ServerEvent> {
        let mut out: Vec<ServerEvent> = self.early.drain(..).collect();
        while let Ok(m) = self.rx.try_recv() {
            if let ListenMsg::Event(e) = m {
                out.push(e);
            }
        }
        out
    }

    /// Why the subscription ended, once it has.
    pub fn ended(&self) -> Option<&SubscriptionEnd> {
        self.ended.as_ref()
    }

    fn cleanup(&mut self, cancel: bool) {
        self.shared.remove_listen(&self.id);
        if self.shared.remove_pending(&self.id) && cancel {
            if let Some(tx) = self.tx.upgrade() {
                let _ = tx.send(cancelled_frame(self.id.clone(), "subscription closed by the client"));
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let live = self.ended.is_none();
        self.cleanup(live);
    }
}
