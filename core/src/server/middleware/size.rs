//! A bound on the size of results.

use crate::context::{BoxFuture, RequestContext};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use serde_json::json;

/// Results larger than `max_bytes` (serialized JSON) are not sent: the request is answered with
/// `-32603` whose `data` is `{limit: "response_size", size, max}`, and the message says which
/// request produced how much. Keeps one runaway tool from flooding a client's context.
#[derive(Debug, Clone, Copy)]
pub struct ResponseLimit {
    max_bytes: usize,
}

impl ResponseLimit {
    /// Results up to `max_bytes` pass.
    pub fn new(max_bytes: usize) -> Self {
        ResponseLimit { max_bytes }
    }
}

impl Middleware for ResponseLimit {
    fn handle(&self, request: Request, _ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let max = self.max_bytes;
        let what = match super::tool_of(&request) {
            Some(tool) => format!("tool {tool}"),
            None => request.method.clone(),
        };
        let run = next.run(request);
        Box::pin(async move {
            let result = run.await?;
            let size = serde_json::to_vec(&result).map(|v| v.len()).unwrap_or(usize::MAX);
            if size > max {
                return Err(ErrorData::internal(format!(
                    "Internal error: the result of {what} is {size} bytes, over this server's limit of {max}"
                ))
                .with_data(json!({ "limit": "response_size", "size": size, "max": max })));
            }
            Ok(result)
        })
    }
}
