//! Middleware from Kotlin and Swift: a foreign [`Middleware`] (Kotlin `suspend fun handle`,
//! Swift `func handle(...) async throws`) runs around every request the server dispatches,
//! through the core's `HostMiddleware`; [`MiddlewareCall::next`] passes the request on. The
//! ready-made middleware are configured on the [`Server`](crate::server::Server)
//! (`withRateLimit`, `withTimeouts`, `withResponseLimit`, `withRequestLog`).

use crate::errors::McpError;
use crate::handler::reply_of;
use crate::rt;
use mcpcore::host::{HandlerKind, HostCall, HostCallback, HostReply, HostValue};
use mcpcore::registry::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;

/// Host code around every request the server dispatches. Call `call.next(...)` to pass the
/// request on (once) and get the result (JSON text), or answer without calling it. Throwing
/// [`McpError::Rpc`] answers with that JSON-RPC error (code and data); `next` throws the rest
/// of the chain's error the same way; any other exception is `-32603`.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait Middleware: Send + Sync {
    /// Handles one request; returns its result object as JSON text.
    async fn handle(&self, call: Arc<MiddlewareCall>) -> Result<String, McpError>;
}

/// One request on its way through the chain: its method and params, who sends it, and the
/// rest of the chain.
#[derive(uniffi::Object)]
pub struct MiddlewareCall {
    method: String,
    params: Value,
    call: HostCall,
}

#[uniffi::export]
impl MiddlewareCall {
    /// The JSON-RPC method, e.g. `tools/call`.
    pub fn method(&self) -> String {
        self.method.clone()
    }

    /// The params as JSON text (`{}` when absent).
    pub fn params(&self) -> String {
        self.params.to_string()
    }

    /// The tool a `tools/call` names.
    pub fn tool(&self) -> Option<String> {
        (self.method == "tools/call").then(|| self.params.get("name")?.as_str().map(str::to_owned))?
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> Option<String> {
        self.call.protocol_version().map(str::to_owned)
    }

    /// The client's `clientInfo` as JSON text, when known.
    pub fn client_info(&self) -> Option<String> {
        self.call.client_info().map(|v| v.to_string())
    }

    /// The authenticated caller (`{subject, clientId, scopes, claims}`) as JSON text.
    pub fn identity(&self) -> Option<String> {
        self.call.identity().map(|v| v.to_string())
    }

    /// The HTTP request header `name` (over HTTP).
    pub fn header(&self, name: String) -> Option<String> {
        self.call.header(&name)
    }

    /// The OpenTelemetry conventions for MCP of this request (`mcpcore::semconv`): span name,
    /// attributes, the metric's attributes, and the trace context in `params._meta`; none for
    /// the engine's session event (see [`MiddlewareCall::session_ended`]).
    pub fn telemetry_operation(&self) -> Option<TelemetryOperation> {
        if self.method == mcpcore::host::SESSION_ENDED {
            return None;
        }
        let v = self.call.telemetry_operation(&self.method, self.params.clone())?;
        let pairs = |key: &str| -> Vec<(String, Value)> {
            serde_json::from_value(v.get(key).cloned().unwrap_or_default()).unwrap_or_default()
        };
        let attrs = |key: &str| pairs(key).into_iter().map(|(k, v)| attr(k, v)).collect();
        Some(TelemetryOperation {
            span_name: v.get("span_name")?.as_str()?.to_owned(),
            attributes: attrs("attributes"),
            metric_attributes: attrs("metric_attributes"),
            carrier: pairs("carrier")
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.as_str()?.to_owned())))
                .collect(),
        })
    }

    /// When this is the engine's event for a legacy session that ended (not a request): its
    /// duration and the attributes of `mcp.server.session.duration`.
    pub fn session_ended(&self) -> Option<SessionEnded> {
        if self.method != mcpcore::host::SESSION_ENDED {
            return None;
        }
        let seconds = self.params.get("seconds")?.as_f64()?;
        let pairs: Vec<(String, Value)> =
            serde_json::from_value(self.params.get("attributes")?.clone()).ok()?;
        let attributes = pairs.into_iter().map(|(k, v)| attr(k, v)).collect();
        Some(SessionEnded { seconds, attributes })
    }

    /// Passes the request on, with `method` and `params` (JSON text) when given instead of the
    /// client's; returns the result as JSON text, or throws the rest of the chain's error.
    #[uniffi::method(default(method = None, params = None))]
    pub async fn next(&self, method: Option<String>, params: Option<String>) -> Result<String, McpError> {
        let mut request = json!({});
        if let Some(m) = method {
            request["method"] = json!(m);
        }
        if let Some(p) = params {
            request["params"] = crate::parse_json("params", &p)?;
        }
        let run = self.call.next(request);
        rt::in_runtime(async move { Ok(run.await?.to_string()) }).await
    }
}

