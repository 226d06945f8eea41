//! Requests that run host code: tool calls, prompt renders, resource reads and completions.
//! The engine decides what to run ([`PendingCall`]); the async shell runs it
//! ([`PendingCall::run`]) and hands the outcome back to [`ServerEngine::finish_call`].

use super::{shape, ServerEngine, Who};
use crate::completion::{Completer, CompletionRequest};
use crate::context::{Arguments, BoxFuture, Caller, InputLedger, InputSeed, RequestContext};
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind};
use crate::jsonrpc::{Request, RequestId, Response};
use crate::prompts::{PromptArguments, RegisteredPrompt};
use crate::protocol::completion::Completion;
use crate::protocol::logging::LoggingLevel;
use crate::protocol::prompts::GetPromptResult;
use crate::protocol::resources::ResourceContents;
use crate::protocol::{CallToolResult, ProtocolVersion};
use crate::registry::RegisteredTool;
use crate::resources::{ReadRequest, ResourceHandler};
use crate::state::{self, Binding};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::SystemTime;

/// The host code a request runs.
pub enum Work {
    /// `tools/call`.
    Tool {
        /// The tool.
        tool: Arc<RegisteredTool>,
        /// Validated arguments.
        arguments: Arguments,
    },
    /// `prompts/get`.
    Prompt {
        /// The prompt.
        prompt: Arc<RegisteredPrompt>,
        /// Its arguments (required ones present).
        arguments: PromptArguments,
    },
    /// `resources/read`.
    Resource {
        /// The handler of the resource or template.
        handler: Arc<dyn ResourceHandler>,
        /// The URI and matched variables.
        request: ReadRequest,
    },
    /// `completion/complete`.
    Complete {
        /// The completer; `None` gives no suggestions.
        completer: Option<Arc<dyn Completer>>,
        /// What is being completed.
        request: CompletionRequest,
    },
    /// `tasks/get`, `tasks/update`, `tasks/cancel` (Tasks extension): store work, run by the
    /// runtime and answered with [`ServerEngine::task_reply`].
    Task(TaskOp),
    /// `events/subscribe`, `events/unsubscribe` (Events extension): hub work, run by the
    /// runtime and answered with [`ServerEngine::webhook_reply`].
    Webhook(WebhookOp),
    /// A request for the server's middleware chain (runtime work: its innermost step is
    /// [`ServerEngine::dispatch`]).
    Chain(Box<Chained>),
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Work::Tool { tool, .. } => write!(f, "Tool({})", tool.tool().name),
            Work::Prompt { prompt, .. } => write!(f, "Prompt({})", prompt.prompt().name),
            Work::Resource { request, .. } => write!(f, "Resource({})", request.uri),
            Work::Complete { request, .. } => write!(f, "Complete({})", request.argument),
            Work::Task(op) => write!(f, "Task({op:?})"),
            Work::Webhook(op) => write!(f, "Webhook({op:?})"),
            Work::Chain(c) => write!(f, "Chain({})", c.request.method),
        }
    }
}

/// A webhook subscription method, checked by the engine.
#[derive(Debug, Clone)]
pub enum WebhookOp {
    /// `events/subscribe`.
    Subscribe(crate::events::webhook::Subscribe),
    /// `events/unsubscribe`.
    Unsubscribe(crate::events::webhook::SubscriptionKey),
}

/// What host code produced.
#[derive(Debug)]
pub enum Outcome {
    /// A tool result.
    Tool(CallToolResult),
    /// A tool result given as JSON ([`crate::registry::ToolHandler::returns_json`]).
    ToolJson(Value),
    /// A rendered prompt.
    Prompt(GetPromptResult),
    /// Resource contents.
    Resource(Vec<ResourceContents>),
    /// Suggestions.
    Complete(Completion),
}

