//! Legacy Streamable HTTP (2025-03-26, 2025-06-18, 2025-11-25 basic/transports): `initialize`
//! mints `Mcp-Session-Id`; later POSTs must carry it (404 for an unknown one) and are handed
//! to the session's driver; GET opens the server→client stream; DELETE ends the session.

use super::live::{Full, LiveSession, NoStream, RouteMsg, Sessions};
use super::origin::into_origin;
use super::{reply, ResponseMode, State};
use crate::context::{ClientKey, Origin};
use crate::engine::{Event, RouteId, ServerConnection, ServerEngine};
use crate::http::headers;
use crate::jsonrpc::{Inbound, Message, RequestId, Response as RpcResponse};
use crate::runtime::entropy;
use crate::runtime::queue::QueueRx;
use crate::session::{SessionKind, SessionRecord};
use crate::{ErrorCode, ErrorData, ProtocolVersion};
use axum::body::Bytes;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use std::sync::Arc;

/// The session id a request carries.
pub(crate) fn session_header(h: &HeaderMap) -> Option<&str> {
    h.get(headers::MCP_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::trim)
}

pub(crate) fn not_found_session() -> Response {
    reply::status_error(
        StatusCode::NOT_FOUND,
        ErrorData::invalid_request(
            "Not Found: unknown or expired session; send initialize again without Mcp-Session-Id",
        ),
    )
}

pub(crate) fn store_failed(e: ErrorData) -> Response {
    reply::status_error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorData::internal(format!("Service Unavailable: the session store failed: {}", e.message)),
    )
}

/// Stores a new session's record under `id` for `client`, making room first: 429 when the
/// client holds its quota of sessions and all are busy, 503 when the server holds as many
/// sessions as it may, or the store fails; both with `Retry-After`. Both legacy transports
/// open sessions through it.
pub(crate) async fn admit(
    st: &Arc<State>,
    id: &str,
    record: &SessionRecord,
    client: Option<&ClientKey>,
) -> Result<(), Response> {
    let full =
        || reply::retry_later(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: too many sessions");
    let ended = match Sessions::make_room(st, client) {
        Ok(ended) => ended,
        Err(Full::Server) => return Err(full()),
        Err(Full::Client(max)) => {
            return Err(reply::retry_later(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Too Many Requests: this client holds {max} sessions, all in use; end one (DELETE) \
                     or retry later"
                ),
            ))
        }
    };
    for victim in ended {
        // Out of the store before the new one goes in: a bounded store has room then.
        if let Err(e) = st.config.sessions.delete(&victim).await {
            return Err(store_failed(e));
        }
    }
    match st.config.sessions.create(id, record, st.env.now()).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(full()),
        Err(e) => Err(store_failed(e)),
    }
}

fn is_initialize(frame: &Inbound) -> bool {
    matches!(frame, Inbound::Single(Message::Request(r)) if r.method == "initialize")
}

/// The ids of the requests in a frame (what a POST must be answered for).
fn request_ids(frame: &Inbound) -> Vec<RequestId> {
    let one = |m: &Message| match m {
        Message::Request(r) => Some(r.id.clone()),
        _ => None,
    };
    match frame {
        Inbound::Single(m) => one(m).into_iter().collect(),
        Inbound::Batch(items) => items.iter().filter_map(|i| i.as_ref().ok().and_then(one)).collect(),
    }
}

/// What the store knows of a session a POST names.
enum Found {
    /// It exists (it is live here).
    Kind(SessionKind),
    /// Its record (it is not live here, or other instances share the store).
    Record(Box<SessionRecord>),
}

impl Found {
    fn kind(&self) -> SessionKind {
        match self {
            Found::Kind(k) => *k,
            Found::Record(r) => r.kind,
        }
    }
}

