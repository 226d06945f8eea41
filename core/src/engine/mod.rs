//! The server side of the protocol, both lineages, sans-IO.
//!
//! [`ServerConnection`] is one connection's state machine (quinn-proto's `Connection` is the
//! model): it is fed inbound messages with the time ([`ServerConnection::handle`]), polled for
//! what to do ([`ServerConnection::poll_event`]: send a message, start host code, abort it,
//! deliver a client's answer), and told when host code finished
//! ([`ServerConnection::complete`]). It owns the request lifecycle: the in-flight table and the
//! duplicate-id rule, cancellation, server→client requests and the routing of their answers,
//! 2025-03-26 batches, and the change notifications a legacy session is owed. Below it,
//! [`ServerEngine`] decides each request by the rules of its revision. Nothing here reads the
//! clock, draws entropy, sleeps or spawns: time comes in as an argument, so every rule of both
//! lineages is testable in memory, deterministically. The runtime's
//! [`Driver`](crate::runtime::Driver) pumps a connection for every transport.
//!
//! Lineage is chosen per request: a request whose `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` is modern (stateless); `initialize` starts a legacy
//! session on this connection; anything else belongs to that legacy session.

mod aggregate;
mod capabilities;
mod catalog;
mod chain;
mod connection;
mod events;
mod ids;
mod listen;
mod mrtr;
mod params;
mod shape;
mod skills;
mod tasks;
mod work;

use params::{call_params, parse_params};

pub use aggregate::{Aggregate, ListKind};
pub use connection::{Event, Job, JobId, RouteId, ServerConnection};
pub use events::EventStream;
pub use ids::{IdHasher, IdMap, PeerMap};
pub use listen::Listen;
pub use work::{Chained, Outcome, PendingCall, TaskOp, WebhookOp, Work};

use crate::context::{Access, Caller, Entry, Origin};
use crate::error::{ErrorCode, ErrorData};
use crate::events::EventRegistry;
use crate::jsonrpc::{Message, Notification, Request, RequestId, Response};
use crate::prompts::PromptRegistry;
use crate::protocol::events as event_ext;
use crate::protocol::lifecycle::{InitializeRequestParams, UnsupportedVersionData};
use crate::protocol::logging::{LoggingLevel, SetLevelRequestParams};
use crate::protocol::skills as skill_ext;
use crate::protocol::ClientCapabilities;
use crate::protocol::{meta, CacheHint, CacheScope, CallToolResult, Implementation, ProtocolVersion};
use crate::registry::ToolRegistry;
use crate::resources::ResourceRegistry;
use crate::session::LegacySession;
use crate::skills::SkillRegistry;
use crate::state::StateKeys;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Server settings that shape what the engine answers.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Name and version reported to clients.
    pub info: Implementation,
    /// Instructions for the model, sent in `initialize` / `server/discover`.
    pub instructions: Option<String>,
    /// Revisions served (default: all of them, both lineages).
    pub versions: Vec<ProtocolVersion>,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// `ttlMs` of modern list results and `server/discover`.
    pub ttl_ms: u64,
    /// `cacheScope` of modern cacheable results.
    pub cache_scope: CacheScope,
    /// The keys sealing MRTR `requestState`, newest first (empty by default: the runtime then
    /// draws a random key per process; share keys between instances that must resume each
    /// other's requests).
    pub state_keys: StateKeys,
    /// How long a sealed `requestState` stays valid (default 10 minutes).
    pub input_state_ttl: Duration,
    /// Encrypt `requestState` (XChaCha20-Poly1305 under a key derived from the state key), so
    /// clients cannot read what handlers keep in it (default false: signed, readable).
    pub state_encryption: bool,
    /// Accept each `requestState` once (default false): a replayed one is `-32602`. Claims are
    /// kept by the server's [`crate::state::StateLedger`] (in memory: one process; instances
    /// behind one load balancer need a shared one).
    pub state_single_use: bool,
    /// How long a legacy server→client request (elicitation, sampling, roots) waits for the
    /// client's answer before its handler gets an error (default 10 minutes).
    pub peer_request_timeout: Duration,
    /// The most requests one connection (a stdio connection, a legacy session) has in flight
    /// at once (default 1,000); one more is answered at once with `-32603` whose `data` names
    /// the limit ([`ErrorData::over_limit`](crate::ErrorData::over_limit); HTTP: 429 with
    /// `Retry-After`).
    pub max_in_flight: usize,
    /// What new tasks are created with (Tasks extension: `ttlMs`, `pollIntervalMs`, the
    /// per-client quota).
    pub tasks: crate::tasks::TaskSettings,
    /// A server fronting others (a gateway): the capabilities it declares and the caching hints
    /// of its lists come from them (default: none, they follow from the server's catalogs).
    pub aggregate: Option<Arc<dyn Aggregate>>,
    /// Tool search for a large catalogue ([`ToolSearch::install`](crate::registry::search::ToolSearch::install)):
    /// `tools/list` shows its pinned tools and `search_tools` only; every tool stays callable
    /// (default: none, every tool listed).
    pub tool_search: Option<Arc<crate::registry::search::ToolSearch>>,
    /// Host code around every dispatched request ([`crate::middleware`]), outermost first
    /// (default: none; requests are then dispatched directly, at no cost).
    pub middleware: crate::middleware::Chain,
    /// Settings of extensions the host implements itself, declared under
    /// `capabilities.extensions` on both lineages beside those the engine declares (which keep
    /// their own settings); e.g. `{"com.example/feature": {...}}` (default: none). Each value is
    /// an object; for 2026-07-28 clients it must also be a `JSONObject` of that revision's
    /// schema (schema.ts `ServerCapabilities.extensions`: no `null`, no fractional numbers),
    /// which 2025-11-25 does not require (SEP-2133, spec PR #3364).
    pub extensions: Map<String, Value>,
}

