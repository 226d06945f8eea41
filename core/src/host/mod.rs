//! The one bridge between host-language functions and the core: what Python, Node and
//! Kotlin/Swift register as tools, resource readers, prompt renderers and completers.
//!
//! A binding implements [`HostCallback`] once for its language (calling the host function on
//! its event loop or thread, converting values) and registers it through the adapters here
//! ([`HostTool`], [`HostResource`], [`HostPrompt`], [`HostCompleter`], [`HostMiddleware`]),
//! which implement the core's handler traits. Everything else is shared:
//!
//! - the calling convention ([`HandlerKind`] and the JSON the host function receives: a tool's
//!   arguments object; `{"uri", "variables"}` for a resource read; the prompt's arguments;
//!   `{"argument", "value", "context"}` for a completion);
//! - the per-call handle [`HostCall`] (request id, revision, progress, logging, cancellation,
//!   client input), which each binding wraps in its own class;
//! - the reply ([`HostReply`]: a value, a JSON-RPC error, input required, a failure) and the
//!   one rule set turning a value into each result kind ([`results`]).
//!
//! So a Python tool and a Node tool returning the same value put the same bytes on the wire.

pub mod answers;
mod call;
mod middleware;
pub mod results;
mod spelling;

pub use call::{HostCall, OnAbandon};
pub use middleware::{HostMiddleware, SESSION_ENDED};
pub use results::HostValue;
pub use spelling::Spelling;

use crate::completion::{Completer, CompletionRequest};
use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::error::{Error, ErrorData, ErrorKind};
use crate::prompts::{PromptArguments, PromptHandler};
use crate::protocol::completion::Completion;
use crate::protocol::prompts::GetPromptResult;
use crate::protocol::resources::ResourceContents;
use crate::protocol::CallToolResult;
use crate::registry::ToolHandler;
use crate::resources::{ReadRequest, ResourceHandler};
use serde_json::{json, Value};
use std::sync::Arc;

/// What a host function is registered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerKind {
    /// A tool: receives the arguments object.
    Tool,
    /// A resource reader: receives `{"uri", "variables"}`.
    Resource,
    /// A prompt renderer: receives the arguments (an object of strings).
    Prompt,
    /// A completer: receives `{"argument", "value", "context"}`; its call has no request.
    Completer,
    /// A client's elicitation handler: receives the `elicitation/create` params; no call.
    Elicitation,
    /// A client's sampling handler: receives the `sampling/createMessage` params; no call.
    Sampling,
    /// A client's roots handler: receives `{}`; no call.
    Roots,
    /// Middleware: receives `{"method", "params"}`; its call passes the request on
    /// ([`HostCall::next`]).
    Middleware,
}

impl HandlerKind {
    /// The name used in messages (`tool`, `resource`, `prompt`, `completer`).
    pub fn as_str(self) -> &'static str {
        match self {
            HandlerKind::Tool => "tool",
            HandlerKind::Resource => "resource",
            HandlerKind::Prompt => "prompt",
            HandlerKind::Completer => "completer",
            HandlerKind::Elicitation => "elicitation handler",
            HandlerKind::Sampling => "sampling handler",
            HandlerKind::Roots => "roots handler",
            HandlerKind::Middleware => "middleware",
        }
    }
    /// True when the host function gets a per-call handle (tools, resources, prompts and
    /// middleware answer a request; completers and a client's input handlers do not).
    pub fn has_call(self) -> bool {
        matches!(
            self,
            HandlerKind::Tool | HandlerKind::Resource | HandlerKind::Prompt | HandlerKind::Middleware
        )
    }
}

/// How a host function ended.
#[derive(Debug, Clone, PartialEq)]
pub enum HostReply {
    /// It returned this value.
    Value(HostValue),
    /// It raised an error naming a JSON-RPC error (a binding's `McpError` with a code): sent
    /// as it is.
    Rpc(ErrorData),
    /// It let a 2026-07-28 `InputRequired` propagate: the server answers `input_required`.
    InputRequired(String),
    /// It failed otherwise (the binding's text, e.g. `ValueError: bad input`): a tool answers
    /// `isError` with it, other handlers `-32603`.
    Failure(String),
}

