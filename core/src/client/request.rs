//! How a request goes out and its answer comes back: the modern `_meta` a request carries, the
//! renegotiation a `-32022` asks for, MRTR rounds (`input_required` answered with the input
//! handler's answers), the list cache, and cancellation when the caller gives up
//! (2026-07-28 basic/lifecycle, basic/patterns/mrtr; 2025-11-25 basic/utilities/cancellation).

use super::*;

impl Client {
    /// Sends a request and waits for its response. Modern requests get their `_meta`; a
    /// `-32022` on a modern connection renegotiates and retries once.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value> {
        self.request_with(method, params, &CallOptions::default()).await
    }

    /// [`Client::request`] with per-call options. On the modern lineage, `tools/call`,
    /// `prompts/get` and `resources/read` answered with `input_required` are retried with the
    /// input of [`ClientOptions::input`] (MRTR) until complete.
    pub async fn request_with(&self, method: &str, params: Value, opts: &CallOptions) -> Result<Value> {
        self.request_inner(method, object(params)?, opts).await.map(|(v, _)| v)
    }

    /// Sends `method`, running MRTR rounds where they apply; the `bool` says whether the result
    /// came from a retry.
    pub(super) async fn request_inner(
        &self,
        method: &str,
        params: Map<String, Value>,
        opts: &CallOptions,
    ) -> Result<(Value, bool)> {
        let modern = self.current_version().is_some_and(|v| v.is_modern());
        if modern && mrtr::METHODS.contains(&method) {
            return mrtr::run(self, method, params, opts).await;
        }
        let v = self.request_once(method, params, opts).await?;
        if modern {
            check_result_type(method, &v, self.declares_tasks(opts))?;
        }
        Ok((v, false))
    }

    /// One request (no MRTR); a `-32022` on a modern connection renegotiates and retries once.
    pub(crate) async fn request_once(
        &self,
        method: &str,
        params: Map<String, Value>,
        opts: &CallOptions,
    ) -> Result<Value> {
        let version = self.current_version();
        if !version.is_some_and(|v| v.is_modern()) {
            // Only a 2026-07-28 server answers -32022 for a retry; no copy of the params kept.
            return self.send_request(method, params, version, opts).await;
        }
        match self.send_request(method, params.clone(), version, opts).await {
            Err(e)
                if e.code() == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                    && version.is_some_and(|v| v.is_modern()) =>
            {
                let next = self.renegotiate(&e)?;
                self.send_request(method, params, Some(next), opts).await
            }
            other => other,
        }
    }

    /// A cacheable request: served from the cache while fresh, stored when the server says
    /// for how long.
    pub(crate) async fn cached_request(
        &self,
        method: &str,
        params: Map<String, Value>,
        opts: &CallOptions,
    ) -> Result<Value> {
        let cache = self.inner.shared.cache.as_ref();
        if let Some(v) = cache.and_then(|c| c.get(method, &params)) {
            return Ok(v);
        }
        // A change announced while the request runs makes its result stale: not stored.
        let generation = cache.map(|c| c.generation());
        let (v, retried) = self.request_inner(method, params.clone(), opts).await?;
        if let (Some(c), Some(g), false) = (cache, generation, retried) {
            c.put(g, method, &params, &v);
        }
        Ok(v)
    }

    /// [`Client::cached_request`], read as `T`.
    pub(crate) async fn typed_cached<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T> {
        self.typed_cached_with(method, params, &CallOptions::default()).await
    }

    /// [`Client::typed_cached`] with per-call options.
    pub(crate) async fn typed_cached_with<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        opts: &CallOptions,
    ) -> Result<T> {
        let v = self.cached_request(method, object(params)?, opts).await?;
        serde_json::from_value(v).map_err(|e| Error::protocol(format!("malformed {method} result: {e}")))
    }

    fn renegotiate(&self, e: &Error) -> Result<ProtocolVersion> {
        let data: Option<UnsupportedVersionData> =
            e.data().and_then(|d| serde_json::from_value(d.clone()).ok());
        let supported = data.map(|d| d.supported).unwrap_or_default();
        let pick = connect::pick_modern(&supported, self.inner.options.version).ok_or_else(|| {
            Error::protocol(format!(
                "the server no longer supports our protocol version and offers no modern version we speak (server: [{}])",
                supported.join(", ")
            ))
        })?;
        let mut n = self.inner.negotiated.write().expect("lock");
        if let Some(n) = n.as_mut() {
            n.version = pick;
            n.server_versions = supported;
        }
        Ok(pick)
    }

    /// Adds the modern `_meta` keys to `params` for `version`.
    pub(super) fn with_meta(
        &self,
        params: Map<String, Value>,
        version: ProtocolVersion,
    ) -> Map<String, Value> {
        self.with_meta_for(params, version, None, false)
    }

    /// [`Client::with_meta`], declaring the kinds of a per-call input handler when there is one.
    fn with_meta_for(
        &self,
        params: Map<String, Value>,
        version: ProtocolVersion,
        call_input: Option<&Arc<dyn InputHandler>>,
        tasks: bool,
    ) -> Map<String, Value> {
        self.with_meta_declaring(params, version, call_input, tasks, None)
    }

    /// [`Client::with_meta_for`], declaring `extensions` (when given) instead of the
    /// connection's, and the Tasks extension when `tasks`.
    fn with_meta_declaring(
        &self,
        mut params: Map<String, Value>,
        version: ProtocolVersion,
        call_input: Option<&Arc<dyn InputHandler>>,
        tasks: bool,
        extensions: Option<&Map<String, Value>>,
    ) -> Map<String, Value> {
        let mut caps = self.capabilities_for(version, call_input);
        if let Some(x) = extensions {
            caps.extensions = (!x.is_empty()).then(|| x.clone());
        }
        if tasks {
            let ext = caps.extensions.get_or_insert_with(Default::default);
            ext.entry(crate::protocol::tasks_ext::EXTENSION_ID.to_owned()).or_insert_with(|| json!({}));
        }
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta {
            m.insert(meta::PROTOCOL_VERSION.into(), json!(version.as_str()));
            m.insert(meta::CLIENT_CAPABILITIES.into(), serde_json::to_value(caps).expect("serializable"));
            m.insert(
                meta::CLIENT_INFO.into(),
                serde_json::to_value(&self.inner.options.info).expect("serializable"),
            );
        }
        params
    }

    pub(super) async fn send_request(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        version: Option<ProtocolVersion>,
        opts: &CallOptions,
    ) -> Result<Value> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        if !self.inner.options.telemetry {
            return self.send_request_as(id, method, params, version, opts).await;
        }
        let span = crate::telemetry::client::ClientSpan::start(
            method,
            &mut params,
            version.map(|v| v.as_str()),
            &id,
        );
        let result = self.send_request_as(id, method, params, version, opts).await;
        span.end(&result);
        result
    }

    async fn send_request_as(
        &self,
        id: RequestId,
        method: &str,
        mut params: Map<String, Value>,
        version: Option<ProtocolVersion>,
        opts: &CallOptions,
    ) -> Result<Value> {
        let progress = opts.on_progress.as_ref().map(|_| {
            let token = json!(format!("p-{id}"));
            let m = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = m {
                m.insert(meta::PROGRESS_TOKEN.into(), token.clone());
            }
            token
        });
        if let Some(v) = version.filter(|v| v.is_modern()) {
            params = self.with_meta_declaring(
                params,
                v,
                opts.input.as_ref(),
                opts.tasks,
                opts.extensions.as_ref(),
            );
            let level = opts.log_level.or(*self.inner.log_level.read().expect("lock"));
            if let (Some(level), Some(Value::Object(m))) = (level, params.get_mut("_meta")) {
                m.insert(meta::LOG_LEVEL.into(), json!(level.as_str()));
            }
        }
        let rx = self.inner.shared.add_pending(id.clone())?;
        // Legacy: server→client requests arriving meanwhile go to this call's own handler.
        let _call_input = opts.input.clone().map(|h| self.inner.shared.push_call_input(h));
        let (ptx, mut prx) = mpsc::unbounded_channel();
        if let (Some(token), Some(cb)) = (&progress, &opts.on_progress) {
            self.inner.shared.add_progress(token, ptx, cb.clone());
        }
        let mut guard =
            CancelGuard { client: self, id: Some(id.clone()), reason: "the caller stopped waiting" };
        let req = Request { id: id.clone(), method: method.to_owned(), params: Some(params) };
        if self.inner.tx.send(OutFrame::One(Message::Request(req))).is_err() {
            guard.id = None;
            self.inner.shared.remove_pending(&id);
            return Err(Error::closed(
                self.inner.shared.closed_reason().unwrap_or_else(|| "connection closed".into()),
            ));
        }
        let timeout = opts.timeout.unwrap_or(self.inner.options.request_timeout);
        let start = tokio::time::Instant::now();
        let hard_max = opts.reset_timeout_on_progress.map(|m| start + m);
        let mut deadline = start + timeout;
        let mut auth_epoch = self.inner.auth_clock.get().map(|c| c.epoch()).unwrap_or(0);
        let input_clock = &self.inner.shared.input_clock;
        let mut input_epoch = input_clock.epoch();
        tokio::pin!(rx);
        let outcome = loop {
            tokio::select! {
                r = &mut rx => break r,
                // The callback already ran on the reader; this only restarts the timeout.
                Some(()) = prx.recv() => {
                    if let Some(max) = hard_max {
                        deadline = (tokio::time::Instant::now() + timeout).min(max);
                    }
                }
                _ = tokio::time::sleep_until(deadline) => {
                    // An authorization flow (a user logging in) ran meanwhile: start again.
                    if let Some(clock) = self.inner.auth_clock.get() {
                        if clock.busy_since(auth_epoch) {
                            auth_epoch = clock.epoch();
                            deadline = tokio::time::Instant::now() + timeout;
                            continue;
                        }
                    }
                    // So did an answer to the server's request for input (legacy elicitation,
                    // sampling, roots: a person may have been at it). 2026-07-28 input rounds
                    // are not timed at all: each round is a request of its own.
                    if input_clock.busy_since(input_epoch) {
                        input_epoch = input_clock.epoch();
                        deadline = tokio::time::Instant::now() + timeout;
                        continue;
                    }
                    guard.reason = "timeout";
                    drop(guard);
                    if let Some(t) = &progress { self.inner.shared.remove_progress(t); }
                    return Err(Error::timeout(format!("{method} timed out after {:?}", deadline - start)));
                }
            }
        };
        guard.id = None;
        if let Some(t) = &progress {
            self.inner.shared.remove_progress(t);
        }
        let resp: Response = match outcome {
            Ok(Ok(resp)) => resp,
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Error::closed("connection closed")),
        };
        resp.outcome.map_err(Error::rpc)
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Option<Map<String, Value>>) -> Result<()> {
        let n = Notification { method: method.to_owned(), params };
        self.inner.tx.send(OutFrame::One(Message::Notification(n))).map_err(|_| {
            Error::closed(self.inner.shared.closed_reason().unwrap_or_else(|| "connection closed".into()))
        })
    }

    pub(super) fn notify_cancelled(&self, id: RequestId, reason: &str) {
        let _ = self.inner.tx.send(cancelled_frame(id, reason));
    }
}