impl ServerConfig {
    /// Defaults for a server called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerConfig {
            info: Implementation::new(name, version),
            instructions: None,
            versions: ProtocolVersion::ALL.to_vec(),
            page_size: 100,
            ttl_ms: 60_000,
            cache_scope: CacheScope::Public,
            state_keys: StateKeys::default(),
            input_state_ttl: Duration::from_secs(600),
            state_encryption: false,
            state_single_use: false,
            peer_request_timeout: Duration::from_secs(600),
            max_in_flight: 1_000,
            tasks: crate::tasks::TaskSettings::default(),
            aggregate: None,
            tool_search: None,
            middleware: crate::middleware::Chain::default(),
            extensions: Map::new(),
        }
    }
}

/// What the connection must do with one inbound message.
#[derive(Debug)]
pub(crate) enum Action {
    /// Send this response.
    Reply(Response),
    /// Run this host code (tool, prompt, resource, completion).
    CallTool(Box<PendingCall>),
    /// Open a `subscriptions/listen` stream (2026-07-28).
    Listen(Listen),
    /// Open an `events/stream` (Events extension).
    Events(EventStream),
    /// Cancel the in-flight request with this id (ignore if unknown).
    Cancel(RequestId),
    /// A response from the client to a server→client request.
    PeerResponse(Response),
    /// Nothing to do (a notification was consumed).
    Nothing,
}

const LOG_LEVELS: [&str; 8] =
    ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// The server protocol engine: configuration plus the tool registry.
#[derive(Debug, Clone)]
pub struct ServerEngine {
    config: ServerConfig,
    registry: Arc<ToolRegistry>,
    resources: Option<Arc<ResourceRegistry>>,
    prompts: Option<Arc<PromptRegistry>>,
    skills: Option<Arc<SkillRegistry>>,
    events: Option<Arc<EventRegistry>>,
    supported: Vec<String>,
    /// `config.info` as JSON, serialized once: every modern result carries it in `_meta`.
    info: Value,
}

impl ServerEngine {
    /// An engine serving `registry` with `config`.
    pub fn new(mut config: ServerConfig, registry: Arc<ToolRegistry>) -> Self {
        config.versions.sort_by(|a, b| b.cmp(a));
        config.versions.dedup();
        let supported = config.versions.iter().map(|v| v.as_str().to_owned()).collect();
        let info = serde_json::to_value(&config.info).expect("serializable");
        ServerEngine {
            config,
            registry,
            resources: None,
            prompts: None,
            skills: None,
            events: None,
            supported,
            info,
        }
    }

    /// The same engine with `keys` sealing `requestState` (the runtime sets a random key when
    /// none is configured).
    pub fn with_state_keys(mut self, keys: StateKeys) -> Self {
        self.config.state_keys = keys;
        self
    }

    /// The same engine with `config` (its served revisions sorted, newest first).
    pub fn with_config(self, config: ServerConfig) -> Self {
        let mut engine = ServerEngine::new(config, self.registry);
        engine.resources = self.resources;
        engine.prompts = self.prompts;
        engine.skills = self.skills;
        engine.events = self.events;
        engine
    }

