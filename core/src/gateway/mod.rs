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
mod events;
mod supervise;

pub use config::{GatewayConfig, Start, Upstream, UpstreamOAuth, UpstreamTransport};
pub use supervise::{UpstreamState, UpstreamStatus};

use crate::client::{Client, ClientOptions, InputKinds};
use crate::engine::ServerConfig;
use crate::error::{Error, Result};
use crate::http::client::HttpOptions;
use crate::prompts::PromptRegistry;
use crate::registry::ToolRegistry;
use crate::remote::{Registrations, RelayInput, RemoteServer};
use crate::resources::ResourceRegistry;
use crate::server::Server;
use crate::skills::SkillRegistry;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Upstreams connected and mounted into one set of catalogs.
#[derive(Debug)]
pub struct Gateway {
    inner: Arc<Inner>,
}

/// What the gateway and its supervisors share.
#[derive(Debug)]
pub(crate) struct Inner {
    tools: Arc<ToolRegistry>,
    resources: Arc<ResourceRegistry>,
    prompts: Arc<PromptRegistry>,
    /// The upstreams' skills (Skills extension), their files in `resources`.
    skills: Arc<SkillRegistry>,
    /// Tool search over every upstream's tools (the config's `toolSearch`).
    tool_search: Option<Arc<crate::registry::search::ToolSearch>>,
    /// OpenTelemetry on the gateway's server (the config's `telemetry`).
    telemetry: bool,
    remote: RemoteServer,
    /// What mounting each upstream registered (as of its first mount).
    mounted: Mutex<BTreeMap<String, Registrations>>,
    /// Each configured upstream's state.
    status: Mutex<BTreeMap<String, UpstreamStatus>>,
    /// The upstreams' event types, relayed (Events extension).
    events: Arc<events::EventRelay>,
    /// The tasks watching the upstreams (aborted at shutdown).
    supervisors: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Gateway {
    /// Connects every eager upstream of `config` and mounts it, then starts watching them all
    /// (lazy ones are connected in the background; see [`Start`]). Fails, with every upstream
    /// closed again, when an eager one cannot be reached or (collision policy `error`) one of
    /// its names is taken by another; the message names the entry (and, for a collision, both).
    pub async fn start(config: &GatewayConfig) -> Result<Gateway> {
        let tools = Arc::new(ToolRegistry::new());
        let resources = Arc::new(ResourceRegistry::new());
        let prompts = Arc::new(PromptRegistry::new());
        Gateway::start_with(config, tools, resources, prompts).await
    }

    /// [`Gateway::start`] into a host's own registries: what the host registered there
    /// (local tools, resources, prompts) is served beside the upstreams' entries, and collides
    /// with them like the upstreams' entries collide with each other.
    pub async fn start_with(
        config: &GatewayConfig,
        tools: Arc<ToolRegistry>,
        resources: Arc<ResourceRegistry>,
        prompts: Arc<PromptRegistry>,
    ) -> Result<Gateway> {
        let skills = Arc::new(SkillRegistry::new(resources.clone()));
        let tool_search = match &config.tool_search {
            Some(pinned) => Some(crate::registry::search::ToolSearch::install(&tools, pinned.clone())?),
            None => None,
        };
        let remote = RemoteServer::new(tools.clone())
            .with_resources(resources.clone())
            .with_prompts(prompts.clone())
            .with_skills(skills.clone());
        let inner = Arc::new(Inner {
            tools,
            resources,
            prompts,
            skills,
            tool_search,
            telemetry: config.telemetry,
            remote,
            mounted: Mutex::default(),
            events: Arc::new(events::EventRelay::new()),
            status: Mutex::new(
                config.upstreams.iter().map(|u| (u.name.clone(), UpstreamStatus::starting())).collect(),
            ),
            supervisors: Mutex::default(),
        });
        let gateway = Gateway { inner };
        let eager: Vec<&Upstream> = config.upstreams.iter().filter(|u| u.start == Start::Eager).collect();
        let connected = futures_util::future::join_all(eager.iter().map(|u| connect(u))).await;
        let mut clients = Vec::new();
        let mut failure = None;
        for (upstream, c) in eager.iter().zip(connected) {
            match c {
                Ok(client) => clients.push((*upstream, client)),
                Err(e) if failure.is_none() => failure = Some(named(&upstream.name, &e)),
                Err(_) => {}
            }
        }
        let mut clients = clients.into_iter();
        let mut watched = Vec::new();
        if failure.is_none() {
            for (upstream, client) in clients.by_ref() {
                match gateway.inner.mount(upstream, client.clone()).await {
                    Ok(()) => {
                        // Up when `start` returns: its supervisor, spawned below, may not have
                        // run yet, and a host that asks for the status at once must read Up.
                        gateway.inner.set_status(&upstream.name, |s| s.state = UpstreamState::Up);
                        watched.push((upstream.clone(), client));
                    }
                    Err(e) => {
                        failure = Some(gateway.inner.collision(&upstream.name, &e));
                        break;
                    }
                }
            }
        }
        if let Some(e) = failure {
            for (_, client) in clients {
                client.close().await;
            }
            gateway.shutdown().await;
            return Err(e);
        }
        let mut tasks = Vec::new();
        for (upstream, client) in watched {
            tasks.push(tokio::spawn(supervise::watch(gateway.inner.clone(), upstream, Some(client))));
        }
        for upstream in config.upstreams.iter().filter(|u| u.start == Start::Lazy) {
            tasks.push(tokio::spawn(supervise::watch(gateway.inner.clone(), upstream.clone(), None)));
        }
        gateway.inner.supervisors.lock().expect("lock").extend(tasks);
        Ok(gateway)
    }

    /// A server of the aggregate (cheap: the registries are shared), to serve on stdio or HTTP;
    /// it calls itself `mcpcore-gateway`.
    pub fn server(&self) -> Server {
        self.server_with(ServerConfig::new("mcpcore-gateway", env!("CARGO_PKG_VERSION")))
    }

    /// [`Gateway::server`] with `config` (name, instructions, state keys…); its `aggregate` is
    /// set to the upstreams' (the capabilities declared and the lists' caching hints follow
    /// them).
    pub fn server_with(&self, mut config: ServerConfig) -> Server {
        config.aggregate = Some(self.inner.remote.aggregate());
        if config.tool_search.is_none() {
            config.tool_search = self.inner.tool_search.clone();
        }
        if self.inner.telemetry {
            // Outermost: the SERVER span is current while the request is forwarded, so the
            // upstream call's CLIENT span is its child.
            let otel = Arc::new(crate::telemetry::OtelMiddleware::new());
            config.middleware = config.middleware.with_outermost(otel);
        }
        Server::new(config, self.inner.tools.clone())
            .with_resources(self.inner.resources.clone())
            .with_prompts(self.inner.prompts.clone())
            .with_skills(self.inner.skills.clone())
            .with_events(self.inner.events.registry().clone())
    }

    /// The aggregate tool registry (local tools may be added beside the upstreams' ones).
    pub fn tools(&self) -> &Arc<ToolRegistry> {
        &self.inner.tools
    }

    /// The aggregate resource registry.
    pub fn resources(&self) -> &Arc<ResourceRegistry> {
        &self.inner.resources
    }

    /// The upstreams' skills (Skills extension).
    pub fn skills(&self) -> &Arc<SkillRegistry> {
        &self.inner.skills
    }

    /// The aggregate prompt registry.
    pub fn prompts(&self) -> &Arc<PromptRegistry> {
        &self.inner.prompts
    }

    /// The names of the mounted upstreams, sorted (a lazy one once it first connected).
    pub fn upstreams(&self) -> Vec<String> {
        self.inner.remote.servers()
    }

    /// The state of the configured upstream `name`.
    pub fn status(&self, name: &str) -> Option<UpstreamStatus> {
        self.inner.status.lock().expect("lock").get(name).cloned()
    }

    /// What mounting `upstream` registered (as of its first mount; following changes updates
    /// the registries, not this).
    pub fn registrations(&self, upstream: &str) -> Option<Registrations> {
        self.inner.mounted.lock().expect("lock").get(upstream).cloned()
    }

    /// The client connected to `upstream` (`None` while it is unavailable).
    pub fn client(&self, upstream: &str) -> Option<Client> {
        self.inner.remote.client(upstream)
    }

    /// Stops watching the upstreams, then unmounts and closes every one (stdio children are
    /// stopped).
    pub async fn shutdown(&self) {
        for task in self.inner.supervisors.lock().expect("lock").drain(..) {
            task.abort();
        }
        let closing = self.inner.remote.servers();
        futures_util::future::join_all(closing.iter().map(|name| self.inner.remote.disconnect(name))).await;
    }
}

impl Inner {
    /// Mounts `upstream` over `client` (a first connection) or reconnects it (a restart).
    async fn mount(&self, upstream: &Upstream, client: Client) -> Result<()> {
        let events_client = client.clone();
        if self.remote.servers().contains(&upstream.name) {
            self.remote.reconnect(&upstream.name, client).await?;
        } else {
            let mount = upstream.mount.clone();
            let done = match on_behalf(upstream) {
                Some(obo) => self.remote.mount_on_behalf(&upstream.name, client, mount, obo).await?,
                None => self.remote.mount(&upstream.name, client, mount).await?,
            };
            self.mounted.lock().expect("lock").insert(upstream.name.clone(), done);
        }
        self.events.mount(&upstream.name, &upstream.mount.prefix, &events_client).await;
        Ok(())
    }

