//! The Streamable HTTP client transport (spec 2026-07-28 basic/transports/streamable-http; 2025-11-25 basic/transports).
//!
//! Every outbound message is its own POST. Modern requests carry the headers derived from the
//! message (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); cancelling one
//! closes its response stream. Legacy traffic carries the session id minted at `initialize`; a
//! 404 for a known session re-runs `initialize` once and resends; after
//! `notifications/initialized` a GET stream carries server→client messages (reconnected with
//! `Last-Event-ID` when the server ends it).

use super::read::{self, Body};
use super::{authed, HttpOptions};
use crate::error::Error;
use crate::http::headers::{self, HeaderParam};
use crate::http::{EVENT_STREAM, JSON};
use crate::jsonrpc::{self, Inbound, Message, Request, RequestId};
use crate::protocol::meta;
use crate::transport::{Channel, OutFrame, TransportEvent};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// How many times one request's SSE stream is resumed; also how many reconnections of the GET
/// stream in a row may bring nothing before the client gives up on it.
const MAX_RESUMES: usize = 10;
/// The wait before reconnecting a GET stream when the server gave no `retry:` advice.
const DEFAULT_RETRY_MS: u64 = 1000;
/// How long the request after `notifications/initialized` waits for the server to answer the
/// GET stream. A server learns of the stream only when the GET arrives: what it sends for the
/// session before then may be dropped (the TypeScript SDK drops it), and a server that answers
/// a request on "the" GET stream would take a GET racing that request for its resumption. One
/// round trip normally; a server that holds its headers back costs this much once.
const GET_STREAM_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

/// State of one Streamable HTTP connection.
#[derive(Debug)]
struct Conn {
    http: reqwest::Client,
    url: reqwest::Url,
    opts: HttpOptions,
    max_frame: usize,
    events: mpsc::UnboundedSender<TransportEvent>,
    /// The legacy session id and the generation it belongs to.
    session: Mutex<(Option<String>, u64)>,
    /// The negotiated legacy revision (sent as `MCP-Protocol-Version` from 2025-06-18 on).
    legacy_version: Mutex<Option<String>>,
    /// `x-mcp-header` parameters of each tool, learned from `tools/list`.
    params: Mutex<HashMap<String, Vec<HeaderParam>>>,
    /// Methods of requests awaiting answers.
    methods: Mutex<HashMap<RequestId, String>>,
    /// POSTs in flight, aborted on cancellation.
    inflight: Mutex<HashMap<RequestId, AbortHandle>>,
    /// The `initialize` request, replayed when the session expires.
    init: Mutex<Option<Request>>,
    reinit: tokio::sync::Mutex<()>,
    get_stream: Mutex<Option<AbortHandle>>,
    /// True once the GET stream opened after `notifications/initialized` was answered (or will
    /// not be opened): what [`StreamHandle::settled`] waits for.
    get_settled: tokio::sync::watch::Sender<bool>,
    reinit_ids: AtomicU64,
    /// The runtime the connection was made on: the GET stream may be opened from a host
    /// thread outside it (a binding's `on_notification`).
    runtime: tokio::runtime::Handle,
}

/// Opens a Streamable HTTP channel to `url`. Nothing is sent until the client sends.
pub fn connect(url: reqwest::Url, opts: HttpOptions, max_frame: usize) -> crate::Result<Channel> {
    connect_with_handle(url, opts, max_frame).map(|(channel, _)| channel)
}

/// Opens the legacy GET stream of a connection on demand (subscriptions, change notifications
/// and server→client requests of a legacy session travel on it).
#[derive(Debug, Clone)]
pub struct StreamHandle(std::sync::Weak<Conn>);

