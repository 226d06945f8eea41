//! A gateway: every server of an `mcpServers` config ([`GatewayConfig`]) connected as an
//! upstream and served as one catalogue, on both lineages, by one [`Server`].
//!
//! [`Gateway::start`] connects every upstream at once (stdio children, Streamable HTTP,
//! 2024-11-05 HTTP+SSE; each pinned to a revision or lineage when its entry says so), then
//! mounts them in name order with [`RemoteServer::mount`]: the upstream's tools, prompts and
//! resource templates under its prefix (default `<name>__`), only the tools its
//! `include`/`exclude` admit, collisions resolved by the config's policy. Forwarding, following
//! `list_changed` and relaying elicitation, sampling and roots across lineages are
//! [`RemoteServer`]'s (see [`crate::remote`]). Resource URIs are not renamed: two upstreams
//! offering the same URI collide like names do.
//!
//! `tools/list` (and the prompt and template lists) are in name order, so the aggregate lists
//! the same way whatever order the upstreams answered in. [`Gateway::shutdown`] closes every
//! upstream (a stdio child gets its stdin closed, then SIGTERM and SIGKILL to its process group;
//! see [`crate::transport::child`]).
//!
//! ```no_run
//! use mcpcore::gateway::{Gateway, GatewayConfig};
//! # async fn demo() -> mcpcore::Result<()> {
//! let config = GatewayConfig::from_file("mcp.json")?;
//! let gateway = Gateway::start(&config).await?;
//! gateway.server().serve_stdio().await?;
//! gateway.shutdown().await;
//! # Ok(()) }
//! ```

mod config;

pub use config::{GatewayConfig, Upstream, UpstreamTransport};

use crate::client::{Client, ClientOptions, InputKinds};
use crate::engine::ServerConfig;
use crate::error::{Error, Result};
use crate::http::client::HttpOptions;
use crate::prompts::PromptRegistry;
use crate::registry::ToolRegistry;
use crate::remote::{Registrations, RelayInput, RemoteServer};
use crate::resources::ResourceRegistry;
use crate::server::Server;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Upstreams connected and mounted into one set of catalogs.
#[derive(Debug)]
pub struct Gateway {
    tools: Arc<ToolRegistry>,
    resources: Arc<ResourceRegistry>,
    prompts: Arc<PromptRegistry>,
    remote: RemoteServer,
    mounted: BTreeMap<String, Registrations>,
}

impl Gateway {
    /// Connects every upstream of `config` and mounts it. Fails, with every upstream closed
    /// again, when one cannot be reached or (collision policy `error`) one of its names is
    /// taken by another; the message names the entry (and, for a collision, both).
    pub async fn start(config: &GatewayConfig) -> Result<Gateway> {
        let tools = Arc::new(ToolRegistry::new());
        let resources = Arc::new(ResourceRegistry::new());
        let prompts = Arc::new(PromptRegistry::new());
        let remote =
            RemoteServer::new(tools.clone()).with_resources(resources.clone()).with_prompts(prompts.clone());
        let mut gateway = Gateway { tools, resources, prompts, remote, mounted: BTreeMap::new() };
        let connected = futures_util::future::join_all(config.upstreams.iter().map(connect)).await;
        let mut clients = Vec::new();
        let mut failure = None;
        for (upstream, c) in config.upstreams.iter().zip(connected) {
            match c {
                Ok(client) => clients.push((upstream, client)),
                Err(e) if failure.is_none() => failure = Some(named(&upstream.name, &e)),
                Err(_) => {}
            }
        }
        let mut clients = clients.into_iter();
        if failure.is_none() {
            for (upstream, client) in clients.by_ref() {
                match gateway.remote.mount(&upstream.name, client, upstream.mount.clone()).await {
                    Ok(done) => {
                        gateway.mounted.insert(upstream.name.clone(), done);
                    }
                    Err(e) => {
                        failure = Some(gateway.collision(&upstream.name, &e));
                        break;
                    }
                }
            }
        }
        match failure {
            None => Ok(gateway),
            Some(e) => {
                for (_, client) in clients {
                    client.close().await;
                }
                gateway.shutdown().await;
                Err(e)
            }
        }
    }

    /// A server of the aggregate (cheap: the registries are shared), to serve on stdio or HTTP.
    pub fn server(&self) -> Server {
        let config = ServerConfig::new("mcpcore-gateway", env!("CARGO_PKG_VERSION"));
        Server::new(config, self.tools.clone())
            .with_resources(self.resources.clone())
            .with_prompts(self.prompts.clone())
    }