/// A host language's function, as the core calls it.
pub trait HostCallback: Send + Sync + 'static {
    /// Calls the function registered as `kind` with `input` (see the module docs) for `call`.
    /// Dropping the returned future abandons the call (the binding cancels the host side).
    fn call(&self, kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply>;
}

/// Runs `callback` for one call and turns its reply into a core result with `convert`.
pub(crate) fn run<T: Send + 'static>(
    callback: &Arc<dyn HostCallback>,
    kind: HandlerKind,
    input: Value,
    ctx: Option<RequestContext>,
    convert: impl FnOnce(HostValue) -> Result<T, String> + Send + 'static,
) -> BoxFuture<'static, crate::Result<T>> {
    let (call, end) = HostCall::start(ctx);
    let fut = callback.call(kind, input, call.clone());
    Box::pin(async move {
        let reply = fut.await;
        end.finish();
        if call.needed_input() {
            return Err(Error::new(ErrorKind::InputRequired, "client input required"));
        }
        match reply {
            HostReply::Value(v) => convert(v)
                .map_err(|e| Error::tool(format!("the {} returned an invalid result: {e}", kind.as_str()))),
            HostReply::Rpc(e) => Err(Error::rpc(e)),
            HostReply::InputRequired(m) => Err(Error::new(ErrorKind::InputRequired, m)),
            HostReply::Failure(m) => Err(Error::tool(m)),
        }
    })
}

/// A host function registered as a tool.
pub struct HostTool {
    callback: Arc<dyn HostCallback>,
    wrapped: bool,
}

impl HostTool {
    /// The tool calling `callback`; `wrapped` when its output schema wraps the return value as
    /// `{"result": …}` (see [`results::tool_result`]).
    pub fn new(callback: Arc<dyn HostCallback>, wrapped: bool) -> Self {
        HostTool { callback, wrapped }
    }
}

impl ToolHandler for HostTool {
    fn call(
        &self,
        arguments: Arguments,
        ctx: RequestContext,
    ) -> BoxFuture<'static, crate::Result<CallToolResult>> {
        let wrapped = self.wrapped;
        run(&self.callback, HandlerKind::Tool, Value::Object(arguments), Some(ctx), move |v| {
            Ok(results::tool_result(v, wrapped))
        })
    }
}

/// A host function registered as a resource reader.
pub struct HostResource {
    callback: Arc<dyn HostCallback>,
    mime: Option<String>,
}

impl HostResource {
    /// The reader calling `callback`; `mime` is the resource's declared MIME type.
    pub fn new(callback: Arc<dyn HostCallback>, mime: Option<String>) -> Self {
        HostResource { callback, mime }
    }
}

impl ResourceHandler for HostResource {
    fn read(
        &self,
        request: ReadRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, crate::Result<Vec<ResourceContents>>> {
        let input = json!({"uri": request.uri, "variables": request.variables});
        let (uri, mime) = (request.uri, self.mime.clone());
        run(&self.callback, HandlerKind::Resource, input, Some(ctx), move |v| {
            results::resource_contents(v, &uri, mime.as_deref())
        })
    }
}

/// A host function registered as a prompt renderer.
pub struct HostPrompt {
    callback: Arc<dyn HostCallback>,
}

impl HostPrompt {
    /// The renderer calling `callback`.
    pub fn new(callback: Arc<dyn HostCallback>) -> Self {
        HostPrompt { callback }
    }
}

impl PromptHandler for HostPrompt {
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: RequestContext,
    ) -> BoxFuture<'static, crate::Result<GetPromptResult>> {
        let input = serde_json::to_value(arguments).expect("strings serialize");
        run(&self.callback, HandlerKind::Prompt, input, Some(ctx), results::prompt_result)
    }
}

/// A host function registered as a completer.
pub struct HostCompleter {
    callback: Arc<dyn HostCallback>,
}

impl HostCompleter {
    /// The completer calling `callback`.
    pub fn new(callback: Arc<dyn HostCallback>) -> Self {
        HostCompleter { callback }
    }
}

impl Completer for HostCompleter {
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'static, crate::Result<Completion>> {
        let input = json!({"argument": request.argument, "value": request.value, "context": request.context});
        run(&self.callback, HandlerKind::Completer, input, None, results::completion)
    }
}

#[cfg(test)]
mod tests;
