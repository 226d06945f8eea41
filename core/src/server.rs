//! The server: an engine, its catalogs and tasks, and the transports it serves on. Each
//! transport is a thin shell around the runtime's [`Driver`](crate::runtime::Driver) (stdio,
//! legacy HTTP sessions) or its single-request path (2026-07-28 over HTTP).
//!
//! ```no_run
//! use mcpcore::{registry::ToolRegistry, server::Server, engine::ServerConfig};
//! # async fn demo() -> mcpcore::Result<()> {
//! let tools = std::sync::Arc::new(ToolRegistry::new());
//! Server::new(ServerConfig::new("demo", "1.0"), tools).serve_stdio().await
//! # }
//! ```

mod fed;
pub mod middleware;
pub mod webhooks;

pub use fed::FedStdio;

use crate::context::Origin;
use crate::engine::{RouteId, ServerConfig, ServerConnection, ServerEngine};
use crate::jsonrpc::Message;
use crate::prompts::PromptRegistry;
use crate::registry::ToolRegistry;
use crate::resources::ResourceRegistry;
use crate::runtime::clock::{self, Clock};
use crate::runtime::tasks::Tasks;
use crate::runtime::{entropy, Driver, Env, Outbound};
use crate::tasks::{MemoryTaskStore, TaskStore};
use crate::transport::{Channel, OutFrame, TransportEvent, DEFAULT_MAX_FRAME};
use std::sync::Arc;
use std::time::Duration;

/// An MCP server: an engine plus the transports it serves on.
#[derive(Debug, Clone)]
pub struct Server {
    engine: Arc<ServerEngine>,
    tasks: Arc<Tasks>,
    clock: Arc<dyn Clock>,
    states: Arc<dyn crate::state::StateLedger>,
    fanout: Option<Arc<crate::runtime::fanout::Fanout>>,
    /// The fleet's shared log of event occurrences ([`Server::with_scale_out`]).
    shared_events: Option<Arc<dyn crate::events::SharedLog>>,
    max_frame: usize,
    shutdown_grace: Duration,
}

impl Server {
    /// A server for `registry`. Without configured `state_keys`, `requestState` is sealed with
    /// a key drawn at random for this process.
    pub fn new(mut config: ServerConfig, registry: Arc<ToolRegistry>) -> Self {
        if config.state_keys.is_empty() {
            config.state_keys = entropy::state_key().into();
        }
        let clock = clock::system();
        let tasks = Arc::new(Tasks::with_clock(
            Arc::new(MemoryTaskStore::default()),
            config.tasks.clone(),
            clock.clone(),
        ));
        config.middleware.watch(registry.changes());
        Server {
            engine: Arc::new(ServerEngine::new(config, registry)),
            tasks,
            clock,
            states: Arc::new(crate::state::MemoryStateLedger::default()),
            fanout: None,
            shared_events: None,
            max_frame: DEFAULT_MAX_FRAME,
            shutdown_grace: Duration::from_secs(30),
        }
    }

    /// Serves `resources` too (`resources/*`, subscriptions, completion of template variables).
    pub fn with_resources(mut self, resources: Arc<ResourceRegistry>) -> Self {
        self.engine.config().middleware.watch(resources.changes());
        self.engine = Arc::new((*self.engine).clone().with_resources(resources));
        self
    }

    /// Serves `skills` too (the Skills extension, [`crate::skills`]); their files are read
    /// through their resource registry (the server's, unless it already serves another).
    pub fn with_skills(mut self, skills: Arc<crate::skills::SkillRegistry>) -> Self {
        if self.engine.resources().is_none() {
            self.engine.config().middleware.watch(skills.resources().changes());
        }
        self.engine = Arc::new((*self.engine).clone().with_skills(skills));
        self
    }

    /// Serves `events` too (the Events extension, [`crate::events`]: `events/list`,
    /// `events/poll`, `events/stream`); emit with [`crate::events::EventRegistry::emit`]. On a
    /// shared store ([`Server::with_scale_out`], either order) the occurrences are the fleet's.
    pub fn with_events(mut self, events: Arc<crate::events::EventRegistry>) -> Self {
        self.share_events(&events);
        if events.webhooks().is_none() {
            // Types offering webhooks are delivered under the default (production) policy.
            events.set_webhooks(webhooks::Webhooks::new(&events, webhooks::WebhookPolicy::default()));
        }
        self.engine = Arc::new((*self.engine).clone().with_events(events));
        self
    }

