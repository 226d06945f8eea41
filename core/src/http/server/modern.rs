//! 2026-07-28 over Streamable HTTP (2026-07-28 basic/transports/streamable-http): every POST is
//! a request of its own. Headers are checked against the body first (`-32020`), then the
//! request runs through a one-request connection; its answer is JSON, or an SSE stream when
//! the handler sends notifications first (or for `subscriptions/listen`). Closing the stream
//! cancels the request.

use super::{reply, ResponseMode, State};
use crate::context::Origin;
use crate::engine::ServerEngine;
use crate::http::{headers, sse};
use crate::jsonrpc::{Inbound, Message, Request, Response as RpcResponse};
use crate::runtime::single::{self, Finish, Running, Step};
use crate::ErrorData;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;

/// A modern POST.
pub(crate) async fn post(st: &Arc<State>, h: &HeaderMap, origin: Arc<Origin>, msg: Message) -> Response {
    let overflow = origin
        .extensions
        .get::<super::listen::Connection>()
        .cloned()
        .map(|c| Box::new(move || c.disconnect()) as crate::runtime::queue::OnOverflow);
    let req = match &msg {
        Message::Request(r) => r,
        // The core protocol defines no client notifications over HTTP; take them quietly.
        Message::Notification(_) | Message::Response(_) => return reply::accepted(),
    };
    // Headers first: a header that disagrees with `_meta` is -32020 even when the `_meta`
    // version is one we do not serve.
    if let Err(e) = check_headers(&st.env.engine, h, req) {
        return reply::rpc(StatusCode::BAD_REQUEST, RpcResponse::error(Some(req.id.clone()), e));
    }
    if let Err(e) = st.env.engine.modern_precheck(req) {
        return reply::rpc(reply::precheck_status(e.code), RpcResponse::error(Some(req.id.clone()), e));
    }
    let listen = req.method == "subscriptions/listen";
    let backlog = st.config.max_backlog;
    let response = match single::start(
        &st.env,
        Ok(Inbound::Single(msg)),
        origin,
        st.shutdown.clone(),
        backlog,
        overflow,
    ) {
        Step::Reply(Message::Response(r)) => reply::modern_rpc(r),
        Step::Reply(other) => reply::json_body(StatusCode::OK, other.to_json()),
        Step::Accepted => reply::accepted(),
        Step::Running(run) if listen => return stream(st, run, None),
        Step::Running(run) => respond(st, run).await,
    };
    // One yield before the answer is written: the worker first serves the other connections
    // whose requests are ready, and their answers leave together. Answered in the same poll
    // that read it, each answer woke the client's thread on its own, which cost a quarter of
    // the throughput under load on 2 cores (bench/NOTES.md, "The 2026-07-28 wall-clock gap").
    tokio::task::yield_now().await;
    response
}

/// `-32020` unless the modern headers agree with the body (2026-07-28
/// basic/transports/streamable-http, "Server validation").
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

/// The final message, unless the server's shutdown grace runs out first.
async fn finish(st: &State, run: &mut Finish) -> Message {
    let mut stop = st.hard_stop.clone();
    let id = run.id.clone();
    tokio::select! {
        biased;
        m = run.finish() => m,
        _ = stop.wait_for(|s| *s) => {
            let e = ErrorData::internal("Internal error: the server shut down before the call finished");
            Message::Response(RpcResponse::error(Some(id), e))
        }
    }
}

fn json(message: Message) -> Response {
    match message {
        Message::Response(r) => reply::modern_rpc(r),
        other => reply::json_body(StatusCode::OK, other.to_json()),
    }
}

/// JSON unless the handler sends a notification before its result (by the response mode).
async fn respond(st: &Arc<State>, mut run: Box<Running>) -> Response {
    let first = match st.config.response_mode {
        ResponseMode::Json => {
            run.notifications.close();
            return json(finish(st, &mut run.done).await);
        }
        ResponseMode::Sse => None,
        // The result is polled first: a handler that finishes in its first poll (most do) is
        // answered without ever registering on the notification channel, whose closing would
        // otherwise wake this connection's task once more for nothing.
        ResponseMode::Auto => tokio::select! {
            biased;
            m = finish(st, &mut run.done) => {
                // The handler may have notified before it finished in the same poll.
                let mut sent = Vec::new();
                while let Some(n) = run.notifications.try_recv() {
                    sent.push(reply::sse_json(&n));
                }
                if sent.is_empty() {
                    return json(m);
                }
                sent.push(reply::sse_message(&m));
                let body: Vec<Result<Bytes, std::convert::Infallible>> = sent.into_iter().map(Ok).collect();
                return reply::sse_stream(futures_util::stream::iter(body));
            }
            Some(m) = run.notifications.recv() => Some(m),
        },
    };
    stream(st, run, first)
}

/// An SSE stream of the request's notifications (JSON), then its response. It ends early when
/// the reader falls a backlog behind (the handler is then cancelled with the request).
fn stream(st: &Arc<State>, run: Box<Running>, first: Option<String>) -> Response {
    let period = st.config.keep_alive;
    let keep_alive = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    // (request, first event, finished, keep-alive, state, notifications ended)
    let state = (run, first, false, keep_alive, st.clone(), false);
    let events = futures_util::stream::unfold(state, |mut s| async move {
        if s.2 {
            return None;
        }
        if let Some(m) = s.1.take() {
            return Some((Ok(reply::sse_json(&m)), s));
        }
        let bytes = loop {
            tokio::select! {
                biased;
                m = s.0.notifications.recv(), if !s.5 => match m {
                    Some(m) => break reply::sse_json(&m),
                    None if s.0.notifications.overflowed() => return None,
                    None => s.5 = true,
                },
                m = finish(&s.4, &mut s.0.done) => {
                    s.2 = true;
                    // What the handler sent just before it finished goes first.
                    let mut out = Vec::new();
                    while let Some(n) = s.0.notifications.try_recv() {
                        out.extend_from_slice(&reply::sse_json(&n));
                    }
                    out.extend_from_slice(&reply::sse_message(&m));
                    break Bytes::from(out);
                }
                _ = s.3.tick() => break Bytes::from(sse::encode_comment("keep-alive")),
            }
        };
        Some((Ok::<_, std::convert::Infallible>(bytes), s))
    });
    reply::sse_stream(events)
}
