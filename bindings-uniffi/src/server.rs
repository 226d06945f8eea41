//! [`Server`] serves a [`Registry`] (and [`Resources`], [`Prompts`]) on stdio or HTTP (both lineages on one endpoint);
//! [`HttpServing`] is the handle of a running HTTP server, which stops it when closed or dropped.

use crate::catalog::{Prompts, Resources};
use crate::errors::McpError;
use crate::registry::Registry;
use crate::rt;
use crate::server_auth::ServerAuth;
use mcpcore::engine::ServerConfig;
use mcpcore::host::Spelling;
use mcpcore::server::middleware::{Idempotency, ListCache, RateLimit, RequestLog, ResponseLimit, Timeouts};
use std::sync::Arc;
use std::time::Duration;

/// An MCP server over a registry: every revision of both lineages, on stdio or HTTP.
#[derive(uniffi::Object)]
pub struct Server {
    inner: mcpcore::server::Server,
}

impl Server {
    /// A server around a core one (a gateway's).
    pub(crate) fn from_core(inner: mcpcore::server::Server) -> Arc<Self> {
        Arc::new(Server { inner })
    }

    /// A copy with `middleware` innermost in its chain.
    fn with(&self, middleware: Arc<dyn mcpcore::middleware::Middleware>) -> Arc<Self> {
        let inner = self.inner.clone().configure(|c| c.middleware = c.middleware.with(middleware));
        Arc::new(Server { inner })
    }
}

#[uniffi::export]
impl Server {
    /// A server named `name`/`version` serving the tools of `registry` (tools added later are
    /// served too), with optional `instructions` for the model, and `resources`, `prompts` and
    /// `skills` when given (their capabilities, and completion, are then declared; `skills`
    /// must be over `resources`).
    #[uniffi::constructor(default(instructions = None, resources = None, prompts = None, skills = None))]
    pub fn new(
        registry: Arc<Registry>,
        name: String,
        version: String,
        instructions: Option<String>,
        resources: Option<Arc<Resources>>,
        prompts: Option<Arc<Prompts>>,
        skills: Option<Arc<crate::skills::Skills>>,
    ) -> Arc<Self> {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        let mut inner = mcpcore::server::Server::new(config, registry.tools.clone());
        if let Some(r) = resources {
            inner = inner.with_resources(r.inner.clone());
        }
        if let Some(p) = prompts {
            inner = inner.with_prompts(p.inner.clone());
        }
        if let Some(s) = skills {
            inner = inner.with_skills(s.inner.clone());
        }
        Arc::new(Server { inner })
    }

    /// This server serving the event types of `events` (the Events extension: `events/list`,
    /// `events/poll`, `events/stream`, and webhooks for types that offer them). Configure
    /// before serving; declare and emit through `events` at any time.
    pub fn with_events(&self, events: Arc<crate::events::Events>) -> Arc<Self> {
        Arc::new(Server { inner: self.inner.clone().with_events(events.inner.clone()) })
    }

    /// This server in tool search mode: `tools/list` shows only the `pinned` tools and
    /// `search_tools`, which ranks every tool for a query (BM25 over names, descriptions and
    /// argument names; `regex: true` for a regular expression); every tool stays callable by
    /// name. Configure before serving.
    pub fn with_tool_search(&self, pinned: Vec<String>) -> Result<Arc<Self>, McpError> {
        let search = mcpcore::registry::search::ToolSearch::install(self.inner.engine().registry(), pinned)?;
        let inner = self.inner.clone().configure(|c| c.tool_search = Some(search));
        Ok(Arc::new(Server { inner }))
    }

    /// This server with `middleware` around every dispatched request, inside the middleware
    /// added before. Configure before serving.
    pub fn with_middleware(&self, middleware: Arc<dyn crate::middleware::Middleware>) -> Arc<Self> {
        let host =
            mcpcore::host::HostMiddleware::new(Arc::new(crate::middleware::ForeignMiddleware(middleware)));
        self.with(Arc::new(host))
    }

    /// This server with `middleware` outermost, told of legacy sessions ending too (the
    /// pseudo-request `mcpcore/sessionEnded`, params `{seconds, attributes}`): what
    /// `Server.withTelemetry` (Kotlin, OpenTelemetry) installs.
    pub fn with_telemetry_middleware(&self, middleware: Arc<dyn crate::middleware::Middleware>) -> Arc<Self> {
        let host =
            mcpcore::host::HostMiddleware::new(Arc::new(crate::middleware::ForeignMiddleware(middleware)))
                .with_session_events();
        let host: Arc<dyn mcpcore::middleware::Middleware> = Arc::new(host);
        let inner = self.inner.clone().configure(|c| c.middleware = c.middleware.with_outermost(host));
        Arc::new(Server { inner })
    }