/// A legacy POST (or a batch).
pub(crate) async fn post(st: &Arc<State>, parts: Parts, frame: Inbound) -> Response {
    let h = &parts.headers;
    let Some(id) = session_header(h).map(str::to_owned) else {
        return sessionless(st, into_origin(parts, None), frame).await;
    };
    let now = st.env.now();
    // A session live here on a store no other instance shares needs only its existence checked
    // (the store expires idle sessions); its state is the live one. Else the record is loaded.
    let here = if st.config.sessions.shared() { None } else { st.sessions.get(&id) };
    let found = match &here {
        Some(_) => st.config.sessions.kind(&id, now).await.map(|k| k.map(Found::Kind)),
        None => st.config.sessions.load(&id, now).await.map(|r| r.map(|r| Found::Record(Box::new(r)))),
    };
    let found = match found {
        Ok(f) => f,
        Err(e) => return store_failed(e),
    };
    match found.as_ref().map(Found::kind) {
        Some(SessionKind::Streamable) => {}
        _ if is_initialize(&frame) => return sessionless(st, into_origin(parts, None), frame).await,
        Some(_) => return not_found_session(),
        None => {
            // Expired or deleted elsewhere: what still runs here for it ends.
            st.sessions.end(&id);
            return not_found_session();
        }
    }
    if let Some(v) = h.get(headers::MCP_PROTOCOL_VERSION) {
        let v = v.to_str().unwrap_or("");
        if !ProtocolVersion::parse(v).is_some_and(|v| st.env.engine.config().versions.contains(&v)) {
            return reply::status_error(
                StatusCode::BAD_REQUEST,
                ErrorData::invalid_request(format!("Bad Request: unsupported MCP-Protocol-Version {v:?}")),
            );
        }
    }
    let origin = into_origin(parts, Some(id.clone()));
    let live = match (here, found) {
        (Some(live), _) => {
            live.touch(now);
            live
        }
        (None, Some(Found::Record(record))) => Sessions::get_or_revive(st, &id, &record, origin.client_key()),
        (None, _) => return not_found_session(),
    };
    if matches!(frame, Inbound::Batch(_)) && !st.env.engine.accepts_batch(live.session().as_ref()) {
        return reply::rpc(StatusCode::BAD_REQUEST, ServerEngine::batch_rejected());
    }
    let requests = request_ids(&frame);
    if requests.is_empty() {
        if !live.post_quiet(frame, origin) {
            return not_found_session();
        }
        live.synced().await;
        return reply::accepted();
    }
    match live.post(frame, origin) {
        Some(rx) => answer(st, &live, rx, requests).await,
        None => not_found_session(),
    }
}

/// No session: `initialize` starts one; anything else lacks both a session and `_meta`.
async fn sessionless(st: &Arc<State>, origin: Arc<Origin>, frame: Inbound) -> Response {
    match &frame {
        Inbound::Batch(_) => return reply::rpc(StatusCode::BAD_REQUEST, ServerEngine::batch_rejected()),
        Inbound::Single(Message::Notification(_)) => return reply::accepted(),
        Inbound::Single(Message::Response(_)) => {
            return reply::status_error(
                StatusCode::BAD_REQUEST,
                ErrorData::invalid_request("Bad Request: a response needs the Mcp-Session-Id of its session"),
            )
        }
        Inbound::Single(Message::Request(_)) => {}
    }
    let initialize = is_initialize(&frame);
    // Answered at once (initialize, ping, or the error owed for a request without a session),
    // by a connection that becomes the session's when initialize succeeds.
    let mut conn = ServerConnection::new(st.env.engine.clone());
    conn.handle(Ok(frame), RouteId(0), &origin, st.env.now());
    let mut resp = None;
    while let Some(event) = conn.poll_event() {
        if let Event::Send { message: Message::Response(r), .. } = event {
            resp = Some(r);
        }
    }
    let Some(resp) = resp else { return reply::accepted() };
    if resp.outcome.is_err() {
        return reply::rpc(StatusCode::BAD_REQUEST, resp);
    }
    if !initialize {
        return reply::rpc(StatusCode::OK, resp);
    }
    let id = entropy::random_id();
    let _ = conn.take_dirty();
    let record = conn.record(SessionKind::Streamable);
    let client = origin.client_key();
    if let Err(refused) = admit(st, &id, &record, client.as_ref()).await {
        return refused;
    }
    Sessions::start(st, id.clone(), SessionKind::Streamable, conn, client, true);
    let mut out = reply::rpc(StatusCode::OK, resp);
    out.headers_mut().insert("mcp-session-id", HeaderValue::from_str(&id).expect("hex is a header value"));
    out
}