    /// Serves `resources` too (`resources/*`, completion of template variables).
    pub fn with_resources(mut self, resources: Arc<ResourceRegistry>) -> Self {
        self.resources = Some(resources);
        self
    }

    /// Serves `prompts` too (`prompts/*`, completion of prompt arguments).
    pub fn with_prompts(mut self, prompts: Arc<PromptRegistry>) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// Serves `skills` too (the Skills extension: `skills/list`, `skills/get`,
    /// `resources/directory/read`), their files through their resource registry, which becomes
    /// the engine's resources unless it has some (give both the same registry).
    pub fn with_skills(mut self, skills: Arc<SkillRegistry>) -> Self {
        self.resources.get_or_insert_with(|| skills.resources().clone());
        self.skills = Some(skills);
        self
    }

    /// Serves `events` too (the Events extension: `events/list`, `events/poll`, `events/stream`).
    pub fn with_events(mut self, events: Arc<EventRegistry>) -> Self {
        self.events = Some(events);
        self
    }

    /// The event types, when served.
    pub fn events(&self) -> Option<&Arc<EventRegistry>> {
        self.events.as_ref()
    }

    /// The skills, when served.
    pub fn skills(&self) -> Option<&Arc<SkillRegistry>> {
        self.skills.as_ref()
    }

    /// The resources, when served.
    pub fn resources(&self) -> Option<&Arc<ResourceRegistry>> {
        self.resources.as_ref()
    }

    /// The prompts, when served.
    pub fn prompts(&self) -> Option<&Arc<PromptRegistry>> {
        self.prompts.as_ref()
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// True when a JSON-RPC batch is acceptable on `session` (a 2025-03-26 session only).
    pub fn accepts_batch(&self, session: Option<&LegacySession>) -> bool {
        session.is_some_and(|s| s.version.allows_batch())
    }

    /// The error owed for a batch that is not acceptable.
    pub fn batch_rejected() -> Response {
        Response::error(
            None,
            ErrorData::invalid_request(
                "Invalid Request: JSON-RPC batches are only accepted on a 2025-03-26 session",
            ),
        )
    }

    /// Decides what to do with one inbound message, received at `now` from `origin`.
    pub(crate) fn handle(
        &self,
        session: &mut Option<LegacySession>,
        caller: &mut Option<Arc<Caller>>,
        msg: Message,
        origin: &Origin,
        now: SystemTime,
    ) -> Action {
        let mut at = At { session, caller, now, origin };
        match msg {
            Message::Request(req) => self.handle_request(&mut at, req),
            Message::Notification(n) => self.handle_notification(&mut at, n),
            Message::Response(r) => Action::PeerResponse(r),
        }
    }

    fn handle_notification(&self, at: &mut At<'_>, n: Notification) -> Action {
        match n.method.as_str() {
            "notifications/initialized" => {
                if let Some(s) = at.session.as_mut() {
                    s.initialized = true;
                }
                Action::Nothing
            }
            "notifications/cancelled" => {
                let id = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
                id.map(Action::Cancel).unwrap_or(Action::Nothing)
            }
            _ => Action::Nothing,
        }
    }

    fn handle_request(&self, at: &mut At<'_>, req: Request) -> Action {
        let meta_version =
            req.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(meta::PROTOCOL_VERSION));
        if meta_version.is_some() {
            return self.modern(req, at.now, at.origin);
        }
        if req.method == "initialize" {
            return self.initialize(at, req);
        }
        let session = at.session.as_ref().map(|s| (s.initialized, s.version, s.log_level));
        match session {
            Some((initialized, version, log_level)) if initialized || req.method == "ping" => {
                match req.method.as_str() {
                    "logging/setLevel" => return self.set_level(at, req, version),
                    "resources/subscribe" | "resources/unsubscribe" => return self.subscribe(at, req, version),
                    _ => {}
                }
                let caller = match at.caller {
                    Some(c) if c.version == version => c.clone(),
                    _ => {
                        let s = at.session.as_ref().expect("checked");
                        let c = Arc::new(Caller {
                            version,
                            client_info: Some(s.client_info.clone()),
                            client_capabilities: s.client_capabilities.clone(),
                        });
                        *at.caller = Some(c.clone());
                        c
                    }
                };
                let level = Some(log_level.unwrap_or(LoggingLevel::Debug));
                self.legacy(req, version, level, caller, at.now, at.origin)
            }
            Some(_) => reply_err(
                req.id,
                ErrorData::invalid_request(format!(
                    "Invalid Request: {} sent before notifications/initialized; finish the initialize handshake first",
                    req.method
                )),
            ),
            None if req.method == "ping" => Action::Reply(Response::result(req.id, json!({}))),
            None => reply_err(
                req.id,
                ErrorData::invalid_params(format!(
                    "Invalid params: {} carries no _meta[\"{}\"]; a 2026-07-28 request must carry \
                     _meta protocolVersion and clientCapabilities, a legacy client must send initialize first",
                    req.method,
                    meta::PROTOCOL_VERSION
                )),
            ),
        }
    }

