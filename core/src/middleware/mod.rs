//! Middleware: host code around every request a server dispatches, on both lineages and every
//! transport (stdio, Streamable HTTP, 2024-11-05 SSE, in-process mounts, the gateway).
//!
//! A [`Middleware`] sees the request (method, params) and its [`RequestContext`] (revision,
//! client, identity, headers, extensions). It passes the request on through [`Next::run`],
//! changed or not, answers it itself (a result or an MCP error), times it, or acts on the
//! result on the way back. The chain is a [`Chain`] in the server's configuration
//! ([`ServerConfig::middleware`](crate::engine::ServerConfig::middleware)); an empty chain
//! costs nothing (the engine dispatches as it would without one).
//!
//! What passes through it: every request the engine answers from its catalogs or its host
//! code: `server/discover`, `ping`, `tools/*`, `resources/list|read|templates/list`,
//! `prompts/*`, `completion/complete`, `tasks/*`, the Skills methods. What does not: the
//! requests that change the connection's own state (`initialize`, `logging/setLevel`,
//! `resources/subscribe|unsubscribe`, `subscriptions/listen`, a stream that outlives a
//! request), the notifications (`notifications/initialized`, `notifications/cancelled`), and
//! what an HTTP server refuses before dispatch (bad headers, unknown revisions: 2026-07-28
//! basic/transports/streamable-http, "Server validation").
//!
//! A middleware's answer of its own is completed like a handler's: on 2026-07-28 a result
//! without `resultType` gets `"complete"` and the server's identity in `_meta`.
//! Ready-made middleware (rate limits, timeouts, response limits, a request log) are in
//! [`crate::server::middleware`].

use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// What a request comes to: its result, or a JSON-RPC error.
pub type Reply = Result<Value, ErrorData>;

/// Host code around every request the server dispatches (see the module docs).
pub trait Middleware: Send + Sync + 'static {
    /// Handles `request` (whose `id` is the client's): usually `next.run(request)`, with what
    /// comes before and after. The answer goes to the client under the request's own id
    /// whatever `request.id` was changed to.
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply>;

    /// A legacy session served here ended (see [`SessionEnded`]); default: nothing.
    fn session_ended(&self, _session: &SessionEnded) {}

    /// Sees the change feed of a catalog the server serves (its tools, resources, prompts),
    /// once per catalog, before serving: a middleware keeping what it answered (a cache)
    /// subscribes to learn when lists change. Default: nothing.
    fn watch(&self, _feed: &crate::changes::ChangeFeed) {}
}

/// A legacy (`initialize`-based) session's end, as the server observed it: a stdio connection
/// that closed, or an HTTP session whose live copy here ended (DELETE, idle expiry, eviction,
/// shutdown). A session on a store shared by several instances is measured by the instance
/// that opened it, until its copy there ends. 2026-07-28 requests belong to no session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEnded {
    /// The negotiated revision.
    pub version: crate::protocol::ProtocolVersion,
    /// `pipe` (stdio, in-process channels) or `tcp` (HTTP), as `network.transport` names them.
    pub transport: &'static str,
    /// From the session's start (its `initialize`; a stdio connection's start) to its end.
    pub duration: std::time::Duration,
}

/// A [`Middleware`] from a closure: `from_fn(|req, ctx, next| async move { next.run(req).await })`.
pub fn from_fn<F, Fut>(f: F) -> Arc<dyn Middleware>
where
    F: Fn(Request, RequestContext, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Reply> + Send + 'static,
{
    Arc::new(FnMiddleware(f))
}

struct FnMiddleware<F>(F);

impl<F, Fut> Middleware for FnMiddleware<F>
where
    F: Fn(Request, RequestContext, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Reply> + Send + 'static,
{
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        Box::pin((self.0)(request, ctx, next))
    }
}

/// The end of the chain: what the engine does with a request no middleware answered.
pub type Endpoint = Arc<dyn Fn(Request) -> BoxFuture<'static, Reply> + Send + Sync>;

/// The rest of the chain after one middleware. Owned and `'static`, so a binding can hand it
/// to a host event loop and run it from there.
pub struct Next {
    chain: Arc<[Arc<dyn Middleware>]>,
    index: usize,
    ctx: RequestContext,
    endpoint: Endpoint,
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next").field("remaining", &(self.chain.len() - self.index)).finish()
    }
}

impl Next {
    /// Passes `request` to the rest of the chain, then to the engine.
    pub fn run(self, request: Request) -> BoxFuture<'static, Reply> {
        match self.chain.get(self.index).cloned() {
            Some(middleware) => {
                let ctx = self.ctx.clone();
                let next = Next { index: self.index + 1, ..self };
                middleware.handle(request, ctx, next)
            }
            None => (self.endpoint)(request),
        }
    }
}

/// The middleware of a server, outermost first; cheap to clone.
#[derive(Clone, Default)]
pub struct Chain(Arc<[Arc<dyn Middleware>]>);

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chain({} middleware)", self.0.len())
    }
}

impl Chain {
    /// A chain of `middleware`, outermost first.
    pub fn new(middleware: Vec<Arc<dyn Middleware>>) -> Self {
        Chain(middleware.into())
    }

    /// The same chain with `middleware` added innermost (closest to the handlers).
    pub fn with(&self, middleware: Arc<dyn Middleware>) -> Self {
        let mut all: Vec<_> = self.0.iter().cloned().collect();
        all.push(middleware);
        Chain(all.into())
    }

    /// The same chain with `middleware` added outermost (it sees every request first and every
    /// answer last: timing, tracing).
    pub fn with_outermost(&self, middleware: Arc<dyn Middleware>) -> Self {
        let mut all = vec![middleware];
        all.extend(self.0.iter().cloned());
        Chain(all.into())
    }

    /// Shows every middleware a catalog's change feed ([`Middleware::watch`]).
    pub fn watch(&self, feed: &crate::changes::ChangeFeed) {
        for m in self.0.iter() {
            m.watch(feed);
        }
    }

    /// Tells every middleware a legacy session ended.
    pub fn session_ended(&self, session: &SessionEnded) {
        for m in self.0.iter() {
            m.session_ended(session);
        }
    }

    /// Shows `feed` to the middleware of this chain that `before` does not hold (those already
    /// saw it).
    pub fn watch_added(&self, before: &Chain, feed: &crate::changes::ChangeFeed) {
        for m in self.0.iter().filter(|m| !before.0.iter().any(|b| Arc::ptr_eq(b, m))) {
            m.watch(feed);
        }
    }

    /// True when both are the same chain (the same middleware in the same order).
    pub fn same_as(&self, other: &Chain) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(other.0.iter()).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// True when there is no middleware (the engine then dispatches directly).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The number of middleware.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Runs `request` through the chain to `endpoint`; `ctx` is what each middleware sees.
    pub fn run(
        &self,
        request: Request,
        ctx: RequestContext,
        endpoint: Endpoint,
    ) -> BoxFuture<'static, Reply> {
        Next { chain: self.0.clone(), index: 0, ctx, endpoint }.run(request)
    }
}

#[cfg(test)]
mod tests;
