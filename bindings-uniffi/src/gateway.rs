//! [`Gateway`]: the core's gateway (`mcpcore::gateway`), started from an `mcpServers` config
//! (JSON text) into a host's [`Registry`], [`Resources`] and [`Prompts`], so the host's own
//! tools are served beside the upstreams'.

use crate::catalog::{Prompts, Resources};
use crate::errors::McpError;
use crate::registry::Registry;
use crate::rt;
use crate::server::Server;
use mcpcore::engine::ServerConfig;
use mcpcore::gateway::{GatewayConfig, UpstreamState as CoreState};
use mcpcore::prompts::PromptRegistry;
use mcpcore::resources::ResourceRegistry;
use std::sync::Arc;

/// Upstream MCP servers served as one, beside a host's own tools.
#[derive(uniffi::Object)]
pub struct Gateway {
    inner: Arc<mcpcore::gateway::Gateway>,
}

/// Where an upstream is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum UpstreamState {
    /// Not connected yet.
    Starting,
    /// Connected and mounted.
    Up,
    /// Its connection ended; it is being started again.
    Restarting,
    /// Not started again (`"restart": false`), or its mount failed for good.
    Failed,
}

/// The state of one upstream.
#[derive(Debug, Clone, uniffi::Record)]
pub struct UpstreamStatus {
    /// Where it is.
    pub state: UpstreamState,
    /// How many times it was connected again after its connection ended.
    pub restarts: u32,
    /// Why it last failed.
    pub last_error: Option<String>,
}

#[uniffi::export]
impl Gateway {
    /// Connects the upstreams of `config` (the `mcpServers` JSON of Claude Desktop / Cursor /
    /// VS Code, with the gateway's per-entry options) into `registry` (and `resources`,
    /// `prompts` when given: the upstreams' ones go there); fails, every upstream closed again,
    /// when one cannot be reached or a name collides under the "error" policy.
    #[uniffi::constructor(default(resources = None, prompts = None))]
    pub async fn start(
        config: String,
        registry: Arc<Registry>,
        resources: Option<Arc<Resources>>,
        prompts: Option<Arc<Prompts>>,
    ) -> Result<Arc<Gateway>, McpError> {
        let config = GatewayConfig::from_json(&config)?;
        config.refuse_auth(crate::registry::KT_REMEDY)?;
        let tools = registry.tools.clone();
        let resources =
            resources.map(|r| r.inner.clone()).unwrap_or_else(|| Arc::new(ResourceRegistry::new()));
        let prompts = prompts.map(|p| p.inner.clone()).unwrap_or_else(|| Arc::new(PromptRegistry::new()));
        rt::in_runtime(async move {
            let g = mcpcore::gateway::Gateway::start_with(&config, tools, resources, prompts).await?;
            Ok(Arc::new(Gateway { inner: Arc::new(g) }))
        })
        .await
    }

    /// A server of the aggregate called `name`/`version`, to serve on stdio or HTTP.
    #[uniffi::method(default(instructions = None))]
    pub fn server(&self, name: String, version: String, instructions: Option<String>) -> Arc<Server> {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        Server::from_core(self.inner.server_with(config))
    }

    /// The mounted upstreams, sorted.
    pub fn upstreams(&self) -> Vec<String> {
        self.inner.upstreams()
    }

    /// The state of the configured upstream `name`.
    pub fn status(&self, name: String) -> Option<UpstreamStatus> {
        self.inner.status(&name).map(|s| UpstreamStatus {
            state: match s.state {
                CoreState::Starting => UpstreamState::Starting,
                CoreState::Up => UpstreamState::Up,
                CoreState::Restarting => UpstreamState::Restarting,
                CoreState::Failed => UpstreamState::Failed,
            },
            restarts: s.restarts,
            last_error: s.last_error,
        })
    }

    /// Closes every upstream (stdio children are stopped); the host's own tools stay.
    pub async fn shutdown(&self) {
        let g = self.inner.clone();
        rt::in_runtime(async move { g.shutdown().await }).await;
    }
}