    /// This server with a rate limit per client (ready-made middleware): `burst` requests at
    /// once, refilled at `per_second`; only `methods` when given; the buckets in the Redis at
    /// `store` (shared by instances) or in memory. One more is `-32603` with `data`
    /// `{limit: "rate", max, retryAfter}` (HTTP 429 with `Retry-After`).
    #[uniffi::method(default(methods = None, store = None))]
    pub fn with_rate_limit(
        &self,
        per_second: f64,
        burst: u32,
        methods: Option<Vec<String>>,
        store: Option<String>,
    ) -> Result<Arc<Self>, McpError> {
        let _runtime = rt::runtime().enter();
        let limit = RateLimit::with_options(per_second, burst, methods, store.as_deref())?;
        Ok(self.with(Arc::new(limit)))
    }

    /// This server with timeouts for tools (ready-made middleware): `default_ms` for every
    /// tool, `per_tool_ms` by name; a call over it is cancelled and answered `-32001`.
    #[uniffi::method(default(default_ms = None, per_tool_ms = None))]
    pub fn with_timeouts(
        &self,
        default_ms: Option<u64>,
        per_tool_ms: Option<std::collections::HashMap<String, u64>>,
    ) -> Result<Arc<Self>, McpError> {
        let ms = |what: &str, v: u64| match v {
            0 => Err(McpError::invalid(format!("{what} must be positive"))),
            v => Ok(Duration::from_millis(v)),
        };
        let mut t = match default_ms {
            Some(v) => Timeouts::new(ms("default_ms", v)?),
            None => Timeouts::per_tool(),
        };
        for (tool, v) in per_tool_ms.unwrap_or_default() {
            let limit = ms(&format!("the timeout of {tool}"), v)?;
            t = t.tool(tool, limit);
        }
        Ok(self.with(Arc::new(t)))
    }

    /// This server refusing results over `max_bytes` (ready-made middleware): `-32603` with
    /// `data` `{limit: "response_size", size, max}`.
    pub fn with_response_limit(&self, max_bytes: u64) -> Arc<Self> {
        self.with(Arc::new(ResponseLimit::new(max_bytes as usize)))
    }

    /// This server answering repeated list pages from memory (ready-made middleware): each
    /// kept for its own `ttlMs` hint (legacy results: `ttl_ms`), never with `ttlMs: 0`, per
    /// caller when private or per identity, emptied by any list change; at most `max_entries`.
    pub fn with_list_cache(&self, ttl_ms: u64, max_entries: u64) -> Arc<Self> {
        self.with(Arc::new(ListCache::new(std::time::Duration::from_millis(ttl_ms), max_entries as usize)))
    }

    /// This server logging each request when answered (ready-made middleware; the engine's
    /// log records, target `mcpcore::requests`).
    pub fn with_request_log(&self) -> Arc<Self> {
        self.with(Arc::new(RequestLog))
    }

    /// This server with idempotent writes (ready-made middleware): tool calls carrying
    /// `idempotency_key` act once per client, tool and key; keys kept `ttl_ms`, a running
    /// call's claim lapsing after `lease_ms`; in the Redis at `store` (shared by instances) or
    /// in memory.
    #[uniffi::method(default(ttl_ms = 86400000, lease_ms = 300000, store = None))]
    pub fn with_idempotency(
        &self,
        ttl_ms: u64,
        lease_ms: u64,
        store: Option<String>,
    ) -> Result<Arc<Self>, McpError> {
        let _runtime = rt::runtime().enter();
        let m = Idempotency::with_options(
            Duration::from_millis(ttl_ms),
            Duration::from_millis(lease_ms),
            store.as_deref(),
        )?;
        Ok(self.with(Arc::new(m)))
    }

    /// Serves on this process's stdin/stdout until stdin closes; in-flight calls finish first.
    /// Cancelling the awaiting coroutine or task stops serving.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        let server = self.inner.clone();
        rt::in_runtime(async move { Ok(server.serve_stdio().await?) }).await
    }

    /// Starts serving HTTP on `host:port` (port 0 picks a free one): Streamable HTTP of both
    /// lineages on `path`, the 2024-11-05 HTTP+SSE transport on `/sse`. Returns once bound.
    /// `options`: limits, allow-lists and HTTPS (see [`ServeOptions`]); `auth`: a protected
    /// server (every request needs a bearer token the [`ServerAuth`] accepts).
    #[uniffi::method(default(path = "/mcp", auth = None, options))]
    pub async fn serve_http(
        &self,
        host: String,
        port: u16,
        path: String,
        options: ServeOptions,
        auth: Option<Arc<ServerAuth>>,
    ) -> Result<Arc<HttpServing>, McpError> {
        let settings = Settings { host, port, path, options };
        let json = serde_json::to_string(&settings).map_err(|e| McpError::invalid(e.to_string()))?;
        let server = self.inner.clone();
        rt::in_runtime(async move {
            // Inside the runtime: a Redis store is made on it.
            let (server, addr, mut config) = server.http_settings(&json, Spelling::Camel)?;
            config.auth = auth.map(|a| a.config.clone());
            let serving = server.serve_http(addr, config).await?;
            Ok(Arc::new(HttpServing { inner: Arc::new(serving) }))
        })
        .await
    }
}

