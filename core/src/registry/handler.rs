//! What a tool is to the registry: an async handler taking the arguments and the request's
//! context.

use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::protocol::CallToolResult;
use crate::Result;
use std::future::Future;

/// Runs a tool. Implemented for every `Fn(Arguments, RequestContext) -> impl Future` closure.
///
/// Returning `Err` with [`crate::ErrorKind::Rpc`] sends that JSON-RPC error to the caller (used
/// to forward a remote server's error unchanged); any other `Err` becomes a result with
/// `isError: true` carrying the message, so the model can read it and self-correct.
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool.
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Arguments, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
{
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        Box::pin(self(arguments, ctx))
    }
}
