//! `Server` and `HttpServing`: serve a registry on stdio or HTTP.

use crate::registry::Registry;
use crate::resources::{Prompts, Resources};
use crate::server_auth::ServerAuth;
use crate::{bad_option, errors};
use mcpcore::engine::ServerConfig;
use mcpcore::host::Spelling;
use napi_derive::napi;
use std::sync::Arc;

/// Options of `Server.serveHttp` (every field optional; read and checked by the core,
/// `mcpcore::server::Server::http_settings`).
#[napi(object)]
#[derive(Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServeHttpOptions {
    /// The IP address to bind (default `127.0.0.1`).
    pub host: Option<String>,
    /// The port (default 0: a free port).
    pub port: Option<u32>,
    /// The endpoint path (default `/mcp`).
    pub path: Option<String>,
    /// `auto` (default: SSE only when a tool sends progress first), `json` or `sse`.
    pub response_mode: Option<String>,
    /// Serve on this Unix domain socket instead of `host`/`port` (mode `unixMode`, default
    /// 0o600; the URL is then `http+unix://…`, which `Client.connectHttp` takes).
    pub unix: Option<String>,
    /// The socket file's permission bits (default 0o600).
    pub unix_mode: Option<u32>,
    /// The largest accepted body in bytes (default 4 MiB).
    pub max_body: Option<u32>,
    /// The most bytes of request bodies being received at once, all connections together
    /// (default 64 MiB; past it: 503 with `Retry-After`).
    pub body_budget: Option<u32>,
    /// Accepted `Host` values; with `allowedOrigins`, replaces the loopback default.
    pub allowed_hosts: Option<Vec<String>>,
    /// Accepted `Origin` values.
    pub allowed_origins: Option<Vec<String>>,
    /// Accept any `Host`/`Origin` (for a listener behind a proxy that checks them).
    pub any_host: Option<bool>,
    /// How long `shutdown()` lets in-flight requests run, in ms (default 30000).
    pub shutdown_grace_ms: Option<u32>,
    /// How long a client may take to send a request head, in ms; also closes keep-alive
    /// connections idle that long (default 30000).
    pub header_timeout_ms: Option<u32>,
    /// How long a client may take to send a request body, in ms (default 30000; slower: 408).
    pub body_timeout_ms: Option<u32>,
    /// The most connections open at once (default 10000, or the open-file limit less 64);
    /// past it a new connection gets 503 with `Retry-After`.
    pub max_connections: Option<u32>,
    /// The most legacy sessions at once (default 10000); when full a new one ends an idle
    /// session (unused for `sessionIdleMs`), else the least recently used one of the client
    /// holding the most; all busy: 503 with `Retry-After`.
    pub max_sessions: Option<u32>,
    /// The most legacy sessions of one client (its token's subject, else its IP address;
    /// default 1000): past it its own least recently used idle one ends; all busy: 429.
    pub max_sessions_per_client: Option<u32>,
    /// How long a session must be unused before any new session may end it, in ms (60000).
    pub session_idle_ms: Option<u32>,
    /// Bytes waiting for one slow stream reader (default 8 MiB); further behind: disconnected.
    pub max_backlog: Option<u32>,
    /// Requests in flight per session or connection (default 1000); past it `-32603` with
    /// `data.limit` `"in_flight"` (HTTP 429).
    pub max_in_flight: Option<u32>,
    /// Running tasks per client (default 1000); past it an optional-task tool runs
    /// synchronously, a task-only tool gets `-32603`.
    pub max_tasks_per_client: Option<u32>,
    /// How long a legacy elicitation, sampling or roots request waits for the client, in ms
    /// (default 600000); then the handler gets a timeout error.
    pub peer_request_timeout_ms: Option<u32>,
    /// Encrypt `requestState` (XChaCha20-Poly1305), so clients cannot read handlers' state.
    pub state_encryption: Option<bool>,
    /// Accept each `requestState` once (in this process; instances behind one load balancer
    /// need a shared ledger).
    pub state_single_use: Option<bool>,
    /// HTTPS: the PEM certificate chain file to serve (with `tlsKeyFile`).
    pub tls_cert_file: Option<String>,
    /// HTTPS: its PEM key file.
    pub tls_key_file: Option<String>,
    /// HTTPS: require client certificates signed by the CAs in this PEM file (mutual TLS).
    pub tls_client_ca_file: Option<String>,
    /// Where legacy sessions live: `redis://HOST:PORT[/DB]`, shared by every instance behind
    /// one load balancer (default: in this process's memory). Needs `stateKeys`.
    pub store: Option<String>,
    /// The `requestState` keys (hex, at least 32 bytes each, newest first), the same on every
    /// instance; default: the environment variable `MCPCORE_STATE_KEY` (comma-separated).
    pub state_keys: Option<Vec<String>>,
}

fn options_json(o: ServeHttpOptions) -> napi::Result<String> {
    serde_json::to_string(&o).map_err(|e| bad_option("serveHttp options", "serializable", &e.to_string()))
}

/// An MCP server over a registry (both lineages, every revision).
#[napi]
pub struct Server {
    inner: mcpcore::server::Server,
    /// Set on the protected copy `withAuth` makes.
    auth: Option<mcpcore::auth::server::AuthConfig>,
}

impl Server {
    /// A server around a core one (a gateway's).
    pub(crate) fn from_core(inner: mcpcore::server::Server) -> Self {
        Server { inner, auth: None }
    }
}

#[napi]
impl Server {
    /// A server named `name`/`version` serving `registry`.
    #[napi(constructor)]
    pub fn new(registry: &Registry, name: String, version: String, instructions: Option<String>) -> Self {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        Server { inner: mcpcore::server::Server::new(config, registry.tools.clone()), auth: None }
    }

