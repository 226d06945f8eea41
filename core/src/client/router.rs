//! Inbound side of a client connection: correlates responses by id, delivers progress, log
//! messages and change notifications (to the cache, the host and listen streams), answers the
//! server→client requests of a legacy server through the host's [`InputHandler`], and fails
//! every pending call with the transport's reason when the connection ends.

use super::cache::ResultCache;
use super::events::{self, ServerEvent};
use super::input::{self, InputHandler};
use crate::error::{Error, ErrorCode, ErrorData};
use crate::jsonrpc::{Inbound, Message, Notification, Request, RequestId, Response};
use crate::protocol::logging::LoggingMessageNotificationParams;
use crate::protocol::notifications::ProgressNotificationParams;
use crate::protocol::subscriptions::SubscriptionFilter;
use crate::protocol::InputRequest;
use crate::transport::{OutFrame, TransportEvent};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Progress updates for one request.
pub(crate) type ProgressTx = mpsc::UnboundedSender<()>;

/// Receives the `notifications/progress` of one call ([`super::CallOptions::on_progress`]).
pub type ProgressCallback = std::sync::Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Where one call's progress goes: its callback, and a tick for its timeout.
#[derive(Clone)]
struct ProgressSink {
    tick: ProgressTx,
    cb: ProgressCallback,
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Receives the server's `notifications/message`.
pub(crate) type LogHandler = std::sync::Arc<dyn Fn(LoggingMessageNotificationParams) + Send + Sync>;

/// The host's log handler, if any.
#[derive(Default)]
pub(crate) struct LogSlot(Mutex<Option<LogHandler>>);

impl std::fmt::Debug for LogSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogSlot")
    }
}

/// Receives change notifications that belong to no listen stream.
pub(crate) type EventHandler = Arc<dyn Fn(ServerEvent) + Send + Sync>;

/// The host's hooks: input handler and notification handler.
#[derive(Default)]
pub(crate) struct Hooks {
    pub(crate) input: Option<Arc<dyn InputHandler>>,
    events: Mutex<Option<EventHandler>>,
}

/// The input handlers of calls in flight, oldest first, each with its number.
#[derive(Default)]
struct CallInputs {
    list: Mutex<Vec<(u64, Arc<dyn InputHandler>)>>,
    next: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for CallInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.list.lock().map(|l| l.len()).unwrap_or(0);
        f.debug_struct("CallInputs").field("in_flight", &n).finish()
    }
}

/// Keeps a call's own input handler in place while the call is in flight.
pub(crate) struct CallInputGuard {
    shared: Arc<Shared>,
    n: u64,
}

impl Drop for CallInputGuard {
    fn drop(&mut self) {
        self.shared.call_inputs.list.lock().expect("lock").retain(|(n, _)| *n != self.n);
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("input", &self.input.is_some()).finish_non_exhaustive()
    }
}

/// What the router tells one listen stream.
#[derive(Debug)]
pub(crate) enum ListenMsg {
    /// `notifications/subscriptions/acknowledged`: the honoured filter.
    Ack(SubscriptionFilter),
    /// A tagged notification.
    Event(ServerEvent),
    /// The server tore the subscription down with `notifications/cancelled`.
    Cancelled(Option<String>),
}

/// State shared between the client handle and its router task.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Response, Error>>>>,
    /// Per progress token: the call's callback (run here, in order with everything else the
    /// server sends) and a tick for its timeout.
    progress: Mutex<HashMap<String, ProgressSink>>,
    closed: Mutex<Option<String>>,
    /// Woken when the connection closes.
    closing: tokio::sync::Notify,
    log: LogSlot,
    pub(crate) hooks: Hooks,
    listens: Mutex<HashMap<RequestId, mpsc::UnboundedSender<ListenMsg>>>,
    /// Input handlers of calls in flight that brought their own (`CallOptions::input`), oldest
    /// first, with the number of the call.
    call_inputs: CallInputs,
    /// Fresh results (spec 2026-07-28 server/utilities/caching); `None` when the host turned caching off.
    pub(crate) cache: Option<ResultCache>,
    /// Counts the server's requests for input (elicitation, sampling, roots) being answered: a
    /// person may be at it, so the timeouts of calls in flight pause meanwhile.
    pub(crate) input_clock: Arc<crate::auth::client::FlowClock>,
    /// Counts the `notifications/events/list_changed` of a legacy session.
    pub(crate) events_list_changed: EventsListChanged,
}