    /// `e` (mounting `upstream` failed) naming the upstream, and the mounted upstream holding
    /// the name or URI it quotes, when one does (the registry naming the holder of a tool
    /// already, this covers prompts, resources and templates).
    fn collision(&self, upstream: &str, e: &Error) -> Error {
        let message = e.message();
        let mounted = self.mounted.lock().expect("lock");
        let holder = mounted.iter().find(|(_, r)| {
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

    fn set_status(&self, name: &str, f: impl FnOnce(&mut UpstreamStatus)) {
        if let Some(s) = self.status.lock().expect("lock").get_mut(name) {
            f(s);
        }
    }
}

/// The gateway's OAuth client at one upstream: client credentials, pre-registered.
fn oauth_client(o: &UpstreamOAuth) -> crate::auth::client::OAuth {
    use crate::auth::client::{ClientAuth, DpopMode, FileTokenStore, OAuth, OAuthConfig};
    let auth = o.client_secret.clone().map(ClientAuth::Secret).unwrap_or(ClientAuth::None);
    let mut config = OAuthConfig::client_credentials(o.client_id.clone(), auth);
    config.client_name = "mcpcore-gateway".into();
    config.scopes = o.scopes.clone();
    // Default: DPoP when the upstream's metadata and its authorization server both take it;
    // `"dpop": true` also when only the authorization server offers it.
    config.dpop = if o.dpop { DpopMode::Offered } else { DpopMode::Auto };
    if let Some(path) = &o.token_store {
        config.store = std::sync::Arc::new(FileTokenStore::new(path));
    }
    OAuth::new(config)
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

/// The on-behalf-of calls of `upstream`, when its `oauth` asks for them: connections like the
/// gateway's own, authorized with each caller's exchanged token instead of the gateway's.
fn on_behalf(upstream: &Upstream) -> Option<Arc<crate::remote::obo::OnBehalf>> {
    let UpstreamTransport::Http { oauth: Some(oauth), .. } = &upstream.transport else { return None };
    let obo = oauth.on_behalf_of.as_ref()?;
    let exchange = crate::auth::client::TokenExchange {
        token_endpoint: obo.token_endpoint.clone(),
        client_id: oauth.client_id.clone(),
        client_secret: oauth.client_secret.clone(),
        audience: obo.audience.clone(),
        resource: obo.resource.clone(),
        scopes: obo.scopes.clone(),
    };
    let upstream = upstream.clone();
    let connect: crate::remote::obo::Connect = Arc::new(move |bearer: String| {
        let upstream = upstream.clone();
        Box::pin(async move { connect_as(&upstream, Some(bearer)).await })
    });
    Some(crate::remote::obo::OnBehalf::new(exchange, connect))
}

/// Connects to one upstream, declaring the input kinds the gateway relays to its own callers.
pub(crate) async fn connect(upstream: &Upstream) -> Result<Client> {
    connect_as(upstream, None).await
}

/// [`connect`], authorized with `bearer` (a caller's exchanged token) instead of the
/// gateway's own OAuth client when given.
async fn connect_as(upstream: &Upstream, bearer: Option<String>) -> Result<Client> {
    let mut options = ClientOptions {
        input: Some(RelayInput::new(InputKinds {
            elicitation: true,
            elicitation_url: true,
            sampling: true,
            roots: true,
            ..InputKinds::default()
        })),
        version: upstream.version,
        lineage: upstream.lineage,
        telemetry: upstream.telemetry,
        ..ClientOptions::default()
    };
    options.info.name = "mcpcore-gateway".into();
    // The gateway relays its upstreams' events: a legacy upstream then sends it
    // `notifications/events/list_changed` (SEP-3415 §Dynamic event types).
    options
        .capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(crate::protocol::events::EXTENSION_ID.into(), serde_json::json!({}));
    if let Some(t) = upstream.timeout {
        options.request_timeout = t;
    }
    match &upstream.transport {
        UpstreamTransport::Stdio(cmd) => Client::connect_stdio(cmd.clone(), options).await,
        UpstreamTransport::Http { url, headers, transport, oauth } => {
            let http = HttpOptions {
                headers: headers.clone(),
                transport: *transport,
                auth: oauth.as_ref().filter(|_| bearer.is_none()).map(oauth_client),
                // A caller's connection needs no stream of its own: the gateway's follows the
                // upstream's changes.
                standalone_stream: bearer.is_none(),
                bearer_token: bearer,
                ..HttpOptions::default()
            };
            Client::connect_http(url, http, options).await
        }
    }
}
