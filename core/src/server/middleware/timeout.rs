//! Timeouts per tool: a `tools/call` that runs over its tool's bound is cancelled and answered
//! with `-32001`.

use crate::context::{BoxFuture, RequestContext};
use crate::error::{ErrorCode, ErrorData};
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// A bound on how long a tool runs: one for every tool, and others for named tools. A call
/// over its bound is cancelled (its future dropped, as a client's cancellation does) and
/// answered with `-32001` ("Request timed out", the code the official SDKs use for timeouts)
/// whose `data` is `{tool, timeoutMs}`. A tool that made the call a task is bounded only up
/// to the task's creation.
#[derive(Debug, Clone, Default)]
pub struct Timeouts {
    default: Option<Duration>,
    per_tool: Arc<HashMap<String, Duration>>,
}

impl Timeouts {
    /// Every tool bounded by `default`.
    pub fn new(default: Duration) -> Self {
        Timeouts { default: Some(default), per_tool: Arc::default() }
    }

    /// No bound but those given with [`Timeouts::tool`].
    pub fn per_tool() -> Self {
        Timeouts::default()
    }

    /// `tool` bounded by `limit` instead.
    pub fn tool(mut self, tool: impl Into<String>, limit: Duration) -> Self {
        Arc::make_mut(&mut self.per_tool).insert(tool.into(), limit);
        self
    }

    fn limit(&self, tool: &str) -> Option<Duration> {
        self.per_tool.get(tool).copied().or(self.default)
    }
}

impl Middleware for Timeouts {
    fn handle(&self, request: Request, _ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        let Some((tool, limit)) = super::tool_of(&request).and_then(|t| Some((t.to_owned(), self.limit(t)?)))
        else {
            return next.run(request);
        };
        let run = next.run(request);
        Box::pin(async move {
            match tokio::time::timeout(limit, run).await {
                Ok(reply) => reply,
                Err(_) => {
                    let ms = limit.as_millis() as u64;
                    Err(ErrorData::new(
                        ErrorCode::REQUEST_TIMEOUT,
                        format!("Request timed out: tool {tool} ran over its {ms} ms and was cancelled"),
                    )
                    .with_data(json!({ "tool": tool, "timeoutMs": ms })))
                }
            }
        })
    }
}
