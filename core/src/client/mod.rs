//! The async client: connects with automatic lineage negotiation, then calls the server.
//!
//! ```no_run
//! use mcpcore::client::{Client, ClientOptions};
//! use mcpcore::transport::child::StdioCommand;
//! # async fn demo() -> mcpcore::Result<()> {
//! let client = Client::connect_stdio(StdioCommand::new("my-server", ["--stdio"]), ClientOptions::default()).await?;
//! println!("speaking {}", client.protocol_version());
//! let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
//! println!("{:?}", result.first_text());
//! client.close().await;
//! # Ok(()) }
//! ```

mod apps;
mod cache;
mod card;
mod connect;
mod event_types;
mod events;
mod host_input;
mod input;
mod listen;
mod listener;
mod mrtr;
mod prompts;
mod request;
mod resources;
mod roots;
mod router;
mod skills;
mod tasks;
mod utilities;

pub use apps::AppView;
pub use card::server_card;
pub use event_types::{EventPoller, EventStream, EventsSupport, StreamItem, POLL_FLOOR};
pub use events::{NotificationKinds, ServerEvent};
pub use host_input::HostInput;
pub use input::{BoxFuture, InputHandler, InputKinds};
pub use listen::{Subscription, SubscriptionEnd};
pub use skills::SkillsSupport;
pub use tasks::{TaskHandle, TaskInfo, TaskOptions};

use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::{Message, Notification, Request, RequestId, Response};
use crate::protocol::lifecycle::UnsupportedVersionData;
use crate::protocol::{meta, CallToolResult, ClientCapabilities, Implementation, Lineage, ListToolsResult};
use crate::protocol::{ProtocolVersion, ServerCapabilities, Tool};
use crate::transport::child::{self, ChildProcess, StdioCommand};
use crate::transport::{Channel, OutFrame, DEFAULT_MAX_FRAME};
pub use router::ProgressCallback;
use router::Shared;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::mpsc;

/// How a client connects and behaves.
#[derive(Clone)]
pub struct ClientOptions {
    /// Who we are (`clientInfo`).
    pub info: Implementation,
    /// What we offer beyond input: `experimental`, `extensions`, `sampling` sub-flags. The
    /// `elicitation`, `sampling` and `roots` entries are declared only for the kinds
    /// [`ClientOptions::input`] answers (see [`InputKinds`]).
    pub capabilities: ClientCapabilities,
    /// Answers the server's elicitation, sampling and roots requests, on both lineages (legacy
    /// server→client requests, modern MRTR `input_required` results). `None`: none are declared.
    pub input: Option<Arc<dyn InputHandler>>,
    /// Roots the client answers `roots/list` with itself (declared as the `roots` capability,
    /// with `listChanged` on legacy revisions); [`Client::set_roots`] changes them later. When
    /// set, they answer instead of [`ClientOptions::input`]'s `list_roots`.
    pub roots: Option<Vec<crate::protocol::roots::Root>>,
    /// Modern MRTR: how many times one call is retried with input before failing (default 8).
    pub max_input_rounds: usize,
    /// Keep cacheable results (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`, `resources/read`) while their `ttlMs` says they are fresh
    /// (default on; spec 2026-07-28 server/utilities/caching).
    pub cache: bool,
    /// Pin one revision (no negotiation beyond it).
    pub version: Option<ProtocolVersion>,
    /// Pin one lineage.
    pub lineage: Option<Lineage>,
    /// Per-request timeout (default 60 s); it also bounds the whole `connect_*` (every
    /// handshake step together). It pauses while a person may be involved: an OAuth
    /// authorization flow, or an answer to the server's request for input (elicitation,
    /// sampling, roots) — a call's time restarts once they are over.
    pub request_timeout: Duration,
    /// How long the `server/discover` probe may take before assuming a legacy server (default 5 s;
    /// at most half of `request_timeout`).
    pub probe_timeout: Duration,
    /// Largest accepted inbound frame in bytes.
    pub max_frame: usize,
    /// Record a CLIENT span and `mcp.client.operation.duration` per request with the
    /// `opentelemetry` global providers, and send the span's context in `params._meta`
    /// ([`crate::telemetry`]; default false).
    pub telemetry: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            info: Implementation::new("mcpcore", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            input: None,
            roots: None,
            max_input_rounds: 8,
            cache: true,
            version: None,
            lineage: None,
            request_timeout: Duration::from_secs(60),
            probe_timeout: Duration::from_secs(5),
            max_frame: DEFAULT_MAX_FRAME,
            telemetry: false,
        }
    }
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("info", &self.info)
            .field("capabilities", &self.capabilities)
            .field("input", &self.input.as_ref().map(|h| h.kinds()))
            .field("roots", &self.roots)
            .field("max_input_rounds", &self.max_input_rounds)
            .field("cache", &self.cache)
            .field("version", &self.version)
            .field("lineage", &self.lineage)
            .field("request_timeout", &self.request_timeout)
            .field("probe_timeout", &self.probe_timeout)
            .field("max_frame", &self.max_frame)
            .field("telemetry", &self.telemetry)
            .finish()
    }
}