impl StreamHandle {
    /// Waits (at most `bound`) until the GET stream of a new legacy session has been answered,
    /// so that what the server sends for the session from then on has a stream to go to:
    /// `connect` returns only then (a listener registered right after it hears every change).
    /// Returns at once when no GET stream will open (the modern lineage, or it is turned off).
    pub async fn settled(&self, bound: std::time::Duration) {
        let Some(conn) = self.0.upgrade() else { return };
        if !conn.opts.standalone_stream || conn.session.lock().expect("lock").0.is_none() {
            return;
        }
        let mut rx = conn.get_settled.subscribe();
        drop(conn);
        let _ = tokio::time::timeout(bound, rx.wait_for(|done| *done)).await;
    }

    /// Opens the GET stream once, if the connection holds a legacy session (no-op otherwise,
    /// and on the modern lineage, which has no GET stream).
    pub fn open(&self) {
        if let Some(conn) = self.0.upgrade() {
            if conn.session.lock().expect("lock").0.is_some() {
                conn.open_get_stream();
            }
        }
    }
}

/// [`connect`], plus a handle that opens the legacy GET stream later.
pub fn connect_with_handle(
    url: reqwest::Url,
    opts: HttpOptions,
    max_frame: usize,
) -> crate::Result<(Channel, StreamHandle)> {
    let http = opts.client()?;
    let (tx, rx) = mpsc::unbounded_channel();
    let (events, erx) = mpsc::unbounded_channel();
    let conn = Arc::new(Conn {
        http,
        url,
        opts,
        max_frame,
        events,
        session: Mutex::new((None, 0)),
        legacy_version: Mutex::default(),
        params: Mutex::default(),
        methods: Mutex::default(),
        inflight: Mutex::default(),
        init: Mutex::default(),
        reinit: tokio::sync::Mutex::new(()),
        get_stream: Mutex::default(),
        get_settled: tokio::sync::watch::Sender::new(false),
        reinit_ids: AtomicU64::new(1),
        runtime: tokio::runtime::Handle::current(),
    });
    let handle = StreamHandle(Arc::downgrade(&conn));
    let flushed = tokio::spawn(pump(conn, rx));
    Ok((Channel { tx: tx.into(), rx: erx, flushed: Some(flushed), in_place: None }, handle))
}

async fn pump(conn: Arc<Conn>, mut rx: mpsc::UnboundedReceiver<OutFrame>) {
    let mut posts = tokio::task::JoinSet::new();
    while let Some(frame) = rx.recv().await {
        match frame {
            OutFrame::Close => break,
            OutFrame::One(Message::Notification(n)) if n.method == "notifications/cancelled" => {
                let id = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
                if let Some(h) = id.and_then(|id| conn.inflight.lock().expect("lock").remove(&id)) {
                    h.abort();
                }
                // Modern: closing the stream is the cancellation. Legacy: tell the session.
                if conn.session.lock().expect("lock").0.is_some() {
                    let c = conn.clone();
                    posts.spawn(async move { c.post(Message::Notification(n)).await });
                }
            }
            // Notifications and responses are posted in order (`notifications/initialized`
            // must reach the server before the next request); they are answered at once.
            OutFrame::One(msg @ (Message::Notification(_) | Message::Response(_))) => {
                conn.clone().post(msg).await;
            }
            OutFrame::One(msg) => {
                let id = match &msg {
                    Message::Request(r) => Some(r.id.clone()),
                    _ => None,
                };
                let c = conn.clone();
                let h = posts.spawn(async move { c.post(msg).await });
                if let Some(id) = id {
                    conn.inflight.lock().expect("lock").insert(id, h);
                }
            }
            OutFrame::Batch(msgs) => {
                let c = conn.clone();
                posts.spawn(async move { c.post_batch(msgs).await });
            }
        }
        while posts.try_join_next().is_some() {}
    }
    posts.abort_all();
    if let Some(h) = conn.get_stream.lock().expect("lock").take() {
        h.abort();
    }
    conn.end_session().await;
    let _ = conn.events.send(TransportEvent::Closed("the client closed the HTTP connection".into()));
}

