//! The HTTP server: one endpoint (default `/mcp`) serving both lineages, chosen per request, plus
//! the 2024-11-05 HTTP+SSE transport (DIGEST §B, §D.5, §D.6).
//!
//! - Modern (`_meta` names 2026-07-28): stateless POSTs; headers checked against the body
//!   (`-32020`); statuses per DIGEST §B.5; JSON or SSE answers; closing the stream cancels.
//! - Legacy Streamable HTTP: `initialize` mints `Mcp-Session-Id`; later requests must carry it
//!   (404 for an unknown one); GET opens the server→client stream; DELETE ends the session.
//! - 2024-11-05: GET on the SSE path (or GET on the endpoint without a session) sends the
//!   `endpoint` event; POSTs there are answered on the stream.
//!
//! ```no_run
//! use mcpcore::{engine::ServerConfig, registry::ToolRegistry, server::Server};
//! use mcpcore::http::server::HttpServerConfig;
//! # async fn demo() -> mcpcore::Result<()> {
//! let server = Server::new(ServerConfig::new("demo", "1.0"), std::sync::Arc::new(ToolRegistry::new()));
//! let serving = server.serve_http("127.0.0.1:8080".parse().unwrap(), HttpServerConfig::default()).await?;
//! println!("listening on {}", serving.url());
//! serving.wait().await
//! # }
//! ```

// Checks return the refusal response itself; they are cold paths, so its size does not matter.
#![allow(clippy::result_large_err)]

mod call;
mod guard;
mod legacy_sse;
mod listen;
mod reply;
pub mod session;
mod streamable;

pub use guard::HostPolicy;
pub use session::{InMemorySessionStore, Session, SessionKind, SessionStore};

use crate::engine::ServerEngine;
use crate::error::{Error, ErrorKind, Result};
use axum::routing::{get, post};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How a request's answer is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseMode {
    /// JSON, unless the handler sends a notification before its result: then SSE.
    #[default]
    Auto,
    /// Always one JSON body; notifications sent during the call are dropped.
    Json,
    /// Always an SSE stream for tool calls.
    Sse,
}

/// How the HTTP server behaves.
#[derive(Debug, Clone)]
pub struct HttpServerConfig {
    /// The MCP endpoint path (default `/mcp`).
    pub path: String,
    /// The 2024-11-05 SSE path (default `/sse`); GET on the endpoint without a session works too.
    pub sse_path: String,
    /// The 2024-11-05 POST path announced in the `endpoint` event (default `/messages`).
    pub messages_path: String,
    /// Largest accepted body in bytes (default 4 MiB); larger ones get 413.
    pub max_body: usize,
    /// DNS-rebinding protection.
    pub hosts: HostPolicy,
    /// JSON or SSE answers.
    pub response_mode: ResponseMode,
    /// Interval of `: keep-alive` comments on idle SSE streams (default 15 s).
    pub keep_alive: Duration,
    /// How long shutdown waits for in-flight requests (default 30 s).
    pub shutdown_grace: Duration,
    /// Where legacy sessions live.
    pub sessions: Arc<dyn SessionStore>,
}

impl Default for HttpServerConfig {
    fn default() -> Self {
        HttpServerConfig {
            path: "/mcp".to_owned(),
            sse_path: "/sse".to_owned(),
            messages_path: "/messages".to_owned(),
            max_body: 4 * 1024 * 1024,
            hosts: HostPolicy::Auto,
            response_mode: ResponseMode::Auto,
            keep_alive: Duration::from_secs(15),
            shutdown_grace: Duration::from_secs(30),
            sessions: Arc::new(InMemorySessionStore::default()),
        }
    }
}

/// Shared by every handler.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) engine: Arc<ServerEngine>,
    pub(crate) config: HttpServerConfig,
    pub(crate) guard: guard::Guard,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Set when the shutdown grace has run out: calls still running stop.
    pub(crate) hard_stop: watch::Receiver<bool>,
}

impl State {
    /// True when the 2024-11-05 transport is served (its version is configured).
    pub(crate) fn serves_2024(&self) -> bool {
        self.engine.config().versions.contains(&crate::ProtocolVersion::V2024_11_05)
    }

