//! The HTTP server: one endpoint (default `/mcp`) serving both lineages, chosen per request, plus
//! the 2024-11-05 HTTP+SSE transport.
//!
//! - Modern (`_meta` names 2026-07-28; 2026-07-28 basic/transports/streamable-http): stateless
//!   POSTs; headers checked against the body (`-32020`); JSON or SSE answers; closing the
//!   stream cancels.
//! - Legacy Streamable HTTP (2025-03-26 … 2025-11-25 basic/transports): `initialize` mints
//!   `Mcp-Session-Id`; later requests must carry it (404 for an unknown one); GET opens the
//!   server→client stream; DELETE ends the session. Session records live in a
//!   [`SessionStore`] (in memory by default), so several instances can share them.
//! - 2024-11-05 (basic/transports of that revision): GET on the SSE path (or GET on the
//!   endpoint without a session) sends the `endpoint` event; POSTs there are answered on the
//!   stream.
//!
//! - Authorization ([`HttpServerConfig::auth`], 2025-11-25 / 2026-07-28 basic/authorization):
//!   the routes above behind a bearer-token gate (`auth.rs`), the Protected Resource Metadata
//!   at its well-known paths, each caller's own catalogue; see [`crate::auth::server`].
//!
//! [`router`] gives the endpoint as an `axum::Router` to mount in a host's own app (at any
//! path, under any tower layers); [`serve_http`] binds a socket and serves it (`listen.rs`:
//! hyper with a head-read and idle timeout and a cap on open connections).
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

mod auth;
mod budget;
pub mod card;
mod conns;
mod guard;
mod inproc;
mod legacy;
mod legacy_sse;
mod listen;
mod live;
mod modern;
mod options;
mod origin;
mod replay;
mod reply;
mod stream;
mod streamable;

pub use crate::session::{
    InMemorySessionStore, MemorySessionStore, SessionKind, SessionRecord, SessionStore,
};
pub use guard::HostPolicy;
pub use inproc::{BodyReader, InProcess, InProcessResponse};
pub use options::{limit_options, serve_settings, ServeSettings, ServerLimits, LIMIT_NAMES};

use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Env;
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
    /// The longest a client may take to send a request body (default 30 s); a slower one gets
    /// `408 Request Timeout`.
    pub body_timeout: Duration,
    /// The most bytes of request bodies being received at once, across every connection
    /// (default 64 MiB): a body that would pass it gets `503 Service Unavailable` with
    /// `Retry-After: 1` (a `-32603` error, `data.limit` `"body_budget"`), so connections that
    /// stall their bodies cannot make the server hold `max_body` each.
    pub body_budget: usize,
    /// The longest a client may take to send a request head, counted from when its connection
    /// is ready for a request: it also closes keep-alive connections left idle that long
    /// (default 30 s). Applies to [`serve_http`]; a host serving [`router`] itself sets its own.
    pub header_timeout: Duration,
    /// The most connections [`serve_http`] keeps open at once (default 10,000, or fewer when
    /// the process's open-file limit is lower: that limit less 64). At the cap (or out of file
    /// descriptors) the oldest idle connection (no request being served: none sent yet, or
    /// waiting between keep-alive requests) is closed to admit a new one; when every open
    /// connection is serving a request, a new one is answered `503 Service Unavailable` with
    /// `Retry-After: 1` and closed.
    pub max_connections: usize,
    /// DNS-rebinding protection.
    pub hosts: HostPolicy,
    /// JSON or SSE answers.
    pub response_mode: ResponseMode,
    /// Interval of `: keep-alive` comments on idle SSE streams (default 15 s).
    pub keep_alive: Duration,
    /// How long shutdown waits for in-flight requests (default 30 s).
    pub shutdown_grace: Duration,
    /// Where legacy sessions live (default: in memory, bounded, idle ones expire).
    pub sessions: Arc<dyn SessionStore>,
    /// The most legacy sessions live on this endpoint (default 10,000). When full, a new
    /// session ends the least recently used one unused for `session_idle`, else the least
    /// recently used one of the client holding the most sessions; a session serving a request
    /// or holding an open stream is never ended. When every session is busy: 503 with
    /// `Retry-After`.
    pub max_sessions: usize,
    /// The most legacy sessions one client holds (default 1,000; a client is its token's
    /// subject when authorization is on, else its IP address, see
    /// [`Origin::client_key`](crate::context::Origin::client_key)). A client at its quota has
    /// its own least recently used idle session ended for a new one; when all of them are
    /// busy it gets 429 with `Retry-After`.
    pub max_sessions_per_client: usize,
    /// How long a legacy session must be unused (no request in flight, no open stream) before
    /// any new session may end it (default 60 s).
    pub session_idle: Duration,
    /// The most bytes of messages waiting for one slow reader: a server→client SSE stream or
    /// a streamed POST response (default 8 MiB; one message larger than that still goes when
    /// nothing waits before it). A reader that falls further behind is disconnected and what
    /// waited for it dropped, so a client that does not read cannot make the server hold
    /// its replies.
    pub max_backlog: usize,
    /// Authorization: when set, every request to the endpoint needs a bearer token the
    /// config's verifier accepts, each caller sees its own catalogue, and the Protected
    /// Resource Metadata is served (see [`crate::auth::server`]). Default: none.
    pub auth: Option<crate::auth::server::AuthConfig>,
    /// HTTPS: the certificate and key [`serve_http`] presents (default: none, plain HTTP).
    pub tls: Option<crate::tls::ServerTls>,
    /// Serve on this Unix domain socket instead of the address given to [`serve_http`] (see
    /// [`serve_http_unix`]; what the bindings' `unix=PATH` sets). Default: none.
    pub unix_socket: Option<UnixSocket>,
}

