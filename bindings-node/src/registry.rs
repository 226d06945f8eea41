//! `Registry`: local JS tools and the tools of connected servers, in one place.

use crate::client::Client;
use crate::handler::{JsCallback, JsFunction};
use crate::{bad_option, errors, millis, parse_json, to_json};
use mcpcore::host::HostTool;
use mcpcore::protocol::Tool;
use mcpcore::registry::{CollisionPolicy, Registration, ToolContext, ToolRegistry};
use mcpcore::remote::RemoteTools;
use napi_derive::napi;
use serde_json::json;
use std::sync::Arc;

/// Where a JavaScript host puts the gateway's authorization instead of the config's `"auth"`.
pub(crate) const JS_REMEDY: &str = "give it to serveHttp({ auth: { ..., visibility: [...] } })";

/// A tool registry (see `Registry` in the JS API).
#[napi]
pub struct Registry {
    pub(crate) tools: Arc<ToolRegistry>,
    remote: Arc<RemoteTools>,
}

fn policy(name: &str) -> napi::Result<CollisionPolicy> {
    match name {
        "error" => Ok(CollisionPolicy::Error),
        "skip" => Ok(CollisionPolicy::Skip),
        "prefix" => Ok(CollisionPolicy::Prefix),
        other => Err(bad_option("collision", "'error', 'skip' or 'prefix'", other)),
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

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl Registry {
    /// An empty registry.
    #[napi(constructor)]
    pub fn new() -> Self {
        let tools = Arc::new(ToolRegistry::new());
        Registry { remote: Arc::new(RemoteTools::new(tools.clone())), tools }
    }

    /// Registers a JS tool. `handler(argumentsJson, call)` resolves to the reply the wrapper
    /// builds: `[text]` for a string, else the envelope JSON (`{"value": v}`, `{"rpc": error}`,
    /// `{"inputRequired": message}` or `{"error": message}`; src/handler.rs).
    #[napi(
        ts_args_type = "name: string, description: string, inputSchemaJson: string, handler: (argumentsJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>, outputSchemaJson?: string | undefined | null, title?: string | undefined | null, metaJson?: string | undefined | null"
    )]
    #[allow(clippy::too_many_arguments)] // the wrapper passes them positionally
    pub fn add_tool(
        &self,
        name: String,
        description: String,
        input_schema_json: String,
        handler: JsFunction,
        output_schema_json: Option<String>,
        title: Option<String>,
        meta_json: Option<String>,
    ) -> napi::Result<()> {
        let mut tool = Tool::new(name, description, parse_json("inputSchema", &input_schema_json)?);
        if let Some(s) = output_schema_json {
            tool = tool.with_output_schema(parse_json("outputSchema", &s)?);
        }
        if let Some(t) = title {
            tool = tool.with_title(t);
        }
        if let Some(m) = meta_json {
            match parse_json("_meta", &m)? {
                serde_json::Value::Object(meta) => tool.meta = Some(meta),
                _ => {
                    return Err(errors::to_js(mcpcore::Error::invalid_input(
                        "a tool's _meta must be an object",
                    )))
                }
            }
        }
        self.tools.register(tool, HostTool::new(JsCallback::new(handler), false)).map_err(errors::to_js)
    }

    /// Tool search (issue 35): registers `search_tools` and returns the mode to give the server
    /// (`tools/list` then shows `pinned` and `search_tools` only).
    #[napi]
    pub fn tool_search(&self, pinned: Vec<String>) -> napi::Result<ToolSearch> {
        let inner =
            mcpcore::registry::search::ToolSearch::install(&self.tools, pinned).map_err(errors::to_js)?;
        Ok(ToolSearch { inner })
    }

    /// Removes a tool; false when there was none.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.tools.unregister(&name)
    }

    /// The tool names, sorted.
    #[napi]
    pub fn names(&self) -> Vec<String> {
        self.tools.names()
    }

    /// Every tool definition, as a JSON array.
    #[napi]
    pub fn list_tools(&self) -> String {
        to_json(&self.tools.list())
    }

    /// Calls a tool in-process (local or remote); resolves to the CallToolResult JSON.
    #[napi]
    pub async fn call_tool(
        &self,
        name: String,
        arguments_json: String,
        timeout_ms: Option<f64>,
    ) -> napi::Result<String> {
        let args = parse_json("arguments", &arguments_json)?;
        let timeout = millis(timeout_ms)?;
        let call = self.tools.call(&name, args, ToolContext::local());
        let result = match timeout {
            Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
                Err(mcpcore::Error::timeout(format!("tool {name} timed out after {t:?}")))
            }),
            None => call.await,
        };
        result.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// Registers the tools of a connected client under `serverId`; resolves to a JSON array of
    /// what happened to each (`registered`, `renamed`, `skipped`).
    #[napi]
    pub async fn connect(
        &self,
        server_id: String,
        client: &Client,
        collision: String,
    ) -> napi::Result<String> {
        let policy = policy(&collision)?;
        let client = client.inner()?;
        let done = self.remote.connect(&server_id, client, policy).await.map_err(errors::to_js)?;
        Ok(to_json(&done.iter().map(registration).collect::<Vec<_>>()))
    }

    /// Unregisters a server's tools and closes its connection; resolves to the removed names.
    #[napi]
    pub async fn disconnect(&self, server_id: String) -> Vec<String> {
        self.remote.disconnect(&server_id).await
    }

    /// Connects every server of an `mcpServers` config (JSON text: the Claude Desktop / VS Code /
    /// Cursor shapes, `${env:VAR}` interpolated; parsed by the core's gateway config) and
    /// registers their tools here; resolves to the names of the servers connected.
    #[napi]
    pub async fn load_config(&self, config: String) -> napi::Result<Vec<String>> {
        let config = mcpcore::gateway::GatewayConfig::from_json(&config).map_err(errors::to_js)?;
        config.refuse_auth(JS_REMEDY).map_err(errors::to_js)?;
        mcpcore::gateway::load_tools(&config, &self.remote).await.map_err(errors::to_js)
    }

    /// The ids of connected servers.
    #[napi]
    pub fn servers(&self) -> Vec<String> {
        self.remote.servers()
    }
}

/// A registry's tool search mode (see `Registry.toolSearch`).
#[napi]
pub struct ToolSearch {
    pub(crate) inner: Arc<mcpcore::registry::search::ToolSearch>,
}
