//! The Streamable HTTP endpoint: POST, GET and DELETE on `/mcp` for both lineages.

use super::call::{self, OnDisconnect};
use super::session::{Session, SessionKind};
use super::{guard, legacy_sse, reply, State};
use crate::engine::{Action, Connection, ServerEngine};
use crate::http::headers;
use crate::jsonrpc::{self, Inbound, Message, Request, Response as RpcResponse};
use crate::{ErrorData, ProtocolVersion};
use axum::extract::{Request as HttpRequest, State as Shared};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;

/// The session id a request carries.
fn session_header(h: &HeaderMap) -> Option<&str> {
    h.get(headers::MCP_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::trim)
}

/// A request or notification whose `_meta` names a protocol version speaks the modern lineage.
fn is_modern(msg: &Message) -> bool {
    let params = match msg {
        Message::Request(r) => r.params.as_ref(),
        Message::Notification(n) => n.params.as_ref(),
        Message::Response(_) => None,
    };
    params.and_then(|p| p.get("_meta")).and_then(|m| m.get(crate::protocol::meta::PROTOCOL_VERSION)).is_some()
}

fn not_found_session() -> Response {
    reply::status_error(
        StatusCode::NOT_FOUND,
        ErrorData::invalid_request(
            "Not Found: unknown or expired session; send initialize again without Mcp-Session-Id",
        ),
    )
}