    /// Delivers webhook subscriptions of the served events under `policy` (instead of the
    /// default, production one; [`webhooks::WebhookPolicy::development`] accepts loopback
    /// callbacks). Call after [`Server::with_events`]; subscriptions made before are dropped.
    pub fn with_webhook_policy(self, policy: webhooks::WebhookPolicy) -> Self {
        if let Some(events) = self.engine.events() {
            events.set_webhooks(webhooks::Webhooks::new(events, policy));
        }
        self
    }

    /// Serves `prompts` too (`prompts/*`, completion of prompt arguments).
    pub fn with_prompts(mut self, prompts: Arc<PromptRegistry>) -> Self {
        self.engine.config().middleware.watch(prompts.changes());
        self.engine = Arc::new((*self.engine).clone().with_prompts(prompts));
        self
    }

    /// Seals `requestState` with `keys` (newest first) instead of the key drawn for this process:
    /// every instance behind one load balancer needs the same keys (2026-07-28
    /// basic/patterns/mrtr). Empty `keys` change nothing.
    pub fn with_state_keys(mut self, keys: crate::state::StateKeys) -> Self {
        if !keys.is_empty() {
            self.engine = Arc::new((*self.engine).clone().with_state_keys(keys));
        }
        self
    }

    /// Changes the server's configuration (limits, timeouts, task settings) before it serves;
    /// its task store and clock are kept.
    pub fn configure(mut self, change: impl FnOnce(&mut ServerConfig)) -> Self {
        let mut config = self.engine.config().clone();
        change(&mut config);
        let tasks_changed = config.tasks != self.engine.config().tasks;
        if !config.middleware.same_as(&self.engine.config().middleware) {
            for feed in self.engine.feeds() {
                config.middleware.watch_added(&self.engine.config().middleware, feed);
            }
        }
        self.engine = Arc::new((*self.engine).clone().with_config(config));
        if tasks_changed {
            let settings = self.engine.config().tasks.clone();
            self.tasks =
                Arc::new(Tasks::with_clock(self.tasks.store().clone(), settings, self.clock.clone()));
        }
        self
    }

    /// Reads a binding's HTTP settings (JSON in the users' `spelling`,
    /// [`crate::http::server::serve_settings`]) for this server, with `store` and `state_keys`
    /// applied by the rules of [`crate::store::ScaleOut`] (no `state_keys`: the environment
    /// variable `MCPCORE_STATE_KEY`; a store without keys is refused). Returns the server to
    /// serve (sealing `requestState` with those keys), the address to bind and the listener's
    /// configuration (sessions in the store). Needs a tokio runtime when a store is given.
    pub fn http_settings(
        &self,
        json: &str,
        spelling: crate::host::Spelling,
    ) -> crate::Result<(Server, std::net::SocketAddr, crate::http::server::HttpServerConfig)> {
        use crate::store::ScaleOut;
        let s = crate::http::server::serve_settings(json, spelling)?;
        let store = s.store.as_deref();
        let scale = match &s.state_keys {
            None => ScaleOut::from_env(store, &[]),
            Some(keys) => ScaleOut::new(store, Some(keys), &[]),
        }
        .map_err(|e| crate::Error::new(e.kind(), e.message().replace("--store", &spelling.name("store"))))?;
        let server = self.clone().with_scale_out(&scale).configure(|c| s.limits.apply(c));
        Ok((server, s.addr, scale.http_config(s.config, None)))
    }

    /// Keeps the claims of single-use `requestState`s
    /// ([`ServerConfig::state_single_use`]) in `ledger` instead of this process's memory:
    /// instances behind one load balancer need one they share.
    pub fn with_state_ledger(mut self, ledger: Arc<dyn crate::state::StateLedger>) -> Self {
        self.states = ledger;
        self
    }

