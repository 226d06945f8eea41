//! Ready-made [`Middleware`](crate::middleware::Middleware) for production servers, each one
//! configurable from every binding: a rate limit per client ([`RateLimit`]), timeouts per tool
//! ([`Timeouts`]), a bound on result size ([`ResponseLimit`]), a request log ([`RequestLog`]),
//! idempotent writes ([`Idempotency`]) and a cache of list results ([`ListCache`]). Add them with [`ServerBuilder::middleware`](crate::ServerBuilder::middleware)
//! or [`ServerConfig::middleware`](crate::ServerConfig::middleware), outermost first.

mod cache;
mod idempotency;
mod log;
mod rate;
mod size;
mod timeout;

pub use cache::ListCache;
pub use idempotency::{Idempotency, KEY_ARGUMENT};
pub use log::RequestLog;
pub use rate::{RateLimit, RateStore};
pub use size::ResponseLimit;
pub use timeout::Timeouts;

use crate::context::RequestContext;

/// Who a request counts against, for per-client limits: the verified token's subject, else the
/// peer's address, else the legacy session, else the client's declared name (stdio, in-process).
pub(crate) fn client_of(ctx: &RequestContext) -> String {
    let origin = ctx.origin();
    if let Some(key) = origin.and_then(|o| o.client_key()) {
        return key.to_string();
    }
    if let Some(session) = origin.and_then(|o| o.session_id.clone()) {
        return format!("session {session}");
    }
    match ctx.client_info() {
        Some(info) => format!("client {:?}", info.name),
        None => "anonymous".into(),
    }
}

/// The tool a `tools/call` names.
pub(crate) fn tool_of(request: &crate::jsonrpc::Request) -> Option<&str> {
    (request.method == "tools/call").then_some(())?;
    request.params.as_ref()?.get("name")?.as_str()
}

#[cfg(test)]
mod tests;