/// A foreign [`Middleware`] as the core's host callback (registered as a `HostMiddleware`).
pub(crate) struct ForeignMiddleware(pub(crate) Arc<dyn Middleware>);

impl HostCallback for ForeignMiddleware {
    fn call(&self, _kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let handler = self.0.clone();
        let method = input["method"].as_str().unwrap_or_default().to_owned();
        let params = match input.get("params") {
            Some(Value::Object(p)) => Value::Object(p.clone()),
            _ => json!({}),
        };
        let call = Arc::new(MiddlewareCall { method, params, call });
        Box::pin(async move {
            match handler.handle(call).await {
                Ok(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(v) => HostReply::Value(HostValue::Json(v)),
                    Err(e) => HostReply::Failure(format!("the middleware returned invalid JSON: {e}")),
                },
                Err(e) => reply_of(e),
            }
        })
    }
}

/// One attribute: a text or an integer value.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct TelemetryAttribute {
    /// Its key, e.g. `mcp.method.name`.
    pub key: String,
    /// The value, when text.
    pub text: Option<String>,
    /// The value, when an integer.
    pub int: Option<i64>,
}

/// A request as the OpenTelemetry conventions for MCP describe it.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct TelemetryOperation {
    /// `{mcp.method.name} {target}`.
    pub span_name: String,
    /// The span's attributes.
    pub attributes: Vec<TelemetryAttribute>,
    /// The duration histogram's attributes (low cardinality).
    pub metric_attributes: Vec<TelemetryAttribute>,
    /// The trace context the sender put in `params._meta` (`traceparent`, `tracestate`,
    /// `baggage`).
    pub carrier: std::collections::HashMap<String, String>,
}

/// How an answer ends its operation.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct TelemetryOutcome {
    /// `error.type`, when it failed.
    pub error_type: Option<String>,
    /// `rpc.response.status_code` (the JSON-RPC code as text).
    pub status_code: Option<String>,
    /// The span status description.
    pub description: Option<String>,
    /// Metric attributes to leave out (a name the client chose).
    pub drop_from_metric: Vec<String>,
}

/// A legacy session that ended: its duration and the attributes of
/// `mcp.server.session.duration`.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SessionEnded {
    /// How long it lasted.
    pub seconds: f64,
    /// `mcp.protocol.version`, `network.transport`, …
    pub attributes: Vec<TelemetryAttribute>,
}

fn attr(key: String, v: Value) -> TelemetryAttribute {
    match v {
        Value::Number(n) => TelemetryAttribute { key, text: None, int: n.as_i64() },
        Value::String(s) => TelemetryAttribute { key, text: Some(s), int: None },
        other => TelemetryAttribute { key, text: Some(other.to_string()), int: None },
    }
}

/// How an answer ends its operation by the OpenTelemetry conventions for MCP
/// (`mcpcore::semconv::host_outcome`): a result (`is_error`: a tool's `isError`) or the
/// JSON-RPC error `code` with its `message`.
#[uniffi::export(default(code = None, message = None))]
pub fn telemetry_outcome(is_error: bool, code: Option<i32>, message: Option<String>) -> TelemetryOutcome {
    let error = code.map(|c| (c, message.as_deref().unwrap_or("")));
    let o = mcpcore::semconv::host_outcome(is_error, error);
    TelemetryOutcome {
        error_type: o.error_type,
        status_code: o.status_code,
        description: o.description,
        drop_from_metric: o.drop_from_metric.into_iter().map(str::to_owned).collect(),
    }
}
