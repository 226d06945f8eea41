//! A request log: one `tracing` event per request, after it is answered.

use crate::context::{BoxFuture, RequestContext};
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use std::time::Instant;

/// Logs each request when it is answered, at `info` on target `mcpcore::requests`: method,
/// tool (for `tools/call`), client, revision, duration in µs, and the error code when it
/// failed. The bindings route `tracing` to the host's logging (Python `logging`, Node
/// `console`), so the log lands where the host's other logs do.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestLog;

impl Middleware for RequestLog {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let method = request.method.clone();
        let tool = super::tool_of(&request).map(str::to_owned);
        let client = super::client_of(&ctx);
        let version = ctx.protocol_version().map(|v| v.as_str()).unwrap_or("?");
        let started = Instant::now();
        let run = next.run(request);
        Box::pin(async move {
            let reply = run.await;
            let micros = started.elapsed().as_micros() as u64;
            match &reply {
                Ok(_) => tracing::info!(
                    target: "mcpcore::requests",
                    method, tool, client, version, micros, "served {method}"
                ),
                Err(e) => tracing::info!(
                    target: "mcpcore::requests",
                    method, tool, client, version, micros, code = e.code.0, "refused {method}: {}", e.message
                ),
            }
            reply
        })
    }
}
