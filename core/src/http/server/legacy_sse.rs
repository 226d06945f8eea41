//! The 2024-11-05 HTTP+SSE transport (DIGEST §D.6), and the server→client SSE stream shared
//! with the Streamable HTTP GET stream.

use super::session::{Session, SessionKind};
use super::{guard, reply, State};
use crate::engine::Action;
use crate::http::sse;
use crate::jsonrpc::{self, Inbound, Message};
use crate::ErrorData;
use axum::body::Bytes;
use axum::extract::{Request as HttpRequest, State as Shared};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Removes a 2024-11-05 session when its stream goes away.
struct EndSession {
    st: Arc<State>,
    id: String,
}

impl Drop for EndSession {
    fn drop(&mut self) {
        if let Some(s) = self.st.config.sessions.remove(&self.id) {
            s.close();
        }
    }
}

/// GET on the SSE path.
pub(crate) async fn get(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let h = req.headers();
    if let Err(r) = st.guard.check(h).and_then(|_| guard::check_accept(h, false)) {
        return r;
    }
    if !st.serves_2024() {
        return reply::method_not_allowed(
            "POST",
            "Method Not Allowed: the 2024-11-05 transport is not served",
        );
    }
    open(&st)
}

/// Opens a 2024-11-05 session: the stream starts with the `endpoint` event.
pub(crate) fn open(st: &Arc<State>) -> Response {
    let session = Session::new(SessionKind::Sse);
    let (tx, rx) = mpsc::unbounded_channel();
    *session.stream.lock().expect("lock") = Some(tx);
    let id = session.id().to_owned();
    if !st.config.sessions.insert(session) {
        return reply::status_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorData::internal("Service Unavailable: too many sessions"),
        );
    }
    let endpoint = format!("{}?sessionId={id}", st.config.messages_path);
    if let Some(s) = st.config.sessions.get(&id) {
        super::session::forward_changes(st, &s);
    }
    let first = Bytes::from(sse::encode_event(Some("endpoint"), &endpoint));
    message_stream(st, Some(first), rx, Some(EndSession { st: st.clone(), id }))
}

/// An SSE stream of `rx`'s messages, with keep-alives; it ends when the senders go or the
/// server shuts down.
pub(crate) fn message_stream(
    st: &Arc<State>,
    first: Option<Bytes>,
    rx: mpsc::UnboundedReceiver<Message>,
    on_drop: Option<impl Send + 'static>,
) -> Response {
    let period = st.config.keep_alive;
    let ka = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let state = (first, rx, ka, st.clone(), on_drop);
    let events = futures_util::stream::unfold(state, |mut s| async move {
        if let Some(b) = s.0.take() {
            return Some((Ok(b), s));
        }
        let bytes = tokio::select! {
            m = s.1.recv() => reply::sse_message(&m?),
            _ = s.2.tick() => Bytes::from(sse::encode_comment("keep-alive")),
            _ = s.3.shutting_down() => return None,
        };
        Some((Ok(bytes), s))
    });
    reply::sse_stream(events)
}

/// POST to the endpoint announced by the `endpoint` event; answers go down the stream.
pub(crate) async fn post(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let (parts, body) = req.into_parts();
    let h = &parts.headers;
    if let Err(r) = st.guard.check(h).and_then(|_| guard::check_content_type(h)) {
        return r;
    }
    let id = parts.uri.query().unwrap_or("").split('&').find_map(|kv| kv.strip_prefix("sessionId="));
    let session = id.and_then(|id| st.config.sessions.get(id)).filter(|s| s.kind() == SessionKind::Sse);
    let Some(session) = session else {
        return reply::status_error(
            StatusCode::NOT_FOUND,
            ErrorData::invalid_request("Not Found: unknown sessionId; open the SSE stream again"),
        );
    };
    let bytes = match guard::read_body(h, body, st.config.max_body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let msg = match jsonrpc::parse(&bytes) {
        Ok(Inbound::Single(m)) => m,
        Ok(Inbound::Batch(_)) => {
            return reply::rpc(StatusCode::BAD_REQUEST, crate::engine::ServerEngine::batch_rejected())
        }
        Err(resp) => return reply::rpc(StatusCode::BAD_REQUEST, resp),
    };
    let action = st.engine.handle(&mut session.conn.lock().expect("lock"), msg);
    match action {
        Action::Reply(r) => {
            session.push(Message::Response(r));
        }
        Action::CallTool(call) => {
            let id = call.id.clone();
            // Checked and registered under one lock, which the call also needs to answer: it
            // cannot finish (and find itself unregistered, dropping its answer) before it is
            // registered, and a duplicate id cannot replace a call in flight.
            let mut inflight = session.inflight.lock().expect("lock");
            if inflight.contains_key(&id) {
                drop(inflight);
                let e = ErrorData::invalid_request(format!(
                    "Invalid Request: request id {id} is already in flight"
                ));
                session.push(Message::Response(crate::jsonrpc::Response::error(Some(id), e)));
            } else {
                let s = session.clone();
                let sink: crate::registry::NotificationSink = Arc::new(move |m: Message| {
                    s.push(m);
                });
                let peer = crate::input::Peer::new(sink.clone(), session.peers.clone());
                let s = session.clone();
                let run = st.call(call, sink, Some(peer));
                let task = tokio::spawn(async move {
                    let (id, resp) = run.await;
                    if s.inflight.lock().expect("lock").remove(&id).is_some() {
                        s.push(Message::Response(resp));
                    }
                });
                inflight.insert(id, task.abort_handle());
            }
        }
        Action::Cancel(id) => {
            if let Some(h) = session.inflight.lock().expect("lock").remove(&id) {
                h.abort();
            }
        }
        Action::PeerResponse(r) => {
            session.peers.resolve(r);
        }
        Action::Listen(_) | Action::Nothing => {}
    }
    let mut r = Response::new(axum::body::Body::from("Accepted"));
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}
