//! Runs one tool call for an HTTP request and answers it as JSON, or as an SSE stream when the
//! handler sends notifications before its result (DIGEST §B.6, §B.7, §D.5).

use super::reply;
use super::session::Session;
use super::{ResponseMode, State};
use crate::engine::PendingCall;
use crate::http::sse;
use crate::input::Peer;
use crate::jsonrpc::{Message, RequestId, Response as RpcResponse};
use crate::registry::NotificationSink;
use crate::{ErrorCode, ErrorData};
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What a closed response stream means for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDisconnect {
    /// Modern: closing the stream cancels the request.
    Cancel,
    /// Legacy: the call runs on; cancellation is `notifications/cancelled`.
    RunOn,
}

/// A spawned call; dropping it aborts the call when [`OnDisconnect::Cancel`].
struct CallTask {
    handle: JoinHandle<(RequestId, RpcResponse)>,
    id: RequestId,
    on_disconnect: OnDisconnect,
    session: Option<Arc<Session>>,
    finished: bool,
}

impl CallTask {
    /// Waits for the call's response (cancel-safe).
    async fn join(&mut self) -> RpcResponse {
        let out = (&mut self.handle).await;
        self.finished = true;
        if let Some(s) = &self.session {
            s.inflight.lock().expect("lock").remove(&self.id);
        }
        match out {
            Ok((_, resp)) => resp,
            Err(e) if e.is_cancelled() => RpcResponse::error(
                Some(self.id.clone()),
                ErrorData::new(ErrorCode::INTERNAL_ERROR, "Request cancelled"),
            ),
            Err(e) => RpcResponse::error(
                Some(self.id.clone()),
                ErrorData::internal(format!("Internal error: the tool call failed: {e}")),
            ),
        }
    }
}

impl Drop for CallTask {
    fn drop(&mut self) {
        if !self.finished && self.on_disconnect == OnDisconnect::Cancel {
            self.handle.abort();
        }
    }
}

/// Runs `call` and answers it; `session` (legacy) tracks it for `notifications/cancelled`.
pub(crate) async fn respond(
    st: &Arc<State>,
    call: Box<PendingCall>,
    on_disconnect: OnDisconnect,
    session: Option<Arc<Session>>,
) -> Response {
    let id = call.id.clone();
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let sink: NotificationSink = Arc::new(move |m: Message| {
        let _ = tx.send(m);
    });
    // Legacy: requests to the client travel on this call's stream, or on the session's GET
    // stream when answers are plain JSON; the client POSTs its responses back.
    let peer = session.as_ref().map(|s| {
        let route: NotificationSink = match st.config.response_mode {
            ResponseMode::Json => {
                let s = s.clone();
                Arc::new(move |m: Message| {
                    s.push(m);
                })
            }
            _ => sink.clone(),
        };
        Peer::new(route, s.peers.clone())
    });
    let modern = session.is_none();
    let run = st.call(call, sink, peer);
    let handle = match &session {
        None => tokio::spawn(run),
        Some(s) => {
            // Checked and registered under one lock, which the call also needs to deregister
            // itself: it cannot end before it is registered. It deregisters itself because a
            // legacy call runs on after its POST is abandoned, and a session with calls in
            // flight never expires.
            let mut inflight = s.inflight.lock().expect("lock");
            if inflight.contains_key(&id) {
                let e = ErrorData::invalid_request(format!(
                    "Invalid Request: request id {id} is already in flight"
                ));
                return reply::rpc(StatusCode::OK, RpcResponse::error(Some(id), e));
            }
            let (s, done) = (s.clone(), id.clone());
            let handle = tokio::spawn(async move {
                let out = run.await;
                s.inflight.lock().expect("lock").remove(&done);
                out
            });
            inflight.insert(id.clone(), handle.abort_handle());
            handle
        }
    };
    let mut task = CallTask { handle, id, on_disconnect, session, finished: false };
    let first = match st.config.response_mode {
        ResponseMode::Json => {
            drop(rx);
            let resp = task.join().await;
            return reply::rpc(status(modern, &resp), resp);
        }
        ResponseMode::Sse => None,
        ResponseMode::Auto => tokio::select! {
            biased;
            Some(m) = rx.recv() => Some(m),
            resp = task.join() => return reply::rpc(status(modern, &resp), resp),
        },
    };
    stream(task, rx, first, st.config.keep_alive)
}

/// The status of a call's JSON answer: modern errors such as `-32021` are status errors.
fn status(modern: bool, resp: &RpcResponse) -> StatusCode {
    if modern {
        reply::modern_reply_status(resp)
    } else {
        StatusCode::OK
    }
}

struct Streaming {
    task: CallTask,
    rx: mpsc::UnboundedReceiver<Message>,
    first: Option<Message>,
    done: bool,
    keep_alive: tokio::time::Interval,
}

fn stream(
    task: CallTask,
    rx: mpsc::UnboundedReceiver<Message>,
    first: Option<Message>,
    keep_alive: Duration,
) -> Response {
    let start = tokio::time::Instant::now() + keep_alive;
    let state =
        Streaming { task, rx, first, done: false, keep_alive: tokio::time::interval_at(start, keep_alive) };
    let events = futures_util::stream::unfold(state, |mut s| async move {
        if s.done {
            return None;
        }
        if let Some(m) = s.first.take() {
            return Some((Ok(reply::sse_message(&m)), s));
        }
        let bytes = tokio::select! {
            biased;
            Some(m) = s.rx.recv() => reply::sse_message(&m),
            resp = s.task.join() => {
                s.done = true;
                reply::sse_message(&Message::Response(resp))
            }
            _ = s.keep_alive.tick() => Bytes::from(sse::encode_comment("keep-alive")),
        };
        Some((Ok(bytes), s))
    });
    reply::sse_stream(events)
}
