//! Remote tools: the tools of connected servers, registered as entries that forward
//! `tools/call` — a [`RemoteServer`] limited to tools (it follows the servers' tool-list changes
//! and relays their requests for input the same way).
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

use super::catalog::Part;
use super::RemoteServer;
use crate::client::Client;
use crate::error::Result;
use crate::registry::{CollisionPolicy, Registration, ToolRegistry};
use std::sync::Arc;

/// Connects servers' tools into a [`ToolRegistry`].
#[derive(Debug)]
pub struct RemoteTools {
    inner: RemoteServer,
}

impl RemoteTools {
    /// A provider registering into `registry`.
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        RemoteTools { inner: RemoteServer::new(registry) }
    }

    /// Lists the tools of `client` and registers each as a forwarding entry under `server_id`,
    /// resolving name collisions with `policy`, then follows the server's tool-list changes.
    /// Returns what happened to each tool; on error nothing stays registered.
    pub async fn connect(
        &self,
        server_id: &str,
        client: Client,
        policy: CollisionPolicy,
    ) -> Result<Vec<Registration>> {
        let done = self
            .inner
            .connect_parts(server_id, client, super::Mount::with_policy(policy), &[Part::Tools], None)
            .await?;
        Ok(done.tools)
    }

    /// [`RemoteTools::connect`] with a [`super::Mount`]: the tools under its prefix, only the
    /// ones its filter admits, collisions by its policy.
    pub async fn mount(
        &self,
        server_id: &str,
        client: Client,
        mount: super::Mount,
    ) -> Result<Vec<Registration>> {
        Ok(self.inner.connect_parts(server_id, client, mount, &[Part::Tools], None).await?.tools)
    }

    /// Unregisters the tools of `server_id` and closes its connection; returns the names removed.
    pub async fn disconnect(&self, server_id: &str) -> Vec<String> {
        self.inner.disconnect(server_id).await
    }

    /// The ids of connected servers.
    pub fn servers(&self) -> Vec<String> {
        self.inner.servers()
    }
}
