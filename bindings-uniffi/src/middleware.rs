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
