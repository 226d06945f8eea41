//! Inbound side of a client connection: correlates responses by id, delivers progress, answers
//! the few server→client requests a legacy server may send, and fails every pending call with the
//! transport's reason when the connection ends.

use crate::error::{Error, ErrorData};
use crate::jsonrpc::{Inbound, Message, Notification, Request, RequestId, Response};
use crate::protocol::logging::LoggingMessageNotificationParams;
use crate::protocol::notifications::ProgressNotificationParams;
use crate::transport::{OutFrame, TransportEvent};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::{mpsc, oneshot};

/// Progress updates for one request.
pub(crate) type ProgressTx = mpsc::UnboundedSender<ProgressNotificationParams>;

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

/// State shared between the client handle and its router task.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Response, Error>>>>,
    progress: Mutex<HashMap<String, ProgressTx>>,
    closed: Mutex<Option<String>>,
    log: LogSlot,
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
    pub(crate) fn add_progress(&self, token: &Value, tx: ProgressTx) {
        self.progress.lock().expect("lock").insert(token_key(token), tx);
    }
    pub(crate) fn remove_progress(&self, token: &Value) {
        self.progress.lock().expect("lock").remove(&token_key(token));
    }
    /// Why the connection closed, once it has.
    pub(crate) fn closed_reason(&self) -> Option<String> {
        self.closed.lock().expect("lock").clone()
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
    }

    /// Sets the host's log handler.
    pub(crate) fn set_log_handler(&self, handler: Option<LogHandler>) {
        *self.log.0.lock().expect("lock") = handler;
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
            return;
        }
        let Some(params) = n.params else { return };
        let Ok(p) = serde_json::from_value::<ProgressNotificationParams>(Value::Object(params)) else {
            return;
        };
        if let Some(tx) = self.progress.lock().expect("lock").get(&token_key(&p.progress_token)) {
            let _ = tx.send(p);
        }
    }
}

/// Answers a server→client request. Issue-level features (sampling, elicitation, roots) plug in here.
fn answer(req: Request) -> Response {
    match req.method.as_str() {
        "ping" => Response::result(req.id, json!({})),
        other => Response::error(Some(req.id), ErrorData::method_not_found(other)),
    }
}

/// Runs until the transport closes.
pub(crate) async fn run(
    shared: std::sync::Arc<Shared>,
    mut rx: mpsc::UnboundedReceiver<TransportEvent>,
    tx: mpsc::WeakUnboundedSender<OutFrame>,
) {
    let handle = |msg: Message| match msg {
        Message::Response(r) => shared.deliver(r),
        Message::Notification(n) => shared.notification(n),
        Message::Request(req) => {
            if let Some(tx) = tx.upgrade() {
                let _ = tx.send(OutFrame::One(Message::Response(answer(req))));
            }
        }
    };
    let mut reason = "connection closed".to_owned();
    while let Some(event) = rx.recv().await {
        match event {
            TransportEvent::Frame(Ok(Inbound::Single(m))) => handle(m),
            TransportEvent::Frame(Ok(Inbound::Batch(items))) => items.into_iter().flatten().for_each(&handle),
            TransportEvent::Frame(Err(e)) => {
                // The server sent something that is not JSON-RPC; a response with a readable
                // id still fails its request, anything else is dropped.
                if e.id.is_some() {
                    shared.deliver(e);
                }
            }
            TransportEvent::Failed(id, e) => shared.fail(&id, e),
            TransportEvent::Closed(r) => {
                reason = r;
                break;
            }
        }
    }
    shared.close(reason);
}