fn json(msg: RouteMsg) -> Response {
    let mut r = reply::json_body(msg.status, msg.json);
    if msg.status == StatusCode::TOO_MANY_REQUESTS {
        let secs = msg.retry_after.unwrap_or(1);
        r.headers_mut().insert(axum::http::header::RETRY_AFTER, HeaderValue::from(secs));
    }
    r
}

/// The answer owed when the route ended without a response: the request was cancelled.
fn cancelled(requests: &[RequestId]) -> Response {
    let e = ErrorData::new(ErrorCode::INTERNAL_ERROR, "Request cancelled");
    reply::rpc(StatusCode::OK, RpcResponse::error(requests.first().cloned(), e))
}

/// Answers a POST from its route: JSON when the first thing owed is the response, else SSE.
/// The response goes out once what the request changed in the session's record is stored
/// ([`LiveSession::synced`]), so the client's next request finds it on any instance.
async fn answer(
    st: &Arc<State>,
    live: &Arc<LiveSession>,
    mut rx: QueueRx<RouteMsg>,
    requests: Vec<RequestId>,
) -> Response {
    let first = match rx.recv().await {
        Some(m) => m,
        None => return cancelled(&requests),
    };
    if first.last && st.config.response_mode != ResponseMode::Sse {
        live.synced().await;
        return json(first);
    }
    let period = st.config.keep_alive;
    let keep_alive = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let state = (Some(first), rx, keep_alive, live.clone());
    let events = futures_util::stream::unfold(state, |mut s| async move {
        let msg = match s.0.take() {
            Some(m) => m,
            None => tokio::select! {
                m = s.1.recv() => m?,
                _ = s.2.tick() => {
                    return Some((Ok(Bytes::from(crate::http::sse::encode_comment("keep-alive"))), s));
                }
            },
        };
        if msg.last {
            s.3.synced().await;
        }
        let bytes = reply::sse_json(&msg.json);
        Some((Ok::<_, std::convert::Infallible>(bytes), s))
    });
    reply::sse_stream(events)
}

/// GET with a session: the server→client stream of a Streamable HTTP session, on
/// `connection` (closed when its reader falls a backlog behind).
pub(crate) async fn stream(
    st: &Arc<State>,
    h: &HeaderMap,
    id: &str,
    client: Option<ClientKey>,
    connection: Option<super::listen::Connection>,
) -> Response {
    let record = match st.config.sessions.load(id, st.env.now()).await {
        Ok(Some(r)) if r.kind == SessionKind::Streamable => r,
        Ok(_) => return not_found_session(),
        Err(e) => return store_failed(e),
    };
    if let Err(r) = super::guard::check_accept(h, false) {
        return r;
    }
    let live = Sessions::get_or_revive(st, id, &record, client);
    // A GET resuming the stream (2025-11-25 basic/transports, "Resumability and Redelivery")
    // gets what it missed and replaces the stream it lost; a 2025-11-25 session's stream
    // starts with the priming event.
    let resume = h
        .get(headers::LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(super::replay::resume_point)
        .map(str::to_owned);
    let prime = record.session.as_ref().is_some_and(|s| s.version >= ProtocolVersion::V2025_11_25);
    match live.open_stream(connection, resume.as_deref(), prime).await {
        Ok(rx) => super::stream::messages(st, None, rx, Some(id.to_owned()), None::<()>),
        Err(NoStream::Open) => reply::status_error(
            StatusCode::CONFLICT,
            ErrorData::invalid_request("Conflict: this session already has an open GET stream"),
        ),
        Err(NoStream::Store(e)) => store_failed(e),
    }
}

/// DELETE: ends a legacy session.
pub(crate) async fn delete(st: &Arc<State>, id: &str) -> Response {
    let existed = match st.config.sessions.delete(id).await {
        Ok(e) => e,
        Err(e) => return store_failed(e),
    };
    let live = st.sessions.get(id).is_some();
    st.sessions.end(id);
    if !existed && !live {
        return not_found_session();
    }
    let mut r = Response::new(axum::body::Body::empty());
    *r.status_mut() = StatusCode::OK;
    r
}
