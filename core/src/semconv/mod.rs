//! The OpenTelemetry semantic conventions for MCP (status Development, in the OpenTelemetry
//! GenAI conventions, `docs/gen-ai/mcp.md`) as data: pure functions of a request, its context
//! and its answer, written once for every language. [`crate::telemetry`] records them with the
//! Rust `opentelemetry` crate; the bindings read them through `HostCall::telemetry_operation`
//! and record them with their own OpenTelemetry APIs.

use crate::context::RequestContext;
use crate::jsonrpc::{Request, RequestId};
use crate::middleware::Reply;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The keys of the trace context in `params._meta` (W3C Trace Context and Baggage, unprefixed).
pub const CARRIER_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// The buckets of the operation-duration histograms, in seconds (the conventions' advice).
pub const DURATION_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// An attribute value (as JSON: a string or an integer).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum AttrValue {
    /// Text (borrowed when it is one of a few fixed values: no allocation per request).
    Str(Cow<'static, str>),
    /// An integer.
    Int(i64),
}

/// One operation as the conventions describe it (as JSON for the bindings: `span_name`,
/// `attributes` and `metric_attributes` as `[key, value]` pairs, `carrier` as pairs).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Operation {
    /// `{mcp.method.name} {target}`, the target a tool or prompt name when there is one.
    pub span_name: String,
    /// The span's attributes.
    pub attributes: Vec<(&'static str, AttrValue)>,
    /// The subset recorded on the duration histogram (low cardinality).
    pub metric_attributes: Vec<(&'static str, AttrValue)>,
    /// The trace context the sender put in `params._meta` (key, value).
    pub carrier: Vec<(String, String)>,
}

/// How an operation ended (as JSON for the bindings: `error_type`, `status_code`,
/// `description`, each null when absent).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Outcome {
    /// `error.type`: the JSON-RPC code as text, or `tool_error` for an `isError` tool result.
    pub error_type: Option<String>,
    /// `rpc.response.status_code`: the JSON-RPC error code as text.
    pub status_code: Option<String>,
    /// The span status description (the JSON-RPC error message).
    pub description: Option<String>,
    /// Metric attributes to leave out: after a JSON-RPC error the tool or prompt named may be
    /// any name a client sent (an unknown tool), so it stays on the span only; the metric's
    /// series stay bounded by what the server serves.
    pub drop_from_metric: Vec<&'static str>,
}

/// The metric attributes whose values come from the client unchecked.
const CLIENT_NAMED: [&str; 2] = ["gen_ai.tool.name", "gen_ai.prompt.name"];

fn s(v: impl Into<Cow<'static, str>>) -> AttrValue {
    AttrValue::Str(v.into())
}

/// The method when it is one of the protocol's (borrowed: no allocation per request).
fn known_method(method: &str) -> Option<&'static str> {
    const KNOWN: [&str; 20] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "server/discover",
        "ping",
        "initialize",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "skills/list",
        "skills/get",
        "resources/directory/read",
        "logging/setLevel",
    ];
    KNOWN.iter().find(|k| **k == method).copied()
}

/// The text of a request id (`jsonrpc.request.id`).
pub fn request_id(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    }
}

/// The trace context in `params._meta`.
pub fn carrier(params: Option<&Map<String, Value>>) -> Vec<(String, String)> {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    CARRIER_KEYS.iter().filter_map(|k| Some(((*k).to_owned(), meta?.get(*k)?.as_str()?.to_owned()))).collect()
}

/// The operation of `request` as the server that received it sees it.
pub fn server_operation(request: &Request, ctx: &RequestContext) -> Operation {
    let mut op = operation(&request.method, request.params.as_ref());
    op.attributes.push(("jsonrpc.request.id", s(request_id(&request.id))));
    let version = ctx.protocol_version().map(|v| v.as_str());
    if let Some(v) = version {
        op.attributes.push(("mcp.protocol.version", s(v)));
        op.metric_attributes.push(("mcp.protocol.version", s(v)));
    }
    let origin = ctx.origin();
    // A modern request belongs to no session; a legacy one over HTTP has its session id.
    if let Some(id) = origin.and_then(|o| o.session_id.as_deref()) {
        op.attributes.push(("mcp.session.id", s(id.to_owned())));
    }
    let http = origin.is_some_and(|o| o.headers.is_some() || o.peer.is_some());
    let transport = if http { "tcp" } else { "pipe" };
    op.attributes.push(("network.transport", s(transport)));
    op.metric_attributes.push(("network.transport", s(transport)));
    if http {
        op.attributes.push(("network.protocol.name", s("http")));
    }
    if let Some(peer) = origin.and_then(|o| o.peer) {
        op.attributes.push(("client.address", s(peer.ip().to_string())));
        op.attributes.push(("client.port", AttrValue::Int(i64::from(peer.port()))));
    }
    op
}

