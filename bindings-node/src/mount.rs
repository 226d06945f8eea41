//! `Mount` and `MountResponse`: the server's endpoint fed request by request from Node's own
//! HTTP server (`server.nodeHandler()`, `server.fetchHandler()`, lib/node-handler.js) through the
//! core's `InProcess`, with no listener and no loopback hop.

use crate::errors;
use mcpcore::http::server::{BodyReader, InProcess};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use std::sync::{Arc, Mutex};

/// The endpoint of one server, served in process.
#[napi]
pub struct Mount {
    pub(crate) inner: Arc<InProcess>,
}

#[napi]
impl Mount {
    /// Starts serving one request: the method, the path with its query, the headers as Node's
    /// `rawHeaders` (name, value, name, value...) and the whole body. The `Exchange` resolves
    /// once the head of the answer is known (its body may still stream); `abort()` before that
    /// drops the request (the client went away), cancelling its call.
    #[napi]
    pub fn start(&self, method: String, path: String, raw_headers: Vec<String>, body: Buffer) -> Exchange {
        let headers: Vec<(String, String)> =
            raw_headers.chunks_exact(2).map(|p| (p[0].clone(), p[1].clone())).collect();
        let body = body.to_vec();
        let inner = self.inner.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = napi::bindgen_prelude::spawn(async move {
            let _ = tx.send(inner.handle(&method, &path, &headers, body).await);
        });
        Exchange { answer: Mutex::new(Some(rx)), task: task.abort_handle() }
    }

    /// Begins shutdown: open streams end, sessions end once their calls finish.
    #[napi]
    pub fn shutdown(&self) {
        self.inner.shutdown();
    }
}

/// One request being served (see `Mount.start`).
#[napi]
pub struct Exchange {
    answer: Mutex<
        Option<tokio::sync::oneshot::Receiver<mcpcore::Result<mcpcore::http::server::InProcessResponse>>>,
    >,
    task: tokio::task::AbortHandle,
}

#[napi]
impl Exchange {
    /// The answer's head and body; rejects when the request was aborted (or asked twice).
    #[napi]
    pub async fn response(&self) -> napi::Result<MountResponse> {
        let rx = self.answer.lock().expect("lock").take();
        let gone = || errors::to_js(mcpcore::Error::cancelled("the request was aborted"));
        let r = rx.ok_or_else(gone)?.await.map_err(|_| gone())?.map_err(errors::to_js)?;
        let headers = r.headers.into_iter().flat_map(|(k, v)| [k, v]).collect();
        Ok(MountResponse { status: r.status.into(), headers, body: r.body })
    }

    /// Drops the request before its answer is known: its call is cancelled.
    #[napi]
    pub fn abort(&self) {
        self.task.abort();
    }
}

/// One answer: `status`, `headers` (name, value, ...), and the body read with `next()`.
#[napi]
pub struct MountResponse {
    status: u32,
    headers: Vec<String>,
    body: BodyReader,
}

#[napi]
impl MountResponse {
    /// The HTTP status.
    #[napi(getter)]
    pub fn status(&self) -> u32 {
        self.status
    }

    /// The headers, flat: name, value, name, value...
    #[napi(getter)]
    pub fn headers(&self) -> Vec<String> {
        self.headers.clone()
    }

    /// The next chunk of the body, or null at its end (or after `close()`).
    #[napi]
    pub async fn next(&self) -> Option<Buffer> {
        self.body.next().await.map(|b| Buffer::from(b.to_vec()))
    }

    /// Drops the body (the client went away): a call still running for it is cancelled.
    #[napi]
    pub fn close(&self) {
        self.body.close();
    }
}