    // ----- modern lineage -------------------------------------------------------------------

    fn unsupported_version_error(&self, requested: &str) -> ErrorData {
        let data =
            UnsupportedVersionData { supported: self.supported.clone(), requested: requested.to_owned() };
        ErrorData::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(serde_json::to_value(data).expect("serializable"))
    }

    /// Checks the `_meta` of a modern request (it names `protocolVersion`): the version is one we
    /// serve, `clientCapabilities` is an object, a log level is known. These are the errors an HTTP
    /// server answers with status 400 before dispatch (`-32022`, `-32602`).
    pub fn modern_precheck(&self, req: &Request) -> Result<ProtocolVersion, ErrorData> {
        let meta_obj = req.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let Some(meta_obj) = meta_obj else {
            return Err(ErrorData::invalid_params("Invalid params: _meta must be an object"));
        };
        let Some(requested) = meta_obj.get(meta::PROTOCOL_VERSION).and_then(Value::as_str) else {
            return Err(ErrorData::invalid_params(format!(
                "Invalid params: _meta[\"{}\"] must be a string",
                meta::PROTOCOL_VERSION
            )));
        };
        let version = match ProtocolVersion::parse(requested) {
            Some(v) if v.is_modern() && self.config.versions.contains(&v) => v,
            _ => return Err(self.unsupported_version_error(requested)),
        };
        if !meta_obj.get(meta::CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
            return Err(ErrorData::invalid_params(format!(
                "Invalid params: missing _meta[\"{}\"] (send {{}} when the client has no optional capabilities)",
                meta::CLIENT_CAPABILITIES
            )));
        }
        if let Some(level) = meta_obj.get(meta::LOG_LEVEL) {
            if !level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l)) {
                return Err(ErrorData::invalid_params(format!("Invalid params: unknown log level {level}")));
            }
        }
        Ok(version)
    }

    fn modern(&self, req: Request, now: SystemTime, origin: &Origin) -> Action {
        let version = match self.modern_precheck(&req) {
            Ok(v) => v,
            Err(e) => return reply_err(req.id, e),
        };
        let meta = req.params.as_ref().and_then(|p| p.get("_meta"));
        let caps: ClientCapabilities = meta
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
            .and_then(|c| ClientCapabilities::deserialize(c).ok())
            .unwrap_or_default();
        // Modern: log messages only for requests that ask, at or above their level.
        let level =
            meta.and_then(|m| m.get(meta::LOG_LEVEL)).and_then(Value::as_str).and_then(LoggingLevel::parse);
        let client_info =
            meta.and_then(|m| m.get(meta::CLIENT_INFO)).and_then(|i| Implementation::deserialize(i).ok());
        let caller = Caller { version, client_info, client_capabilities: caps };
        match req.method.as_str() {
            "subscriptions/listen" => self.listen(req, version, &caller.client_capabilities, origin),
            // A stream is a long-lived job, as a listen stream: not a request middleware answers.
            event_ext::STREAM => self.common(req, version, level, Who::Modern(Arc::new(caller)), now, origin),
            _ if self.chains() => self.chained(req, version, level, Who::Modern(Arc::new(caller))),
            _ => self.modern_methods(req, version, level, Arc::new(caller), now, origin),
        }
    }

    /// The modern methods a middleware chain wraps.
    fn modern_methods(
        &self,
        req: Request,
        version: ProtocolVersion,
        level: Option<LoggingLevel>,
        caller: Arc<Caller>,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        match req.method.as_str() {
            "server/discover" => {
                let mut result = json!({
                    "supportedVersions": self.supported,
                    "capabilities": self.capabilities(version),
                });
                if let Some(i) = &self.config.instructions {
                    result["instructions"] = json!(i);
                }
                self.cache_hints(&mut result);
                self.reply_ok(req.id, version, result)
            }
            "tasks/get" | "tasks/update" | "tasks/cancel" => self.tasks_method(req, version, caller),
            _ => self.common(req, version, level, Who::Modern(caller), now, origin),
        }
    }

    // ----- legacy lineage -------------------------------------------------------------------

    fn initialize(&self, at: &mut At<'_>, req: Request) -> Action {
        if at.session.is_some() {
            return reply_err(
                req.id,
                ErrorData::invalid_request(
                    "Invalid Request: initialize was already received on this connection",
                ),
            );
        }
        let params: InitializeRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let legacy: Vec<ProtocolVersion> =
            self.config.versions.iter().copied().filter(|v| !v.is_modern()).collect();
        let version = match ProtocolVersion::parse(&params.protocol_version) {
            Some(v) if legacy.contains(&v) => v,
            _ => match legacy.first() {
                Some(newest) => *newest,
                None => return reply_err(req.id, self.unsupported_version_error(&params.protocol_version)),
            },
        };
        *at.caller = None;
        *at.session = Some(LegacySession {
            version,
            client_capabilities: params.capabilities,
            client_info: params.client_info,
            initialized: false,
            log_level: None,
            subscriptions: BTreeSet::new(),
        });
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(version),
            "serverInfo": shape::implementation(serde_json::to_value(&self.config.info).expect("serializable"), version),
        });
        if let Some(i) = &self.config.instructions {
            result["instructions"] = json!(i);
        }
        self.reply_ok(req.id, version, result)
    }

    fn legacy(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        caller: Arc<Caller>,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        if self.chains() && req.method != event_ext::STREAM {
            return self.chained(req, version, log_level, Who::Legacy(caller));
        }
        self.legacy_methods(req, version, log_level, caller, now, origin)
    }

    /// The legacy methods a middleware chain wraps.
    fn legacy_methods(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        caller: Arc<Caller>,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        match req.method.as_str() {
            "ping" => self.reply_ok(req.id, version, json!({})),
            _ => self.common(req, version, log_level, Who::Legacy(caller), now, origin),
        }
    }

    // ----- shared methods -------------------------------------------------------------------

    /// Methods both lineages share. `origin` decides the caller's catalogue (a
    /// [`CatalogView`](crate::context::CatalogView) the authorization layer attached).
    fn common(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        who: Who,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let method = req.method.as_str();
        if !matches!(method, "tools/list" | "tools/call") && !self.advertises(method, version) {
            // A method of a capability the server did not declare is one it does not have:
            // -32601, whatever registries sit behind it (a gateway whose upstreams offer no
            // prompts).
            return reply_err(req.id, ErrorData::method_not_found(&req.method));
        }
        match method {
            "tools/list" => self.tools_list(req, version, origin),
            "tools/call" => self.tools_call(req, version, log_level, who, now, origin),
            "resources/list" => self.resources_list(req, version, origin),
            "resources/templates/list" => self.templates_list(req, version, origin),
            "resources/read" => self.resources_read(req, version, log_level, who, now, origin),
            "prompts/list" => self.prompts_list(req, version, origin),
            "prompts/get" => self.prompts_get(req, version, log_level, who, now, origin),
            "completion/complete" => self.complete(req, version, who, origin),
            skill_ext::LIST => self.skills_list(req, version, origin),
            skill_ext::GET => self.skills_get(req, version, origin),
            skill_ext::DIRECTORY_READ => self.directory_read(req, version, origin),
            event_ext::LIST => self.events_list(req, version, origin),
            event_ext::POLL => self.events_poll(req, version, who.caller(), now, origin),
            event_ext::STREAM => self.events_stream(req, version, who.caller(), now, origin),
            event_ext::SUBSCRIBE => self.events_subscribe(req, version, who.caller(), now, origin),
            event_ext::UNSUBSCRIBE => self.events_unsubscribe(req, version, who.caller(), origin),
            _ => reply_err(req.id, ErrorData::method_not_found(&req.method)),
        }
    }

    /// Adds the modern caching hints (`ttlMs`, `cacheScope`) to a cacheable result.
    pub(crate) fn cache_hints(&self, result: &mut Value) {
        self.merged_cache_hints(result, CacheHint::default());
    }

    /// Adds the server's caching hints merged with `hint` (the shorter freshness, the more
    /// private scope) to a cacheable result.
    pub(crate) fn merged_cache_hints(&self, result: &mut Value, hint: CacheHint) {
        let own = CacheHint { ttl_ms: Some(self.config.ttl_ms), scope: Some(self.config.cache_scope) };
        let CacheHint { ttl_ms, scope } = own.merge(hint);
        if let Value::Object(obj) = result {
            obj.insert("ttlMs".into(), json!(ttl_ms.unwrap_or(self.config.ttl_ms)));
            obj.insert("cacheScope".into(), json!(scope.unwrap_or(self.config.cache_scope)));
        }
    }

    fn tools_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let size = self.config.page_size;
        let search = self.config.tool_search.as_deref();
        let page = catalog::cursor(&req).and_then(|c| match (origin.has_view(), search) {
            (false, None) => self.registry.page(c, size),
            (_, search) => self.registry.page_where(c, size, |t| {
                search.is_none_or(|s| s.listed(&t.name))
                    && (!origin.has_view() || origin.allows(&Entry::Tool(&t.name), Access::List))
            }),
        });
        let page = catalog::shaped(page, version, shape::tool);
        self.list_reply(req.id, version, ListKind::Tools, page, origin)
    }

    /// Legacy `logging/setLevel`: remembers the session's level; the result is `{}`.
    fn set_level(&self, at: &mut At<'_>, req: Request, version: ProtocolVersion) -> Action {
        let params: SetLevelRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        if let Some(s) = at.session.as_mut() {
            s.log_level = Some(params.level);
        }
        self.reply_ok(req.id, version, json!({}))
    }

    fn tools_call(
        &self,
        mut req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        who: Who,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let params = match call_params(&mut req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        // A tool the caller may not use is refused exactly like one that does not exist.
        let usable = origin.allows(&Entry::Tool(&params.name), Access::Use);
        let Some(tool) = self.registry.get(&params.name).filter(|_| usable) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params(format!("Unknown tool: {}", params.name))
                    .with_data(json!({ "tool": params.name })),
            );
        };
        let task = match self.task_plan(&tool, &who) {
            Ok(t) => t,
            Err(e) => return reply_err(req.id, e),
        };
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        if let Err(e) = tool.validate_arguments(&arguments) {
            if version.tool_input_errors_are_results() {
                let result = serde_json::to_value(CallToolResult::error(e.message)).expect("serializable");
                return self.reply_ok(req.id, version, shape::call_tool_result(result, version));
            }
            return reply_err(req.id, e);
        }
        let caller = who.caller().clone();
        let (input, binding) = match self.input_for(&req, who, &params.name, &arguments, now) {
            Ok(x) => x,
            Err(e) => return reply_err(req.id, e),
        };
        let Value::Object(arguments) = arguments else { unreachable!("built as an object") };
        let progress_token = params.meta.as_ref().and_then(|m| m.get(meta::PROGRESS_TOKEN)).cloned();
        Action::CallTool(Box::new(PendingCall {
            id: req.id,
            version,
            caller,
            work: Work::Tool { tool, arguments },
            progress_token,
            log_level,
            input: Some(input),
            binding,
            task,
        }))
    }

    /// A successful response: modern results get `resultType: "complete"` and the server's
    /// identity in `_meta`.
    pub(crate) fn ok(&self, id: RequestId, version: ProtocolVersion, result: Value) -> Response {
        match self.reply_ok(id, version, result) {
            Action::Reply(r) => r,
            _ => unreachable!("reply_ok always replies"),
        }
    }

    fn reply_ok(&self, id: RequestId, version: ProtocolVersion, mut result: Value) -> Action {
        if version.is_modern() {
            if let Value::Object(obj) = &mut result {
                obj.insert("resultType".into(), json!("complete"));
                let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = meta {
                    m.insert(meta::SERVER_INFO.into(), self.info.clone());
                }
            }
        }
        Action::Reply(Response::result(id, result))
    }
}

/// Who sent a request: a legacy session or a modern request.
#[derive(Debug, Clone)]
enum Who {
    Legacy(Arc<Caller>),
    Modern(Arc<Caller>),
}

impl Who {
    fn caller(&self) -> &Arc<Caller> {
        match self {
            Who::Legacy(c) | Who::Modern(c) => c,
        }
    }
}

/// The session a message may change, and the time it arrived.
struct At<'a> {
    session: &'a mut Option<LegacySession>,
    /// The session's [`Caller`], built once from its record and shared by its requests (the
    /// connection keeps it; empty until the first request, and again after a new `initialize`
    /// or a record restored from a store).
    caller: &'a mut Option<Arc<Caller>>,
    now: SystemTime,
    origin: &'a Origin,
}

fn reply_err(id: RequestId, e: ErrorData) -> Action {
    Action::Reply(Response::error(Some(id), e))
}

#[cfg(test)]
mod tests;