    /// Runs a call unless the shutdown grace runs out first; then it answers "shutting down".
    pub(crate) fn call(
        &self,
        call: Box<crate::engine::PendingCall>,
        sink: crate::registry::NotificationSink,
        peer: Option<crate::input::Peer>,
    ) -> impl std::future::Future<Output = (crate::jsonrpc::RequestId, crate::jsonrpc::Response)> + Send + 'static
    {
        let id = call.id.clone();
        let run = crate::server::run_call(self.engine.clone(), call, sink, peer);
        let mut stop = self.hard_stop.clone();
        async move {
            tokio::select! {
                out = run => out,
                _ = stop.wait_for(|s| *s) => {
                    let e = crate::ErrorData::internal("Internal error: the server shut down before the call finished");
                    (id.clone(), crate::jsonrpc::Response::error(Some(id), e))
                }
            }
        }
    }

    /// Completes when shutdown begins.
    pub(crate) async fn shutting_down(&self) {
        let mut rx = self.shutdown.clone();
        let _ = rx.wait_for(|down| *down).await;
    }
}

/// A running HTTP server. Its methods take `&self`, so one task can `wait` while another
/// calls `shutdown`.
#[derive(Debug)]
pub struct HttpServing {
    local_addr: SocketAddr,
    path: String,
    shutdown: watch::Sender<bool>,
    hard_stop: watch::Sender<bool>,
    grace: Duration,
    /// `Some(outcome)` once the server task ended.
    done: watch::Receiver<Option<std::result::Result<(), String>>>,
    abort: tokio::task::AbortHandle,
}

impl HttpServing {
    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Stops accepting, ends open streams, lets in-flight requests finish within the grace
    /// period, then stops the rest. Calling it again (or concurrently) is harmless.
    pub async fn shutdown(&self) -> Result<()> {
        let _ = self.shutdown.send(true);
        if tokio::time::timeout(self.grace, self.wait()).await.is_err() {
            // Connections run as their own tasks: stop their calls, then the acceptor.
            let _ = self.hard_stop.send(true);
            let _ = tokio::time::timeout(Duration::from_secs(1), self.wait()).await;
            self.abort.abort();
        }
        Ok(())
    }

    /// Serves until SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully: what a server
    /// process does.
    pub async fn shutdown_on_signal(&self) -> Result<()> {
        stop_signal().await;
        self.shutdown().await
    }

    /// Completes when the server has stopped (after [`HttpServing::shutdown`], or an I/O error).
    pub async fn wait(&self) -> Result<()> {
        let mut done = self.done.clone();
        let outcome = match done.wait_for(Option::is_some).await {
            Ok(v) => v.clone().expect("checked"),
            Err(_) => Err("the HTTP server task vanished".to_owned()),
        };
        outcome.map_err(|e| Error::new(ErrorKind::Io, e))
    }
}

/// Completes on SIGINT or (on Unix) SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Binds `addr` and serves `engine` over HTTP until shut down.
pub async fn serve(
    engine: Arc<ServerEngine>,
    addr: SocketAddr,
    config: HttpServerConfig,
) -> Result<HttpServing> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot listen on {addr}: {e}")))?;
    let local_addr = listener.local_addr().map_err(|e| Error::new(ErrorKind::Io, e.to_string()))?;
    let (shutdown, shutdown_rx) = watch::channel(false);
    let (hard_stop, hard_stop_rx) = watch::channel(false);
    let path = config.path.clone();
    let grace = config.shutdown_grace;
    let state = Arc::new(State {
        engine,
        guard: guard::Guard::new(&config.hosts, local_addr),
        config,
        shutdown: shutdown_rx.clone(),
        hard_stop: hard_stop_rx,
    });
    let router = axum::Router::new()
        .route(&state.config.path, post(streamable::post).get(streamable::get).delete(streamable::delete))
        .route(&state.config.sse_path, get(legacy_sse::get))
        .route(&state.config.messages_path, post(legacy_sse::post))
        .with_state(state);
    let mut signal = shutdown_rx;
    let (done_tx, done) = watch::channel(None);
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = signal.wait_for(|down| *down).await;
            })
            .await;
        let _ = done_tx.send(Some(served.map_err(|e| format!("HTTP server failed: {e}"))));
    });
    let abort = task.abort_handle();
    Ok(HttpServing { local_addr, path, shutdown, hard_stop, grace, done, abort })
}
