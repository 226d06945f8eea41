//! The handlers a [`RemoteServer`](super::RemoteServer) registers: each forwards its call to the
//! remote (`tools/call`, `prompts/get`, `resources/read`, `completion/complete`), with the
//! caller's progress and input relayed, and gives back the remote's answer.

use super::bridge;
use super::link::Link;
use super::logs::LogRoute;
use super::mount::Mount;
use super::parked::Parked;
use super::relay::{Conn, Dispatch};
use crate::client::Client;
use crate::completion::{Completer, CompletionRequest};
use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
use crate::prompts::{PromptArguments, PromptHandler};
use crate::protocol::completion::{
    CompleteArgument, CompleteContext, Completion, CompletionReference, PromptReference,
    ResourceTemplateReference,
};
use crate::protocol::prompts::GetPromptResult;
use crate::protocol::resources::{ReadResourceResult, ResourceContents};
use crate::protocol::{CacheHint, CallToolResult};
use crate::registry::ToolHandler;
use crate::resources::{ReadRequest, ResourceHandler};
use serde_json::{json, Value};
use std::sync::Arc;

/// One remote server, as its forwarding handlers know it.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// The current connection (replaced when the remote is reconnected).
    pub(crate) link: Arc<Link>,
    pub(crate) server: String,
    /// Where the remote's log messages go.
    pub(crate) logs: Arc<LogRoute>,
    /// Where a legacy remote's requests for input go (to the forwarded call they belong to).
    pub(crate) dispatch: Arc<Dispatch>,
    /// Calls on a legacy remote waiting for a 2026-07-28 caller's next round.
    pub(crate) parked: Arc<Parked<super::bridge::LegacyCall>>,
    /// How the remote is mounted (its URIs get `mount.uri_prefix`).
    pub(crate) mount: Arc<Mount>,
    /// Forwarded requests go on behalf of their caller ([`super::obo`]), when set.
    pub(crate) on_behalf: Option<Arc<super::obo::OnBehalf>>,
}

impl Remote {
    /// A remote reached through `client`, known as `server`.
    pub(crate) fn new(client: Client, server: &str, mount: &Mount) -> Remote {
        let logs = Arc::new(LogRoute::default());
        logs.attach(&client);
        Remote {
            link: Arc::new(Link::new(server, client)),
            logs,
            server: server.to_owned(),
            dispatch: Arc::default(),
            parked: Arc::default(),
            mount: Arc::new(mount.clone()),
            on_behalf: None,
        }
    }

    /// The connection for a request of the caller of `ctx`, with the routes of what the remote
    /// sends on it: the caller's own when the remote is called on behalf of callers (so its
    /// requests for input and its log messages reach only that caller's calls), else the
    /// current one.
    pub(crate) async fn conn_for(&self, ctx: &RequestContext) -> Result<Conn> {
        match &self.on_behalf {
            None => {
                Ok(Conn { client: self.client()?, dispatch: self.dispatch.clone(), logs: self.logs.clone() })
            }
            Some(obo) => obo.conn_for(ctx).await.map_err(|e| self.failure(e)),
        }
    }

    /// The current connection, or an error naming the remote and why it is unavailable.
    pub(crate) fn client(&self) -> Result<Client> {
        self.link.client()
    }

    /// From now on, `client` serves this remote (calls parked on the old one are dropped).
    pub(crate) fn reconnect(&self, client: Client) {
        self.parked.clear();
        self.logs.attach(&client);
        self.link.set(client);
    }

    /// A JSON-RPC error from the remote, or a stop for the caller's input, passes unchanged;
    /// anything else (the connection failed) names the server.
    fn failure(&self, e: Error) -> Error {
        match e.kind() {
            ErrorKind::Rpc | ErrorKind::InputRequired | ErrorKind::ResourceNotFound => e,
            // Already named (the remote is unavailable).
            _ if e.message().starts_with("remote server ") => e,
            _ => Error::new(e.kind(), format!("remote server {:?}: {}", self.server, e.message())),
        }
    }

    /// Forwards `method` for the caller of `ctx` and reads the remote's result as `T`.
    async fn forward<T: serde::de::DeserializeOwned>(
        &self,
        ctx: &RequestContext,
        method: &'static str,
        params: Value,
    ) -> Result<T> {
        let v = self.forward_json(ctx, method, params).await?;
        serde_json::from_value(v)
            .map_err(|e| self.failure(Error::protocol(format!("malformed {method} result: {e}"))))
    }

    /// Forwards `method` for the caller of `ctx`: the remote's result as JSON, its URIs under
    /// the mount's prefix.
    async fn forward_json(&self, ctx: &RequestContext, method: &'static str, params: Value) -> Result<Value> {
        let Value::Object(params) = params else { unreachable!("built as an object") };
        let mut v = bridge::forward(self, ctx, method, params).await.map_err(|e| self.failure(e))?;
        self.mount.localize(method, &mut v);
        Ok(v)
    }
}

/// Forwards `tools/call` to the remote tool `name`.
pub(crate) struct ForwardTool {
    pub(crate) remote: Remote,
    pub(crate) name: String,
}

impl ToolHandler for ForwardTool {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        let call = self.call_json(arguments, ctx);
        Box::pin(async move {
            let mut r: CallToolResult = serde_json::from_value(call.await?)
                .map_err(|e| Error::tool(format!("malformed tools/call result: {e}")))?;
            r.result_type = None;
            Ok(r)
        })
    }

    /// The remote's result stays JSON: the engine checks its shape and writes it for the
    /// caller's revision (`resultType` dropped, content blocks shaped) without a typed round trip.
    fn returns_json(&self) -> bool {
        true
    }

    fn call_json(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<Value>> {
        let (remote, name) = (self.remote.clone(), self.name.clone());
        Box::pin(async move {
            let params = json!({ "name": name, "arguments": arguments });
            match remote.forward_json(&ctx, "tools/call", params).await {
                Ok(v) => Ok(v),
                Err(e) if matches!(e.kind(), ErrorKind::Rpc | ErrorKind::InputRequired) => Err(e),
                // A tool that cannot reach its server is a failed call the model can read.
                Err(e) => Err(Error::tool(e.message())),
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
            let mut params = json!({ "name": name });
            if !arguments.is_empty() {
                params["arguments"] = json!(arguments);
            }
            let mut r: GetPromptResult = remote.forward(&ctx, "prompts/get", params).await?;
            r.result_type = None;
            Ok(r)
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
            let uri = remote.mount.remote_uri(&request.uri).unwrap_or(&request.uri);
            let params = json!({ "uri": uri });
            match remote.forward::<ReadResourceResult>(&ctx, "resources/read", params).await {
                Ok(r) => {
                    ctx.set_cache_hint(CacheHint { ttl_ms: r.ttl_ms, scope: r.cache_scope });
                    Ok(r.contents)
                }
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
                Err(e) => Err(e),
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
            let client = remote.client().map_err(|e| remote.failure(e))?;
            let r = client.complete(reference, argument, context).await.map_err(|e| remote.failure(e))?;
            Ok(r.completion)
        })
    }
}