/// Per-call options.
#[derive(Default)]
pub struct CallOptions {
    /// Overrides the client's request timeout.
    pub timeout: Option<Duration>,
    /// Receives `notifications/progress` for this call (a progress token is sent when set). It is
    /// called on the connection's reader, in the order the server sent things: a progress
    /// notification sent before a request for client input reaches it before that request.
    pub on_progress: Option<ProgressCallback>,
    /// Each progress notification restarts the timeout, up to this hard maximum in total.
    pub reset_timeout_on_progress: Option<Duration>,
    /// Modern lineage: ask for `notifications/message` at this level and above for this request
    /// (sent as `_meta` logLevel; delivered to [`Client::on_log`]). Legacy sessions use
    /// `logging/setLevel` instead.
    pub log_level: Option<crate::protocol::logging::LoggingLevel>,
    /// Answers the input this call makes the server ask for, instead of [`ClientOptions::input`]
    /// (a proxy relays it to its own caller this way, see [`crate::remote`]). Modern lineage:
    /// the MRTR rounds of this call are answered by it, and the request's `_meta`
    /// clientCapabilities declare its [`InputKinds`] instead of the connection's. Legacy
    /// lineage: the capabilities were declared at `initialize` (by [`ClientOptions::input`]);
    /// server→client requests arriving while this call is in flight go to it — to the newest
    /// such call when several are, since a legacy server request names no request it belongs to.
    pub input: Option<Arc<dyn InputHandler>>,
    /// 2026-07-28: declare the Tasks extension in this request's `_meta` clientCapabilities
    /// (the server may then answer with a task; see [`Client::call_tool_as_task`]).
    pub tasks: bool,
    /// Modern lineage: the extensions this request declares (`_meta` clientCapabilities
    /// `extensions`) instead of the connection's ([`ClientOptions::capabilities`]); a proxy
    /// declares what its own caller declared this way. Empty: none.
    pub extensions: Option<Map<String, Value>>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions").field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

/// Spawns a stdio server for [`Client::connect_stdio_with`]: the command and the largest frame
/// to read, as [`child::spawn`] takes them.
pub type Spawn =
    Arc<dyn Fn(&StdioCommand, usize) -> std::io::Result<(Channel, Arc<ChildProcess>)> + Send + Sync>;

/// What negotiation settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Negotiated {
    /// The revision in use.
    pub version: ProtocolVersion,
    /// The server's implementation info.
    pub server_info: Option<Implementation>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server's instructions.
    pub instructions: Option<String>,
    /// Versions the server said it supports (modern discover; empty on legacy).
    pub server_versions: Vec<String>,
}

/// A connected client. Cheap to clone; the connection closes (and a spawned server is killed)
/// when the last clone is dropped or [`Client::close`] is called.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    tx: crate::transport::FrameTx,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    negotiated: RwLock<Option<Negotiated>>,
    options: ClientOptions,
    /// 2025-11-25: tools whose `execution.taskSupport` is `required` (from `tools/list`).
    task_tools: std::sync::Mutex<std::collections::HashSet<String>>,
    /// A `tools/list` has been read, so `task_tools` knows which tools require a task.
    tools_learned: std::sync::atomic::AtomicBool,
    /// The roots of [`ClientOptions::roots`], as they are now.
    roots: Option<roots::RootList>,
    /// The level set by [`Client::set_log_level`] (sent with each 2026-07-28 request).
    log_level: RwLock<Option<crate::protocol::logging::LoggingLevel>>,
    process: Option<Arc<ChildProcess>>,
    /// Completes when the transport has sent its last frame (an HTTP session's DELETE).
    flushed: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Legacy Streamable HTTP: opens the GET stream server-initiated messages travel on.
    server_stream: std::sync::OnceLock<crate::http::client::streamable::StreamHandle>,
    /// HTTP with OAuth: request timeouts pause while an authorization flow runs.
    auth_clock: std::sync::OnceLock<Arc<crate::auth::client::FlowClock>>,
    /// 2026-07-28: the listen stream behind the host's notification handler.
    listener: listener::Listener,
    /// When the connection began, until [`Client::close`] records a legacy session's duration.
    started: std::sync::Mutex<Option<std::time::Instant>>,
}