    /// The aggregate tool registry (local tools may be added beside the upstreams' ones).
    pub fn tools(&self) -> &Arc<ToolRegistry> {
        &self.tools
    }

    /// The aggregate resource registry.
    pub fn resources(&self) -> &Arc<ResourceRegistry> {
        &self.resources
    }

    /// The aggregate prompt registry.
    pub fn prompts(&self) -> &Arc<PromptRegistry> {
        &self.prompts
    }

    /// The names of the mounted upstreams, sorted.
    pub fn upstreams(&self) -> Vec<String> {
        self.remote.servers()
    }

    /// What mounting `upstream` registered (as of start; following changes updates the
    /// registries, not this).
    pub fn registrations(&self, upstream: &str) -> Option<&Registrations> {
        self.mounted.get(upstream)
    }

    /// `e` (mounting `upstream` failed) naming the upstream, and the mounted upstream holding
    /// the name or URI it quotes, when one does (the registry naming the holder of a tool
    /// already, this covers prompts, resources and templates).
    fn collision(&self, upstream: &str, e: &Error) -> Error {
        let message = e.message();
        let holder = self.mounted.iter().find(|(_, r)| {
            let names = r.tools.iter().chain(&r.prompts).chain(&r.resources).chain(&r.templates);
            names.filter_map(|n| n.name()).any(|n| message.contains(&format!("{n:?}")))
        });
        match holder {
            Some((other, _)) if !message.contains(&format!("server {other:?}")) => {
                Error::new(e.kind(), format!("upstream {upstream:?}: {message} (held by upstream {other:?})"))
            }
            _ => named(upstream, e),
        }
    }

    /// The client connected to `upstream`.
    pub fn client(&self, upstream: &str) -> Option<Client> {
        self.remote.client(upstream)
    }

    /// Unmounts and closes every upstream.
    pub async fn shutdown(&self) {
        let closing = self.remote.servers();
        futures_util::future::join_all(closing.iter().map(|name| self.remote.disconnect(name))).await;
    }
}

/// `e` with the upstream's name in front.
fn named(upstream: &str, e: &Error) -> Error {
    Error::new(e.kind(), format!("upstream {upstream:?}: {}", e.message()))
}

/// Connects every upstream of `config` at once and registers its tools (under its prefix, the
/// ones its `include`/`exclude` admit, collisions by the config's policy) into the registry of
/// `remote`, beside the tools already there: the `mcpServers` file a user already has, loaded
/// into a client registry in one call (the bindings' `Registry.load_config` / `loadConfig`).
/// Returns the names of the servers connected. On any failure every upstream connected here is
/// closed again and the error names the entry.
pub async fn load_tools(config: &GatewayConfig, remote: &crate::remote::RemoteTools) -> Result<Vec<String>> {
    let connected = futures_util::future::join_all(config.upstreams.iter().map(connect)).await;
    let mut failure = None;
    let mut clients = Vec::new();
    for (upstream, c) in config.upstreams.iter().zip(connected) {
        match c {
            Ok(client) => clients.push((upstream, client)),
            Err(e) if failure.is_none() => failure = Some(named(&upstream.name, &e)),
            Err(_) => {}
        }
    }
    let mut done = Vec::new();
    let mut clients = clients.into_iter();
    if failure.is_none() {
        for (upstream, client) in clients.by_ref() {
            match remote.mount(&upstream.name, client, upstream.mount.clone()).await {
                Ok(_) => done.push(upstream.name.clone()),
                Err(e) => {
                    failure = Some(named(&upstream.name, &e));
                    break;
                }
            }
        }
    }
    let Some(e) = failure else { return Ok(done) };
    for (_, client) in clients {
        client.close().await;
    }
    for name in &done {
        remote.disconnect(name).await;
    }
    Err(e)
}

/// Connects to one upstream, declaring the input kinds the gateway relays to its own callers.
async fn connect(upstream: &Upstream) -> Result<Client> {
    let mut options = ClientOptions {
        input: Some(RelayInput::new(InputKinds {
            elicitation: true,
            sampling: true,
            roots: true,
            ..InputKinds::default()
        })),
        version: upstream.version,
        lineage: upstream.lineage,
        ..ClientOptions::default()
    };
    options.info.name = "mcpcore-gateway".into();
    if let Some(t) = upstream.timeout {
        options.request_timeout = t;
    }
    match &upstream.transport {
        UpstreamTransport::Stdio(cmd) => Client::connect_stdio(cmd.clone(), options).await,
        UpstreamTransport::Http { url, headers, transport } => {
            let http =
                HttpOptions { headers: headers.clone(), transport: *transport, ..HttpOptions::default() };
            Client::connect_http(url, http, options).await
        }
    }
}