/// A Unix domain socket to serve on: its path and the file's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnixSocket {
    /// The socket file's path.
    pub path: std::path::PathBuf,
    /// Its permission bits (default `0o600`: only this user may connect).
    pub mode: u32,
}

impl Default for HttpServerConfig {
    fn default() -> Self {
        HttpServerConfig {
            path: "/mcp".to_owned(),
            sse_path: "/sse".to_owned(),
            messages_path: "/messages".to_owned(),
            max_body: 4 * 1024 * 1024,
            body_timeout: Duration::from_secs(30),
            body_budget: 64 * 1024 * 1024,
            header_timeout: Duration::from_secs(30),
            max_connections: listen::default_max_connections(),
            hosts: HostPolicy::Auto,
            response_mode: ResponseMode::Auto,
            keep_alive: Duration::from_secs(15),
            shutdown_grace: Duration::from_secs(30),
            sessions: Arc::new(MemorySessionStore::default()),
            max_sessions: 10_000,
            max_sessions_per_client: 1_000,
            session_idle: Duration::from_secs(60),
            max_backlog: 8 * 1024 * 1024,
            auth: None,
            tls: None,
            unix_socket: None,
        }
    }
}

impl HttpServerConfig {
    /// Serves the endpoint at `prefix` itself (`{prefix}/`), the 2024-11-05 transport at
    /// `{prefix}/sse` and `{prefix}/messages`: what an app mounted under `prefix` by its host
    /// framework (Starlette's `app.mount("/mcp", ...)`, Express's `app.use("/mcp", ...)`)
    /// answers. An empty prefix changes nothing.
    pub fn mounted_at(mut self, prefix: &str) -> Self {
        let prefix = prefix.trim_end_matches('/');
        if !prefix.is_empty() {
            self.path = format!("{prefix}/");
            self.sse_path = format!("{prefix}/sse");
            self.messages_path = format!("{prefix}/messages");
        }
        self
    }
}

/// Shared by every handler of one endpoint.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) env: Arc<Env>,
    pub(crate) config: HttpServerConfig,
    pub(crate) guard: guard::Guard,
    /// The bytes of request bodies being received, across every connection.
    pub(crate) bodies: budget::BodyBudget,
    pub(crate) sessions: live::Sessions,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Set when the shutdown grace has run out: calls still running stop.
    pub(crate) hard_stop: watch::Receiver<bool>,
    /// The switches of a [`router`] nobody controls: kept as long as the routes.
    kept: std::sync::Mutex<Vec<watch::Sender<bool>>>,
}

impl State {
    /// True when the 2024-11-05 transport is served (its version is configured).
    pub(crate) fn serves_2024(&self) -> bool {
        self.env.engine.config().versions.contains(&crate::ProtocolVersion::V2024_11_05)
    }

    /// Completes when shutdown begins.
    pub(crate) async fn shutting_down(&self) {
        let mut rx = self.shutdown.clone();
        let _ = rx.wait_for(|down| *down).await;
    }
}

/// The MCP endpoint of one server as an axum app, and the switches that stop it.
#[derive(Debug)]
pub struct HttpEndpoint {
    state: Arc<State>,
    shutdown: watch::Sender<bool>,
    hard_stop: watch::Sender<bool>,
}

impl HttpEndpoint {
    /// The endpoint of a server (its [`Env`], from [`crate::server::Server::env`]) with
    /// `config`. `local` is the address it is served on, when known (the [`HostPolicy::Auto`]
    /// guard accepts that address's loopback names).
    pub fn new(env: Arc<Env>, config: HttpServerConfig, local: Option<SocketAddr>) -> Self {
        let (shutdown, shutdown_rx) = watch::channel(false);
        let (hard_stop, hard_stop_rx) = watch::channel(false);
        if tokio::runtime::Handle::try_current().is_ok() {
            env.start_fanout();
        }
        let state = Arc::new(State {
            env,
            guard: guard::Guard::new(&config.hosts, local),
            bodies: budget::BodyBudget::new(config.body_budget),
            config,
            sessions: live::Sessions::default(),
            shutdown: shutdown_rx,
            hard_stop: hard_stop_rx,
            kept: std::sync::Mutex::default(),
        });
        HttpEndpoint { state, shutdown, hard_stop }
    }