/// How [`Server::serve_http`] serves; every field has a default (`ServeOptions()`). Read and
/// checked by the core (`mcpcore::http::server::serve_settings`), as in Python and Node.
#[derive(Clone, Default, uniffi::Record, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServeOptions {
    /// Serve on this Unix domain socket instead of the host and port (mode `unix_mode`,
    /// default 0o600; the URL is then `http+unix://…`, which `Client.connectHttp` takes).
    #[uniffi(default = None)]
    pub unix: Option<String>,
    /// The socket file's permission bits (default 0o600).
    #[uniffi(default = None)]
    pub unix_mode: Option<u32>,
    /// The largest request body in bytes (default 4 MiB; larger: 413).
    #[uniffi(default = None)]
    pub max_body: Option<u64>,
    /// The most bytes of request bodies being received at once, all connections together
    /// (default 64 MiB; past it: 503 with `Retry-After`).
    #[uniffi(default = None)]
    pub body_budget: Option<u64>,
    /// Time to receive a request head, in ms; also closes idle keep-alive connections (30000).
    #[uniffi(default = None)]
    pub header_timeout_ms: Option<u64>,
    /// Time to receive a request body, in ms (30000; slower: 408).
    #[uniffi(default = None)]
    pub body_timeout_ms: Option<u64>,
    /// Connections open at once (10000, or the open-file limit less 64; past it: 503).
    #[uniffi(default = None)]
    pub max_connections: Option<u64>,
    /// Legacy sessions at once (10000; when full an idle one, else the biggest holder's least
    /// recently used one ends; all busy: 503).
    #[uniffi(default = None)]
    pub max_sessions: Option<u64>,
    /// Legacy sessions of one client (token subject, else IP address; 1000; all busy: 429).
    #[uniffi(default = None)]
    pub max_sessions_per_client: Option<u64>,
    /// How long a session must be unused before any new session may end it, in ms (60000).
    #[uniffi(default = None)]
    pub session_idle_ms: Option<u64>,
    /// Bytes waiting for one slow stream reader (8 MiB); further behind: disconnected.
    #[uniffi(default = None)]
    pub max_backlog: Option<u64>,
    /// Requests in flight per session or connection (1000; past it `-32603`, HTTP 429).
    #[uniffi(default = None)]
    pub max_in_flight: Option<u64>,
    /// Running tasks per client (1000; past it optional-task tools run synchronously).
    #[uniffi(default = None)]
    pub max_tasks_per_client: Option<u64>,
    /// How long a legacy elicitation, sampling or roots request waits, in ms (600000).
    #[uniffi(default = None)]
    pub peer_request_timeout_ms: Option<u64>,
    /// Encrypt `requestState` (XChaCha20-Poly1305), so clients cannot read handlers' state.
    #[uniffi(default = None)]
    pub state_encryption: Option<bool>,
    /// Accept each `requestState` once (this process; instances need a shared ledger).
    #[uniffi(default = None)]
    pub state_single_use: Option<bool>,
    /// Accepted `Host` values (with `allowed_origins`, replaces the loopback default).
    #[uniffi(default = None)]
    pub allowed_hosts: Option<Vec<String>>,
    /// Accepted `Origin` values.
    #[uniffi(default = None)]
    pub allowed_origins: Option<Vec<String>>,
    /// HTTPS: the PEM certificate chain file (with `tls_key_file`).
    #[uniffi(default = None)]
    pub tls_cert_file: Option<String>,
    /// HTTPS: its PEM key file.
    #[uniffi(default = None)]
    pub tls_key_file: Option<String>,
    /// HTTPS: require client certificates signed by the CAs in this PEM file.
    #[uniffi(default = None)]
    pub tls_client_ca_file: Option<String>,
    /// Where legacy sessions live, shared by every instance (`redis://HOST:PORT[/DB]`).
    #[uniffi(default = None)]
    pub store: Option<String>,
    /// The `requestState` keys (hex, >= 32 bytes, newest first); none: `MCPCORE_STATE_KEY`.
    #[uniffi(default = None)]
    pub state_keys: Option<Vec<String>>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Settings {
    host: String,
    port: u16,
    path: String,
    #[serde(flatten)]
    options: ServeOptions,
}

/// A running HTTP server. Closing it (Kotlin `close()`/`use {}`, or the last Swift reference
/// going away) starts a graceful shutdown; [`HttpServing::shutdown`] waits for it.
#[derive(uniffi::Object)]
pub struct HttpServing {
    inner: Arc<mcpcore::http::server::HttpServing>,
}

#[uniffi::export]
impl HttpServing {
    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        self.inner.url()
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.inner.local_addr().port()
    }

    /// Stops accepting, lets in-flight requests finish (30 s at most), then stops.
    pub async fn shutdown(&self) -> Result<(), McpError> {
        let s = self.inner.clone();
        rt::in_runtime(async move { Ok(s.shutdown().await?) }).await
    }

    /// Completes when the server has stopped.
    pub async fn wait(&self) -> Result<(), McpError> {
        let s = self.inner.clone();
        rt::in_runtime(async move { Ok(s.wait().await?) }).await
    }
}

impl Drop for HttpServing {
    fn drop(&mut self) {
        let s = self.inner.clone();
        rt::runtime().spawn(async move {
            let _ = s.shutdown().await;
        });
    }
}