    /// Serves `resources` too (`resources/*`, subscriptions, completion; the capability is
    /// declared). Call before serving: a running listener keeps what it started with.
    #[napi]
    pub fn with_resources(&mut self, resources: &Resources) {
        self.inner = self.inner.clone().with_resources(resources.inner.clone());
    }

    /// Shows only the tool search's pinned tools and `search_tools` in `tools/list` (every tool
    /// stays callable). Call before serving.
    #[napi]
    pub fn with_tool_search(&mut self, search: &crate::registry::ToolSearch) {
        let search = search.inner.clone();
        self.inner = self.inner.clone().configure(|c| c.tool_search = Some(search));
    }

    /// Runs every dispatched request through `middleware` (its chain as it is now). Call
    /// before serving.
    #[napi]
    pub fn with_middleware(&mut self, middleware: &crate::middleware::Middleware) {
        let chain = middleware.chain();
        self.inner = self.inner.clone().configure(|c| c.middleware = chain);
    }

    /// Serves `skills` too (the Skills extension; their files are resources of the
    /// `Resources` they were made over, which this server must serve). Call before serving.
    #[napi]
    pub fn with_skills(&mut self, skills: &crate::skills::Skills) {
        self.inner = self.inner.clone().with_skills(skills.inner.clone());
    }

    /// Serves the event types of `events` too (the Events extension). Call before serving.
    #[napi]
    pub fn with_events(&mut self, events: &crate::events::Events) {
        self.inner = self.inner.clone().with_events(events.inner.clone());
    }

    /// Serves `prompts` too (`prompts/*`, completion; the capability is declared). Call before
    /// serving.
    #[napi]
    pub fn with_prompts(&mut self, prompts: &Prompts) {
        self.inner = self.inner.clone().with_prompts(prompts.inner.clone());
    }

    /// A copy of this server (as it is now) whose `serveHttp` requires what `auth` says: an
    /// OAuth resource server (what `serveHttp({ auth })` uses); its `serveStdio` reads the
    /// caller's token from the environment (`MCP_ACCESS_TOKEN`) and checks it the same way.
    #[napi]
    pub fn with_auth(&self, auth: &ServerAuth) -> Server {
        Server { inner: self.inner.clone(), auth: Some(auth.config.clone()) }
    }

    /// Opens a stdio connection that JS feeds with what it reads from stdin (what
    /// `Server.serveStdio` does): frames are served on the JS thread, handlers that answer at
    /// once are called in place. A protected server (`withAuth`) checks `MCP_ACCESS_TOKEN` first.
    ///
    /// `wake` is called (on the JS thread) when calls that wait are ready to go on: it must
    /// call the connection's `runReady()`.
    #[napi(ts_args_type = "wake: () => void")]
    pub async fn open_stdio(
        &self,
        wake: crate::local::WakeJs,
    ) -> napi::Result<crate::stdio::StdioConnection> {
        let origin = match &self.auth {
            Some(auth) => {
                let token = std::env::var(mcpcore::auth::server::TOKEN_ENV).ok();
                auth.stdio_origin(token.as_deref()).await.map_err(errors::to_js)?
            }
            None => mcpcore::context::Origin::none(),
        };
        Ok(crate::stdio::StdioConnection::open(&self.inner, origin, wake))
    }

    /// Starts serving HTTP (both lineages on `path`, 2024-11-05 SSE on `/sse`); resolves to an
    /// `HttpServing` once bound.
    #[napi]
    pub async fn serve_http(&self, options: Option<ServeHttpOptions>) -> napi::Result<HttpServing> {
        let json = options_json(options.unwrap_or_default())?;
        let (server, addr, mut config) =
            self.inner.http_settings(&json, Spelling::Camel).map_err(errors::to_js)?;
        config.auth = self.auth.clone();
        let serving = server.serve_http(addr, config).await.map_err(errors::to_js)?;
        Ok(HttpServing { inner: Arc::new(serving) })
    }

    /// The endpoint served in process, for a handler in Node's own HTTP server
    /// (`nodeHandler()`, `fetchHandler()`): `options` as for `serveHttp` (host, port and TLS
    /// unused), its paths under `prefix` when given.
    #[napi]
    pub fn mount(
        &self,
        options: Option<ServeHttpOptions>,
        prefix: Option<String>,
    ) -> napi::Result<crate::mount::Mount> {
        let json = options_json(options.unwrap_or_default())?;
        // A Redis store starts its connection tasks on the runtime.
        let (server, _addr, mut config) = napi::bindgen_prelude::within_runtime_if_available(|| {
            self.inner.http_settings(&json, Spelling::Camel)
        })
        .map_err(errors::to_js)?;
        config.auth = self.auth.clone();
        let config = config.mounted_at(prefix.as_deref().unwrap_or(""));
        let inner = mcpcore::http::server::InProcess::new(server.env(), config);
        Ok(crate::mount::Mount { inner: Arc::new(inner) })
    }
}

/// A running HTTP server.
#[napi]
pub struct HttpServing {
    inner: Arc<mcpcore::http::server::HttpServing>,
}

#[napi]
impl HttpServing {
    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    #[napi(getter)]
    pub fn url(&self) -> String {
        self.inner.url()
    }

    /// The bound port.
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        self.inner.local_addr().port().into()
    }

    /// Stops gracefully: in-flight requests finish within the grace period.
    #[napi]
    pub async fn shutdown(&self) -> napi::Result<()> {
        self.inner.shutdown().await.map_err(errors::to_js)
    }

    /// Resolves when the server has stopped.
    #[napi]
    pub async fn wait(&self) -> napi::Result<()> {
        self.inner.wait().await.map_err(errors::to_js)
    }
}