/// Sends `notifications/cancelled` for a request whose caller stopped waiting.
struct CancelGuard<'a> {
    client: &'a Client,
    id: Option<RequestId>,
    reason: &'static str,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            if self.client.inner.shared.remove_pending(&id) {
                self.client.notify_cancelled(id, self.reason);
            }
        }
    }
}

impl Client {
    /// Spawns `cmd` and connects over stdio, negotiating the lineage (see the module docs of
    /// `connect` for the exact steps).
    pub async fn connect_stdio(cmd: StdioCommand, options: ClientOptions) -> Result<Client> {
        connect::stdio(cmd, options, None).await
    }

    /// [`Client::connect_stdio`] with the process spawned by `spawn` (called again if the
    /// steps need a fresh process): a host that reads the child's stdout on its own event loop
    /// spawns with [`child::spawn_host_read`] and takes the [`HostRead`](crate::transport::host_read::HostRead).
    pub async fn connect_stdio_with(
        cmd: StdioCommand,
        options: ClientOptions,
        spawn: Spawn,
    ) -> Result<Client> {
        connect::stdio(cmd, options, Some(spawn)).await
    }

    /// Connects to an MCP endpoint over HTTP (`http://…/mcp`), negotiating the lineage and the
    /// transport: modern Streamable HTTP, legacy Streamable HTTP, or 2024-11-05 HTTP+SSE.
    pub async fn connect_http(
        url: &str,
        http: crate::http::client::HttpOptions,
        options: ClientOptions,
    ) -> Result<Client> {
        connect::http(url, http, options).await
    }

    /// Wraps an established channel without negotiating; `connect_*` negotiate for you.
    pub fn from_channel(
        channel: Channel,
        process: Option<Arc<ChildProcess>>,
        options: ClientOptions,
    ) -> Client {
        let Channel { tx, rx, flushed, in_place } = channel;
        let roots = options.roots.clone().map(|r| Arc::new(RwLock::new(r)));
        let input = match &roots {
            Some(list) => {
                Some(Arc::new(roots::WithRoots { inner: options.input.clone(), roots: list.clone() })
                    as Arc<dyn InputHandler>)
            }
            None => options.input.clone(),
        };
        // What answers the server's input requests: the host's handler, with the client's own
        // roots when `ClientOptions::roots` is set.
        let shared = Arc::new(Shared::new(input, options.cache));
        let router = Arc::new(router::Router::new(shared.clone(), tx.downgrade()));
        if let Some(slot) = in_place {
            // Frames are dispatched on the thread that reads them; only the end comes through rx.
            slot.set(router.clone().sink());
        }
        tokio::spawn(router::run(router, rx));
        Client {
            inner: Arc::new(Inner {
                tx,
                shared,
                next_id: AtomicI64::new(1),
                negotiated: RwLock::new(None),
                options,
                task_tools: std::sync::Mutex::default(),
                tools_learned: std::sync::atomic::AtomicBool::new(false),
                roots,
                log_level: RwLock::new(None),
                process,
                flushed: std::sync::Mutex::new(flushed),
                server_stream: std::sync::OnceLock::new(),
                auth_clock: std::sync::OnceLock::new(),
                listener: listener::Listener::new(),
                started: std::sync::Mutex::new(Some(std::time::Instant::now())),
            }),
        }
    }

    fn spawn(cmd: &StdioCommand, options: &ClientOptions, spawn: Option<&Spawn>) -> Result<Client> {
        let (channel, process) = match spawn {
            Some(spawn) => spawn(cmd, options.max_frame)?,
            None => child::spawn(cmd, options.max_frame)?,
        };
        Ok(Client::from_channel(channel, Some(process), options.clone()))
    }

    /// What negotiation settled; panics before negotiation (never after `connect_*`).
    pub fn negotiated(&self) -> Negotiated {
        self.inner.negotiated.read().expect("lock").clone().expect("the client is connected")
    }

