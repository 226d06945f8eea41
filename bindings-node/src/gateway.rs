//! `Gateway`: the core's gateway (`mcpcore::gateway`), started from an `mcpServers` config
//! (JSON text) into a JS `Server`'s registries (see `Gateway` in lib/mcpcore.js).

use crate::errors;
use crate::registry::Registry;
use crate::resources::{Prompts, Resources};
use crate::server::Server;
use mcpcore::engine::ServerConfig;
use mcpcore::gateway::{GatewayConfig, UpstreamState};
use napi_derive::napi;
use std::sync::Arc;

/// Upstream MCP servers mounted into a registry, its resources and prompts.
#[napi]
pub struct Gateway {
    inner: Arc<mcpcore::gateway::Gateway>,
}

/// The state of one upstream.
#[napi(object)]
pub struct UpstreamStatus {
    /// `starting`, `up`, `restarting` or `failed`.
    pub state: String,
    /// How many times it was connected again after its connection ended.
    pub restarts: u32,
    /// Why it last failed.
    pub last_error: Option<String>,
}

#[napi]
impl Gateway {
    /// Connects the upstreams of `config` (an `mcpServers` JSON text) into `registry`,
    /// `resources` and `prompts`; resolves to the started gateway.
    #[napi]
    pub async fn start(
        config: String,
        registry: &Registry,
        resources: &Resources,
        prompts: &Prompts,
    ) -> napi::Result<Gateway> {
        let config = GatewayConfig::from_json(&config).map_err(errors::to_js)?;
        config.refuse_auth(crate::registry::JS_REMEDY).map_err(errors::to_js)?;
        let (tools, resources, prompts) =
            (registry.tools.clone(), resources.inner.clone(), prompts.inner.clone());
        let g = mcpcore::gateway::Gateway::start_with(&config, tools, resources, prompts)
            .await
            .map_err(errors::to_js)?;
        Ok(Gateway { inner: Arc::new(g) })
    }

    /// A server of the aggregate called `name`/`version`.
    #[napi]
    pub fn server(&self, name: String, version: String, instructions: Option<String>) -> Server {
        let mut config = ServerConfig::new(name, version);
        config.instructions = instructions;
        Server::from_core(self.inner.server_with(config))
    }

    /// The mounted upstreams, sorted.
    #[napi]
    pub fn upstreams(&self) -> Vec<String> {
        self.inner.upstreams()
    }

    /// The state of the configured upstream `name`, or null.
    #[napi]
    pub fn status(&self, name: String) -> Option<UpstreamStatus> {
        self.inner.status(&name).map(|s| UpstreamStatus {
            state: match s.state {
                UpstreamState::Starting => "starting",
                UpstreamState::Up => "up",
                UpstreamState::Restarting => "restarting",
                UpstreamState::Failed => "failed",
            }
            .to_owned(),
            restarts: s.restarts,
            last_error: s.last_error,
        })
    }

    /// Stops watching the upstreams and closes them (stdio children are stopped).
    #[napi]
    pub async fn shutdown(&self) {
        self.inner.shutdown().await;
    }
}
