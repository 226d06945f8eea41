//! The Streamable HTTP endpoint: POST, GET and DELETE on `/mcp`, both lineages, chosen per
//! request: a body whose `_meta` names a protocol version is modern ([`super::modern`]),
//! anything else belongs to a legacy session ([`super::legacy`]).

use super::origin::{client_key, into_origin};
use super::{guard, legacy, legacy_sse, modern, reply, State};
use crate::http::headers;
use crate::jsonrpc::{self, Inbound, Message};
use crate::ProtocolVersion;
use axum::extract::{Request as HttpRequest, State as Shared};
use axum::response::Response;
use std::sync::Arc;

/// A request or notification whose `_meta` names a protocol version speaks the modern lineage.
fn is_modern(msg: &Message) -> bool {
    let params = match msg {
        Message::Request(r) => r.params.as_ref(),
        Message::Notification(n) => n.params.as_ref(),
        Message::Response(_) => None,
    };
    params.and_then(|p| p.get("_meta")).and_then(|m| m.get(crate::protocol::meta::PROTOCOL_VERSION)).is_some()
}

/// POST: one JSON-RPC message (or a 2025-03-26 batch), logged at debug level (target
/// `mcpcore::http`: JSON-RPC method and id, HTTP status, time to the answer's head).
pub(crate) async fn post(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    // The log goes to a `tracing` subscriber, or to a `log` logger (a binding's bridge).
    let on = tracing::enabled!(target: "mcpcore::http", tracing::Level::DEBUG)
        || log::log_enabled!(target: "mcpcore::http", log::Level::Debug);
    if !on {
        return answer(st, req, &mut None).await;
    }
    let started = std::time::Instant::now();
    let mut what = Some(String::from("-"));
    let response = answer(st, req, &mut what).await;
    let what = what.unwrap_or_default();
    tracing::debug!(
        target: "mcpcore::http",
        "POST {what} -> {} in {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// `method id=ID` of a frame, for the request log.
fn describe(inbound: &Inbound) -> String {
    match inbound {
        Inbound::Single(Message::Request(r)) => format!("{} id={}", r.method, r.id),
        Inbound::Single(Message::Notification(n)) => n.method.clone(),
        Inbound::Single(Message::Response(r)) => {
            format!("response id={}", r.id.as_ref().map(ToString::to_string).unwrap_or_default())
        }
        Inbound::Batch(items) => format!("batch of {}", items.len()),
    }
}

/// `what` is filled in (method and id) only when the request log is on.
async fn answer(st: Arc<State>, req: HttpRequest, what: &mut Option<String>) -> Response {
    st.env.start_fanout();
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
    let bytes = match guard::read_body(h, body, &st).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let inbound = match jsonrpc::parse(&bytes) {
        Ok(i) => i,
        Err(resp) => return reply::rpc(axum::http::StatusCode::BAD_REQUEST, resp),
    };
    if let Some(w) = what.as_mut() {
        *w = describe(&inbound);
    }
    match inbound {
        Inbound::Single(msg) if is_modern(&msg) => {
            // The request's headers and extensions move into its origin (no copy).
            let origin = into_origin(parts, None);
            let h = origin.headers.as_ref().expect("an HTTP origin has headers");
            modern::post(&st, h, origin.clone(), msg).await
        }
        frame => legacy::post(&st, parts, frame).await,
    }
}

/// GET: the legacy standalone server→client stream of a session; without a session, the
/// 2024-11-05 transport when served; otherwise 405. A GET declaring a modern revision is 405:
/// 2026-07-28 has no GET stream.
pub(crate) async fn get(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    st.env.start_fanout();
    let h = req.headers();
    if let Err(r) = st.guard.check(h) {
        return r;
    }
    let declared =
        h.get(headers::MCP_PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).and_then(ProtocolVersion::parse);
    if declared.is_some_and(ProtocolVersion::is_modern) {
        return reply::method_not_allowed(
            "POST",
            "Method Not Allowed: 2026-07-28 has no GET stream; send requests with POST",
        );
    }
    let Some(id) = legacy::session_header(h).map(str::to_owned) else {
        if st.serves_2024() && guard::accepts(h, crate::http::EVENT_STREAM) {
            let prefix = legacy_sse::nested_prefix(&req);
            return legacy_sse::open(&st, &prefix, req.extensions()).await;
        }
        return reply::method_not_allowed("POST", "Method Not Allowed: send JSON-RPC requests with POST");
    };
    let connection = req.extensions().get::<super::listen::Connection>().cloned();
    let client = client_key(req.extensions());
    legacy::stream(&st, h, &id, client, connection).await
}

/// DELETE: ends a legacy session.
pub(crate) async fn delete(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let h = req.headers();
    if let Err(r) = st.guard.check(h) {
        return r;
    }
    let Some(id) = legacy::session_header(h).map(str::to_owned) else {
        return reply::method_not_allowed("POST", "Method Not Allowed: there is no session to end");
    };
    legacy::delete(&st, &id).await
}
