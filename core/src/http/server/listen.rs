//! `subscriptions/listen` over HTTP (2026-07-28, DIGEST §A.10): an SSE response that starts
//! with the acknowledgement and carries the subscribed notifications, each on one line. The
//! client ends it by closing the stream; a server shutting down ends it with its result.

use super::{reply, State};
use crate::engine::Listen;
use crate::http::sse;
use crate::jsonrpc::Message;
use axum::body::Bytes;
use axum::response::Response;
use std::sync::Arc;

/// The SSE response of one listen request.
pub(crate) fn respond(st: &Arc<State>, listen: Listen) -> Response {
    let changes = st.engine.change_listener();
    let mut first = reply::sse_message(&st.engine.listen_ack(&listen)).to_vec();
    for note in st.engine.listen_task_snapshots(&listen) {
        first.extend_from_slice(&reply::sse_message(&note));
    }
    let first = Bytes::from(first);
    let period = st.config.keep_alive;
    let keep_alive = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let state = (Some(first), changes, keep_alive, st.clone(), listen, false);
    let events = futures_util::stream::unfold(state, |mut s| async move {
        if let Some(b) = s.0.take() {
            return Some((Ok(b), s));
        }
        if s.5 {
            return None;
        }
        loop {
            let bytes = tokio::select! {
                change = s.1.recv() => match change {
                    Some(c) => match s.3.engine.listen_notification(&s.4, &c) {
                        Some(note) => reply::sse_message(&note),
                        None => continue,
                    },
                    None => return None,
                },
                _ = s.2.tick() => Bytes::from(sse::encode_comment("keep-alive")),
                _ = s.3.shutting_down() => {
                    s.5 = true;
                    reply::sse_message(&Message::Response(s.3.engine.listen_end(&s.4)))
                }
            };
            return Some((Ok(bytes), s));
        }
    });
    reply::sse_stream(events)
}
