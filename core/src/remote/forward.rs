//! The handlers a [`RemoteServer`](super::RemoteServer) registers: each forwards its call to the
//! remote (`tools/call`, `prompts/get`, `resources/read`, `completion/complete`), with the
//! caller's progress and input relayed, and gives back the remote's answer.

use super::logs::{self, InFlight, LogRoute};
use super::relay::CallRelay;
use crate::client::{CallOptions, Client};
use crate::completion::{Completer, CompletionRequest};
use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
use crate::prompts::{PromptArguments, PromptHandler};
use crate::protocol::completion::{
    CompleteArgument, CompleteContext, Completion, CompletionReference, PromptReference,
    ResourceTemplateReference,
};
use crate::protocol::prompts::GetPromptResult;
use crate::protocol::resources::ResourceContents;
use crate::protocol::CallToolResult;
use crate::registry::ToolHandler;
use crate::resources::{ReadRequest, ResourceHandler};
use serde_json::Value;
use std::sync::Arc;

/// One remote server, as its forwarding handlers know it.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    pub(crate) client: Client,
    pub(crate) server: String,
    /// Where the remote's log messages go.
    pub(crate) logs: Arc<LogRoute>,
}

impl Remote {
    /// Call options relaying the caller's progress, log messages and input; the relay drives
    /// the call, the guard keeps it known as in flight (for the log messages).
    fn options(&self, ctx: &RequestContext) -> (CallOptions, Arc<CallRelay>, InFlight) {
        let relay = CallRelay::new(ctx.clone(), &self.server);
        let log_level = logs::wanted(ctx);
        let mut opts = CallOptions { input: Some(relay.clone()), log_level, ..CallOptions::default() };
        if ctx.wants_progress() {
            let ctx = ctx.clone();
            opts.on_progress =
                Some(Box::new(move |p| ctx.progress(p.progress, p.total, p.message.as_deref())));
        }
        (opts, relay, self.logs.enter(ctx))
    }

    /// A JSON-RPC error from the remote, or a stop for the caller's input, passes unchanged;
    /// anything else (the connection failed) names the server.
    fn failure(&self, e: Error) -> Error {
        match e.kind() {
            ErrorKind::Rpc | ErrorKind::InputRequired | ErrorKind::ResourceNotFound => e,
            _ => Error::new(e.kind(), format!("remote server {:?}: {}", self.server, e.message())),
        }
    }
}

/// Forwards `tools/call` to the remote tool `name`.
pub(crate) struct ForwardTool {
    pub(crate) remote: Remote,
    pub(crate) name: String,
}

impl ToolHandler for ForwardTool {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        let (remote, name) = (self.remote.clone(), self.name.clone());
        Box::pin(async move {
            let (opts, relay, _in_flight) = remote.options(&ctx);
            let call = remote.client.call_tool_with(&name, Value::Object(arguments), &opts);
            match relay.run(call).await {
                Ok(mut r) => {
                    r.result_type = None;
                    Ok(r)
                }
                Err(e) => match remote.failure(e) {
                    e if matches!(e.kind(), ErrorKind::Rpc | ErrorKind::InputRequired) => Err(e),
                    // A tool that cannot reach its server is a failed call the model can read.
                    e => Err(Error::tool(e.message())),
                },
            }
        })
    }
}

/// Forwards `prompts/get` to the remote prompt `name`.
pub(crate) struct ForwardPrompt {
    pub(crate) remote: Remote,
    pub(crate) name: String,
}

impl PromptHandler for ForwardPrompt {
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult>> {
        let (remote, name) = (self.remote.clone(), self.name.clone());
        Box::pin(async move {
            let (opts, relay, _in_flight) = remote.options(&ctx);
            let args = (!arguments.is_empty()).then_some(arguments);
            relay.run(remote.client.get_prompt_with(&name, args, &opts)).await.map_err(|e| remote.failure(e))
        })
    }
}

/// Forwards `resources/read` of a remote resource or of a URI a remote template matches.
pub(crate) struct ForwardResource {
    pub(crate) remote: Remote,
}

impl ResourceHandler for ForwardResource {
    fn read(
        &self,
        request: ReadRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>>> {
        let remote = self.remote.clone();
        Box::pin(async move {
            let (opts, relay, _in_flight) = remote.options(&ctx);
            match relay.run(remote.client.read_resource_with(&request.uri, &opts)).await {
                Ok(r) => Ok(r.contents),
                // Not found is said the way the caller's revision says it (2026-07-28: -32602,
                // earlier: -32002; 2026-07-28 server/resources).
                Err(e) if e.is_resource_not_found() => {
                    let modern = ctx.protocol_version().is_some_and(|v| v.is_modern());
                    let code =
                        if modern { ErrorCode::INVALID_PARAMS } else { ErrorCode::RESOURCE_NOT_FOUND_LEGACY };
                    let data = e.rpc_error().and_then(|d| d.data.clone());
                    let mut d = ErrorData::new(code, format!("Resource not found: {}", request.uri));
                    if let Some(data) = data {
                        d = d.with_data(data);
                    }
                    Err(Error::resource_not_found(d))
                }
                Err(e) => Err(remote.failure(e)),
            }
        })
    }
}

/// What a forwarded completion completes on the remote.
#[derive(Debug, Clone)]
pub(crate) enum CompleteTarget {
    /// An argument of the remote prompt with this name.
    Prompt(String),
    /// A variable of the remote template with this `uriTemplate`.
    Template(String),
}

/// Forwards `completion/complete` for one prompt argument or template variable.
pub(crate) struct ForwardCompleter {
    pub(crate) remote: Remote,
    pub(crate) target: CompleteTarget,
}

impl Completer for ForwardCompleter {
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'static, Result<Completion>> {
        let remote = self.remote.clone();
        let reference = match &self.target {
            CompleteTarget::Prompt(name) => {
                CompletionReference::Prompt(PromptReference { name: name.clone(), title: None })
            }
            CompleteTarget::Template(uri) => {
                CompletionReference::Resource(ResourceTemplateReference { uri: uri.clone() })
            }
        };
        Box::pin(async move {
            let argument = CompleteArgument { name: request.argument, value: request.value };
            let context =
                (!request.context.is_empty()).then_some(CompleteContext { arguments: Some(request.context) });
            let r =
                remote.client.complete(reference, argument, context).await.map_err(|e| remote.failure(e))?;
            Ok(r.completion)
        })
    }
}
