//! The end of an operation, as server and client spans record it: `error.type`, the error
//! status and `rpc.response.status_code` on the span, the duration on the histogram.

use super::conventions::{AttrValue, Outcome};
use super::w3c;
use opentelemetry::metrics::Histogram;
use opentelemetry::trace::{Status, TraceContextExt};
use opentelemetry::{Context, KeyValue};
use std::time::Instant;

/// Ends the span of `cx` with `outcome` and records the time since `started` on `duration`
/// with `metric` (less what the outcome leaves out; `status_in_metric`: with the JSON-RPC
/// code too, as the server records it).
pub(super) fn end(
    cx: &Context,
    outcome: &Outcome,
    mut metric: Vec<(&'static str, AttrValue)>,
    status_in_metric: bool,
    duration: &Histogram<f64>,
    started: Instant,
) {
    metric.retain(|(k, _)| !outcome.drop_from_metric.contains(k));
    let mut metric = w3c::key_values(metric);
    let span = cx.span();
    if let Some(t) = &outcome.error_type {
        span.set_attribute(KeyValue::new("error.type", t.clone()));
        metric.push(KeyValue::new("error.type", t.clone()));
        span.set_status(Status::error(outcome.description.clone().unwrap_or_else(|| t.clone())));
    }
    if let Some(code) = &outcome.status_code {
        span.set_attribute(KeyValue::new("rpc.response.status_code", code.clone()));
        if status_in_metric {
            metric.push(KeyValue::new("rpc.response.status_code", code.clone()));
        }
    }
    span.end();
    duration.record(started.elapsed().as_secs_f64(), &metric);
}