    /// The routes: the endpoint path (POST, GET, DELETE), the 2024-11-05 SSE and messages paths;
    /// with [`HttpServerConfig::auth`], behind the token check, plus the Protected Resource
    /// Metadata at its well-known paths (derived from the resource URI: mount the router at
    /// the root of the host, or serve those paths yourself).
    /// Mount it anywhere in a host app (`Router::nest`, `merge`) and wrap it in tower layers.
    pub fn router(&self) -> axum::Router {
        let c = &self.state.config;
        let mcp = axum::Router::new()
            .route(&c.path, post(streamable::post).get(streamable::get).delete(streamable::delete))
            .route(&c.sse_path, get(legacy_sse::get))
            .route(&c.messages_path, post(legacy_sse::post))
            .with_state(self.state.clone());
        // The Server Card and the AI Catalog naming it: public, outside the authorization gate
        // (SEP-2127).
        let card = axum::Router::new()
            .route(
                &format!("{}{}", c.path.trim_end_matches('/'), card::SUFFIX),
                get(card::get).options(card::preflight),
            )
            .route(card::CATALOG_PATH, get(card::catalog).options(card::preflight))
            .route(card::CATALOG_PATH_MCP, get(card::catalog).options(card::preflight))
            .with_state(self.state.clone());
        let Some(config) = &c.auth else { return mcp.merge(card) };
        let gate = auth::Gate::new(config.clone(), self.state.clone());
        let mut prm = axum::Router::new();
        for path in config.metadata_paths() {
            prm = prm.route(&path, get(auth::metadata));
        }
        mcp.route_layer(axum::middleware::from_fn_with_state(gate.clone(), auth::gate))
            .merge(prm.with_state(gate))
            .merge(card)
    }

    /// Begins shutdown: open streams end, legacy sessions let their in-flight calls finish
    /// within the grace period.
    pub fn begin_shutdown(&self) {
        let _ = self.shutdown.send(true);
        for s in self.state.sessions.all() {
            s.close();
        }
    }

    /// Stops the calls still running (after the grace period).
    pub fn stop_calls(&self) {
        let _ = self.hard_stop.send(true);
        for s in self.state.sessions.all() {
            s.terminate();
        }
    }

    /// How many legacy sessions are live on this process.
    pub fn live_sessions(&self) -> usize {
        self.state.sessions.all().len()
    }
}

/// The MCP endpoint of a server (its [`Env`]) as an axum `Router`, to mount in a host's own
/// app; [`crate::server::Server::router`] is the usual way to get it:
///
/// ```no_run
/// use mcpcore::{engine::ServerConfig, registry::ToolRegistry, server::Server};
/// use mcpcore::http::server::HttpServerConfig;
/// let server = Server::new(ServerConfig::new("demo", "1.0"), std::sync::Arc::new(ToolRegistry::new()));
/// let app = axum::Router::new().nest("/api", server.router(HttpServerConfig::default()));
/// // serve `app` with axum::serve: the MCP endpoint is /api/mcp
/// ```
///
/// Use [`HttpEndpoint`] to also control its shutdown.
pub fn router(env: Arc<Env>, config: HttpServerConfig) -> axum::Router {
    let endpoint = HttpEndpoint::new(env, config, None);
    let router = endpoint.router();
    // The switches live as long as the routes: nothing ends the streams but the host.
    let HttpEndpoint { state, shutdown, hard_stop } = endpoint;
    state.kept.lock().expect("lock").extend([shutdown, hard_stop]);
    router
}

/// A running HTTP server. Its methods take `&self`, so one task can `wait` while another
/// calls `shutdown`.
#[derive(Debug)]
pub struct HttpServing {
    local_addr: SocketAddr,
    /// Served on this Unix domain socket (removed at shutdown) instead of `local_addr`.
    unix: Option<std::path::PathBuf>,
    scheme: &'static str,
    path: String,
    endpoint: HttpEndpoint,
    accepting: watch::Sender<bool>,
    grace: Duration,
    /// `Some(outcome)` once the server task ended.
    done: watch::Receiver<Option<std::result::Result<(), String>>>,
    abort: tokio::task::AbortHandle,
}

