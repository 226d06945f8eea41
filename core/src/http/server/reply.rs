//! HTTP responses: JSON-RPC bodies with the status each situation owes (2026-07-28 basic/transports/streamable-http), 202s and
//! SSE streams.

use crate::http::{sse, EVENT_STREAM, JSON};
use crate::jsonrpc::{Message, Response as RpcResponse};
use crate::{ErrorCode, ErrorData};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use futures_util::Stream;
use std::convert::Infallible;

/// A JSON body with `status`.
pub(crate) fn json_body(status: StatusCode, body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    r
}

/// One JSON-RPC response with `status`.
pub(crate) fn rpc(status: StatusCode, resp: RpcResponse) -> Response {
    json_body(status, Message::Response(resp).to_json())
}

/// A JSON-RPC error without an id (the request could not be read or was refused unread).
pub(crate) fn status_error(status: StatusCode, error: ErrorData) -> Response {
    rpc(status, RpcResponse::error(None, error))
}

/// 403 for a refused Host or Origin.
pub(crate) fn forbidden(message: &str) -> Response {
    status_error(StatusCode::FORBIDDEN, ErrorData::invalid_request(message))
}

/// 202 Accepted, no body: a notification or response was taken.
pub(crate) fn accepted() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

/// `status` (429 or 503) with `Retry-After: 1` and a `-32603` error saying `why`: a limit was
/// reached; the client may try again shortly.
pub(crate) fn retry_later(status: StatusCode, why: &str) -> Response {
    let mut r = status_error(status, ErrorData::internal(why));
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// A dispatched modern request's reply: the status of [`modern_reply_status`], and for an
/// error over a limit that waiting lifts ([`ErrorData::over_limit`], a rate limit: it names
/// `data.retryAfter`) 429 with that `Retry-After`.
pub(crate) fn modern_rpc(resp: RpcResponse) -> Response {
    let retry = retry_after(&resp);
    let status = if retry.is_some() { StatusCode::TOO_MANY_REQUESTS } else { modern_reply_status(&resp) };
    let mut r = rpc(status, resp);
    if let Some(secs) = retry {
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    r
}

/// The seconds to wait that an error over a limit names (`data.retryAfter`, at least 1);
/// `None` for any other answer, and for a limit that waiting does not lift (a result over the
/// size bound names its `limit` but no `retryAfter`: a 429 would only invite retries).
pub(crate) fn retry_after(resp: &RpcResponse) -> Option<u64> {
    let e = resp.outcome.as_ref().err().filter(|e| e.limit_reached().is_some())?;
    let secs = e.data.as_ref()?.get("retryAfter")?.as_u64()?;
    Some(secs.max(1))
}

/// `status` with `Retry-After: 1` and `error` (an [`ErrorData::over_limit`]).
pub(crate) fn retry_later_with(status: StatusCode, error: ErrorData) -> Response {
    let mut r = status_error(status, error);
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// 405 with `Allow`.
pub(crate) fn method_not_allowed(allow: &'static str, why: &str) -> Response {
    let mut r = status_error(StatusCode::METHOD_NOT_ALLOWED, ErrorData::invalid_request(why));
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

/// The status a JSON-RPC error owes when it is produced before dispatch (modern lineage):
/// 400 for header, capability and version errors and bad params, 404 for an unknown method.
pub(crate) fn precheck_status(code: ErrorCode) -> StatusCode {
    if code == ErrorCode::METHOD_NOT_FOUND {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::BAD_REQUEST
    }
}

/// The status of a dispatched modern request's reply: 404 for `-32601`, 400 for `-32021`
/// (always a status error), 200 for everything else (results and in-band errors).
pub(crate) fn modern_reply_status(resp: &RpcResponse) -> StatusCode {
    match &resp.outcome {
        Err(e) if e.code == ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        Err(e)
            if e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                || e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                || e.code == ErrorCode::HEADER_MISMATCH =>
        {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// One SSE event carrying a JSON-RPC message.
pub(crate) fn sse_message(msg: &Message) -> Bytes {
    sse_json(&msg.to_json())
}

/// One SSE event carrying a JSON-RPC message (or batch) already serialized.
pub(crate) fn sse_json(json: &str) -> Bytes {
    Bytes::from(sse::encode_event(Some("message"), json))
}

/// A 200 `text/event-stream` response streaming `events`.
pub(crate) fn sse_stream<S>(events: S) -> Response
where
    S: Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
{
    let mut r = Response::new(Body::from_stream(events));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, no-transform"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
