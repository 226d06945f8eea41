//! A host function as [`Middleware`]: Python's `@server.middleware`, Node's `server.use`,
//! Kotlin's and Swift's `Middleware` interface all come through [`HostMiddleware`].
//!
//! The host function is called as [`HandlerKind::Middleware`] with `{"method", "params"}` and a
//! [`HostCall`] whose [`HostCall::next`] passes the request on (once) and resolves to the
//! result, or fails with the JSON-RPC error (code and data intact) the rest of the chain
//! answered. What the host function returns is the result the client gets; what it raises is
//! the error: a binding's `McpError` with its code and data, anything else `-32603`.

use super::{HandlerKind, HostCall, HostCallback, HostReply};
use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use serde_json::{json, Value};
use std::sync::Arc;

/// The pseudo-method a host middleware made [`HostMiddleware::with_session_events`] is called
/// with when a legacy session ends: `params` `{"seconds", "attributes": [[key, value], ...]}`
/// (the attributes of `mcp.server.session.duration`); its answer is ignored.
pub const SESSION_ENDED: &str = "mcpcore/sessionEnded";

/// A host function registered as middleware.
pub struct HostMiddleware {
    callback: Arc<dyn HostCallback>,
    sessions: bool,
}

impl HostMiddleware {
    /// The middleware calling `callback`.
    pub fn new(callback: Arc<dyn HostCallback>) -> Self {
        HostMiddleware { callback, sessions: false }
    }

    /// The host function also hears of legacy sessions ending, as [`SESSION_ENDED`] (a
    /// binding's telemetry records `mcp.server.session.duration` with it).
    pub fn with_session_events(mut self) -> Self {
        self.sessions = true;
        self
    }
}

impl Middleware for HostMiddleware {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let input = json!({ "method": request.method, "params": request.params });
        let (call, end) = HostCall::start(Some(ctx));
        call.set_next(next, request);
        let fut = self.callback.call(HandlerKind::Middleware, input, call);
        Box::pin(async move {
            let reply = fut.await;
            end.finish();
            match reply {
                HostReply::Value(v) => match v.into_json() {
                    Value::Object(result) => Ok(Value::Object(result)),
                    other => Err(ErrorData::internal(format!(
                        "Internal error: a middleware returned {other} where a result object belongs"
                    ))),
                },
                HostReply::Rpc(e) => Err(e),
                HostReply::InputRequired(m) | HostReply::Failure(m) => {
                    Err(ErrorData::internal(format!("Internal error: a middleware failed: {m}")))
                }
            }
        })
    }

    fn session_ended(&self, session: &crate::middleware::SessionEnded) {
        let Some(runtime) = self.sessions.then(tokio::runtime::Handle::try_current).and_then(Result::ok)
        else {
            return;
        };
        let attributes = crate::semconv::session_attributes(session.version.as_str(), session.transport);
        let input = json!({"method": SESSION_ENDED,
            "params": {"seconds": session.duration.as_secs_f64(), "attributes": attributes}});
        let (call, end) = HostCall::start(None);
        let fut = self.callback.call(HandlerKind::Middleware, input, call);
        runtime.spawn(async move {
            let _ = fut.await;
            end.finish();
        });
    }
}
