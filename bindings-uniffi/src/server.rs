//! [`Server`] serves a [`Registry`] (and [`Resources`], [`Prompts`]) on stdio or HTTP (both lineages on one endpoint);
//! [`HttpServing`] is the handle of a running HTTP server, which stops it when closed or dropped.

use crate::catalog::{Prompts, Resources};
use crate::errors::McpError;
use crate::registry::Registry;
use crate::rt;
use mcpcore::engine::ServerConfig;
use mcpcore::http::server::HttpServerConfig;
use std::sync::Arc;

/// An MCP server over a registry: every revision of both lineages, on stdio or HTTP.
#[derive(uniffi::Object)]
pub struct Server {
    inner: mcpcore::server::Server,
}

#[uniffi::export]
impl Server {
    /// A server named `name`/`version` serving the tools of `registry` (tools added later are
    /// served too), with optional `instructions` for the model, and `resources` and `prompts`
    /// when given (their capabilities, and completion, are then declared).
    #[uniffi::constructor(default(instructions = None, resources = None, prompts = None))]
    pub fn new(
        registry: Arc<Registry>,
        name: String,
        version: String,
        instructions: Option<String>,
        resources: Option<Arc<Resources>>,
        prompts: Option<Arc<Prompts>>,
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
        Arc::new(Server { inner })
    }

    /// Serves on this process's stdin/stdout until stdin closes; in-flight calls finish first.
    /// Cancelling the awaiting coroutine or task stops serving.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        let server = self.inner.clone();
        rt::in_runtime(async move { Ok(server.serve_stdio().await?) }).await
    }

    /// Starts serving HTTP on `host:port` (port 0 picks a free one): Streamable HTTP of both
    /// lineages on `path`, the 2024-11-05 HTTP+SSE transport on `/sse`. Returns once bound.
    #[uniffi::method(default(path = "/mcp"))]
    pub async fn serve_http(
        &self,
        host: String,
        port: u16,
        path: String,
    ) -> Result<Arc<HttpServing>, McpError> {
        let ip: std::net::IpAddr = host
            .parse()
            .map_err(|_| McpError::invalid(format!("host must be an IP address, not {host:?}")))?;
        let config = HttpServerConfig { path, ..Default::default() };
        let server = self.inner.clone();
        rt::in_runtime(async move {
            let serving = server.serve_http(std::net::SocketAddr::new(ip, port), config).await?;
            Ok(Arc::new(HttpServing { inner: Arc::new(serving) }))
        })
        .await
    }
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