    /// The revision in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        // Read in place: every forwarded call asks, and `Negotiated` holds the server's
        // capabilities and info (a clone cost ~3k instructions a call; bench/NOTES.md).
        self.current_version().expect("the client is connected")
    }

    /// The lineage in use.
    pub fn lineage(&self) -> Lineage {
        self.protocol_version().lineage()
    }

    /// The server's implementation info.
    pub fn server_info(&self) -> Option<Implementation> {
        self.negotiated().server_info
    }

    /// The OS process id of a spawned server.
    pub fn server_pid(&self) -> Option<u32> {
        self.inner.process.as_ref().and_then(|p| p.pid())
    }

    /// Receives every `notifications/message` the server sends (legacy: filtered by
    /// `logging/setLevel`; modern: only for requests sent with `_meta` logLevel). Replaces any
    /// earlier handler.
    pub fn on_log(
        &self,
        handler: impl Fn(crate::protocol::logging::LoggingMessageNotificationParams) + Send + Sync + 'static,
    ) {
        self.inner.shared.set_log_handler(Some(Arc::new(handler)));
    }

    /// Receives every change notification of the server that answers no request: list
    /// changes, updates of the resources subscribed to ([`Client::subscribe_resource`]), and
    /// (legacy sessions) any other. Replaces any earlier handler. On legacy Streamable HTTP
    /// this opens the GET stream they travel on; on 2026-07-28 a `subscriptions/listen` stream
    /// the client keeps open (see [`Client::on_notifications`], which takes the kinds wanted).
    /// (Cached results are invalidated whether or not a handler is set.)
    ///
    /// ```no_run
    /// # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
    /// use mcpcore::client::ServerEvent;
    /// client.on_notification(|event| match event {
    ///     ServerEvent::ResourceUpdated(p) => println!("{} changed", p.uri),
    ///     other => println!("{}", other.method()),
    /// });
    /// client.subscribe_resource("file:///project/config.json").await?;
    /// # Ok(()) }
    /// ```
    pub fn on_notification(&self, handler: impl Fn(ServerEvent) + Send + Sync + 'static) {
        self.on_notifications(NotificationKinds::ALL, handler);
    }

    /// Legacy sessions whose input handler declared `roots_list_changed`: tells the server the
    /// roots changed (`notifications/roots/list_changed`). Does nothing on the modern lineage,
    /// which has no such notification.
    pub fn roots_changed(&self) -> Result<()> {
        if self.current_version().is_some_and(|v| v.is_modern()) {
            return Ok(());
        }
        self.notify("notifications/roots/list_changed", None)
    }

    /// Completes when the connection has closed (the server exited, the transport failed, or
    /// [`Client::close`] was called), with the reason (for a spawned server: its exit status and
    /// last stderr lines).
    pub async fn closed(&self) -> String {
        self.inner.shared.wait_closed().await
    }

    /// Forgets every cached result.
    pub fn clear_cache(&self) {
        if let Some(c) = &self.inner.shared.cache {
            c.clear();
        }
    }

    /// Opens the legacy HTTP GET stream (once), if this is a legacy Streamable HTTP session.
    fn open_server_stream(&self) {
        if let Some(s) = self.inner.server_stream.get() {
            s.open();
        }
    }

    /// The capabilities declared for `version`: the host's, with the input kinds of its handler.
    pub(crate) fn declared_capabilities(&self, version: ProtocolVersion) -> ClientCapabilities {
        self.capabilities_for(version, None)
    }

    /// [`Client::declared_capabilities`], with the kinds of a per-call handler instead of the
    /// connection's when there is one.
    fn capabilities_for(
        &self,
        version: ProtocolVersion,
        call_input: Option<&Arc<dyn InputHandler>>,
    ) -> ClientCapabilities {
        let handler = call_input.or(self.inner.shared.hooks.input.as_ref());
        let kinds = handler.map(|h| h.kinds()).unwrap_or_default();
        input::capabilities(&self.inner.options.capabilities, kinds, version)
    }

    /// True when requests made with `opts` declare the Tasks extension.
    fn declares_tasks(&self, opts: &CallOptions) -> bool {
        opts.tasks || crate::tasks::declares_tasks(&self.inner.options.capabilities)
    }

    /// The options.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    fn set_negotiated(&self, n: Negotiated) {
        *self.inner.negotiated.write().expect("lock") = Some(n);
    }

    fn current_version(&self) -> Option<ProtocolVersion> {
        self.inner.negotiated.read().expect("lock").as_ref().map(|n| n.version)
    }

    /// One page of `tools/list` (served from the cache while fresh).
    pub async fn list_tools_page(&self, cursor: Option<String>) -> Result<ListToolsResult> {
        let page: ListToolsResult = self.typed_cached("tools/list", page_params(cursor)).await?;
        self.learn_task_tools(&page.tools);
        Ok(page)
    }

    /// Forgets cached `tools/list` pages.
    fn clear_tools_cache(&self) {
        if let Some(c) = &self.inner.shared.cache {
            c.invalidate(&ServerEvent::ToolsListChanged);
        }
    }

    /// Every tool, following `nextCursor` (at most 1000 pages).
    pub async fn list_tools(&self) -> Result<Vec<Tool>> {
        all_pages("tools/list", |c| self.list_tools_page(c), |p| (p.tools, p.next_cursor)).await
    }

    /// Calls a tool.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.call_tool_with(name, arguments, &CallOptions::default()).await
    }

    /// Calls a tool with per-call options (timeout, progress, log level). On the modern lineage
    /// a tool that needs input (MRTR) gets it from [`ClientOptions::input`]. A tool that runs
    /// only as a task is run as one, and its result returned (see [`Client::call_tool_as_task`]).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        opts: &CallOptions,
    ) -> Result<CallToolResult> {
        let as_task = || async {
            let wait = opts.timeout.or(Some(self.inner.options.request_timeout));
            let task =
                self.call_tool_as_task(name, arguments.clone(), TaskOptions { ttl: None, wait }).await?;
            task.result().await
        };
        if self.task_required(name) {
            return as_task().await;
        }
        let params = json!({ "name": name, "arguments": arguments });
        let v = match self.request_with("tools/call", params, opts).await {
            Ok(v) => v,
            Err(e) if self.needs_task(name, &e).await => return as_task().await,
            Err(e) => return Err(e),
        };
        if v.get("isError") == Some(&Value::Bool(true)) && self.refused_for_want_of_task(name).await {
            return as_task().await;
        }
        serde_json::from_value(v).map_err(|e| Error::protocol(format!("malformed tools/call result: {e}")))
    }

    /// Closes the connection: stdin of a spawned server is closed, and it is killed if it has
    /// not exited within 2 s. Pending calls fail with a closed-connection error.
    pub async fn close(&self) {
        self.inner.listener.stop();
        let started = self.inner.started.lock().expect("lock").take();
        if let (true, Some(started)) = (self.inner.options.telemetry, started) {
            let transport = if self.inner.process.is_some() { "pipe" } else { "tcp" };
            crate::telemetry::client::session_ended(self.protocol_version(), transport, started);
        }
        // Ends the writer, which closes the child's stdin.
        let _ = self.inner.tx.send(OutFrame::Close);
        if let Some(p) = &self.inner.process {
            p.close(Duration::from_secs(2)).await;
        }
        let flushed = self.inner.flushed.lock().expect("lock").take();
        if let Some(f) = flushed {
            let _ = tokio::time::timeout(Duration::from_secs(2), f).await;
        }
    }
}

