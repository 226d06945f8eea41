//! CLIENT spans and `mcp.client.operation.duration` for the requests our client sends, with
//! the span's context injected into `params._meta` (what the server's span takes as parent),
//! and `mcp.client.session.duration` when a legacy session closes.

use super::conventions::{self, DURATION_BUCKETS};
use super::server::SCOPE;
use super::w3c;
use crate::jsonrpc::RequestId;
use opentelemetry::metrics::Histogram;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use opentelemetry::{global, Context};
use serde_json::{Map, Value};
use std::sync::OnceLock;
use std::time::Instant;

fn histogram() -> &'static Histogram<f64> {
    static H: OnceLock<Histogram<f64>> = OnceLock::new();
    H.get_or_init(|| {
        global::meter(SCOPE)
            .f64_histogram("mcp.client.operation.duration")
            .with_unit("s")
            .with_description("MCP request duration as observed on the sender")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build()
    })
}

/// Records `mcp.client.session.duration` for a legacy session of `version` over `transport`
/// (`pipe` or `tcp`) that began at `started` and is closing now; nothing for 2026-07-28, whose
/// requests belong to no session.
pub fn session_ended(version: crate::protocol::ProtocolVersion, transport: &'static str, started: Instant) {
    if version.is_modern() {
        return;
    }
    static H: OnceLock<Histogram<f64>> = OnceLock::new();
    let sessions = H.get_or_init(|| {
        global::meter(SCOPE)
            .f64_histogram("mcp.client.session.duration")
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the MCP client")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build()
    });
    let attrs = conventions::session_attributes(version.as_str(), transport);
    sessions.record(started.elapsed().as_secs_f64(), &w3c::key_values(attrs));
}

/// One request's CLIENT span, from before it is sent until its answer.
#[derive(Debug)]
pub struct ClientSpan {
    cx: Context,
    metric: Vec<(&'static str, conventions::AttrValue)>,
    started: Instant,
}

impl ClientSpan {
    /// Starts the span of `method` (a child of the current context) and writes its context
    /// into `params._meta`.
    pub fn start(
        method: &str,
        params: &mut Map<String, Value>,
        version: Option<&str>,
        id: &RequestId,
    ) -> ClientSpan {
        let mut op = conventions::client_operation(method, Some(params), version);
        op.attributes
            .push(("jsonrpc.request.id", conventions::AttrValue::Str(conventions::request_id(id).into())));
        let tracer = global::tracer(SCOPE);
        let parent = Context::current();
        let span = tracer
            .span_builder(op.span_name)
            .with_kind(SpanKind::Client)
            .with_attributes(w3c::key_values(op.attributes))
            .start_with_context(&tracer, &parent);
        let cx = parent.with_span(span);
        if let Value::Object(meta) = params.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
            w3c::inject(&cx, meta);
        }
        ClientSpan { cx, metric: op.metric_attributes, started: Instant::now() }
    }

    /// Ends the span with the answer (`Err`: the JSON-RPC error, or why there was none).
    pub fn end(self, result: &crate::Result<Value>) {
        let reply = match result {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.rpc_error().cloned().unwrap_or_else(|| crate::ErrorData::internal(e.message()))),
        };
        let mut outcome = conventions::outcome(&reply);
        if let Err(e) = result {
            if e.rpc_error().is_none() {
                // No answer: a timeout, a closed connection…: its kind, not a JSON-RPC code.
                outcome.error_type = Some(e.kind().as_str().to_owned());
                outcome.status_code = None;
            }
        }
        super::record::end(&self.cx, &outcome, self.metric, false, histogram(), self.started);
    }
}
