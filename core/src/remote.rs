//! Remote tools: the tools of connected servers, registered as entries that forward `tools/call`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpcore::client::{Client, ClientOptions};
//! use mcpcore::registry::{CollisionPolicy, ToolContext, ToolRegistry};
//! use mcpcore::remote::RemoteTools;
//! use mcpcore::transport::child::StdioCommand;
//! # async fn demo() -> mcpcore::Result<()> {
//! let registry = Arc::new(ToolRegistry::new());
//! let remote = RemoteTools::new(registry.clone());
//! let client = Client::connect_stdio(StdioCommand::new("weather-server", Vec::<String>::new()), ClientOptions::default()).await?;
//! remote.connect("weather", client, CollisionPolicy::Prefix).await?;
//! let r = registry.call("forecast", serde_json::json!({"city": "Oslo"}), ToolContext::local()).await?;
//! remote.disconnect("weather").await;
//! # Ok(()) }
//! ```

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::CallToolResult;
use crate::registry::{
    Arguments, CollisionPolicy, Registration, ToolContext, ToolHandler, ToolOrigin, ToolRegistry,
};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Connects servers into a [`ToolRegistry`].
#[derive(Debug)]
pub struct RemoteTools {
    registry: Arc<ToolRegistry>,
    servers: Mutex<HashMap<String, Client>>,
}

impl RemoteTools {
    /// A provider registering into `registry`.
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        RemoteTools { registry, servers: Mutex::new(HashMap::new()) }
    }

    /// Lists the tools of `client` and registers each as a forwarding entry under `server_id`,
    /// resolving name collisions with `policy`. Returns what happened to each tool.
    pub async fn connect(
        &self,
        server_id: &str,
        client: Client,
        policy: CollisionPolicy,
    ) -> Result<Vec<Registration>> {
        if self.servers.lock().expect("lock").contains_key(server_id) {
            return Err(Error::invalid_input(format!("a server with id {server_id:?} is already connected")));
        }
        let tools = client.list_tools().await?;
        let mut done = Vec::with_capacity(tools.len());
        for tool in tools {
            let remote_name = tool.name.clone();
            let handler = Arc::new(Forward {
                client: client.clone(),
                server: server_id.to_owned(),
                name: remote_name.clone(),
            });
            let origin = ToolOrigin::Remote { server: server_id.to_owned(), remote_name };
            match self.registry.register_with(tool, handler, origin, policy) {
                Ok(r) => done.push(r),
                Err(e) => {
                    self.registry.unregister_server(server_id);
                    return Err(e);
                }
            }
        }
        self.servers.lock().expect("lock").insert(server_id.to_owned(), client);
        Ok(done)
    }

    /// Unregisters the tools of `server_id` and closes its connection; returns the names removed.
    pub async fn disconnect(&self, server_id: &str) -> Vec<String> {
        let removed = self.registry.unregister_server(server_id);
        let client = self.servers.lock().expect("lock").remove(server_id);
        if let Some(c) = client {
            c.close().await;
        }
        removed
    }

    /// The ids of connected servers.
    pub fn servers(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.servers.lock().expect("lock").keys().cloned().collect();
        ids.sort();
        ids
    }
}

struct Forward {
    client: Client,
    server: String,
    name: String,
}

impl ToolHandler for Forward {
    fn call(
        &self,
        arguments: Arguments,
        ctx: ToolContext,
    ) -> crate::registry::BoxFuture<'static, Result<CallToolResult>> {
        let client = self.client.clone();
        let (server, name) = (self.server.clone(), self.name.clone());
        Box::pin(async move {
            // Relay the remote tool's progress to our caller, when our caller asked for it.
            let mut opts = crate::client::CallOptions::default();
            if ctx.wants_progress() {
                opts.on_progress =
                    Some(Box::new(move |p| ctx.progress(p.progress, p.total, p.message.as_deref())));
            }
            match client.call_tool_with(&name, Value::Object(arguments), &opts).await {
                Ok(mut r) => {
                    r.result_type = None;
                    Ok(r)
                }
                // A JSON-RPC error from the server reaches our caller unchanged.
                Err(e) if e.kind() == ErrorKind::Rpc => Err(e),
                Err(e) => Err(Error::tool(format!("remote server {server:?}: {}", e.message()))),
            }
        })
    }
}
