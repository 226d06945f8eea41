//! The client's own listen stream. On the modern lineage the server's change notifications
//! travel only on `subscriptions/listen` streams, each carrying what its filter asked for (spec
//! 2026-07-28 basic/patterns/subscriptions; `resources/subscribe` and the HTTP GET stream are
//! gone). So once the host registers a notification handler ([`Client::on_notifications`]) or
//! subscribes to a resource ([`Client::subscribe_resource`]), the client opens one stream whose
//! filter is what the handler wants plus the subscribed URIs, and:
//!
//! - keeps it open: when the server or the transport ends it, it is opened again after a
//!   backoff (100 ms doubling to 30 s, back to the start once a stream lived 30 s); after ten
//!   failed openings in a row it waits for the wanted filter to change;
//! - replaces it when the wanted filter changes: the new stream is acknowledged before the old
//!   one closes, so nothing is missed (a change announced meanwhile may arrive twice; every
//!   notification it carries means "look again", so twice is harmless);
//! - stops asking a server that refuses `subscriptions/listen` (a JSON-RPC error) until the
//!   wanted filter changes;
//! - closes it with the client (it never keeps the connection open by itself).
//!
//! Its notifications reach the same handler as a legacy session's.
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::client::{NotificationKinds, ServerEvent};
//! let kinds = NotificationKinds { tools_list_changed: true, resource_updated: true, ..Default::default() };
//! client.on_notifications(kinds, |event| match event {
//!     ServerEvent::ToolsListChanged => println!("tools changed"),
//!     ServerEvent::ResourceUpdated(p) => println!("{} changed", p.uri),
//!     _ => {}
//! });
//! client.subscribe_resource("file:///project/config.json").await?; // both lineages
//! // 2026-07-28: what the server agreed to send, once its acknowledgement arrived.
//! println!("{:?}", client.notifications_ready().await?);
//! # Ok(()) }
//! ```

use super::events::{NotificationKinds, ServerEvent};
use super::listen::Subscription;
use super::router::Shared;
use super::{Client, Inner};
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
use crate::protocol::subscriptions::SubscriptionFilter;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The first wait before opening the stream again.
const FIRST_DELAY: Duration = Duration::from_millis(100);
/// The longest wait; a stream that lived this long resets the backoff.
const MAX_DELAY: Duration = Duration::from_secs(30);
/// Failed openings in a row after which the client waits for the wanted filter to change.
const MAX_FAILURES: u32 = 10;

/// What the host wants to hear about.
#[derive(Debug, Clone, Default)]
struct Want {
    kinds: NotificationKinds,
    uris: BTreeSet<String>,
    /// Bumped by every change.
    generation: u64,
}

impl Want {
    fn filter(&self) -> SubscriptionFilter {
        self.kinds.filter(self.uris.iter().cloned().collect())
    }
}

/// How far the stream got with what the host wants.
#[derive(Debug, Clone)]
struct Status {
    /// The [`Want::generation`] it answers.
    generation: u64,
    /// The acknowledged filter (`None`: no stream needed), or why there is no stream.
    outcome: Result<Option<SubscriptionFilter>>,
}

/// The client's part: what is wanted, how far the stream got, the task keeping it.
#[derive(Debug)]
pub(super) struct Listener {
    want: watch::Sender<Want>,
    status: Arc<watch::Sender<Status>>,
    task: Mutex<Option<tokio::task::AbortHandle>>,
    runtime: tokio::runtime::Handle,
}