/// A request the shell must run, then settle with [`ServerEngine::finish_call`].
#[derive(Debug)]
pub struct PendingCall {
    /// The request id.
    pub id: RequestId,
    /// The revision the request speaks.
    pub version: ProtocolVersion,
    /// Who is calling.
    pub caller: Arc<Caller>,
    /// What to run.
    pub work: Work,
    /// `_meta.progressToken`, when the client wants progress.
    pub progress_token: Option<Value>,
    /// The lowest log level the caller wants from this call; `None`: no log messages.
    pub log_level: Option<LoggingLevel>,
    /// How the handler may ask the client for input; `None` for completions.
    pub input: Option<InputSeed>,
    /// The request a sealed `requestState` is bound to (2026-07-28).
    pub(crate) binding: Option<Binding>,
    /// `Some` when the call may become a task (Tasks extension), and how the task starts.
    pub task: Option<crate::tasks::TaskStart>,
}

impl PendingCall {
    /// The tool, for a tool call.
    pub fn tool(&self) -> Option<&Arc<RegisteredTool>> {
        match &self.work {
            Work::Tool { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// Runs the host code with `ctx` (task methods are the runtime's: see [`Work::Task`]). A
    /// tool's arguments move to its handler, unless a 2026-07-28 call may still need them to
    /// bind the `requestState` of an `input_required` answer (see [`ServerEngine::finish_call`]).
    pub fn run(&mut self, ctx: RequestContext) -> BoxFuture<'static, crate::Result<Outcome>> {
        let keep_arguments = self.version.is_modern() && self.binding.is_none();
        let arguments_of = |arguments: &mut Arguments| {
            if keep_arguments {
                arguments.clone()
            } else {
                std::mem::take(arguments)
            }
        };
        match &mut self.work {
            Work::Tool { tool, arguments } if tool.returns_json() => {
                let fut = tool.invoke_json(arguments_of(arguments), ctx);
                Box::pin(async move { fut.await.map(Outcome::ToolJson) })
            }
            Work::Tool { tool, arguments } => {
                let fut = tool.invoke(arguments_of(arguments), ctx);
                Box::pin(async move { fut.await.map(Outcome::Tool) })
            }
            Work::Prompt { prompt, arguments } => {
                let fut = prompt.get(arguments.clone(), ctx);
                Box::pin(async move { fut.await.map(Outcome::Prompt) })
            }
            Work::Resource { handler, request } => {
                let fut = handler.read(request.clone(), ctx);
                Box::pin(async move { fut.await.map(Outcome::Resource) })
            }
            Work::Complete { completer, request } => match completer {
                Some(c) => {
                    let fut = c.complete(request.clone());
                    Box::pin(async move { fut.await.map(|c| Outcome::Complete(crate::completion::cap(c))) })
                }
                None => Box::pin(async { Ok(Outcome::Complete(Completion::default())) }),
            },
            Work::Task(_) => {
                Box::pin(async { Err(Error::protocol("a task method is store work, not host code")) })
            }
            Work::Webhook(_) => {
                Box::pin(async { Err(Error::protocol("a webhook method is hub work, not host code")) })
            }
            Work::Chain(_) => {
                Box::pin(async { Err(Error::protocol("a chained request is the runtime's, not host code")) })
            }
        }
    }
}

impl ServerEngine {
    /// Turns the outcome of a call into its response. `ledger` is the call's input book: when
    /// a 2026-07-28 handler stopped for input, the response is an `InputRequiredResult`.
    pub fn finish_call(
        &self,
        call: &PendingCall,
        outcome: crate::Result<Outcome>,
        ledger: Option<&InputLedger>,
        now: SystemTime,
    ) -> Response {
        let id = call.id.clone();
        let outcome = match outcome {
            Err(e) if e.kind() == ErrorKind::InputRequired => {
                return match self.input_required(call, ledger, now) {
                    Ok(result) => Response::result(id, result),
                    Err(e) => Response::error(Some(id), e),
                };
            }
            other => other,
        };
        let value = match (&call.work, outcome) {
            (Work::Tool { tool, .. }, outcome) => {
                let settled = match outcome {
                    Ok(Outcome::ToolJson(v)) => tool.settle_json(Ok(v), call.version),
                    Ok(Outcome::Tool(r)) => tool
                        .settle(Ok(r), call.version)
                        .map(|r| serde_json::to_value(r).expect("serializable")),
                    Ok(_) => tool.settle_json(
                        Err(Error::protocol("a tool produced something else than a tool result")),
                        call.version,
                    ),
                    Err(e) => tool.settle_json(Err(e), call.version),
                };
                match settled {
                    Ok(result) => shape::call_tool_result(result, call.version),
                    Err(e) => return Response::error(Some(id), e),
                }
            }
            (_, Err(e)) => return Response::error(Some(id), host_error(e)),
            (_, Ok(Outcome::Prompt(p))) => {
                shape::prompt_result(serde_json::to_value(p).expect("serializable"), call.version)
            }
            (_, Ok(Outcome::Resource(contents))) => {
                let mut v = json!({ "contents": contents });
                shape::resource_contents(&mut v, call.version);
                if call.version.is_modern() {
                    let hint = ledger.and_then(|l| l.cache_hint()).unwrap_or_default();
                    self.merged_cache_hints(&mut v, hint);
                }
                v
            }
            (_, Ok(Outcome::Complete(c))) => json!({ "completion": c }),
            (_, Ok(Outcome::Tool(_) | Outcome::ToolJson(_))) => {
                return Response::error(
                    Some(id),
                    ErrorData::internal("Internal error: unexpected tool result"),
                )
            }
        };
        self.ok(id, call.version, value)
    }

    /// The response for a call whose handler panicked or was lost.
    pub fn crashed_call(&self, call: &PendingCall, why: &str) -> Response {
        match &call.work {
            Work::Tool { tool, .. } => {
                let e = Error::tool(format!("Tool {} crashed: {why}", tool.tool().name));
                self.finish_call(call, Err(e), None, SystemTime::UNIX_EPOCH)
            }
            _ => Response::error(
                Some(call.id.clone()),
                ErrorData::internal(format!("Internal error: the handler crashed: {why}")),
            ),
        }
    }

    /// The `InputRequiredResult` owed when a 2026-07-28 handler stopped for input.
    fn input_required(
        &self,
        call: &PendingCall,
        ledger: Option<&InputLedger>,
        now: SystemTime,
    ) -> Result<Value, ErrorData> {
        let made;
        let binding = match (&call.binding, &call.work) {
            (Some(b), _) => Some(b),
            (None, Work::Tool { tool, arguments }) => {
                made = Binding::new("tools/call", &tool.tool().name, &Value::Object(arguments.clone()));
                Some(&made)
            }
            (None, _) => None,
        };
        let (Some(ledger), Some(binding), true) = (ledger, binding, call.version.is_modern()) else {
            return Err(ErrorData::internal(
                "Internal error: the handler asked for client input it cannot get here",
            ));
        };
        let pending = ledger.pending();
        if pending.missing.is_empty() {
            return Err(ErrorData::internal(
                "Internal error: the handler stopped for input without asking for any",
            ));
        }
        let Some(key) = self.config.state_keys.current() else {
            return Err(ErrorData::internal("Internal error: no requestState key is configured"));
        };
        let seal = if self.config.state_encryption { state::seal_encrypted } else { state::seal };
        let sealed = seal(key, binding, pending.used, pending.user, self.config.input_state_ttl, now);
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": pending.missing,
            "requestState": sealed,
        }))
    }
}

/// A non-tool handler's error on the wire: JSON-RPC errors as they are, the rest `-32603`.
fn host_error(e: Error) -> ErrorData {
    match e.rpc_error() {
        Some(d) if matches!(e.kind(), ErrorKind::Rpc | ErrorKind::ResourceNotFound) => d.clone(),
        _ => ErrorData::new(ErrorCode::INTERNAL_ERROR, format!("Internal error: {}", e.message())),
    }
}

/// A task method for the runtime to run against the task store.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOp {
    /// `tasks/get`: answer the task's `DetailedTask`.
    Get(String),
    /// `tasks/update`: record the client's `inputResponses`.
    Update {
        /// The task.
        id: String,
        /// The answers by input key.
        responses: Map<String, Value>,
    },
    /// `tasks/cancel`.
    Cancel(String),
}

impl TaskOp {
    /// The task it is about.
    pub fn task_id(&self) -> &str {
        match self {
            TaskOp::Get(id) | TaskOp::Cancel(id) | TaskOp::Update { id, .. } => id,
        }
    }
}

/// A request waiting for the middleware chain.
#[derive(Debug)]
pub struct Chained {
    /// The request as the client sent it.
    pub request: Request,
    pub(super) who: Who,
}
