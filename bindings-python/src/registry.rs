//! `Registry`: local Python tools and the tools of connected servers, in one place.

use crate::client::Client;
use crate::handler::{LoopSlot, PyCallback};
use crate::values::seconds;
use crate::{errors, parse_json, to_json};
use mcpcore::host::HostTool;
use mcpcore::protocol::Tool;
use mcpcore::registry::{CollisionPolicy, Registration, ToolContext, ToolRegistry};
use mcpcore::remote::RemoteTools;
use pyo3::prelude::*;
use serde_json::json;
use std::sync::Arc;

/// Where a Python host puts the gateway's authorization instead of the config's `"auth"`.
pub(crate) const PY_REMEDY: &str = "give it to serve_http(auth=mcpcore.Auth(..., visibility=[...]))";

/// A tool registry (see `mcpcore.Registry` for the Python API).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Registry {
    pub(crate) tools: Arc<ToolRegistry>,
    remote: Arc<RemoteTools>,
    pub(crate) loop_slot: Arc<LoopSlot>,
}

fn policy(name: &str) -> PyResult<CollisionPolicy> {
    match name {
        "error" => Ok(CollisionPolicy::Error),
        "skip" => Ok(CollisionPolicy::Skip),
        "prefix" => Ok(CollisionPolicy::Prefix),
        other => Err(errors::to_py(mcpcore::Error::invalid_input(format!(
            "collision policy must be 'error', 'skip' or 'prefix', not {other:?}"
        )))),
    }
}

fn registration(r: &Registration) -> serde_json::Value {
    match r {
        Registration::Registered(n) => json!({"status": "registered", "name": n}),
        Registration::Renamed { requested, name } => {
            json!({"status": "renamed", "requested": requested, "name": name})
        }
        Registration::Skipped(n) => json!({"status": "skipped", "name": n}),
    }
}

#[pymethods]
impl Registry {
    /// An empty registry.
    #[new]
    fn new() -> Self {
        let tools = Arc::new(ToolRegistry::new());
        Registry { remote: Arc::new(RemoteTools::new(tools.clone())), tools, loop_slot: Arc::default() }
    }

    /// Registers a Python tool. `callback(arguments, call)` returns the tool's value (or an
    /// awaitable of it when `is_async`); the core turns it into the result (`wrapped`: the output
    /// schema wraps it as `{"result": …}`; `inline`: a sync callback runs on the engine's thread,
    /// see `PyCallback::inline`).
    #[pyo3(signature = (name, description, input_schema, callback, is_async, output_schema=None, title=None, wrapped=false, meta=None, inline=false))]
    #[allow(clippy::too_many_arguments)]
    fn add_tool(
        &self,
        name: String,
        description: String,
        input_schema: &str,
        callback: Py<PyAny>,
        is_async: bool,
        output_schema: Option<&str>,
        title: Option<String>,
        wrapped: bool,
        meta: Option<&str>,
        inline: bool,
    ) -> PyResult<()> {
        if inline && is_async {
            return Err(errors::to_py(mcpcore::Error::invalid_input(format!(
                "tool {name}: inline is for sync functions (an async one already runs on the loop)"
            ))));
        }
        let mut tool = Tool::new(name, description, parse_json("input_schema", input_schema)?);
        if let Some(s) = output_schema {
            tool = tool.with_output_schema(parse_json("output_schema", s)?);
        }
        if let Some(t) = title {
            tool = tool.with_title(t);
        }
        if let Some(m) = meta {
            tool.meta = Some(crate::parse_as("tool _meta", m)?);
        }
        let callback = if inline {
            PyCallback::inline(callback, &self.loop_slot)
        } else {
            PyCallback::new(callback, is_async, &self.loop_slot)
        };
        let handler = HostTool::new(callback, wrapped);
        self.tools.register(tool, handler).map_err(errors::to_py)
    }

    /// Tool search (issue 35): registers `search_tools` and returns the mode to give the
    /// server (`tools/list` then shows `pinned` and `search_tools` only).
    fn tool_search(&self, pinned: Vec<String>) -> PyResult<ToolSearch> {
        let inner =
            mcpcore::registry::search::ToolSearch::install(&self.tools, pinned).map_err(errors::to_py)?;
        Ok(ToolSearch { inner })
    }

    /// Removes a tool; False when there was none.
    fn remove_tool(&self, name: &str) -> bool {
        self.tools.unregister(name)
    }

    /// The tool names, sorted.
    fn names(&self) -> Vec<String> {
        self.tools.names()
    }

    /// Every tool definition, as a JSON array.
    fn list_tools(&self) -> String {
        to_json(&self.tools.list())
    }

    /// Remembers the running asyncio loop as the one async tools run on.
    fn bind_loop(&self, py: Python<'_>) {
        self.loop_slot.bind(py);
    }

    /// Calls a tool in-process (local or remote); resolves to the CallToolResult JSON.
    #[pyo3(signature = (name, arguments, timeout=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.loop_slot.bind(py);
        let args = parse_json("arguments", arguments)?;
        let timeout = seconds(timeout)?;
        let tools = self.tools.clone();
        crate::awaitable::future_into_py(py, async move {
            let call = tools.call(&name, args, ToolContext::local());
            let result = match timeout {
                Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
                    Err(mcpcore::Error::timeout(format!("tool {name} timed out after {t:?}")))
                }),
                None => call.await,
            };
            result.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// Registers the tools of a connected client under `server_id`; resolves to a JSON array of
    /// what happened to each (`registered`, `renamed`, `skipped`).
    #[pyo3(signature = (server_id, client, collision="error"))]
    fn connect<'py>(
        &self,
        py: Python<'py>,
        server_id: String,
        client: &Client,
        collision: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let policy = policy(collision)?;
        let (remote, client) = (self.remote.clone(), client.inner()?);
        crate::awaitable::future_into_py(py, async move {
            let done = remote.connect(&server_id, client, policy).await.map_err(errors::to_py)?;
            Ok(to_json(&done.iter().map(registration).collect::<Vec<_>>()))
        })
    }

    /// Unregisters a server's tools and closes its connection; resolves to the removed names.
    fn disconnect<'py>(&self, py: Python<'py>, server_id: String) -> PyResult<Bound<'py, PyAny>> {
        let remote = self.remote.clone();
        crate::awaitable::future_into_py(py, async move { Ok(remote.disconnect(&server_id).await) })
    }

    /// Connects every server of an `mcpServers` config (JSON text: the Claude Desktop / VS Code /
    /// Cursor shapes, `${env:VAR}` interpolated; parsed by the core's gateway config) and
    /// registers their tools here; resolves to the JSON list of the servers connected.
    fn load_config<'py>(&self, py: Python<'py>, config: &str) -> PyResult<Bound<'py, PyAny>> {
        let config = mcpcore::gateway::GatewayConfig::from_json(config).map_err(errors::to_py)?;
        config.refuse_auth(PY_REMEDY).map_err(errors::to_py)?;
        let remote = self.remote.clone();
        crate::awaitable::future_into_py(py, async move {
            let names = mcpcore::gateway::load_tools(&config, &remote).await.map_err(errors::to_py)?;
            Ok(to_json(&names))
        })
    }

    /// The ids of connected servers.
    fn servers(&self) -> Vec<String> {
        self.remote.servers()
    }
}

/// A registry's tool search mode (see `Registry.tool_search`).
#[pyclass(module = "mcpcore._native", frozen)]
pub(crate) struct ToolSearch {
    pub(crate) inner: Arc<mcpcore::registry::search::ToolSearch>,
}
