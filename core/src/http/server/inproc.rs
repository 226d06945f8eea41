//! The endpoint served in process, without a listener: a host's own HTTP server (an ASGI app,
//! Node's `http`, Express, Fastify, a fetch-style `(Request) => Response` server) hands each
//! request to [`InProcess::handle`] and streams the answer back; the request goes through the
//! same axum router as [`super::serve_http`] (every check, both lineages, SSE), with no loopback
//! hop. The bindings' mounts (`server.asgi_app()`, `server.nodeHandler()`, `server.fetchHandler()`)
//! are built on it.

use super::{HttpEndpoint, HttpServerConfig};
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Env;
use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tower::ServiceExt;

/// One MCP endpoint that a host's HTTP server feeds request by request.
#[derive(Debug)]
pub struct InProcess {
    endpoint: HttpEndpoint,
    router: axum::Router,
}

/// The answer to one request: status, headers, and a body read chunk by chunk.
#[derive(Debug)]
pub struct InProcessResponse {
    /// The HTTP status.
    pub status: u16,
    /// The headers, in order (a name may repeat).
    pub headers: Vec<(String, String)>,
    /// The body (JSON, or an SSE stream that ends when the answer is complete).
    pub body: BodyReader,
}

impl InProcess {
    /// The endpoint of a server (its [`Env`], from [`crate::server::Server::env`]) with `config`
    /// (its paths are matched against the full request path the host passes in).
    pub fn new(env: Arc<Env>, config: HttpServerConfig) -> Self {
        let endpoint = HttpEndpoint::new(env, config, None);
        let router = endpoint.router();
        InProcess { endpoint, router }
    }

    /// Serves one request. `path` is the request target (path and query), `headers` as received
    /// (a `Host` header is what the DNS-rebinding guard checks), `body` the whole request body
    /// (a body larger than [`HttpServerConfig::max_body`] is answered 413). Bad input is an HTTP
    /// answer (400, 404, 405, 413, ...), never an error; an `Err` means the method, path or a
    /// header could not be an HTTP request at all.
    pub async fn handle(
        &self,
        method: &str,
        path: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> Result<InProcessResponse> {
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            Error::new(ErrorKind::InvalidInput, format!("{what}: {e}"))
        };
        let mut request = http::Request::builder()
            .method(http::Method::from_bytes(method.as_bytes()).map_err(|e| bad("bad HTTP method", &e))?)
            .uri(if path.is_empty() { "/" } else { path });
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request.body(Body::from(body)).map_err(|e| bad("bad HTTP request", &e))?;
        Ok(self.serve(request).await)
    }

    /// Serves one request already built as an `http::Request` (see [`InProcess::handle`]).
    pub async fn serve(&self, request: http::Request<Body>) -> InProcessResponse {
        let response = match self.router.clone().oneshot(request).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let (parts, body) = response.into_parts();
        let headers = parts
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        InProcessResponse { status: parts.status.as_u16(), headers, body: BodyReader::new(body) }
    }

    /// Begins shutdown: open streams end, legacy sessions end once their calls finish.
    pub fn shutdown(&self) {
        self.endpoint.begin_shutdown();
    }
}

type DataStream = futures_util::stream::BoxStream<'static, std::result::Result<Bytes, axum::Error>>;

/// A response body read chunk by chunk from another language: [`BodyReader::next`] may be
/// awaited from one task while [`BodyReader::close`] is called from another (the host's client
/// went away); closing drops the body, which the endpoint treats as a cancelled call.
#[derive(Debug, Clone)]
pub struct BodyReader {
    inner: Arc<Mutex<Option<Reader>>>,
    closed: watch::Sender<bool>,
}

struct Reader(DataStream);

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reader")
    }
}

impl BodyReader {
    fn new(body: Body) -> Self {
        let stream: DataStream = body.into_data_stream().boxed();
        BodyReader { inner: Arc::new(Mutex::new(Some(Reader(stream)))), closed: watch::channel(false).0 }
    }

    /// The next chunk; `None` at the end of the body, after [`BodyReader::close`], or when
    /// another `next` is still pending.
    pub async fn next(&self) -> Option<Bytes> {
        let mut closed = self.closed.subscribe();
        if *closed.borrow() {
            return None;
        }
        let mut reader = self.inner.lock().expect("lock").take()?;
        let chunk = tokio::select! {
            c = reader.0.next() => c,
            _ = closed.wait_for(|c| *c) => return None,
        };
        match chunk {
            Some(Ok(bytes)) => {
                if !*self.closed.borrow() {
                    *self.inner.lock().expect("lock") = Some(reader);
                }
                Some(bytes)
            }
            // The body failed (a stream cut by shutdown): the end.
            Some(Err(_)) | None => None,
        }
    }

    /// Drops the body: a call still running for it is cancelled. Idempotent.
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.inner.lock().expect("lock").take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ServerConfig;
    use crate::registry::ToolRegistry;
    use crate::server::Server;

    fn endpoint() -> InProcess {
        let server = Server::new(ServerConfig::new("t", "1"), Arc::new(ToolRegistry::new()));
        InProcess::new(server.env(), HttpServerConfig::default())
    }

    async fn text(body: &BodyReader) -> String {
        let mut out = Vec::new();
        while let Some(c) = body.next().await {
            out.extend_from_slice(&c);
        }
        String::from_utf8(out).unwrap()
    }

    #[tokio::test]
    async fn answers_a_stateless_request_and_refuses_bad_ones() {
        let ep = endpoint();
        let json = [
            ("host".to_owned(), "127.0.0.1:8080".to_owned()),
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let mut headers = json.to_vec();
        headers.push(("mcp-protocol-version".into(), "2026-07-28".into()));
        headers.push(("mcp-method".into(), "server/discover".into()));
        let r = ep.handle("POST", "/mcp", &headers, body.to_vec()).await.unwrap();
        let out = text(&r.body).await;
        assert_eq!(r.status, 200, "{out}");
        assert!(out.contains("\"supportedVersions\""), "{out}");
        let r = ep.handle("POST", "/elsewhere", &json, b"{}".to_vec()).await.unwrap();
        assert_eq!(r.status, 404);
        let r = ep.handle("POST", "/mcp", &json, b"{not json".to_vec()).await.unwrap();
        assert_eq!(r.status, 400);
        assert!(ep.handle("BAD METHOD", "/mcp", &json, vec![]).await.is_err());
    }

    #[tokio::test]
    async fn close_ends_a_pending_read() {
        let ep = endpoint();
        let headers = [
            ("host".to_owned(), "localhost".to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ];
        let r = ep.handle("GET", "/sse", &headers, vec![]).await.unwrap();
        assert_eq!(r.status, 200);
        let first = r.body.next().await.unwrap();
        assert!(String::from_utf8_lossy(&first).contains("event: endpoint"));
        let pending = tokio::spawn({
            let body = r.body.clone();
            async move { body.next().await }
        });
        tokio::task::yield_now().await;
        r.body.close();
        assert!(pending.await.unwrap().is_none());
        assert!(r.body.next().await.is_none());
    }
}