    /// This server as one of several instances with `scale`'s settings: `requestState` sealed
    /// with its keys and, with a store, tasks, single-use claims, change announcements and
    /// event occurrences kept there (the legacy sessions are the HTTP configuration's:
    /// [`ScaleOut::http_config`](crate::store::ScaleOut::http_config)).
    pub fn with_scale_out(self, scale: &crate::store::ScaleOut) -> Self {
        let mut server = self.with_state_keys(scale.state_keys().clone());
        match scale.stores() {
            Some(stores) => {
                server.shared_events = Some(stores.events.clone());
                if let Some(events) = server.engine.events().cloned() {
                    server.share_events(&events);
                }
                server
                    .with_task_store(stores.tasks.clone())
                    .with_state_ledger(stores.states.clone())
                    .with_change_bus(stores.changes.clone())
            }
            None => server,
        }
    }

    /// Shares the occurrences of `events` through the fleet's log, when there is one and the
    /// registry does not share them yet.
    fn share_events(&self, events: &Arc<crate::events::EventRegistry>) {
        if let Some(log) = &self.shared_events {
            if !events.is_shared() {
                events.share(log.clone(), self.engine.config().state_keys.clone());
            }
        }
    }

    /// Shares catalog and task changes with the other instances on `bus`: a list change, a
    /// resource update or a task change made on any instance reaches the legacy sessions and
    /// `subscriptions/listen` streams of every instance (started when the server first serves
    /// HTTP).
    pub fn with_change_bus(mut self, bus: Arc<dyn crate::changes::ChangeBus>) -> Self {
        self.fanout = Some(Arc::new(crate::runtime::fanout::Fanout::new(bus)));
        self
    }

    /// Keeps tasks (Tasks extension, [`crate::tasks`]) in `store` instead of the default
    /// bounded in-memory store. Task settings (`ttlMs`, `pollIntervalMs`) are in
    /// [`ServerConfig::tasks`].
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        let settings = self.engine.config().tasks.clone();
        self.tasks = Arc::new(Tasks::with_clock(store, settings, self.clock.clone()));
        self
    }

    /// Reads the time from `clock` (tests step a [`crate::runtime::ManualClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock.clone();
        let settings = self.engine.config().tasks.clone();
        self.tasks = Arc::new(Tasks::with_clock(self.tasks.store().clone(), settings, clock));
        self
    }

    /// Sets the largest accepted frame in bytes (default 16 MiB); larger ones get `-32600`.
    pub fn with_max_frame(mut self, bytes: usize) -> Self {
        self.max_frame = bytes;
        self
    }

    /// How long in-flight calls may run after the connection closes (default 30 s); the rest
    /// are aborted.
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<ServerEngine> {
        &self.engine
    }

    /// The tasks (Tasks extension).
    pub fn tasks(&self) -> &Arc<Tasks> {
        &self.tasks
    }

    /// What this server's jobs share (engine, tasks, clock).
    pub fn env(&self) -> Arc<Env> {
        Arc::new(Env {
            engine: self.engine.clone(),
            tasks: self.tasks.clone(),
            clock: self.clock.clone(),
            states: self.states.clone(),
            fanout: self.fanout.clone(),
        })
    }

    /// How long in-flight requests may run after their connection closes.
    pub fn shutdown_grace(&self) -> Duration {
        self.shutdown_grace
    }

    /// Serves on this process's stdin/stdout until stdin closes, then finishes in-flight calls.
    pub async fn serve_stdio(&self) -> crate::Result<()> {
        self.serve_own_stdio(Origin::none()).await
    }

    /// [`Server::serve_stdio`] for a protected server: the caller's access token comes from the
    /// environment variable [`TOKEN_ENV`](crate::auth::server::TOKEN_ENV) (`MCP_ACCESS_TOKEN`),
    /// as the spec asks of stdio (2025-11-25 `basic/authorization`, "Protocol Requirements"),
    /// and is checked once, before serving, by `auth`'s verifier and required scopes. Every
    /// request is then served as that identity, with its per-identity catalogue. Without a
    /// valid token this returns an [`ErrorKind::Auth`](crate::ErrorKind::Auth) error at once.
    pub async fn serve_stdio_with_auth(&self, auth: &crate::auth::server::AuthConfig) -> crate::Result<()> {
        let token = std::env::var(crate::auth::server::TOKEN_ENV).ok();
        let origin = auth.stdio_origin(token.as_deref()).await?;
        self.serve_own_stdio(origin).await
    }

    /// Serves Streamable HTTP (both lineages) and the 2024-11-05 HTTP+SSE transport on `addr`
    /// until [`HttpServing::shutdown`](crate::http::server::HttpServing::shutdown).
    pub async fn serve_http(
        &self,
        addr: std::net::SocketAddr,
        config: crate::http::server::HttpServerConfig,
    ) -> crate::Result<crate::http::server::HttpServing> {
        crate::http::server::serve_http(self.env(), addr, config).await
    }

    /// Serves over HTTP on the Unix domain socket `path` (file mode `mode`, e.g. `0o600`); see
    /// [`crate::http::server::serve_http_unix`].
    #[cfg(unix)]
    pub async fn serve_http_unix(
        &self,
        path: &std::path::Path,
        mode: u32,
        config: crate::http::server::HttpServerConfig,
    ) -> crate::Result<crate::http::server::HttpServing> {
        crate::http::server::serve_http_unix(self.env(), path, mode, config).await
    }

    /// The Streamable HTTP endpoint (both lineages, plus the 2024-11-05 transport) as an axum
    /// `Router` to mount in a host's own app, at any path and under any tower layers.
    pub fn router(&self, config: crate::http::server::HttpServerConfig) -> axum::Router {
        crate::http::server::router(self.env(), config)
    }

    /// Serves one connection until it closes; in-flight calls finish before this returns.
    pub async fn serve_channel(&self, channel: Channel) -> crate::Result<()> {
        self.serve_channel_as(channel, Origin::none()).await
    }

    /// [`Server::serve_channel`] with every message coming from `origin` (e.g. an identity).
    pub async fn serve_channel_as(&self, channel: Channel, origin: Arc<Origin>) -> crate::Result<()> {
        let Channel { tx, mut rx, flushed, .. } = channel;
        let conn = ServerConnection::new(self.engine.clone());
        let (driver, handle) = Driver::new(conn, self.env(), ChannelOut { tx }, self.shutdown_grace);
        let driver = driver.measure_session("pipe");
        let feed = async {
            while let Some(event) = rx.recv().await {
                match event {
                    TransportEvent::Closed(_) => break,
                    TransportEvent::Failed(..) => {}
                    TransportEvent::Frame(frame) => {
                        if !handle.frame_in_place(frame, RouteId(0), origin.clone()) {
                            break;
                        }
                    }
                }
            }
            handle.close();
        };
        let (out, ()) = tokio::join!(driver.run(), feed);
        drop(out);
        if let Some(f) = flushed {
            let _ = f.await;
        }
        Ok(())
    }
}

