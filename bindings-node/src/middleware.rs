//! `Middleware`: the server's middleware chain as the JS layer builds it (`server.use(...)`):
//! JS functions through the core's `HostMiddleware`, and the core's ready-made middleware
//! configured from JS. Conversion only; the chain runs in the core.

use crate::bad_option;
use crate::handler::{JsCallback, JsFunction};
use mcpcore::host::HostMiddleware;
use mcpcore::middleware::{Chain, Middleware as CoreMiddleware};
use mcpcore::server::middleware::{Idempotency, ListCache, RateLimit, RequestLog, ResponseLimit, Timeouts};
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A middleware chain, outermost first (see `Server.use`).
#[napi]
pub struct Middleware {
    chain: Mutex<Chain>,
}

impl Middleware {
    /// The chain as it is now.
    pub(crate) fn chain(&self) -> Chain {
        self.chain.lock().expect("lock").clone()
    }

    fn push(&self, m: Arc<dyn CoreMiddleware>) {
        let mut chain = self.chain.lock().expect("lock");
        *chain = chain.with(m);
    }
}

fn millis(what: &str, ms: f64) -> napi::Result<Duration> {
    if ms.is_finite() && ms > 0.0 {
        Ok(Duration::from_secs_f64(ms / 1000.0))
    } else {
        Err(bad_option(what, "a positive number of milliseconds", &ms.to_string()))
    }
}

#[napi]
impl Middleware {
    /// An empty chain.
    #[napi(constructor)]
    pub fn new() -> Self {
        Middleware { chain: Mutex::new(Chain::default()) }
    }

    /// Adds a JS middleware: `callback(inputJson, call)` where the input is `{method, params}`
    /// and `call.next(requestJson)` passes the request on; answers with an envelope.
    /// `outermost`: before every middleware added so far (telemetry); `sessionEvents`: it also
    /// hears of legacy sessions ending, as the pseudo-request `mcpcore/sessionEnded` (telemetry).
    #[napi(
        ts_args_type = "callback: (inputJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>, outermost?: boolean | undefined | null, sessionEvents?: boolean | undefined | null"
    )]
    pub fn add_callback(&self, callback: JsFunction, outermost: Option<bool>, session_events: Option<bool>) {
        let m = HostMiddleware::new(JsCallback::new(callback));
        let m = Arc::new(if session_events == Some(true) { m.with_session_events() } else { m });
        if outermost == Some(true) {
            let mut chain = self.chain.lock().expect("lock");
            *chain = chain.with_outermost(m);
        } else {
            self.push(m);
        }
    }

    /// Adds a rate limit per client: `burst` requests at once, refilled at `perSecond`; only
    /// `methods` when given; the buckets in the Redis at `store` (shared by instances) or in
    /// memory.
    #[napi]
    pub fn add_rate_limit(
        &self,
        per_second: f64,
        burst: u32,
        methods: Option<Vec<String>>,
        store: Option<String>,
    ) -> napi::Result<()> {
        if !(per_second.is_finite() && per_second > 0.0) {
            return Err(bad_option("perSecond", "a positive number", &per_second.to_string()));
        }
        let limit = napi::bindgen_prelude::within_runtime_if_available(|| {
            RateLimit::with_options(per_second, burst, methods, store.as_deref())
        })
        .map_err(crate::errors::to_js)?;
        self.push(Arc::new(limit));
        Ok(())
    }

    /// Adds timeouts for tools: `defaultMs` for every tool (none when absent), `perToolMs` by name.
    #[napi]
    pub fn add_timeouts(
        &self,
        default_ms: Option<f64>,
        per_tool_ms: Option<HashMap<String, f64>>,
    ) -> napi::Result<()> {
        let mut t = match default_ms {
            Some(ms) => Timeouts::new(millis("defaultMs", ms)?),
            None => Timeouts::per_tool(),
        };
        for (tool, ms) in per_tool_ms.unwrap_or_default() {
            let limit = millis(&format!("the timeout of {tool}"), ms)?;
            t = t.tool(tool, limit);
        }
        self.push(Arc::new(t));
        Ok(())
    }

    /// Adds a bound on the size of results (serialized JSON bytes).
    #[napi]
    pub fn add_response_limit(&self, max_bytes: u32) {
        self.push(Arc::new(ResponseLimit::new(max_bytes as usize)));
    }

    /// Adds the cache of list results: kept `ttlMs` unless a result's own `ttlMs` says
    /// otherwise, at most `maxEntries`, emptied by any list change.
    #[napi]
    pub fn add_list_cache(&self, ttl_ms: u32, max_entries: u32) {
        let ttl = std::time::Duration::from_millis(u64::from(ttl_ms));
        self.push(Arc::new(ListCache::new(ttl, max_entries as usize)));
    }

    /// Adds the request log (the engine's log records, target `mcpcore::requests`, at info).
    #[napi]
    pub fn add_request_log(&self) {
        self.push(Arc::new(RequestLog));
    }

    /// Adds idempotent writes: tool calls carrying `idempotency_key` act once per client, tool
    /// and key; keys kept `ttlMs`, a running call's claim lapsing after `leaseMs`; in the Redis
    /// at `store` (shared by instances) or in memory.
    #[napi]
    pub fn add_idempotency(&self, ttl_ms: f64, lease_ms: f64, store: Option<String>) -> napi::Result<()> {
        let (ttl, lease) = (millis("ttlMs", ttl_ms)?, millis("leaseMs", lease_ms)?);
        let m = napi::bindgen_prelude::within_runtime_if_available(|| {
            Idempotency::with_options(ttl, lease, store.as_deref())
        })
        .map_err(crate::errors::to_js)?;
        self.push(Arc::new(m));
        Ok(())
    }

    /// The number of middleware.
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.chain.lock().expect("lock").len() as u32
    }
}

impl Default for Middleware {
    fn default() -> Self {
        Middleware::new()
    }
}
