//! SERVER spans and `mcp.server.operation.duration` around every dispatched request.

use super::conventions::{self, DURATION_BUCKETS};
use super::w3c;
use crate::context::{BoxFuture, RequestContext};
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply, SessionEnded};
use opentelemetry::context::FutureExt as _;
use opentelemetry::global;
use opentelemetry::metrics::Histogram;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use std::time::Instant;

/// The instrumentation scope's name.
pub(super) const SCOPE: &str = "mcpcore";

/// Records each request the server dispatches with the `opentelemetry` crate's global tracer
/// and meter providers (read when it is made: install them first). The span's parent is the
/// context in `params._meta`; the handler runs inside the span's context.
#[derive(Debug)]
pub struct OtelMiddleware {
    tracer: opentelemetry::global::BoxedTracer,
    duration: Histogram<f64>,
    sessions: Histogram<f64>,
}

impl Default for OtelMiddleware {
    fn default() -> Self {
        OtelMiddleware::new()
    }
}

impl OtelMiddleware {
    /// The middleware on the global providers.
    pub fn new() -> Self {
        let meter = global::meter(SCOPE);
        let duration = meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("MCP request or notification duration as observed on the receiver")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build();
        let sessions = meter
            .f64_histogram("mcp.server.session.duration")
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the MCP server")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build();
        OtelMiddleware { tracer: global::tracer(SCOPE), duration, sessions }
    }
}

impl Middleware for OtelMiddleware {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let op = conventions::server_operation(&request, &ctx);
        let parent = w3c::extract(&op.carrier);
        let span = self
            .tracer
            .span_builder(op.span_name)
            .with_kind(SpanKind::Server)
            .with_attributes(w3c::key_values(op.attributes))
            .start_with_context(&self.tracer, &parent);
        let cx = parent.with_span(span);
        let mut end = SpanEnd {
            cx: cx.clone(),
            metric: Some(op.metric_attributes),
            duration: self.duration.clone(),
            started: Instant::now(),
        };
        let run = next.run(request).with_context(cx);
        Box::pin(async move {
            let reply = run.await;
            end.finish(&conventions::outcome(&reply));
            reply
        })
    }

    fn session_ended(&self, session: &SessionEnded) {
        let attrs = conventions::session_attributes(session.version.as_str(), session.transport);
        self.sessions.record(session.duration.as_secs_f64(), &w3c::key_values(attrs));
    }
}

/// Ends a request's span and records its duration: with its outcome when it is answered, as
/// `cancelled` when its future is dropped first (the client cancelled, a timeout, shutdown).
struct SpanEnd {
    cx: opentelemetry::Context,
    metric: Option<Vec<(&'static str, conventions::AttrValue)>>,
    duration: Histogram<f64>,
    started: Instant,
}

impl SpanEnd {
    fn finish(&mut self, outcome: &conventions::Outcome) {
        if let Some(metric) = self.metric.take() {
            super::record::end(&self.cx, outcome, metric, true, &self.duration, self.started);
        }
    }
}

impl Drop for SpanEnd {
    fn drop(&mut self) {
        let cancelled = conventions::Outcome {
            error_type: Some("cancelled".into()),
            description: Some("the request was cancelled before it was answered".into()),
            ..Default::default()
        };
        self.finish(&cancelled);
    }
}