/// POST: one JSON-RPC message (or a 2025-03-26 batch).
pub(crate) async fn post(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let (parts, body) = req.into_parts();
    let h = &parts.headers;
    let checks = st
        .guard
        .check(h)
        .and_then(|_| guard::check_accept(h, true))
        .and_then(|_| guard::check_content_type(h));
    if let Err(r) = checks {
        return r;
    }
    let bytes = match guard::read_body(h, body, st.config.max_body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let inbound = match jsonrpc::parse(&bytes) {
        Ok(i) => i,
        Err(resp) => return reply::rpc(StatusCode::BAD_REQUEST, resp),
    };
    match inbound {
        Inbound::Batch(items) => batch(&st, h, items).await,
        Inbound::Single(msg) if is_modern(&msg) => modern(&st, h, msg).await,
        Inbound::Single(msg) => legacy(&st, h, msg).await,
    }
}

// ----- modern ---------------------------------------------------------------------------------

async fn modern(st: &Arc<State>, h: &HeaderMap, msg: Message) -> Response {
    let req = match msg {
        Message::Request(r) => r,
        // The core protocol defines no client notifications over HTTP; take them quietly.
        Message::Notification(_) | Message::Response(_) => return reply::accepted(),
    };
    // Headers first: a header that disagrees with `_meta` is -32020 even when the `_meta`
    // version is one we do not serve.
    if let Err(e) = check_headers(&st.engine, h, &req) {
        return reply::rpc(StatusCode::BAD_REQUEST, RpcResponse::error(Some(req.id), e));
    }
    if let Err(e) = st.engine.modern_precheck(&req) {
        return reply::rpc(reply::precheck_status(e.code), RpcResponse::error(Some(req.id), e));
    }
    match st.engine.handle(&mut Connection::new(), Message::Request(req)) {
        Action::Reply(r) => reply::rpc(reply::modern_reply_status(&r), r),
        Action::CallTool(c) => call::respond(st, c, OnDisconnect::Cancel, None).await,
        Action::Listen(l) => super::listen::respond(st, l),
        Action::Cancel(_) | Action::PeerResponse(_) | Action::Nothing => reply::accepted(),
    }
}

/// `-32020` unless the modern headers agree with the body (DIGEST §B.4).
fn check_headers(engine: &ServerEngine, h: &HeaderMap, req: &Request) -> Result<(), ErrorData> {
    let params = if req.method == "tools/call" {
        let name = req.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str);
        name.and_then(|n| engine.registry().get(n))
            .and_then(|t| headers::header_params(&t.tool().input_schema).ok())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let get = |name: &str| h.get(name).map(|v| v.to_str().map(str::to_owned).map_err(|_| ()));
    headers::validate_request(get, req, &params)
}

// ----- legacy ---------------------------------------------------------------------------------

async fn legacy(st: &Arc<State>, h: &HeaderMap, msg: Message) -> Response {
    let session = match session_header(h) {
        Some(id) => match st.config.sessions.get(id) {
            Some(s) if s.kind() == SessionKind::Streamable => Some(s),
            _ if is_initialize(&msg) => None,
            _ => return not_found_session(),
        },
        None => None,
    };
    let Some(session) = session else {
        return sessionless(st, msg);
    };
    if let Some(v) = h.get(headers::MCP_PROTOCOL_VERSION) {
        let v = v.to_str().unwrap_or("");
        if !ProtocolVersion::parse(v).is_some_and(|v| st.engine.config().versions.contains(&v)) {
            return reply::status_error(
                StatusCode::BAD_REQUEST,
                ErrorData::invalid_request(format!("Bad Request: unsupported MCP-Protocol-Version {v:?}")),
            );
        }
    }
    let action = st.engine.handle(&mut session.conn.lock().expect("lock"), msg);
    match action {
        Action::Reply(r) if is_error(&r) && session_init_refused(&r) => {
            reply::rpc(StatusCode::BAD_REQUEST, r)
        }
        Action::Reply(r) => reply::rpc(StatusCode::OK, r),
        Action::CallTool(c) => call::respond(st, c, OnDisconnect::RunOn, Some(session)).await,
        Action::Cancel(id) => {
            if let Some(h) = session.inflight.lock().expect("lock").remove(&id) {
                h.abort();
            }
            reply::accepted()
        }
        Action::PeerResponse(r) => {
            session.peers.resolve(r);
            reply::accepted()
        }
        Action::Listen(_) | Action::Nothing => reply::accepted(),
    }
}

fn is_initialize(msg: &Message) -> bool {
    matches!(msg, Message::Request(r) if r.method == "initialize")
}

fn is_error(r: &RpcResponse) -> bool {
    r.outcome.is_err()
}

/// A second `initialize` on a session is a 400 (as the TypeScript SDK answers).
fn session_init_refused(r: &RpcResponse) -> bool {
    matches!(&r.outcome, Err(e) if e.message.contains("initialize was already received"))
}

/// No session: `initialize` starts one; anything else lacks both a session and `_meta`.
fn sessionless(st: &Arc<State>, msg: Message) -> Response {
    match msg {
        Message::Request(r) if r.method == "initialize" => {
            let session = Session::new(SessionKind::Streamable);
            let action = st.engine.handle(&mut session.conn.lock().expect("lock"), Message::Request(r));
            let Action::Reply(resp) = action else { unreachable!("initialize is answered at once") };
            if resp.outcome.is_err() {
                return reply::rpc(StatusCode::BAD_REQUEST, resp);
            }
            let id = session.id().to_owned();
            if !st.config.sessions.insert(session) {
                return reply::status_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorData::internal("Service Unavailable: too many sessions"),
                );
            }
            let mut out = reply::rpc(StatusCode::OK, resp);
            out.headers_mut()
                .insert("mcp-session-id", HeaderValue::from_str(&id).expect("hex is a header value"));
            out
        }
        Message::Request(r) => match st.engine.handle(&mut Connection::new(), Message::Request(r)) {
            Action::Reply(resp) if resp.outcome.is_ok() => reply::rpc(StatusCode::OK, resp),
            Action::Reply(resp) => reply::rpc(StatusCode::BAD_REQUEST, resp),
            _ => reply::accepted(),
        },
        Message::Notification(_) => reply::accepted(),
        Message::Response(_) => reply::status_error(
            StatusCode::BAD_REQUEST,
            ErrorData::invalid_request("Bad Request: a response needs the Mcp-Session-Id of its session"),
        ),
    }
}

