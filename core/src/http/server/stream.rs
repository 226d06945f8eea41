//! Server→client SSE streams: the Streamable HTTP GET stream and the 2024-11-05 SSE stream.

use super::{reply, State};
use crate::http::sse;
use crate::runtime::queue::QueueRx;
use axum::body::Bytes;
use axum::response::Response;
use std::sync::Arc;

/// An SSE stream of `rx`'s events (SSE text, ready to send) after `first`, with keep-alives; it
/// ends when the senders go or the server shuts down. `session` is touched in the store at each keep-alive (an open
/// stream keeps its session from expiring); `on_drop` is dropped with the stream.
pub(crate) fn messages(
    st: &Arc<State>,
    first: Option<Bytes>,
    rx: QueueRx<String>,
    session: Option<String>,
    on_drop: Option<impl Send + 'static>,
) -> Response {
    let period = st.config.keep_alive;
    let ka = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let state = (first, rx, ka, st.clone(), session, on_drop);
    let events = futures_util::stream::unfold(state, |mut s| async move {
        if let Some(b) = s.0.take() {
            return Some((Ok(b), s));
        }
        let bytes = tokio::select! {
            m = s.1.recv() => Bytes::from(m?),
            _ = s.2.tick() => {
                if let Some(id) = &s.4 {
                    let _ = s.3.config.sessions.touch(id, s.3.env.now()).await;
                }
                Bytes::from(sse::encode_comment("keep-alive"))
            }
            _ = s.3.shutting_down() => return None,
        };
        Some((Ok(bytes), s))
    });
    reply::sse_stream(events)
}
