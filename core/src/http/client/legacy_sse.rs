//! The 2024-11-05 HTTP+SSE client transport (spec 2024-11-05 basic/transports, HTTP with SSE): GET the SSE endpoint, wait for the
//! `endpoint` event, POST every message there, read every answer from the stream.

use super::read::{self, Body};
use super::{authed, HttpOptions};
use crate::error::{Error, Result};
use crate::http::{EVENT_STREAM, JSON};
use crate::jsonrpc::{self, Message};
use crate::transport::{Channel, OutFrame, TransportEvent};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Opens the SSE stream at `url` and waits (up to `wait`) for the `endpoint` event.
pub async fn connect(
    url: reqwest::Url,
    opts: HttpOptions,
    max_frame: usize,
    wait: Duration,
) -> Result<Channel> {
    let http = opts.client()?;
    let resp =
        authed::send(&http, &opts, reqwest::Method::GET, &url, None, &|rb| rb.header("accept", EVENT_STREAM))
            .await?;
    if let Some(e) = authed::refusal(&url, &resp, opts.auth.is_some()) {
        return Err(e);
    }
    let status = resp.status();
    if !status.is_success() || !read::is_sse(&resp) {
        return Err(Error::http(
            status.as_u16(),
            format!(
                "GET {url} did not open an SSE stream (HTTP {status}); it is not a 2024-11-05 SSE endpoint"
            ),
        ));
    }
    let (events, erx) = mpsc::unbounded_channel();
    let (endpoint_tx, endpoint_rx) = oneshot::channel::<String>();
    let reader_events = events.clone();
    let reader = tokio::spawn(async move {
        let mut endpoint_tx = Some(endpoint_tx);
        let ev = reader_events.clone();
        let outcome = read::stream(resp, max_frame, &mut |kind, data| match kind {
            Some("endpoint") => {
                if let Some(tx) = endpoint_tx.take() {
                    let _ = tx.send(data.trim().to_owned());
                }
            }
            None | Some("message") if !data.trim().is_empty() => {
                let _ = ev.send(TransportEvent::Frame(jsonrpc::parse(data.as_bytes())));
            }
            _ => {}
        })
        .await;
        let why = match outcome.body {
            Body::Forwarded => "the server closed the SSE stream".to_owned(),
            Body::Failed(why) => why,
            Body::TooLarge { size, limit } => {
                format!("an SSE event of {size} bytes or more is over this client's limit of {limit} bytes")
            }
        };
        let _ = reader_events.send(TransportEvent::Closed(why));
    });
    let endpoint = match tokio::time::timeout(wait, endpoint_rx).await {
        Ok(Ok(e)) => e,
        _ => {
            reader.abort();
            return Err(Error::protocol(format!("{url} sent no `endpoint` event within {wait:?}")));
        }
    };
    let post_url =
        url.join(&endpoint).map_err(|e| Error::protocol(format!("bad endpoint {endpoint:?}: {e}")))?;
    if post_url.origin() != url.origin() {
        reader.abort();
        return Err(Error::protocol(format!(
            "the endpoint event names {post_url}, another origin than {url}; refusing to post there"
        )));
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let flushed = tokio::spawn(writer(http, opts, post_url, rx, events, reader.abort_handle()));
    Ok(Channel { tx: tx.into(), rx: erx, flushed: Some(flushed), in_place: None })
}

async fn writer(
    http: reqwest::Client,
    opts: HttpOptions,
    post_url: reqwest::Url,
    mut rx: mpsc::UnboundedReceiver<OutFrame>,
    events: mpsc::UnboundedSender<TransportEvent>,
    reader: tokio::task::AbortHandle,
) {
    while let Some(frame) = rx.recv().await {
        let msg = match frame {
            OutFrame::Close => break,
            OutFrame::One(m) => m,
            OutFrame::Batch(_) => continue, // 2024-11-05 has no batches; the client never sends one
        };
        let id = match &msg {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        let body = msg.to_json();
        let build = |rb: reqwest::RequestBuilder| rb.header("content-type", JSON).body(body.clone());
        let outcome = match authed::send(&http, &opts, reqwest::Method::POST, &post_url, None, &build).await {
            Ok(r) if r.status().is_success() => None,
            Ok(r) if authed::refusal(&post_url, &r, opts.auth.is_some()).is_some() => {
                authed::refusal(&post_url, &r, opts.auth.is_some())
            }
            Ok(r) => {
                let status = r.status();
                let body = read::bytes(r, 64 * 1024).await.unwrap_or_default();
                let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
                Some(Error::http(status.as_u16(), format!("HTTP {status} from {post_url}: {text}")))
            }
            Err(e) => Some(e),
        };
        if let (Some(id), Some(e)) = (id, outcome) {
            let _ = events.send(TransportEvent::Failed(id, e));
        }
    }
    reader.abort();
    let _ = events.send(TransportEvent::Closed("the client closed the SSE connection".into()));
}
