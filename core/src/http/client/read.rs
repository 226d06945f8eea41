//! Reading HTTP response bodies into transport events: one JSON body, or an SSE stream of
//! JSON-RPC messages; both bounded.

use crate::http::sse::SseParser;
use crate::jsonrpc::{self, Inbound};
use crate::transport::TransportEvent;
use tokio::sync::mpsc;

/// What a response body held.
pub(crate) enum Body {
    /// Parsed messages (JSON or SSE) were forwarded.
    Forwarded,
    /// The body could not be read; the reason.
    Failed(String),
    /// The body (or one SSE event of it) is over the client's limit: `size` bytes (at least),
    /// `limit` allowed. Nothing past the limit was read or kept.
    TooLarge {
        /// The size announced (`Content-Length`) or reached.
        size: u64,
        /// The limit.
        limit: usize,
    },
}

/// Why a body was not read whole.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Over the limit (announced or reached).
    TooLarge {
        /// The size announced or reached.
        size: u64,
        /// The limit.
        limit: usize,
    },
    /// The connection broke.
    Broken(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge { size, limit } => {
                write!(f, "the response ({size} bytes or more) exceeds the {limit}-byte limit")
            }
            ReadError::Broken(why) => f.write_str(why),
        }
    }
}

/// How an SSE stream ended: the outcome plus what resuming it needs (2025-11-25 polling).
pub(crate) struct StreamEnd {
    /// Whether it ended cleanly.
    pub(crate) body: Body,
    /// The last event id seen (sent back as `Last-Event-ID`).
    pub(crate) last_event_id: Option<String>,
    /// The server's `retry:` advice in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

impl StreamEnd {
    fn plain(body: Body) -> StreamEnd {
        StreamEnd { body, last_event_id: None, retry_ms: None }
    }
}

/// Reads a whole body up to `limit` bytes: refused at once when its `Content-Length` is over
/// the limit, and as soon as what arrived is (memory stays within the limit plus one chunk).
pub(crate) async fn bytes(mut resp: reqwest::Response, limit: usize) -> Result<Vec<u8>, ReadError> {
    if let Some(size) = resp.content_length().filter(|n| *n > limit as u64) {
        return Err(ReadError::TooLarge { size, limit });
    }
    let mut buf = Vec::new();
    while let Some(chunk) =
        resp.chunk().await.map_err(|e| ReadError::Broken(format!("reading the response failed: {e}")))?
    {
        if buf.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge { size: (buf.len() + chunk.len()) as u64, limit });
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
}

/// True when the response declares `text/event-stream`.
pub(crate) fn is_sse(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with(crate::http::EVENT_STREAM))
}

/// Forwards the messages of a JSON or SSE body, passing each through `inspect` first.
pub(crate) async fn forward(
    resp: reqwest::Response,
    limit: usize,
    events: &mpsc::UnboundedSender<TransportEvent>,
    inspect: &(dyn Fn(Inbound) -> Inbound + Send + Sync),
) -> StreamEnd {
    if is_sse(&resp) {
        return stream(resp, limit, &mut |kind, data| {
            if data.trim().is_empty() || kind.is_some_and(|k| k != "message") {
                return;
            }
            let _ = events.send(TransportEvent::Frame(jsonrpc::parse(data.as_bytes()).map(inspect)));
        })
        .await;
    }
    StreamEnd::plain(match bytes(resp, limit).await {
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => Body::Forwarded,
        Ok(b) => {
            let _ = events.send(TransportEvent::Frame(jsonrpc::parse(&b).map(inspect)));
            Body::Forwarded
        }
        Err(ReadError::TooLarge { size, limit }) => Body::TooLarge { size, limit },
        Err(ReadError::Broken(why)) => Body::Failed(why),
    })
}

/// Feeds every SSE event of `resp` to `on_event(event_type, data)` until the stream ends.
pub(crate) async fn stream(
    mut resp: reqwest::Response,
    limit: usize,
    on_event: &mut (dyn FnMut(Option<&str>, &str) + Send),
) -> StreamEnd {
    let mut parser = SseParser::new(limit);
    let body = loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => match parser.push(&chunk) {
                Ok(evs) => {
                    for ev in evs {
                        on_event(ev.event.as_deref(), &ev.data);
                    }
                }
                Err(crate::http::sse::SseError::TooLarge { limit }) => {
                    break Body::TooLarge { size: limit as u64 + 1, limit }
                }
                Err(e) => break Body::Failed(format!("bad SSE stream: {e}")),
            },
            Ok(None) => break Body::Forwarded,
            Err(e) => break Body::Failed(format!("the SSE stream broke: {e}")),
        }
    };
    StreamEnd { body, last_event_id: parser.last_event_id().map(str::to_owned), retry_ms: parser.retry() }
}
