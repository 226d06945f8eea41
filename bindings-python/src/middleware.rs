//! `Middleware`: the server's middleware chain as the facade builds it (`mcpcore.Server(middleware=...)`,
//! `@server.middleware`): Python functions through the core's `HostMiddleware`, and the core's
//! ready-made middleware configured from Python. Conversion only; the chain runs in the core.

use crate::errors;
use crate::handler::{LoopSlot, PyCallback};
use mcpcore::host::HostMiddleware;
use mcpcore::middleware::{Chain, Middleware as CoreMiddleware};
use mcpcore::server::middleware::{Idempotency, ListCache, RateLimit, RequestLog, ResponseLimit, Timeouts};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A middleware chain, outermost first (see `mcpcore.Server`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Middleware {
    chain: Mutex<Chain>,
    pub(crate) loop_slot: Arc<LoopSlot>,
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

fn positive(what: &str, seconds: f64) -> PyResult<Duration> {
    crate::values::seconds(Some(seconds))
        .map_err(|_| {
            errors::to_py(mcpcore::Error::invalid_input(format!("{what} must be positive, not {seconds}")))
        })
        .map(|d| d.expect("given"))
}

#[pymethods]
impl Middleware {
    /// An empty chain.
    #[new]
    fn new() -> Self {
        Middleware { chain: Mutex::new(Chain::default()), loop_slot: Arc::default() }
    }

    /// Adds a Python middleware: `callback(input, call)` where `input` is `{"method", "params"}`
    /// and `call.next(request_json)` passes the request on; returns the result (a dict) or an
    /// awaitable of it. `outermost`: before every middleware added so far (telemetry).
    /// `session_events`: it also hears of legacy sessions ending, as the pseudo-request
    /// `mcpcore/sessionEnded` (the telemetry middleware).
    #[pyo3(signature = (callback, is_async, outermost=false, session_events=false))]
    fn add_callback(&self, callback: Py<PyAny>, is_async: bool, outermost: bool, session_events: bool) {
        let m = HostMiddleware::new(PyCallback::new(callback, is_async, &self.loop_slot));
        let m = Arc::new(if session_events { m.with_session_events() } else { m });
        if outermost {
            let mut chain = self.chain.lock().expect("lock");
            *chain = chain.with_outermost(m);
        } else {
            self.push(m);
        }
    }

    /// Adds a rate limit per client: `burst` requests at once, refilled at `per_second`;
    /// only `methods` when given; the buckets in the Redis at `store` (shared by instances) or
    /// in memory.
    #[pyo3(signature = (per_second, burst, methods=None, store=None))]
    fn add_rate_limit(
        &self,
        per_second: f64,
        burst: u32,
        methods: Option<Vec<String>>,
        store: Option<&str>,
    ) -> PyResult<()> {
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        let limit = RateLimit::with_options(per_second, burst, methods, store).map_err(errors::to_py)?;
        self.push(Arc::new(limit));
        Ok(())
    }

    /// Adds timeouts for tools: `default` seconds for every tool (None: none), `per_tool` by name.
    #[pyo3(signature = (default=None, per_tool=None))]
    fn add_timeouts(&self, default: Option<f64>, per_tool: Option<HashMap<String, f64>>) -> PyResult<()> {
        let mut t = match default {
            Some(s) => Timeouts::new(positive("the default timeout", s)?),
            None => Timeouts::per_tool(),
        };
        for (tool, s) in per_tool.unwrap_or_default() {
            let limit = positive(&format!("the timeout of {tool}"), s)?;
            t = t.tool(tool, limit);
        }
        self.push(Arc::new(t));
        Ok(())
    }

    /// Adds a bound on the size of results (serialized JSON bytes).
    fn add_response_limit(&self, max_bytes: usize) {
        self.push(Arc::new(ResponseLimit::new(max_bytes)));
    }

    /// Adds the cache of list results: kept `ttl` seconds unless a result's own `ttlMs` says
    /// otherwise, at most `max_entries`, emptied by any list change.
    fn add_list_cache(&self, ttl: f64, max_entries: usize) -> PyResult<()> {
        self.push(Arc::new(ListCache::new(positive("ttl", ttl)?, max_entries)));
        Ok(())
    }

    /// Adds the request log (`logging` logger `mcpcore.requests`, INFO).
    fn add_request_log(&self) {
        self.push(Arc::new(RequestLog));
    }

    /// Adds idempotent writes: tool calls carrying `idempotency_key` act once per client, tool
    /// and key; keys kept `ttl` seconds, a running call's claim lapsing after `lease`; in the
    /// Redis at `store` (shared by instances) or in memory.
    #[pyo3(signature = (ttl, lease, store=None))]
    fn add_idempotency(&self, ttl: f64, lease: f64, store: Option<&str>) -> PyResult<()> {
        let (ttl, lease) = (positive("ttl", ttl)?, positive("lease", lease)?);
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        let m = Idempotency::with_options(ttl, lease, store).map_err(errors::to_py)?;
        self.push(Arc::new(m));
        Ok(())
    }

    /// The number of middleware.
    fn __len__(&self) -> usize {
        self.chain.lock().expect("lock").len()
    }
}