/// A channel transport's side of a driver: every message goes out in order.
struct ChannelOut {
    tx: crate::transport::FrameTx,
}

impl Outbound for ChannelOut {
    fn send(&mut self, _route: Option<RouteId>, message: Message) {
        let _ = self.tx.send(OutFrame::One(message));
    }

    fn send_batch(&mut self, _route: RouteId, messages: Vec<Message>) {
        let _ = self.tx.send(OutFrame::Batch(messages));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ServerConfig;
    use crate::host::Spelling;

    const KEY: &str = "4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21";

    fn server() -> Server {
        Server::new(ServerConfig::new("t", "0"), Arc::new(ToolRegistry::default()))
    }

    #[test]
    fn state_keys_as_a_string_or_a_list_reach_the_engine() {
        let (s, _, _) =
            server().http_settings(&format!(r#"{{"stateKeys": "{KEY},{KEY}"}}"#), Spelling::Camel).unwrap();
        assert_eq!(s.engine().config().state_keys.all().len(), 2);
        let (s, _, _) =
            server().http_settings(&format!(r#"{{"state_keys": ["{KEY}"]}}"#), Spelling::Snake).unwrap();
        assert_eq!(
            s.engine().config().state_keys.current().unwrap(),
            &crate::state::StateKey::from_hex(KEY).unwrap()
        );
        let e = server().http_settings(r#"{"state_keys": ["ab"]}"#, Spelling::Snake).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
        assert!(e.message().contains("MCPCORE_STATE_KEY key 1"), "{e:?}");
    }

    #[test]
    fn a_store_is_checked_in_the_users_spelling() {
        let e = server()
            .http_settings(&format!(r#"{{"store": "memcached://x", "stateKeys": "{KEY}"}}"#), Spelling::Camel)
            .unwrap_err();
        assert!(e.message().starts_with("store \"memcached://x\""), "{e:?}");
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
    }
}