/// The modern version named by a message's `_meta`, if any.
fn modern_version(msg: &Message) -> Option<&str> {
    let params = match msg {
        Message::Request(r) => r.params.as_ref(),
        Message::Notification(n) => n.params.as_ref(),
        Message::Response(_) => None,
    };
    params?.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str()
}

impl Conn {
    /// Sends `method` to the endpoint with the connection's credentials (and its OAuth flows).
    async fn request(
        &self,
        method: reqwest::Method,
        headers: &[(String, String)],
        build: &(dyn Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder + Send + Sync),
    ) -> Result<reqwest::Response, Error> {
        let version = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
            .map(|(_, v)| v.as_str());
        let with_headers = |mut rb: reqwest::RequestBuilder| {
            for (k, v) in headers {
                rb = rb.header(k.as_str(), v.as_str());
            }
            build(rb)
        };
        authed::send(&self.http, &self.opts, method, &self.url, version, &with_headers).await
    }

    /// Headers for `msg`: the modern set derived from the body, or the legacy session's.
    fn message_headers(&self, msg: &Message) -> (Vec<(String, String)>, Option<u64>) {
        if let Some(v) = modern_version(msg) {
            return match msg {
                Message::Request(r) => {
                    let name = r.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str);
                    let params = match (r.method.as_str(), name) {
                        ("tools/call", Some(n)) => {
                            self.params.lock().expect("lock").get(n).cloned().unwrap_or_default()
                        }
                        _ => Vec::new(),
                    };
                    (headers::request_headers(r, &params), None)
                }
                _ => (vec![("MCP-Protocol-Version".to_owned(), v.to_owned())], None),
            };
        }
        let mut out = Vec::new();
        let (sid, generation) = self.session.lock().expect("lock").clone();
        let is_init = matches!(msg, Message::Request(r) if r.method == "initialize");
        if let (Some(sid), false) = (&sid, is_init) {
            out.push(("Mcp-Session-Id".to_owned(), sid.clone()));
        }
        if let Some(v) =
            self.legacy_version.lock().expect("lock").as_ref().filter(|v| v.as_str() >= "2025-06-18")
        {
            out.push(("MCP-Protocol-Version".to_owned(), v.clone()));
        }
        (out, sid.map(|_| generation))
    }

    async fn send(&self, body: String, headers: &[(String, String)]) -> Result<reqwest::Response, Error> {
        let build = |rb: reqwest::RequestBuilder| {
            rb.header("accept", format!("{JSON}, {EVENT_STREAM}"))
                .header("content-type", JSON)
                .body(body.clone())
        };
        self.request(reqwest::Method::POST, headers, &build).await
    }

    /// POSTs one message and forwards what comes back.
    async fn post(self: Arc<Self>, msg: Message) {
        let id = match &msg {
            Message::Request(r) => {
                self.methods.lock().expect("lock").insert(r.id.clone(), r.method.clone());
                if r.method == "initialize" {
                    *self.init.lock().expect("lock") = Some(r.clone());
                }
                Some(r.id.clone())
            }
            _ => None,
        };
        let initialized = matches!(&msg, Message::Notification(n) if n.method == "notifications/initialized");
        let body = msg.to_json();
        let mut retried = false;
        loop {
            let (hdrs, generation) = self.message_headers(&msg);
            let resp = match self.send(body.clone(), &hdrs).await {
                Ok(r) => r,
                Err(e) => return self.fail(id, e),
            };
            let status = resp.status();
            if status == reqwest::StatusCode::NOT_FOUND && !retried {
                if let Some(generation) = generation {
                    retried = true;
                    if let Err(e) = self.reinitialize(generation).await {
                        return self.fail(id, e);
                    }
                    continue;
                }
            }
            if status.is_success() {
                if let Some(sid) = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                    let mut s = self.session.lock().expect("lock");
                    if s.0.as_deref() != Some(sid) {
                        *s = (Some(sid.to_owned()), s.1 + 1);
                    }
                }
                if initialized && self.opts.standalone_stream {
                    // Server->client messages that answer no request (logs, list changes,
                    // resource updates, requests such as roots/list) travel on the GET stream,
                    // and a server may drop them while there is none: it opens now, and the
                    // next request goes once the server has answered it (bounded).
                    if let Some(ready) = self.open_get_stream() {
                        let _ = tokio::time::timeout(GET_STREAM_WAIT, ready).await;
                    }
                }
                let inspect = |i: Inbound| self.inspect(i);
                let mut end = read::forward(resp, self.max_frame, &self.events, &inspect).await;
                // 2025-11-25 SSE polling: a stream that ends unanswered after naming an event id
                // is resumed with GET + Last-Event-ID (spec 2025-11-25 basic/transports, Streamable HTTP); bounded.
                let mut resumes = 0;
                while let (Some(rid), Some(last)) = (&id, end.last_event_id.clone()) {
                    let unanswered = self.methods.lock().expect("lock").contains_key(rid);
                    if !unanswered || resumes == MAX_RESUMES || modern_version(&msg).is_some() {
                        break;
                    }
                    resumes += 1;
                    let wait = end.retry_ms.unwrap_or(1000).min(30_000);
                    tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                    match self.resume(&last).await {
                        Some(resp) => {
                            let next = read::forward(resp, self.max_frame, &self.events, &inspect).await;
                            end = read::StreamEnd {
                                last_event_id: next.last_event_id.or(Some(last)),
                                retry_ms: next.retry_ms.or(end.retry_ms),
                                body: next.body,
                            };
                        }
                        None => break,
                    }
                }
                match end.body {
                    Body::Failed(why) => self.fail(
                        id.clone(),
                        Error::closed(format!("the server closed the response stream: {why}")),
                    ),
                    // As over stdio: a size error under the request's id, with data.size/limit.
                    Body::TooLarge { size, limit } => self.fail(
                        id.clone(),
                        Error::too_large(
                            format!("the response is {size} bytes or more, over this client's limit of {limit} bytes"),
                            usize::try_from(size).unwrap_or(usize::MAX),
                            limit,
                        ),
                    ),
                    Body::Forwarded => {}
                }
                // A request whose stream ended without its answer is lost (spec 2026-07-28 basic/transports/streamable-http).
                if let Some(id) = id {
                    if self.methods.lock().expect("lock").remove(&id).is_some() {
                        self.fail(
                            Some(id),
                            Error::closed("the server ended the response without answering the request"),
                        );
                    }
                }
            } else {
                self.http_error(id, resp).await;
            }
            self.inflight_done(&msg);
            return;
        }
    }

    fn inflight_done(&self, msg: &Message) {
        if let Message::Request(r) = msg {
            self.inflight.lock().expect("lock").remove(&r.id);
            self.methods.lock().expect("lock").remove(&r.id);
        }
    }

    /// An error status: a JSON-RPC error body with an id goes to its request; otherwise the
    /// request fails with the status.
    async fn http_error(&self, id: Option<RequestId>, resp: reqwest::Response) {
        let status = resp.status();
        if let Some(e) = authed::refusal(&self.url, &resp, self.opts.auth.is_some()) {
            return self.fail(id, e);
        }
        let body = read::bytes(resp, 64 * 1024).await.unwrap_or_default();
        if let Ok(Inbound::Single(Message::Response(r))) = jsonrpc::parse(&body) {
            if r.id.is_some() {
                let _ = self.events.send(TransportEvent::Frame(Ok(Inbound::Single(Message::Response(r)))));
                return;
            }
            if let Err(e) = r.outcome {
                let message = format!("HTTP {status} from {}: {} (code {})", self.url, e.message, e.code);
                return self.fail(id, Error::http_rpc(status.as_u16(), message, e));
            }
        }
        let text = String::from_utf8_lossy(&body);
        let snippet: String = text.chars().take(300).collect();
        self.fail(id, Error::http(status.as_u16(), format!("HTTP {status} from {}: {snippet}", self.url)));
    }

    fn fail(&self, id: Option<RequestId>, e: Error) {
        if let Some(id) = id {
            self.methods.lock().expect("lock").remove(&id);
            let _ = self.events.send(TransportEvent::Failed(id, e));
        }
    }

    /// Learns from answers: `x-mcp-header` params from `tools/list` (dropping tools whose
    /// annotations are invalid, as spec 2026-07-28 basic/transports/streamable-http requires), the revision from `initialize`.
    fn inspect(&self, inbound: Inbound) -> Inbound {
        match inbound {
            Inbound::Single(Message::Response(mut r)) => {
                let method = r.id.as_ref().and_then(|id| self.methods.lock().expect("lock").remove(id));
                if let (Some(m), Ok(result)) = (method.as_deref(), r.outcome.as_mut()) {
                    self.learn(m, result);
                }
                Inbound::Single(Message::Response(r))
            }
            other => other,
        }
    }

    fn learn(&self, method: &str, result: &mut Value) {
        match method {
            "tools/list" => {
                let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return };
                let mut params = self.params.lock().expect("lock");
                tools.retain(|t| {
                    let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                    match t.get("inputSchema").map(headers::header_params) {
                        Some(Ok(p)) => {
                            params.insert(name.to_owned(), p);
                            true
                        }
                        Some(Err(_)) => false,
                        None => true,
                    }
                });
            }
            "initialize" => {
                if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                    *self.legacy_version.lock().expect("lock") = Some(v.to_owned());
                }
            }
            _ => {}
        }
    }

    /// Re-runs `initialize` after the server forgot session `generation` (once per generation).
    async fn reinitialize(self: &Arc<Self>, generation: u64) -> crate::Result<()> {
        let _one = self.reinit.lock().await;
        if self.session.lock().expect("lock").1 != generation {
            return Ok(()); // another request already re-initialized
        }
        let Some(mut init) = self.init.lock().expect("lock").clone() else {
            return Err(Error::protocol("the session expired and there is no initialize to replay"));
        };
        init.id =
            RequestId::String(format!("mcpcore-reinit-{}", self.reinit_ids.fetch_add(1, Ordering::Relaxed)));
        // The old id stays until the new one arrives: requests sent meanwhile get a 404, wait
        // for this lock, see the new generation and resend with the new id.
        let resp = self.send(Message::Request(init).to_json(), &[]).await?;
        if !resp.status().is_success() {
            return Err(Error::http(resp.status().as_u16(), "re-initialize after session expiry failed"));
        }
        let sid = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        *self.session.lock().expect("lock") = (sid.clone(), generation + 1);
        let _ = read::bytes(resp, self.max_frame).await;
        let note = Message::Notification(jsonrpc::Notification {
            method: "notifications/initialized".into(),
            params: None,
        });
        let mut hdrs = Vec::new();
        if let Some(sid) = sid {
            hdrs.push(("Mcp-Session-Id".to_owned(), sid));
        }
        let _ = self.send(note.to_json(), &hdrs).await;
        // The old session's GET stream ended with it: the new session gets its own.
        let had_stream = self.get_stream.lock().expect("lock").take().map(|h| h.abort()).is_some();
        if had_stream || self.opts.standalone_stream {
            self.open_get_stream();
        }
        Ok(())
    }

    /// GETs the stream again from after event `last`; `None` when the server will not resume.
    async fn resume(&self, last: &str) -> Option<reqwest::Response> {
        let (hdrs, _) = self.message_headers(&Message::Notification(jsonrpc::Notification {
            method: String::new(),
            params: None,
        }));
        let build =
            |rb: reqwest::RequestBuilder| rb.header("accept", EVENT_STREAM).header("last-event-id", last);
        let resp = self.request(reqwest::Method::GET, &hdrs, &build).await.ok()?;
        (resp.status().is_success() && read::is_sse(&resp)).then_some(resp)
    }

    /// Opens the legacy GET stream once (spec 2025-11-25 basic/transports, "Listening for
    /// Messages from the Server"); `false` when it was opened before. It is read until the
    /// connection closes: when the server ends it, it is reconnected after the server's
    /// `retry:` advice with `Last-Event-ID` naming the last event seen ("Resumability and
    /// Redelivery"), until [`MAX_RESUMES`] attempts in a row bring nothing. A 405 means the
    /// server offers no such stream; a 404 that the session is gone (a re-`initialize` opens a
    /// new one); any other refusal ends it too.
    /// Whatever the server's answer, the receiver fires once it has answered the first GET;
    /// `None` when the stream was already open.
    fn open_get_stream(self: &Arc<Self>) -> Option<tokio::sync::oneshot::Receiver<()>> {
        let mut slot = self.get_stream.lock().expect("lock");
        if slot.is_some() {
            return None;
        }
        let (answered, rx) = tokio::sync::oneshot::channel();
        let task = self.runtime.spawn(self.clone().read_get_stream(answered));
        *slot = Some(task.abort_handle());
        Some(rx)
    }

    async fn read_get_stream(self: Arc<Self>, answered: tokio::sync::oneshot::Sender<()>) {
        let mut answered = Some(answered);
        let mut last: Option<String> = None;
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut idle = 0;
        loop {
            let (hdrs, _) = self.message_headers(&Message::Notification(jsonrpc::Notification {
                method: String::new(),
                params: None,
            }));
            let resume = last.clone();
            let build = move |rb: reqwest::RequestBuilder| {
                let rb = rb.header("accept", EVENT_STREAM);
                match &resume {
                    Some(id) => rb.header("last-event-id", id.as_str()),
                    None => rb,
                }
            };
            let mut progressed = false;
            let resp = self.request(reqwest::Method::GET, &hdrs, &build).await;
            if let Some(tx) = answered.take() {
                let _ = tx.send(());
                self.get_settled.send_replace(true);
            }
            match resp {
                Ok(resp) if resp.status().is_success() && read::is_sse(&resp) => {
                    let events = self.events.clone();
                    let end = read::stream(resp, self.max_frame, &mut |kind, data| {
                        progressed = true;
                        if !data.trim().is_empty() && kind.is_none_or(|k| k == "message") {
                            let _ = events.send(TransportEvent::Frame(jsonrpc::parse(data.as_bytes())));
                        }
                    })
                    .await;
                    last = end.last_event_id.or(last);
                    retry_ms = end.retry_ms.unwrap_or(retry_ms);
                }
                // Overloaded or briefly unavailable: try again later.
                Ok(resp) if resp.status().is_server_error() || resp.status().as_u16() == 429 => {}
                // 405 (no GET stream), 404 (session gone), anything else: no stream.
                Ok(_) => return,
                Err(_) => {}
            }
            idle = if progressed { 0 } else { idle + 1 };
            if idle >= MAX_RESUMES {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(retry_ms.min(30_000))).await;
        }
    }

    /// POSTs a 2025-03-26 batch.
    async fn post_batch(self: Arc<Self>, msgs: Vec<Message>) {
        let first = msgs.first().cloned();
        let (hdrs, _) = first.as_ref().map(|m| self.message_headers(m)).unwrap_or_default();
        let body = serde_json::to_string(&msgs).expect("messages serialize");
        if let Ok(resp) = self.send(body, &hdrs).await {
            if resp.status().is_success() {
                let _ = read::forward(resp, self.max_frame, &self.events, &|i| i).await;
            }
        }
    }

    /// DELETEs the legacy session, if any.
    async fn end_session(&self) {
        let sid = self.session.lock().expect("lock").0.take();
        if let Some(sid) = sid {
            let hdrs = [("mcp-session-id".to_owned(), sid)];
            let _ = self.request(reqwest::Method::DELETE, &hdrs, &|rb| rb).await;
        }
    }
}