/// Counts the `notifications/events/list_changed` a legacy session hears (a server sends them
/// to sessions whose client declared the Events extension; SEP-3415 §Dynamic event types), for
/// whoever follows the server's event types ([`Client::events_list_changes`]); a 2026-07-28
/// server sends them on a listen stream instead.
///
/// [`Client::events_list_changes`]: super::Client::events_list_changes
#[derive(Debug)]
pub(crate) struct EventsListChanged(pub(crate) tokio::sync::watch::Sender<u64>);

impl Default for EventsListChanged {
    fn default() -> Self {
        EventsListChanged(tokio::sync::watch::channel(0).0)
    }
}

impl Shared {
    /// State for a client with this input handler, caching or not.
    pub(crate) fn new(input: Option<Arc<dyn InputHandler>>, cache: bool) -> Shared {
        Shared {
            hooks: Hooks { input, events: Mutex::default() },
            cache: cache.then(ResultCache::default),
            ..Shared::default()
        }
    }
}

fn token_key(token: &Value) -> String {
    token.to_string()
}

impl Shared {
    /// Registers a pending request; `Err` if the connection is already closed.
    pub(crate) fn add_pending(
        &self,
        id: RequestId,
    ) -> Result<oneshot::Receiver<Result<Response, Error>>, Error> {
        let (tx, rx) = oneshot::channel();
        let mut pending = self.pending.lock().expect("lock");
        if let Some(reason) = self.closed.lock().expect("lock").clone() {
            return Err(Error::closed(reason));
        }
        pending.insert(id, tx);
        Ok(rx)
    }
    /// Forgets a pending request (answered elsewhere, timed out or cancelled).
    pub(crate) fn remove_pending(&self, id: &RequestId) -> bool {
        self.pending.lock().expect("lock").remove(id).is_some()
    }
    pub(crate) fn add_progress(&self, token: &Value, tx: ProgressTx, cb: ProgressCallback) {
        self.progress.lock().expect("lock").insert(token_key(token), ProgressSink { tick: tx, cb });
    }
    pub(crate) fn remove_progress(&self, token: &Value) {
        self.progress.lock().expect("lock").remove(&token_key(token));
    }
    /// Registers a listen stream; its messages go to `tx`.
    pub(crate) fn add_listen(&self, id: RequestId, tx: mpsc::UnboundedSender<ListenMsg>) {
        self.listens.lock().expect("lock").insert(id, tx);
    }
    /// Forgets a listen stream.
    pub(crate) fn remove_listen(&self, id: &RequestId) {
        self.listens.lock().expect("lock").remove(id);
    }
    /// Makes `handler` answer the legacy server→client requests that arrive until the guard is
    /// dropped (the newest such handler wins).
    pub(crate) fn push_call_input(self: &Arc<Self>, handler: Arc<dyn InputHandler>) -> CallInputGuard {
        let n = self.call_inputs.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.call_inputs.list.lock().expect("lock").push((n, handler));
        CallInputGuard { shared: self.clone(), n }
    }
    /// Who answers a legacy server→client request now: the newest call's own handler, else the
    /// connection's.
    fn input_handler(&self) -> Option<Arc<dyn InputHandler>> {
        let call = self.call_inputs.list.lock().expect("lock").last().map(|(_, h)| h.clone());
        call.or_else(|| self.hooks.input.clone())
    }
    /// Why the connection closed, once it has.
    pub(crate) fn closed_reason(&self) -> Option<String> {
        self.closed.lock().expect("lock").clone()
    }

    /// Completes with the reason once the connection has closed.
    pub(crate) async fn wait_closed(&self) -> String {
        loop {
            let notified = self.closing.notified();
            if let Some(reason) = self.closed_reason() {
                return reason;
            }
            notified.await;
        }
    }

