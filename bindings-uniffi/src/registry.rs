//! [`Registry`]: the host's tools and the tools of connected servers in one namespace, with the
//! core's collision policy.

use crate::client::Client;
use crate::errors::McpError;
use crate::handler::{ForeignTool, ToolHandler};
use crate::results::{Tool, ToolResult};
use crate::{parse_json, rt};
use mcpcore::host::HostTool;
use mcpcore::registry::{ToolContext, ToolRegistry};
use mcpcore::remote::RemoteTools;
use std::sync::Arc;
use std::time::Duration;

/// Where a Kotlin or Swift host puts the gateway's authorization instead of the config's `"auth"`.
pub(crate) const KT_REMEDY: &str =
    "give it to serveHttp(auth = ServerAuth(AuthSettings(..., visibilityJson = ...)))";

/// What to do when a tool name is already taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, uniffi::Enum)]
pub enum CollisionPolicy {
    /// Refuse the new tool with an error (the default).
    #[default]
    Error,
    /// Keep the existing tool and skip the new one.
    Skip,
    /// Register a remote tool as `{serverId}_{name}` (local tools fall back to `Error`).
    Prefix,
}

impl From<CollisionPolicy> for mcpcore::registry::CollisionPolicy {
    fn from(p: CollisionPolicy) -> Self {
        match p {
            CollisionPolicy::Error => Self::Error,
            CollisionPolicy::Skip => Self::Skip,
            CollisionPolicy::Prefix => Self::Prefix,
        }
    }
}

/// What happened to one tool of a connected server.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Registration {
    /// Registered under its own name.
    Registered {
        /// The name.
        name: String,
    },
    /// Registered under a prefixed name because its own was taken.
    Renamed {
        /// The name the tool has on its server.
        requested: String,
        /// The name it is callable under here.
        name: String,
    },
    /// Not registered: the name was taken and the policy was `Skip`.
    Skipped {
        /// The name.
        name: String,
    },
}

impl From<&mcpcore::registry::Registration> for Registration {
    fn from(r: &mcpcore::registry::Registration) -> Self {
        use mcpcore::registry::Registration as R;
        match r {
            R::Registered(n) => Registration::Registered { name: n.clone() },
            R::Renamed { requested, name } => {
                Registration::Renamed { requested: requested.clone(), name: name.clone() }
            }
            R::Skipped(n) => Registration::Skipped { name: n.clone() },
        }
    }
}

/// A tool registry: register host tools, connect servers, call any of them, serve them all
/// with a [`crate::Server`].
#[derive(uniffi::Object)]
pub struct Registry {
    pub(crate) tools: Arc<ToolRegistry>,
    remote: Arc<RemoteTools>,
}

#[uniffi::export]
impl Registry {
    /// An empty registry.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        let tools = Arc::new(ToolRegistry::new());
        Arc::new(Registry { remote: Arc::new(RemoteTools::new(tools.clone())), tools })
    }

    /// Registers a host tool named `name` (1-128 of `A-Z a-z 0-9 _ - .`) with a description,
    /// a JSON Schema for its arguments (`"type": "object"`), and optionally a JSON Schema of
    /// its `structuredContent` and a display title. Fails with `InvalidInput` when the name is
    /// invalid or taken or a schema is not valid. `meta` is the tool's `_meta` as JSON text (MCP
    /// Apps: `appsMeta(uri)`).
    #[uniffi::method(default(output_schema = None, title = None, meta = None))]
    #[allow(clippy::too_many_arguments)] // the optional ones have defaults, named by callers
    pub fn add_tool(
        &self,
        name: String,
        description: String,
        input_schema: String,
        handler: Arc<dyn ToolHandler>,
        output_schema: Option<String>,
        title: Option<String>,
        meta: Option<String>,
    ) -> Result<(), McpError> {
        let mut tool =
            mcpcore::protocol::Tool::new(name, description, parse_json("inputSchema", &input_schema)?);
        if let Some(s) = output_schema {
            tool = tool.with_output_schema(parse_json("outputSchema", &s)?);
        }
        if let Some(t) = title {
            tool = tool.with_title(t);
        }
        if let Some(m) = meta {
            match parse_json("_meta", &m)? {
                serde_json::Value::Object(meta) => tool.meta = Some(meta),
                _ => return Err(mcpcore::Error::invalid_input("a tool's _meta must be a JSON object").into()),
            }
        }
        Ok(self.tools.register(tool, HostTool::new(Arc::new(ForeignTool(handler)), false))?)
    }

    /// Removes a tool; false when there was none.
    pub fn remove_tool(&self, name: String) -> bool {
        self.tools.unregister(&name)
    }

    /// Every tool name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.tools.names()
    }

    /// Every tool, as listed.
    pub fn list_tools(&self) -> Vec<Tool> {
        self.tools.list().iter().map(Tool::from).collect()
    }

    /// Calls a tool in-process, local or remote, as a peer's `tools/call` would: arguments
    /// (JSON text) are validated; a failing tool gives an `isError` result, a bad call throws.
    #[uniffi::method(default(timeout = None))]
    pub async fn call_tool(
        &self,
        name: String,
        arguments: String,
        timeout: Option<Duration>,
    ) -> Result<ToolResult, McpError> {
        let args = parse_json("arguments", &arguments)?;
        let tools = self.tools.clone();
        rt::in_runtime(async move {
            let call = tools.call(&name, args, ToolContext::local());
            let result = match timeout {
                Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
                    Err(mcpcore::Error::timeout(format!("tool {name} timed out after {t:?}")))
                }),
                None => call.await,
            };
            Ok(ToolResult::from(&result?))
        })
        .await
    }

    /// Registers every tool of a connected client under `server_id`, resolving name
    /// collisions with `policy`; returns what happened to each tool.
    pub async fn connect(
        &self,
        server_id: String,
        client: Arc<Client>,
        policy: CollisionPolicy,
    ) -> Result<Vec<Registration>, McpError> {
        let client = client.inner()?;
        let remote = self.remote.clone();
        rt::in_runtime(async move {
            let done = remote.connect(&server_id, client, policy.into()).await?;
            Ok(done.iter().map(Registration::from).collect())
        })
        .await
    }

    /// Unregisters the tools of `server_id` and closes its connection; returns the names removed.
    pub async fn disconnect(&self, server_id: String) -> Vec<String> {
        let remote = self.remote.clone();
        rt::in_runtime(async move { remote.disconnect(&server_id).await }).await
    }

    /// Connects every server of an `mcpServers` config (JSON text: the Claude Desktop / VS Code /
    /// Cursor shapes; `${env:VAR}` read from the environment) and registers their tools here,
    /// under `<name>__` unless an entry sets `"prefix"`; returns the servers connected. On
    /// failure none stays connected.
    pub async fn load_config(&self, config: String) -> Result<Vec<String>, McpError> {
        let config = mcpcore::gateway::GatewayConfig::from_json(&config)?;
        config.refuse_auth(KT_REMEDY)?;
        let remote = self.remote.clone();
        rt::in_runtime(async move { Ok(mcpcore::gateway::load_tools(&config, &remote).await?) }).await
    }

    /// The ids of connected servers.
    pub fn servers(&self) -> Vec<String> {
        self.remote.servers()
    }
}
