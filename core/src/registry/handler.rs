//! What a tool is to the registry: an async handler taking the arguments and the request's
//! context.

use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::protocol::CallToolResult;
use crate::Result;
use serde_json::Value;
use std::future::Future;

/// Runs a tool. Implemented for every `Fn(Arguments, RequestContext) -> impl Future` closure.
///
/// Returning `Err` with [`crate::ErrorKind::Rpc`] sends that JSON-RPC error to the caller (used
/// to forward a remote server's error unchanged); any other `Err` becomes a result with
/// `isError: true` carrying the message, so the model can read it and self-correct.
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool.
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>>;

    /// True when [`ToolHandler::call_json`] is this handler's own (its result is JSON already,
    /// as a call forwarded to a remote server has it): the engine then calls that instead of
    /// [`ToolHandler::call`], and shapes the JSON for the caller without reading it into a
    /// [`CallToolResult`] and writing it back (bench/NOTES.md, "The forwarded result as JSON").
    fn returns_json(&self) -> bool {
        false
    }

    /// Calls the tool for its result as a JSON `CallToolResult` object. The engine checks that
    /// it is an object whose `content` is an array of blocks with a `type`, and whose
    /// `structuredContent` fits the tool's `outputSchema`; the blocks themselves pass as they
    /// are. The default writes the result of [`ToolHandler::call`].
    fn call_json(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<Value>> {
        let fut = self.call(arguments, ctx);
        Box::pin(async move { fut.await.map(|r| serde_json::to_value(r).expect("a tool result serializes")) })
    }
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
