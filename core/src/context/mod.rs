//! What a handler sees of the request it serves: the [`RequestContext`].
//!
//! It says who is calling ([`Caller`]: revision, lineage, client info and capabilities), where
//! the request came from ([`Origin`]: HTTP headers, the authenticated [`Identity`], typed
//! extensions a host's middleware attached), and lets the handler report progress, log to the
//! caller, ask the client for input ([`input`](RequestContext::input), both lineages) and turn
//! its call into a task. Pure data plus trait objects: the runtime supplies the links that
//! reach the client ([`PeerLink`], [`TaskControl`], [`TaskInput`]).

mod access;
pub mod approval;
mod identity;
pub mod input;

pub use access::{Access, CatalogFilter, CatalogView, Entry};
pub use approval::Approval;
pub(crate) use identity::CallerToken;
pub use identity::Identity;
pub use input::{missing_capability, InputLedger, InputSeed, PeerLink, TaskInput};

use crate::error::ErrorData;
use crate::jsonrpc::{Message, Notification, RequestId};
use crate::protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use crate::protocol::notifications::ProgressNotificationParams;
use crate::protocol::{ClientCapabilities, Implementation, Lineage, ProtocolVersion};
use crate::Result;
use axum::http::{Extensions, HeaderMap};
use serde_json::{Map, Value};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

pub use crate::future::BoxFuture;

/// The arguments object of a tool call.
pub type Arguments = Map<String, Value>;

/// Where a handler's notifications go: the connection that carried its request.
pub type NotificationSink = Arc<dyn Fn(Message) + Send + Sync>;

/// Where a message came from, as the transport knows it. Filled by the shell that received the
/// message (the HTTP server: headers; the authorization layer: identity) and handed unchanged
/// to every handler the message runs.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// The HTTP request headers (HTTP transports only).
    pub headers: Option<HeaderMap>,
    /// Who the bearer token says the caller is, when the server verifies tokens.
    pub identity: Option<Arc<Identity>>,
    /// The legacy session the message belongs to (HTTP `Mcp-Session-Id`), when there is one.
    pub session_id: Option<String>,
    /// Typed values a host's own middleware attached to the request.
    pub extensions: Extensions,
    /// The network address the request came from (HTTP: the TCP peer, as
    /// [`serve_http`](crate::http::server::serve_http) or axum's `ConnectInfo` saw it; a proxy
    /// in front makes it the proxy's).
    pub peer: Option<SocketAddr>,
}

impl Origin {
    /// An origin with nothing known (stdio, in-process).
    pub fn none() -> Arc<Origin> {
        Arc::new(Origin::default())
    }

    /// The owner of what this request creates (a task): the verified token's
    /// [`Identity::owner`]; `None` without one (stdio, unprotected HTTP), when what it creates
    /// is anyone's.
    pub fn owner(&self) -> Option<String> {
        self.identity.as_ref().and_then(|i| i.owner())
    }

    /// Who the client is for per-client limits (sessions, tasks): the token's subject when a
    /// verified identity names one, else the peer's IP address; `None` when neither is known
    /// (stdio, in-process: one client per connection).
    pub fn client_key(&self) -> Option<ClientKey> {
        if let Some(sub) = self.identity.as_ref().and_then(|i| i.subject.clone()) {
            return Some(ClientKey::Subject(sub));
        }
        self.peer.map(|p| ClientKey::Address(p.ip()))
    }
}

/// One client, as per-client limits count it ([`Origin::client_key`]): authenticated clients by
/// who they are (so clients behind one proxy or NAT are told apart), others by address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// The subject (`sub`) of the client's verified token.
    Subject(String),
    /// The client's IP address.
    Address(IpAddr),
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientKey::Subject(s) => write!(f, "subject {s:?}"),
            ClientKey::Address(a) => write!(f, "address {a}"),
        }
    }
}

/// Who the client is, as the engine knows it for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    /// The revision the request speaks.
    pub version: ProtocolVersion,
    /// The client's `clientInfo` (legacy sessions: from `initialize`; modern requests: `_meta`
    /// clientInfo when sent).
    pub client_info: Option<Implementation>,
    /// What the client declared (legacy: in `initialize`; modern: in this request's `_meta`).
    pub client_capabilities: ClientCapabilities,
}

/// Starts a task for the call a handler serves (Tasks extension); supplied by the runtime.
pub trait TaskControl: Send + Sync {
    /// Starts the task (once) and returns its id; `None` when the call goes on synchronously
    /// instead (an `Optional` task the server could not start: the client's task quota is
    /// used up or the store is full); `-32603` when a `Required` one is refused.
    fn start(&self) -> BoxFuture<'_, std::result::Result<Option<String>, ErrorData>>;
    /// The task's id once started.
    fn task_id(&self) -> Option<String>;
}

/// Per-request context handed to a handler (tool, prompt, resource): who is calling, where from,
/// how to report progress and log, and how to ask the client for input.
#[derive(Clone, Default)]
pub struct RequestContext {
    request_id: Option<RequestId>,
    caller: Option<Arc<Caller>>,
    origin: Option<Arc<Origin>>,
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    pub(crate) input: Option<Arc<InputLedger>>,
    task: Option<Arc<dyn TaskControl>>,
}

/// The old name of [`RequestContext`].
pub type ToolContext = RequestContext;

/// Where log messages go, and the lowest level the caller wants.
#[derive(Clone)]
struct LogSink {
    min: LoggingLevel,
    outbound: NotificationSink,
}

