//! `Gateway`: the core's gateway (`mcpcore::gateway`), started from a config given as JSON text
//! into the registries of a Python `Server` (see `mcpcore.Gateway`).

use crate::errors;
use crate::prompts::Prompts;
use crate::registry::Registry;
use crate::resources::Resources;
use crate::server::Server;
use mcpcore::engine::ServerConfig;
use mcpcore::gateway::{GatewayConfig, UpstreamState};
use pyo3::prelude::*;
use serde_json::json;
use std::sync::Arc;

/// Upstream MCP servers mounted into a registry, its resources and prompts.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Gateway {
    inner: Arc<mcpcore::gateway::Gateway>,
}

#[pymethods]
impl Gateway {
    /// Connects the upstreams of `config` (an `mcpServers` JSON text) into `registry`,
    /// `resources` and `prompts`; resolves to the started `Gateway`.
    #[staticmethod]
    fn start<'py>(
        py: Python<'py>,
        config: &str,
        registry: &Registry,
        resources: &Resources,
        prompts: &Prompts,
    ) -> PyResult<Bound<'py, PyAny>> {
        let config = GatewayConfig::from_json(config).map_err(errors::to_py)?;
        config.refuse_auth(crate::registry::PY_REMEDY).map_err(errors::to_py)?;
        let (tools, resources, prompts) =
            (registry.tools.clone(), resources.inner.clone(), prompts.inner.clone());
        crate::awaitable::future_into_py(py, async move {
            let g = mcpcore::gateway::Gateway::start_with(&config, tools, resources, prompts)
                .await
                .map_err(errors::to_py)?;
            Ok(Gateway { inner: Arc::new(g) })
        })
    }

    /// A server of the aggregate called `name`/`version` (the registries' Python handlers are
    /// bound to the serving loop like a `Server`'s).
    #[pyo3(signature = (registry, resources, prompts, name, version, instructions=None))]
    fn server(
        &self,
        registry: &Registry,
        resources: &Resources,
        prompts: &Prompts,
        name: String,
        version: String,
        instructions: Option<String>,
    ) -> Server {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        let slots = vec![registry.loop_slot.clone(), resources.loop_slot.clone(), prompts.loop_slot.clone()];
        Server::from_core(self.inner.server_with(config), slots)
    }

    /// The mounted upstreams, sorted.
    fn upstreams(&self) -> Vec<String> {
        self.inner.upstreams()
    }

    /// The state of the configured upstream `name` as JSON text (`state`, `restarts`,
    /// `last_error`), or None.
    fn status(&self, name: &str) -> Option<String> {
        self.inner.status(name).map(|s| {
            let state = match s.state {
                UpstreamState::Starting => "starting",
                UpstreamState::Up => "up",
                UpstreamState::Restarting => "restarting",
                UpstreamState::Failed => "failed",
            };
            json!({"state": state, "restarts": s.restarts, "last_error": s.last_error}).to_string()
        })
    }

    /// Stops watching the upstreams and closes them (stdio children are stopped).
    fn shutdown<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.inner.clone();
        crate::awaitable::future_into_py(py, async move {
            g.shutdown().await;
            Ok(())
        })
    }
}