impl Listener {
    /// A listener whose task will run on the current runtime.
    pub(super) fn new() -> Listener {
        let (want, _) = watch::channel(Want::default());
        let (status, _) = watch::channel(Status { generation: 0, outcome: Ok(None) });
        Listener {
            want,
            status: Arc::new(status),
            task: Mutex::new(None),
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// Changes what is wanted; the new generation.
    fn update(&self, f: impl FnOnce(&mut Want)) -> u64 {
        let mut generation = 0;
        self.want.send_modify(|w| {
            f(w);
            w.generation += 1;
            generation = w.generation;
        });
        generation
    }

    /// Stops the stream for good (the client is closing).
    pub(super) fn stop(&self) {
        if let Some(t) = self.task.lock().expect("lock").take() {
            t.abort();
        }
        self.status
            .send_replace(Status { generation: u64::MAX, outcome: Err(Error::closed("the client closed")) });
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(t) = self.task.lock().expect("lock").take() {
            t.abort();
        }
    }
}

impl Client {
    /// Receives the server's change notifications of the `kinds` wanted (list changes, updates
    /// of subscribed resources, others), replacing any earlier handler. Legacy sessions:
    /// notifications that answer no request (on Streamable HTTP this opens the GET stream they
    /// travel on). 2026-07-28, where they travel only on `subscriptions/listen` streams: the
    /// client opens one asking for these kinds and the subscribed URIs, opens it again after a
    /// backoff (100 ms doubling to 30 s) when the server or the transport ends it, replaces it
    /// when the wanted filter changes (the new one acknowledged before the old one closes, so a
    /// change may arrive twice), stops asking a server that refuses the method until the filter
    /// changes, and closes it with the client; [`Client::notifications_ready`] tells when the
    /// server acknowledged it. Cached results are invalidated whether or not a handler is set.
    pub fn on_notifications(
        &self,
        kinds: NotificationKinds,
        handler: impl Fn(ServerEvent) + Send + Sync + 'static,
    ) {
        let handler = move |e: ServerEvent| {
            if kinds.wants(&e) {
                handler(e)
            }
        };
        self.inner.shared.set_event_handler(Some(Arc::new(handler)));
        self.open_server_stream();
        self.want(|w| w.kinds = kinds);
    }

    /// Removes the notification handler; on 2026-07-28 the client's listen stream then carries
    /// only the subscribed resources' updates (none left: it closes).
    pub fn remove_notification_handler(&self) {
        self.inner.shared.set_event_handler(None);
        self.want(|w| w.kinds = NotificationKinds::default());
    }

    /// 2026-07-28: waits until the server acknowledged the client's listen stream as it is
    /// wanted now (the handler's kinds, the subscribed resources) and returns the filter it
    /// agreed to (a server omits what it does not support); `None` when no stream is needed,
    /// and on legacy sessions. Fails when the stream could not be opened (the server refused
    /// `subscriptions/listen`, did not acknowledge it within the request timeout, or the
    /// connection closed); the client keeps trying in the background (see
    /// [`Client::on_notifications`]).
    pub async fn notifications_ready(&self) -> Result<Option<SubscriptionFilter>> {
        if !self.is_modern() {
            return Ok(None);
        }
        let generation = self.inner.listener.want.borrow().generation;
        self.ready(generation).await
    }

    /// Modern `subscribe_resource`: the URI joins the listen filter; the acknowledgement must
    /// name it.
    pub(super) async fn listen_to_resource(&self, uri: &str) -> Result<()> {
        let generation = self.want(|w| {
            w.uris.insert(uri.to_owned());
        });
        let acked = self.ready(generation).await?;
        let named = acked.and_then(|f| f.resource_subscriptions).is_some_and(|u| u.iter().any(|u| u == uri));
        if named {
            return Ok(());
        }
        let message = format!(
            "Resource not found: {uri} (the server's acknowledgement of subscriptions/listen left it out)"
        );
        let data =
            ErrorData::new(ErrorCode::INVALID_PARAMS, message).with_data(serde_json::json!({ "uri": uri }));
        Err(Error::resource_not_found(data))
    }

    /// Modern `unsubscribe_resource`: the URI leaves the listen filter.
    pub(super) async fn stop_listening_to_resource(&self, uri: &str) -> Result<()> {
        let generation = self.want(|w| {
            w.uris.remove(uri);
        });
        self.ready(generation).await.map(drop)
    }

    fn is_modern(&self) -> bool {
        self.current_version().is_some_and(|v| v.is_modern())
    }

    /// Changes what the listen stream should carry (modern lineage only), starting its task
    /// when needed; the new generation.
    fn want(&self, f: impl FnOnce(&mut Want)) -> u64 {
        if !self.is_modern() {
            return 0;
        }
        let listener = &self.inner.listener;
        let generation = listener.update(f);
        let mut task = listener.task.lock().expect("lock");
        if task.is_none() {
            let run = run(
                Arc::downgrade(&self.inner),
                self.inner.shared.clone(),
                listener.want.subscribe(),
                listener.status.clone(),
            );
            *task = Some(listener.runtime.spawn(run).abort_handle());
        }
        generation
    }

    /// Waits until the stream's status answers `generation`.
    async fn ready(&self, generation: u64) -> Result<Option<SubscriptionFilter>> {
        let mut rx = self.inner.listener.status.subscribe();
        let status = rx
            .wait_for(|s| s.generation >= generation)
            .await
            .map_err(|_| Error::closed("the client closed"))?;
        status.outcome.clone()
    }
}

/// The open stream: the subscription, the filter asked for, when it opened.
struct Open {
    sub: Subscription,
    asked: SubscriptionFilter,
    acked: SubscriptionFilter,
    since: Instant,
}

fn report(status: &watch::Sender<Status>, generation: u64, outcome: Result<Option<SubscriptionFilter>>) {
    status.send_if_modified(|s| {
        // Never go back: a later generation (or the client's end) may already be reported.
        if s.generation > generation {
            return false;
        }
        *s = Status { generation, outcome };
        true
    });
}

fn delay(n: u32) -> Duration {
    FIRST_DELAY.saturating_mul(1 << n.min(16)).min(MAX_DELAY)
}

/// Hands an event to the host's handler.
fn deliver(shared: &Shared, event: ServerEvent) {
    if let Some(h) = shared.event_handler() {
        h(event);
    }
}

/// Keeps the stream matching what is wanted until the client is gone.
async fn run(
    client: Weak<Inner>,
    shared: Arc<Shared>,
    mut want: watch::Receiver<Want>,
    status: Arc<watch::Sender<Status>>,
) {
    let mut open: Option<Open> = None;
    // Failed openings in a row; streams that ended in a row without living MAX_DELAY.
    let (mut failures, mut ends) = (0u32, 0u32);
    let mut retry_at: Option<Instant> = None;
    loop {
        let w = want.borrow_and_update().clone();
        let mut filter = w.filter();
        if filter.events_list_changed.is_some() {
            // Asked only of a server that sends it (SEP-3415: `listChanged` in its settings).
            let sends = client.upgrade().is_some_and(|inner| Client { inner }.sends_events_list_changed());
            if !sends {
                filter.events_list_changed = None;
            }
        }
        match &open {
            Some(o) if o.asked == filter => report(&status, w.generation, Ok(Some(o.acked.clone()))),
            _ if filter == SubscriptionFilter::default() => {
                open = None;
                report(&status, w.generation, Ok(None));
            }
            _ if failures < MAX_FAILURES && retry_at.is_none() => {
                let Some(c) = client.upgrade().map(|inner| Client { inner }) else { return };
                let opened = c.open_listen(filter.clone(), false).await;
                drop(c);
                match opened {
                    Ok(sub) => {
                        failures = 0;
                        let acked = sub.acknowledged().clone();
                        report(&status, w.generation, Ok(Some(acked.clone())));
                        let new = Open { sub, asked: filter, acked, since: Instant::now() };
                        // The old stream closes now; what it still holds is delivered first.
                        if let Some(mut old) = open.replace(new) {
                            for e in old.sub.drain() {
                                deliver(&shared, e);
                            }
                        }
                    }
                    Err(e) => {
                        if shared.closed_reason().is_some() {
                            // Nothing will be opened again: every waiter gets the error.
                            report(&status, u64::MAX, Err(e));
                            return;
                        }
                        // A server that refuses the method is not asked again for this filter.
                        failures = if e.kind() == ErrorKind::Rpc { MAX_FAILURES } else { failures + 1 };
                        report(&status, w.generation, Err(e));
                        retry_at = Some(Instant::now() + delay(failures - 1));
                    }
                }
                continue;
            }
            _ => {}
        }
        tokio::select! {
            event = next(&mut open) => match event {
                Some(e) => deliver(&shared, e),
                None => {
                    let lived = open.take().map(|o| o.since.elapsed()).unwrap_or_default();
                    if shared.closed_reason().is_some() {
                        report(&status, u64::MAX, Err(Error::closed("the connection closed")));
                        return;
                    }
                    // Not ready again until a new stream is acknowledged.
                    status.send_if_modified(|s| {
                        let pending = s.generation != u64::MAX && s.generation == w.generation;
                        if pending {
                            s.generation -= 1;
                        }
                        pending
                    });
                    ends = if lived >= MAX_DELAY { 1 } else { ends + 1 };
                    retry_at = Some(Instant::now() + delay(ends - 1));
                }
            },
            changed = want.changed() => {
                if changed.is_err() {
                    return;
                }
                (failures, retry_at) = (0, None);
            }
            _ = sleep_until(retry_at) => retry_at = None,
        }
    }
}

/// The next notification of the open stream; pending while there is none.
async fn next(open: &mut Option<Open>) -> Option<ServerEvent> {
    match open {
        Some(o) => o.sub.next().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