#[derive(Clone)]
struct ProgressSink {
    token: Value,
    outbound: NotificationSink,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("request_id", &self.request_id)
            .field("caller", &self.caller)
            .field("progress", &self.progress.as_ref().map(|p| &p.token))
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// The context of a call made in-process (no peer, no progress).
    pub fn local() -> Self {
        Self::default()
    }

    /// The context of a call received from a peer.
    pub fn for_request(
        request_id: RequestId,
        protocol_version: ProtocolVersion,
        progress_token: Option<Value>,
        outbound: NotificationSink,
    ) -> Self {
        let caller = Caller {
            version: protocol_version,
            client_info: None,
            client_capabilities: ClientCapabilities::default(),
        };
        RequestContext {
            request_id: Some(request_id),
            caller: Some(Arc::new(caller)),
            progress: progress_token.map(|token| ProgressSink { token, outbound: outbound.clone() }),
            ..Default::default()
        }
    }

    /// Says who is calling.
    pub fn with_caller(mut self, caller: Arc<Caller>) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Says where the request came from.
    pub fn with_origin(mut self, origin: Arc<Origin>) -> Self {
        self.origin = Some(origin);
        self
    }

    /// Lets the handler ask the client for input through `ledger` (see [`RequestContext::input`]).
    pub fn with_input(mut self, ledger: Arc<InputLedger>) -> Self {
        self.input = Some(ledger);
        self
    }

    /// Lets the handler turn its call into a task through `task`.
    pub fn with_task(mut self, task: Arc<dyn TaskControl>) -> Self {
        self.task = Some(task);
        self
    }

    /// Lets the tool send `notifications/message` at `min` and above to the caller of this
    /// request (set by the server from the session's level or the request's `_meta` logLevel).
    pub fn with_log_level(mut self, min: Option<LoggingLevel>, outbound: NotificationSink) -> Self {
        self.log = min.map(|min| LogSink { min, outbound });
        self
    }

    /// The JSON-RPC id of the request being served, if the call came from a peer.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request_id.as_ref()
    }

    /// Who is calling, if the call came from a peer.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }

    /// The protocol version of the request being served.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.caller.as_ref().map(|c| c.version)
    }

    /// The lineage of the request being served.
    pub fn lineage(&self) -> Option<Lineage> {
        self.protocol_version().map(|v| v.lineage())
    }

    /// The client's `clientInfo`, when known.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.caller.as_ref().and_then(|c| c.client_info.as_ref())
    }

    /// What the client declared (legacy: in `initialize`; modern: in this request's `_meta`).
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        match (&self.caller, &self.input) {
            (Some(c), _) => Some(&c.client_capabilities),
            (None, Some(l)) => Some(l.capabilities()),
            (None, None) => None,
        }
    }

    /// Where the request came from, when a transport said.
    pub fn origin(&self) -> Option<&Origin> {
        self.origin.as_deref()
    }

    /// The HTTP request headers, over HTTP.
    pub fn headers(&self) -> Option<&HeaderMap> {
        self.origin.as_ref().and_then(|o| o.headers.as_ref())
    }

    /// The authenticated caller, when the server verifies tokens.
    pub fn identity(&self) -> Option<&Identity> {
        self.origin.as_ref().and_then(|o| o.identity.as_deref())
    }

    /// A typed value a host's middleware attached to the request.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.origin.as_ref().and_then(|o| o.extensions.get::<T>())
    }

    /// True when a message at `level` would reach the caller.
    pub fn wants_log(&self, level: LoggingLevel) -> bool {
        self.log.as_ref().is_some_and(|l| level >= l.min)
    }

    /// Sends `notifications/message` to the caller when it asked for `level` (legacy: the
    /// session's `logging/setLevel`, all levels until set; modern: only requests carrying
    /// `_meta` logLevel, at or above it). A no-op otherwise.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let Some(sink) = self.log.as_ref().filter(|l| level >= l.min) else { return };
        let params =
            LoggingMessageNotificationParams { level, logger: logger.map(str::to_owned), data, meta: None };
        let Ok(Value::Object(params)) = serde_json::to_value(params) else { return };
        let note = Notification { method: "notifications/message".into(), params: Some(params) };
        (sink.outbound)(Message::Notification(note));
    }

    /// Turns this call into a task (Tasks extension, [`crate::tasks`]): the request is answered
    /// with `CreateTaskResult` now, and this handler runs on; its result settles the task, its
    /// further input goes through `tasks/update`, its progress and log messages are dropped.
    /// Returns the task id, or `None` when this call cannot become a task (the tool has no task
    /// policy, the request did not declare the extension, a legacy session, an in-process call,
    /// or an `Optional` task the server could not start because the client's task quota is
    /// used up or the store is full): then the handler simply goes on synchronously. Calling
    /// it again returns the same id. Errors: a `Required` task was refused (`-32603`).
    pub async fn start_task(&self) -> Result<Option<String>> {
        match &self.task {
            Some(slot) => slot.start().await.map_err(crate::Error::rpc),
            None => Ok(None),
        }
    }

    /// The id of the task this call runs as, once started.
    pub fn task_id(&self) -> Option<String> {
        self.task.as_ref().and_then(|s| s.task_id())
    }

    /// True when the caller asked for progress notifications.
    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Sends `notifications/progress` to the caller when it asked for progress; a no-op otherwise.
    /// `progress` must increase from one call to the next.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(sink) = &self.progress else { return };
        let params = ProgressNotificationParams {
            progress_token: sink.token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        let params = match serde_json::to_value(params) {
            Ok(Value::Object(m)) => m,
            _ => return,
        };
        let note = Notification { method: "notifications/progress".into(), params: Some(params) };
        (sink.outbound)(Message::Notification(note));
    }
}