    fn deliver(&self, resp: Response) {
        let Some(id) = &resp.id else { return };
        if let Some(tx) = self.pending.lock().expect("lock").remove(id) {
            let _ = tx.send(Ok(resp));
        }
    }

    fn fail(&self, id: &RequestId, error: Error) {
        if let Some(tx) = self.pending.lock().expect("lock").remove(id) {
            let _ = tx.send(Err(error));
        }
    }

    fn close(&self, reason: String) {
        let drained: Vec<_> = {
            let mut pending = self.pending.lock().expect("lock");
            *self.closed.lock().expect("lock") = Some(reason.clone());
            pending.drain().collect()
        };
        for (_, tx) in drained {
            let _ = tx.send(Err(Error::closed(reason.clone())));
        }
        self.progress.lock().expect("lock").clear();
        // Dropping the senders ends every listen stream.
        self.listens.lock().expect("lock").clear();
        self.closing.notify_waiters();
    }

    /// Sets the host's log handler.
    pub(crate) fn set_log_handler(&self, handler: Option<LogHandler>) {
        *self.log.0.lock().expect("lock") = handler;
    }

    /// The host's notification handler, if any.
    pub(crate) fn event_handler(&self) -> Option<EventHandler> {
        self.hooks.events.lock().expect("lock").clone()
    }

    /// Sets the host's notification handler.
    pub(crate) fn set_event_handler(&self, handler: Option<EventHandler>) {
        *self.hooks.events.lock().expect("lock") = handler;
    }

    /// A listen stream's acknowledgement, a server-side cancellation of one, or a change
    /// notification: to the cache, then to its listen stream (when tagged) or the host.
    /// `false` when `n` is none of these.
    fn change(&self, n: Notification) -> bool {
        let sub = events::subscription_id(&n);
        if n.method == "notifications/subscriptions/acknowledged" {
            let filter = n.params.as_ref().and_then(|p| p.get("notifications")).cloned();
            let filter = filter.and_then(|f| serde_json::from_value(f).ok()).unwrap_or_default();
            if let Some(tx) = sub.and_then(|id| self.listens.lock().expect("lock").get(&id).cloned()) {
                let _ = tx.send(ListenMsg::Ack(filter));
            }
            return true;
        }
        if n.method == "notifications/cancelled" {
            let p = n.params.as_ref();
            let id = p.and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
            let reason = p.and_then(|p| p.get("reason")).and_then(Value::as_str).map(str::to_owned);
            if let Some(tx) = id.and_then(|id| self.listens.lock().expect("lock").remove(&id)) {
                let _ = tx.send(ListenMsg::Cancelled(reason));
            }
            return true;
        }
        let Some(event) = ServerEvent::from_notification(n) else { return false };
        if sub.is_none() && event.method() == crate::protocol::events::LIST_CHANGED {
            self.events_list_changed.0.send_modify(|n| *n += 1);
        }
        if let Some(c) = &self.cache {
            c.invalidate(&event);
        }
        let listen = sub.and_then(|id| self.listens.lock().expect("lock").get(&id).cloned());
        match listen {
            Some(tx) => {
                let _ = tx.send(ListenMsg::Event(event));
            }
            None => {
                if let Some(h) = self.event_handler() {
                    h(event);
                }
            }
        }
        true
    }

    fn notification(&self, n: Notification) {
        if n.method == "notifications/message" {
            let handler = self.log.0.lock().expect("lock").clone();
            let params = n.params.map(Value::Object).and_then(|p| serde_json::from_value(p).ok());
            if let (Some(h), Some(p)) = (handler, params) {
                h(p);
            }
            return;
        }
        if n.method != "notifications/progress" {
            self.change(n);
            return;
        }
        let Some(params) = n.params else { return };
        let Ok(p) = serde_json::from_value::<ProgressNotificationParams>(Value::Object(params)) else {
            return;
        };
        let found = self.progress.lock().expect("lock").get(&token_key(&p.progress_token)).cloned();
        if let Some(sink) = found {
            (sink.cb)(p);
            let _ = sink.tick.send(());
        }
    }
}