/// A JSON-RPC batch: only on a 2025-03-26 session.
async fn batch(st: &Arc<State>, h: &HeaderMap, items: Vec<Result<Message, RpcResponse>>) -> Response {
    let session = session_header(h).and_then(|id| st.config.sessions.get(id));
    let Some(session) = session.filter(|s| st.engine.accepts_batch(&s.conn.lock().expect("lock"))) else {
        return reply::rpc(StatusCode::BAD_REQUEST, ServerEngine::batch_rejected());
    };
    let mut ready = Vec::new();
    let mut calls = Vec::new();
    for item in items {
        let msg = match item {
            Err(resp) => {
                ready.push(resp);
                continue;
            }
            Ok(m) if is_initialize(&m) => {
                let Message::Request(r) = m else { unreachable!("checked") };
                ready.push(RpcResponse::error(
                    Some(r.id),
                    ErrorData::invalid_request("Invalid Request: initialize must not be part of a batch"),
                ));
                continue;
            }
            Ok(m) => m,
        };
        let action = st.engine.handle(&mut session.conn.lock().expect("lock"), msg);
        match action {
            Action::Reply(r) => ready.push(r),
            Action::CallTool(c) => {
                let s = session.clone();
                let route: crate::registry::NotificationSink = Arc::new(move |m: Message| {
                    s.push(m);
                });
                let peer = crate::input::Peer::new(route, session.peers.clone());
                calls.push(tokio::spawn(st.call(c, Arc::new(|_| {}), Some(peer))))
            }
            Action::PeerResponse(r) => {
                session.peers.resolve(r);
            }
            Action::Cancel(_) | Action::Listen(_) | Action::Nothing => {}
        }
    }
    for c in calls {
        if let Ok((_, resp)) = c.await {
            ready.push(resp);
        }
    }
    if ready.is_empty() {
        return reply::accepted();
    }
    let msgs: Vec<Message> = ready.into_iter().map(Message::Response).collect();
    reply::json_body(StatusCode::OK, serde_json::to_string(&msgs).expect("messages serialize"))
}

// ----- GET and DELETE -------------------------------------------------------------------------

/// GET: the legacy standalone server→client stream of a session; without a session, the
/// 2024-11-05 transport when served; otherwise 405.
pub(crate) async fn get(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let h = req.headers();
    if let Err(r) = st.guard.check(h) {
        return r;
    }
    let Some(id) = session_header(h) else {
        if st.serves_2024() && guard::accepts(h, crate::http::EVENT_STREAM) {
            return legacy_sse::open(&st);
        }
        return reply::method_not_allowed("POST", "Method Not Allowed: send JSON-RPC requests with POST");
    };
    let Some(session) = st.config.sessions.get(id).filter(|s| s.kind() == SessionKind::Streamable) else {
        return not_found_session();
    };
    if let Err(r) = guard::check_accept(h, false) {
        return r;
    }
    let rx = {
        let mut slot = session.stream.lock().expect("lock");
        if slot.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return reply::status_error(
                StatusCode::CONFLICT,
                ErrorData::invalid_request("Conflict: this session already has an open GET stream"),
            );
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        *slot = Some(tx);
        rx
    };
    super::session::forward_changes(&st, &session);
    legacy_sse::message_stream(&st, None, rx, None::<()>)
}

/// DELETE: ends a legacy session.
pub(crate) async fn delete(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let h = req.headers();
    if let Err(r) = st.guard.check(h) {
        return r;
    }
    let Some(id) = session_header(h) else {
        return reply::method_not_allowed("POST", "Method Not Allowed: there is no session to end");
    };
    match st.config.sessions.remove(id) {
        Some(s) => {
            s.close();
            let mut r = Response::new(axum::body::Body::empty());
            *r.status_mut() = StatusCode::OK;
            r
        }
        None => not_found_session(),
    }
}
