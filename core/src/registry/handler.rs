//! What a tool is to the registry: an async handler plus the per-call context.

use crate::jsonrpc::{Message, Notification, RequestId};
use crate::protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use crate::protocol::notifications::ProgressNotificationParams;
use crate::protocol::{CallToolResult, ProtocolVersion};
use crate::Result;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The arguments object of a tool call.
pub type Arguments = Map<String, Value>;

/// Runs a tool. Implemented for every `Fn(Arguments, ToolContext) -> impl Future` closure.
///
/// Returning `Err` with [`crate::ErrorKind::Rpc`] sends that JSON-RPC error to the caller (used
/// to forward a remote server's error unchanged); any other `Err` becomes a result with
/// `isError: true` carrying the message, so the model can read it and self-correct.
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool.
    fn call(&self, arguments: Arguments, ctx: ToolContext) -> BoxFuture<'static, Result<CallToolResult>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Arguments, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
{
    fn call(&self, arguments: Arguments, ctx: ToolContext) -> BoxFuture<'static, Result<CallToolResult>> {
        Box::pin(self(arguments, ctx))
    }
}

/// Per-request context handed to a handler (tool, prompt, resource): who is calling, how to
/// report progress and log, and how to ask the client for input ([`crate::input`]).
#[derive(Clone, Default)]
pub struct ToolContext {
    request_id: Option<RequestId>,
    protocol_version: Option<ProtocolVersion>,
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    pub(crate) input: Option<Arc<crate::input::InputLedger>>,
    pub(crate) task: Option<Arc<crate::tasks::run::TaskSlot>>,
}

/// Where log messages go, and the lowest level the caller wants.
#[derive(Clone)]
struct LogSink {
    min: LoggingLevel,
    outbound: NotificationSink,
}

/// Where a tool's notifications go: the connection that carried its request.
pub type NotificationSink = Arc<dyn Fn(Message) + Send + Sync>;

#[derive(Clone)]
struct ProgressSink {
    token: Value,
    outbound: NotificationSink,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("request_id", &self.request_id)
            .field("protocol_version", &self.protocol_version)
            .field("progress", &self.progress.as_ref().map(|p| &p.token))
            .finish()
    }
}

impl ToolContext {
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
        ToolContext {
            request_id: Some(request_id),
            protocol_version: Some(protocol_version),
            progress: progress_token.map(|token| ProgressSink { token, outbound: outbound.clone() }),
            log: None,
            input: None,
            task: None,
        }
    }

    /// Lets the handler ask the client for input through `ledger` (see [`crate::input`]).
    pub fn with_input(mut self, ledger: Arc<crate::input::InputLedger>) -> Self {
        self.input = Some(ledger);
        self
    }

    /// Lets the tool send `notifications/message` at `min` and above to the caller of this
    /// request (set by the server from the session's level or the request's `_meta` logLevel).
    pub fn with_log_level(mut self, min: Option<LoggingLevel>, outbound: NotificationSink) -> Self {
        self.log = min.map(|min| LogSink { min, outbound });
        self
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
    /// policy, the request did not declare the extension, a legacy session, an in-process call):
    /// then the handler simply goes on synchronously. Calling it again returns the same id.
    /// Errors: the store refused the task (`-32603`, e.g. too many running).
    pub fn start_task(&self) -> Result<Option<String>> {
        match &self.task {
            Some(slot) => slot.start().map(Some).map_err(crate::Error::rpc),
            None => Ok(None),
        }
    }

    /// The id of the task this call runs as, once started.
    pub fn task_id(&self) -> Option<String> {
        self.task.as_ref().and_then(|s| s.task_id())
    }

    /// The JSON-RPC id of the request being served, if the call came from a peer.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request_id.as_ref()
    }

    /// The protocol version of the request being served.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.protocol_version
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