/// Answers a legacy server→client request: `ping`, and through the host's [`InputHandler`]
/// `elicitation/create`, `sampling/createMessage` and `roots/list` (when the handler answers that
/// kind; otherwise, like any other method, `-32601`).
async fn answer(handler: Option<Arc<dyn InputHandler>>, req: Request) -> Response {
    let Request { id, method, params } = req;
    if method == "ping" {
        return Response::result(id, json!({}));
    }
    let request = match input::from_legacy(&method, params) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Response::error(Some(id), ErrorData::invalid_params(e.message())),
        None => return Response::error(Some(id), ErrorData::method_not_found(&method)),
    };
    let Some(handler) = handler.filter(|h| {
        let k = h.kinds();
        match &request {
            InputRequest::Elicit(_) => k.elicitation,
            InputRequest::CreateMessage(_) => k.sampling,
            InputRequest::ListRoots(_) => k.roots,
        }
    }) else {
        return Response::error(Some(id), ErrorData::method_not_found(&method));
    };
    match input::answer(handler.as_ref(), request).await {
        Ok(r) => Response::result(id, serde_json::to_value(r).expect("input responses serialize")),
        Err(e) => {
            let data = e.rpc_error().cloned().unwrap_or_else(|| {
                let code =
                    if e.code() == ErrorCode::INVALID_PARAMS { e.code() } else { ErrorCode::INTERNAL_ERROR };
                ErrorData::new(code, e.message())
            });
            Response::error(Some(id), data)
        }
    }
}

/// Dispatches what the transport delivers: on the router task ([`run`]), or in place on the
/// thread that read it (a transport's [`InPlace`](crate::transport::host_read::InPlace) slot).
pub(crate) struct Router {
    pub(crate) shared: Arc<Shared>,
    tx: crate::transport::WeakFrameTx,
}

impl Router {
    /// A router delivering to `shared`, answering server requests through `tx`.
    pub(crate) fn new(shared: Arc<Shared>, tx: crate::transport::WeakFrameTx) -> Router {
        Router { shared, tx }
    }

    fn handle(&self, msg: Message) {
        match msg {
            Message::Response(r) => self.shared.deliver(r),
            Message::Notification(n) => self.shared.notification(n),
            Message::Request(req) => {
                // Answered off the reading thread: a handler may wait on the user, or call the server.
                let (tx, handler) = (self.tx.clone(), self.shared.input_handler());
                let answering = self.shared.input_clock.busy();
                tokio::spawn(async move {
                    let resp = answer(handler, req).await;
                    drop(answering);
                    if let Some(tx) = tx.upgrade() {
                        let _ = tx.send(OutFrame::One(Message::Response(resp)));
                    }
                });
            }
        }
    }

    /// Dispatches one event; the reason when it is the end of the connection (the caller closes).
    pub(crate) fn event(&self, event: TransportEvent) -> Option<String> {
        match event {
            TransportEvent::Frame(Ok(Inbound::Single(m))) => self.handle(m),
            TransportEvent::Frame(Ok(Inbound::Batch(items))) => {
                items.into_iter().flatten().for_each(|m| self.handle(m))
            }
            TransportEvent::Frame(Err(e)) => {
                // The server sent something that is not JSON-RPC; a response with a readable
                // id still fails its request, anything else is dropped.
                if e.id.is_some() {
                    self.shared.deliver(e);
                }
            }
            TransportEvent::Failed(id, e) => self.shared.fail(&id, e),
            TransportEvent::Closed(r) => return Some(r),
        }
        None
    }

    /// The transport's in-place handler: every event dispatched on the thread that read it.
    pub(crate) fn sink(self: Arc<Self>) -> crate::transport::host_read::Sink {
        Arc::new(move |event| {
            if let Some(reason) = self.event(event) {
                self.shared.close(reason);
            }
        })
    }
}

/// Runs until the transport closes.
pub(crate) async fn run(router: Arc<Router>, mut rx: mpsc::UnboundedReceiver<TransportEvent>) {
    let mut reason = "connection closed".to_owned();
    while let Some(event) = rx.recv().await {
        if let Some(r) = router.event(event) {
            reason = r;
            break;
        }
    }
    router.shared.close(reason);
}
