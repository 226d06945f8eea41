//! `Server` and `HttpServing`: serve a registry on stdio or HTTP.

use crate::errors;
use crate::handler::LoopSlot;
use crate::prompts::Prompts;
use crate::registry::Registry;
use crate::resources::Resources;
use crate::server_auth::ServerAuth;
use mcpcore::engine::ServerConfig;
use mcpcore::host::Spelling;
use pyo3::prelude::*;
use std::sync::Arc;

/// An MCP server over a registry, and optionally resources and prompts (see `mcpcore.Server`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Server {
    inner: mcpcore::server::Server,
    /// The loops of every handler set served, bound when serving starts.
    loop_slots: Vec<Arc<LoopSlot>>,
}

impl Server {
    /// A core server whose Python handlers live in the sets of `loop_slots`.
    pub(crate) fn from_core(inner: mcpcore::server::Server, loop_slots: Vec<Arc<LoopSlot>>) -> Self {
        Server { inner, loop_slots }
    }

    fn bind(&self, py: Python<'_>) {
        for slot in &self.loop_slots {
            slot.bind(py);
        }
    }
}

#[pymethods]
impl Server {
    /// A server named `name`/`version` serving `registry` (both lineages, every revision), and
    /// `resources`, `prompts` and `skills` when given (with completion; their capabilities are
    /// declared; `skills` must be over `resources`), and the event types of `events`.
    #[new]
    #[pyo3(signature = (registry, name, version, instructions=None, resources=None, prompts=None, skills=None, tool_search=None, middleware=None, events=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        registry: &Registry,
        name: String,
        version: String,
        instructions: Option<String>,
        resources: Option<&Resources>,
        prompts: Option<&Prompts>,
        skills: Option<&crate::skills::Skills>,
        tool_search: Option<&crate::registry::ToolSearch>,
        middleware: Option<&crate::middleware::Middleware>,
        events: Option<&crate::events::Events>,
    ) -> Self {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        config.tool_search = tool_search.map(|t| t.inner.clone());
        let mut loop_slots = vec![registry.loop_slot.clone()];
        if let Some(m) = middleware {
            config.middleware = m.chain();
            loop_slots.push(m.loop_slot.clone());
        }
        let mut inner = mcpcore::server::Server::new(config, registry.tools.clone());
        if let Some(r) = resources {
            inner = inner.with_resources(r.inner.clone());
            loop_slots.push(r.loop_slot.clone());
        }
        if let Some(p) = prompts {
            inner = inner.with_prompts(p.inner.clone());
            loop_slots.push(p.loop_slot.clone());
        }
        if let Some(s) = skills {
            inner = inner.with_skills(s.inner.clone());
        }
        if let Some(e) = events {
            inner = inner.with_events(e.inner.clone());
        }
        Server { inner, loop_slots }
    }

    /// Serves on this process's stdin/stdout until stdin closes. With `auth`, the caller's
    /// token comes from the environment (`MCP_ACCESS_TOKEN`) and is checked once, first.
    #[pyo3(signature = (auth=None))]
    fn serve_stdio<'py>(&self, py: Python<'py>, auth: Option<&ServerAuth>) -> PyResult<Bound<'py, PyAny>> {
        self.bind(py);
        if let Some(a) = auth {
            a.loop_slot.bind(py);
        }
        let server = self.inner.clone();
        let auth = auth.map(|a| a.config.clone());
        crate::awaitable::future_into_py(py, async move {
            match auth {
                Some(a) => server.serve_stdio_with_auth(&a).await.map_err(errors::to_py),
                None => server.serve_stdio().await.map_err(errors::to_py),
            }
        })
    }

    /// Serves on stdin/stdout until stdin closes, on the calling thread with the GIL released
    /// (no asyncio loop: the facade's `run()` uses it for a server whose handlers are all
    /// synchronous, which then starts without importing asyncio; bench/NOTES.md). An async
    /// handler still works, each call on a private loop. Every 100 ms it lets Python handle
    /// signals: `KeyboardInterrupt` stops serving and is raised.
    fn serve_stdio_blocking(&self, py: Python<'_>) -> PyResult<()> {
        let server = self.inner.clone();
        let runtime = pyo3_async_runtimes::tokio::get_runtime();
        let mut serving = runtime.spawn(async move { server.serve_stdio().await });
        loop {
            let tick = std::time::Duration::from_millis(100);
            let done =
                py.detach(|| runtime.block_on(async { tokio::time::timeout(tick, &mut serving).await }));
            match done {
                Ok(Ok(served)) => return served.map_err(errors::to_py),
                Ok(Err(e)) => {
                    let why = format!("serving stopped: {e}");
                    return Err(errors::to_py(mcpcore::Error::protocol(why)));
                }
                Err(_) => {
                    if let Err(e) = py.check_signals() {
                        serving.abort();
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Starts serving HTTP (both lineages on the endpoint path, 2024-11-05 SSE on `/sse`);
    /// resolves to an `HttpServing` once bound. `settings` is a JSON object of the options
    /// (snake-case names, read by the core: `mcpcore::server::Server::http_settings`). With
    /// `auth`, a protected server (OAuth resource server).
    #[pyo3(signature = (settings="{}", auth=None))]
    fn serve_http<'py>(
        &self,
        py: Python<'py>,
        settings: &str,
        auth: Option<&ServerAuth>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.bind(py);
        if let Some(a) = auth {
            a.loop_slot.bind(py);
        }
        // A Redis store starts its connection tasks on the runtime the futures run on.
        let (server, addr, mut config) = {
            let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
            self.inner.http_settings(settings, Spelling::Snake).map_err(errors::to_py)?
        };
        config.auth = auth.map(|a| a.config.clone());
        crate::awaitable::future_into_py(py, async move {
            let serving = server.serve_http(addr, config).await.map_err(errors::to_py)?;
            Ok(HttpServing { inner: Arc::new(serving) })
        })
    }

    /// The endpoint served in process, for an ASGI app (`mcpcore.asgi`): `settings` as for
    /// `serve_http` (host, port and TLS unused), the paths under `prefix` when given (the path
    /// the host framework mounted the app at).
    #[pyo3(signature = (settings="{}", prefix=None, auth=None))]
    fn mount(
        &self,
        py: Python<'_>,
        settings: &str,
        prefix: Option<&str>,
        auth: Option<&ServerAuth>,
    ) -> PyResult<crate::mount::Mount> {
        self.bind(py);
        if let Some(a) = auth {
            a.loop_slot.bind(py);
        }
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        let (server, _addr, mut config) =
            self.inner.http_settings(settings, Spelling::Snake).map_err(errors::to_py)?;
        config.auth = auth.map(|a| a.config.clone());
        let config = config.mounted_at(prefix.unwrap_or(""));
        let inner = mcpcore::http::server::InProcess::new(server.env(), config);
        Ok(crate::mount::Mount { inner: Arc::new(inner) })
    }
}

/// A running HTTP server.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct HttpServing {
    inner: Arc<mcpcore::http::server::HttpServing>,
}

#[pymethods]
impl HttpServing {
    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    #[getter]
    fn url(&self) -> String {
        self.inner.url()
    }

    /// The bound port.
    #[getter]
    fn port(&self) -> u16 {
        self.inner.local_addr().port()
    }

    /// Stops gracefully: in-flight requests finish within the grace period.
    fn shutdown<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        crate::awaitable::future_into_py(py, async move { s.shutdown().await.map_err(errors::to_py) })
    }

    /// Completes when the server has stopped.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        crate::awaitable::future_into_py(py, async move { s.wait().await.map_err(errors::to_py) })
    }
}