/// The attributes of `mcp.server.session.duration` / `mcp.client.session.duration` for a
/// legacy session of `version` over `transport` (`pipe` or `tcp`): `mcp.protocol.version`,
/// `network.transport`, and `network.protocol.name` `http` over tcp. (2026-07-28 requests
/// belong to no session and record none.)
pub fn session_attributes(version: &str, transport: &'static str) -> Vec<(&'static str, AttrValue)> {
    let mut attrs =
        vec![("mcp.protocol.version", s(version.to_owned())), ("network.transport", s(transport))];
    if transport == "tcp" {
        attrs.push(("network.protocol.name", s("http")));
    }
    attrs
}

/// The operation of `method` with `params` as its client sees it (before it has an id).
pub fn client_operation(
    method: &str,
    params: Option<&Map<String, Value>>,
    version: Option<&str>,
) -> Operation {
    let mut op = operation(method, params);
    op.carrier.clear();
    if let Some(v) = version.and_then(crate::protocol::ProtocolVersion::parse) {
        op.attributes.push(("mcp.protocol.version", s(v.as_str())));
        op.metric_attributes.push(("mcp.protocol.version", s(v.as_str())));
    }
    op
}

/// What both sides share: the name, the method, the target and the carrier.
fn operation(method: &str, params: Option<&Map<String, Value>>) -> Operation {
    let get = |k: &str| params.and_then(|p| p.get(k)).and_then(Value::as_str).map(str::to_owned);
    let known = known_method(method);
    let mut attributes = Vec::with_capacity(12);
    let mut metric_attributes = Vec::with_capacity(6);
    attributes.push(("mcp.method.name", known.map_or_else(|| s(method.to_owned()), s)));
    // An unknown method is `_OTHER` on the metric (as the HTTP conventions name unknown
    // methods): a client cannot mint metric series.
    metric_attributes.push(("mcp.method.name", s(known.unwrap_or("_OTHER"))));
    let mut target = None;
    match method {
        "tools/call" => {
            if let Some(name) = get("name") {
                attributes.push(("gen_ai.tool.name", s(name.clone())));
                metric_attributes.push(("gen_ai.tool.name", s(name.clone())));
                target = Some(name);
            }
            attributes.push(("gen_ai.operation.name", s("execute_tool")));
            metric_attributes.push(("gen_ai.operation.name", s("execute_tool")));
        }
        "prompts/get" => {
            if let Some(name) = get("name") {
                attributes.push(("gen_ai.prompt.name", s(name.clone())));
                metric_attributes.push(("gen_ai.prompt.name", s(name.clone())));
                target = Some(name);
            }
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            // The URI is an attribute, never part of the name (high cardinality).
            if let Some(uri) = get("uri") {
                attributes.push(("mcp.resource.uri", s(uri)));
            }
        }
        _ => {}
    }
    let span_name = match target {
        Some(t) => format!("{method} {t}"),
        None => method.to_owned(),
    };
    Operation { span_name, attributes, metric_attributes, carrier: carrier(params) }
}

/// How `reply` ended the operation: a JSON-RPC error is its code; a tool result with
/// `isError: true` is `tool_error`.
pub fn outcome(reply: &Reply) -> Outcome {
    match reply {
        Err(e) => Outcome {
            error_type: Some(e.code.0.to_string()),
            status_code: Some(e.code.0.to_string()),
            description: Some(e.message.clone()),
            drop_from_metric: CLIENT_NAMED.to_vec(),
        },
        Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
            Outcome { error_type: Some("tool_error".into()), ..Default::default() }
        }
        Ok(_) => Outcome::default(),
    }
}

/// The outcome of an answer as a binding sees it: `error` a JSON-RPC error's code and message,
/// else a result whose `isError` is `is_error`.
pub fn host_outcome(is_error: bool, error: Option<(i32, &str)>) -> Outcome {
    let reply = match error {
        Some((code, message)) => Err(crate::ErrorData::new(crate::ErrorCode(code), message)),
        None => Ok(serde_json::json!({ "isError": is_error })),
    };
    outcome(&reply)
}

#[cfg(test)]
mod tests;