impl HttpServing {
    /// The bound address (useful after binding port 0); `0.0.0.0:0` on a Unix socket.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The Unix domain socket served, when served on one ([`serve_http_unix`]).
    pub fn unix_path(&self) -> Option<&std::path::Path> {
        self.unix.as_deref()
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp` (`https://` when serving TLS); on a
    /// Unix socket `http+unix://%2Frun%2Fmcp.sock/mcp` (the socket's path percent-encoded as
    /// the authority), which [`crate::client::Client::connect_http`] and the CLI take.
    pub fn url(&self) -> String {
        match &self.unix {
            Some(p) => crate::transport::url::unix_url(p, &self.path),
            None => format!("{}://{}{}", self.scheme, self.local_addr, self.path),
        }
    }

    /// Stops accepting, ends open streams, lets in-flight requests finish within the grace
    /// period, then stops the rest. Calling it again (or concurrently) is harmless.
    pub async fn shutdown(&self) -> Result<()> {
        let _ = self.accepting.send(true);
        if let Some(p) = &self.unix {
            let _ = std::fs::remove_file(p);
        }
        self.endpoint.begin_shutdown();
        if tokio::time::timeout(self.grace, self.wait()).await.is_err() {
            // Connections run as their own tasks: stop their calls, then the acceptor.
            self.endpoint.stop_calls();
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

/// Binds `addr` (or [`HttpServerConfig::unix_socket`] when set) and serves a server (its
/// [`Env`]) over HTTP until shut down.
pub async fn serve_http(
    env: Arc<Env>,
    addr: SocketAddr,
    mut config: HttpServerConfig,
) -> Result<HttpServing> {
    if let Some(socket) = config.unix_socket.take() {
        #[cfg(unix)]
        return serve_http_unix(env, &socket.path, socket.mode, config).await;
        #[cfg(not(unix))]
        return Err(Error::invalid_input(format!(
            "cannot serve on the Unix socket {}: not a Unix platform",
            socket.path.display()
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot listen on {addr}: {e}")))?;
    let local_addr = listener.local_addr().map_err(|e| Error::new(ErrorKind::Io, e.to_string()))?;
    Ok(start(env, listener, local_addr, None, config))
}

/// Serves a server (its [`Env`]) over HTTP on the Unix domain socket `path`, the same endpoint
/// as [`serve_http`] (both lineages, the 2024-11-05 transport, every limit and check; a
/// request's `Host` is typically `localhost`). The socket file gets `mode` (e.g. `0o600`, the
/// default of the bindings: only this user may connect). A file already at `path` is replaced
/// only when it is a socket nothing listens on; the file is removed at shutdown. What the
/// transports working group recommends for "HTTP over stdio": the Streamable HTTP code, unchanged.
#[cfg(unix)]
pub async fn serve_http_unix(
    env: Arc<Env>,
    path: &std::path::Path,
    mode: u32,
    config: HttpServerConfig,
) -> Result<HttpServing> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let io =
        |what: &str, e: std::io::Error| Error::new(ErrorKind::Io, format!("{what} {}: {e}", path.display()));
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(Error::new(ErrorKind::Io, format!("{} exists and is not a socket", path.display())));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(Error::new(
                ErrorKind::Io,
                format!("{} is in use: a server listens on it", path.display()),
            ));
        }
        std::fs::remove_file(path).map_err(|e| io("cannot remove the stale socket", e))?;
    }
    let listener = tokio::net::UnixListener::bind(path).map_err(|e| io("cannot listen on", e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| io("cannot set the mode of", e))?;
    let unspecified = SocketAddr::from(([0, 0, 0, 0], 0));
    Ok(start(env, listener, unspecified, Some(path.to_owned()), config))
}

/// Starts serving on `listener` (bound to `local_addr`, or the Unix socket `unix`).
fn start<L: listen::Listener>(
    env: Arc<Env>,
    listener: L,
    local_addr: SocketAddr,
    unix: Option<std::path::PathBuf>,
    config: HttpServerConfig,
) -> HttpServing {
    let path = config.path.clone();
    let grace = config.shutdown_grace;
    let limits = listen::ConnLimits {
        header_timeout: config.header_timeout,
        max_connections: config.max_connections,
        tls: config.tls.as_ref().map(|t| tokio_rustls::TlsAcceptor::from(t.config.clone())),
    };
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    let endpoint = HttpEndpoint::new(env, config, unix.is_none().then_some(local_addr));
    let router = endpoint.router();
    let (accepting, signal) = watch::channel(false);
    let (done_tx, done) = watch::channel(None);
    let task = tokio::spawn(async move {
        let served = listen::run(listener, router, limits, signal).await;
        let _ = done_tx.send(Some(served.map_err(|e| format!("HTTP server failed: {e}"))));
    });
    let abort = task.abort_handle();
    HttpServing { local_addr, unix, scheme, path, endpoint, accepting, grace, done, abort }
}