/// `notifications/cancelled` for the request `id`.
fn cancelled_frame(id: RequestId, reason: &str) -> OutFrame {
    let mut params = Map::new();
    params.insert("requestId".into(), id.to_value());
    params.insert("reason".into(), json!(reason));
    let n = Notification { method: "notifications/cancelled".into(), params: Some(params) };
    OutFrame::One(Message::Notification(n))
}

/// Request params as an object (`null` = none).
fn object(params: Value) -> Result<Map<String, Value>> {
    match params {
        Value::Null => Ok(Map::new()),
        Value::Object(m) => Ok(m),
        _ => Err(Error::invalid_input("request params must be a JSON object")),
    }
}

/// Params of a paginated list request.
fn page_params(cursor: Option<String>) -> Value {
    match cursor {
        Some(c) => json!({ "cursor": c }),
        None => json!({}),
    }
}

/// Follows `nextCursor` through at most 1000 pages.
async fn all_pages<P, T, F, Fut>(
    method: &str,
    fetch: F,
    split: impl Fn(P) -> (Vec<T>, Option<String>),
) -> Result<Vec<T>>
where
    F: Fn(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<P>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let (page, next) = split(fetch(cursor).await?);
        items.extend(page);
        match next {
            Some(c) => cursor = Some(c),
            None => return Ok(items),
        }
    }
    Err(Error::protocol(format!("{method} returned more than 1000 pages")))
}

/// A modern result's `resultType` must be one this client understands here: `complete`, and
/// `task` (a `CreateTaskResult`, returned as is) on `tools/call` when the client declares the
/// Tasks extension; `input_required` only on the methods MRTR runs for.
pub(crate) fn check_result_type(method: &str, value: &Value, tasks: bool) -> Result<()> {
    match value.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => Ok(()),
        Some("task") if tasks && method == "tools/call" => Ok(()),
        Some("input_required") => Err(Error::protocol(format!(
            "{method}: the server answered input_required, which only tools/call, prompts/get and resources/read may"
        ))),
        Some(other) => Err(Error::protocol(format!("{method}: unknown resultType {other:?}"))),
    }
}
