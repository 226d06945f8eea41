//! Typed handlers: an async fn of a `Deserialize` argument struct (and optionally the
//! [`RequestContext`]), wrapped as the registry's [`ToolHandler`].

use super::result::IntoCallToolResult;
use crate::context::{Arguments, BoxFuture, RequestContext};
use crate::error::{Error, Result};
use crate::protocol::CallToolResult;
use crate::registry::{invalid_arguments, ToolHandler};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

/// An async function taking a tool's decoded arguments `A` — `Fn(A) -> impl Future` or
/// `Fn(A, RequestContext) -> impl Future` — whose output is an [`IntoCallToolResult`].
/// `Marker` only tells the two shapes apart; it is inferred.
pub trait TypedHandler<A, Marker>: Send + Sync + 'static {
    /// What the handler returns.
    type Output: IntoCallToolResult;
    /// Runs the handler.
    fn call(&self, args: A, ctx: RequestContext) -> BoxFuture<'static, Self::Output>;
}

/// The [`TypedHandler`] shape `Fn(A)`.
#[derive(Debug)]
pub enum ArgsOnly {}

/// The [`TypedHandler`] shape `Fn(A, RequestContext)`.
#[derive(Debug)]
pub enum ArgsAndContext {}

impl<F, A, Fut> TypedHandler<A, ArgsOnly> for F
where
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCallToolResult,
{
    type Output = Fut::Output;
    fn call(&self, args: A, _ctx: RequestContext) -> BoxFuture<'static, Self::Output> {
        Box::pin(self(args))
    }
}

impl<F, A, Fut> TypedHandler<A, ArgsAndContext> for F
where
    F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCallToolResult,
{
    type Output = Fut::Output;
    fn call(&self, args: A, ctx: RequestContext) -> BoxFuture<'static, Self::Output> {
        Box::pin(self(args, ctx))
    }
}

/// A [`TypedHandler`] as the registry sees it: decodes the (already schema-checked)
/// arguments, runs, converts the result.
pub(crate) struct Typed<H, A, M> {
    pub(crate) tool: Arc<str>,
    pub(crate) handler: H,
    pub(crate) args: PhantomData<fn() -> (A, M)>,
}

impl<H, A, M> ToolHandler for Typed<H, A, M>
where
    H: TypedHandler<A, M>,
    A: DeserializeOwned + 'static,
    M: 'static,
{
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        match decode::<A>(&self.tool, arguments) {
            Ok(args) => {
                let running = self.handler.call(args, ctx);
                Box::pin(async move { running.await.into_call_tool_result() })
            }
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
}

/// Decodes a tool's arguments into `A`. A failure is the same `-32602` a schema failure gives
/// (`data: {tool, errors: [{path, message}]}`, `path` a JSON Pointer): the registry checks the
/// arguments against the `inputSchema` before the call, so this catches only what the schema
/// cannot say (a custom `Deserialize`, say). Moves the arguments: strings are not copied.
pub fn decode<A: DeserializeOwned>(tool: &str, arguments: Arguments) -> Result<A> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let mut pointer = String::new();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            let part = match segment {
                Segment::Seq { index } => index.to_string(),
                Segment::Map { key } => key.replace('~', "~0").replace('/', "~1"),
                Segment::Enum { variant } => variant.clone(),
                Segment::Unknown => continue,
            };
            pointer.push('/');
            pointer.push_str(&part);
        }
        let message = e.into_inner().to_string();
        Error::invalid_arguments(invalid_arguments(
            tool,
            vec![json!({ "path": pointer, "message": message })],
        ))
    })
}
