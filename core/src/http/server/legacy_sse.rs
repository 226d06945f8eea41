//! The 2024-11-05 HTTP+SSE transport (2024-11-05 basic/transports): GET on the SSE path opens
//! a session whose stream starts with the `endpoint` event; POSTs to that endpoint are handed
//! to the session's driver, and every answer goes down the stream.

use super::live::Sessions;
use super::{guard, reply, State};
use crate::engine::ServerConnection;
use crate::http::sse;
use crate::jsonrpc::{self, Inbound};
use crate::runtime::entropy;
use crate::session::{SessionKind, SessionRecord};
use crate::ErrorData;
use axum::body::Bytes;
use axum::extract::{NestedPath, Request as HttpRequest, State as Shared};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

/// Ends a 2024-11-05 session when its stream goes away.
struct EndSession {
    st: Arc<State>,
    id: String,
}

impl Drop for EndSession {
    fn drop(&mut self) {
        self.st.sessions.end(&self.id);
        let (st, id) = (self.st.clone(), self.id.clone());
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = st.config.sessions.delete(&id).await;
            });
        }
    }
}

/// The path the router is mounted under (`axum::Router::nest`), so the `endpoint` event names
/// the POST path the client can reach.
pub(crate) fn nested_prefix(req: &HttpRequest) -> String {
    req.extensions()
        .get::<NestedPath>()
        .map(|p| p.as_str().trim_end_matches('/').to_owned())
        .unwrap_or_default()
}

/// GET on the SSE path.
pub(crate) async fn get(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let h = req.headers();
    if let Err(r) = st.guard.check(h).and_then(|_| guard::check_accept(h, false)) {
        return r;
    }
    if !st.serves_2024() {
        return reply::method_not_allowed(
            "POST",
            "Method Not Allowed: the 2024-11-05 transport is not served",
        );
    }
    st.env.start_fanout();
    let prefix = nested_prefix(&req);
    open(&st, &prefix, req.extensions()).await
}

/// Opens a 2024-11-05 session for a GET with these extensions (its client, its connection):
/// the stream starts with the `endpoint` event.
pub(crate) fn open<'a>(
    st: &'a Arc<State>,
    prefix: &'a str,
    ext: &axum::http::Extensions,
) -> impl std::future::Future<Output = Response> + Send + 'a {
    let client = super::origin::client_key(ext);
    let connection = ext.get::<super::listen::Connection>().cloned();
    open_for(st, prefix, client, connection)
}

async fn open_for(
    st: &Arc<State>,
    prefix: &str,
    client: Option<crate::context::ClientKey>,
    connection: Option<super::listen::Connection>,
) -> Response {
    let id = entropy::random_id();
    let record = SessionRecord::new(SessionKind::Sse);
    if let Err(refused) = super::legacy::admit(st, &id, &record, client.as_ref()).await {
        return refused;
    }
    let conn = ServerConnection::new(st.env.engine.clone());
    let live = Sessions::start(st, id.clone(), SessionKind::Sse, conn, client, true);
    let rx = match live.open_stream(connection, None, false).await {
        Ok(rx) => rx,
        Err(super::live::NoStream::Store(e)) => {
            st.sessions.end(&id);
            let _ = st.config.sessions.delete(&id).await;
            return super::legacy::store_failed(e);
        }
        Err(super::live::NoStream::Open) => unreachable!("a new session has no stream"),
    };
    let endpoint = format!("{prefix}{}?sessionId={id}", st.config.messages_path);
    let first = Bytes::from(sse::encode_event(Some("endpoint"), &endpoint));
    let end = EndSession { st: st.clone(), id: id.clone() };
    super::stream::messages(st, Some(first), rx, Some(id), Some(end))
}

/// POST to the endpoint announced by the `endpoint` event; answers go down the stream.
pub(crate) async fn post(Shared(st): Shared<Arc<State>>, req: HttpRequest) -> Response {
    let (parts, body) = req.into_parts();
    let h = &parts.headers;
    if let Err(r) = st.guard.check(h).and_then(|_| guard::check_content_type(h)) {
        return r;
    }
    let id = parts.uri.query().unwrap_or("").split('&').find_map(|kv| kv.strip_prefix("sessionId="));
    let session = id.and_then(|id| st.sessions.get(id)).filter(|s| s.kind == SessionKind::Sse);
    let Some(session) = session else {
        return reply::status_error(
            StatusCode::NOT_FOUND,
            ErrorData::invalid_request("Not Found: unknown sessionId; open the SSE stream again"),
        );
    };
    let bytes = match guard::read_body(h, body, &st).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let frame = match jsonrpc::parse(&bytes) {
        Ok(Inbound::Single(m)) => Inbound::Single(m),
        Ok(Inbound::Batch(_)) => {
            return reply::rpc(StatusCode::BAD_REQUEST, crate::engine::ServerEngine::batch_rejected())
        }
        Err(resp) => return reply::rpc(StatusCode::BAD_REQUEST, resp),
    };
    let origin = super::origin::origin(&parts, Some(&session.id));
    if !session.post_quiet(frame, origin) {
        return reply::status_error(
            StatusCode::NOT_FOUND,
            ErrorData::invalid_request("Not Found: the session has ended; open the SSE stream again"),
        );
    }
    let mut r = Response::new(axum::body::Body::from("Accepted"));
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}
