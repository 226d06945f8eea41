//! The W3C trace context in `params._meta`, read and written through the host's configured
//! global propagator, with W3C Trace Context itself as the fallback when none is configured (the
//! API's default propagator does nothing, and MCP peers send `traceparent` either way).

use super::conventions::AttrValue;
use opentelemetry::propagation::Injector;
use opentelemetry::trace::{SpanContext, TraceContextExt, TraceFlags, TraceState};
use opentelemetry::{global, Context, KeyValue, SpanId, TraceId};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The context a sender's `traceparent` (and `tracestate`, `baggage`) describe.
pub(super) fn extract(carrier: &[(String, String)]) -> Context {
    let map: HashMap<String, String> = carrier.iter().cloned().collect();
    let cx = global::get_text_map_propagator(|p| p.extract(&map));
    if cx.span().span_context().is_valid() {
        return cx;
    }
    match map.get("traceparent").and_then(|t| parse(t, map.get("tracestate").map(String::as_str))) {
        Some(sc) => Context::new().with_remote_span_context(sc),
        None => Context::new(),
    }
}

/// `traceparent` (version 00): `00-<trace id>-<span id>-<flags>`.
fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
    let mut parts = traceparent.trim().split('-');
    let (version, trace, span, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if version != "00" || parts.next().is_some() || trace.len() != 32 || span.len() != 16 || flags.len() != 2
    {
        return None;
    }
    let state = tracestate.and_then(|s| s.parse::<TraceState>().ok()).unwrap_or_default();
    let sc = SpanContext::new(
        TraceId::from_hex(trace).ok()?,
        SpanId::from_hex(span).ok()?,
        TraceFlags::new(u8::from_str_radix(flags, 16).ok()?),
        true,
        state,
    );
    sc.is_valid().then_some(sc)
}

/// Writes `cx` into `meta` (a request's `params._meta`): the global propagator's keys, or W3C
/// `traceparent`/`tracestate` when it writes none.
pub(super) fn inject(cx: &Context, meta: &mut Map<String, Value>) {
    struct Meta<'a>(&'a mut Map<String, Value>);
    impl Injector for Meta<'_> {
        fn set(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
    global::get_text_map_propagator(|p| p.inject_context(cx, &mut Meta(meta)));
    let sc = cx.span().span_context().clone();
    if !meta.contains_key("traceparent") && sc.is_valid() {
        let flags = sc.trace_flags().to_u8();
        meta.insert(
            "traceparent".into(),
            Value::String(format!("00-{}-{}-{flags:02x}", sc.trace_id(), sc.span_id())),
        );
        let state = sc.trace_state().header();
        if !state.is_empty() {
            meta.insert("tracestate".into(), Value::String(state));
        }
    }
}

/// Attributes as OpenTelemetry key-values (taken: borrowed values stay borrowed, owned ones move).
pub(super) fn key_values(attrs: Vec<(&'static str, AttrValue)>) -> Vec<KeyValue> {
    attrs
        .into_iter()
        .map(|(k, v)| match v {
            AttrValue::Str(s) => KeyValue::new(k, s),
            AttrValue::Int(i) => KeyValue::new(k, i),
        })
        .collect()
}
