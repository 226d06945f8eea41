//! [`HostCall`]: what a running host function may ask of its call, the same in every binding.

use crate::context::RequestContext;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::logging::LoggingLevel;
use crate::protocol::mrtr::InputRequests;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// A callback fired once when the call is abandoned (cancelled, timed out, its connection gone).
pub type OnAbandon = Box<dyn FnOnce() + Send>;

#[derive(Default)]
enum Abandon {
    /// The call runs; nobody asked to hear of its abandonment (yet).
    #[default]
    Idle,
    /// The call runs; fire this if it is abandoned.
    Armed(OnAbandon),
    /// The call is over (`true`: abandoned).
    Ended(bool),
}

struct Inner {
    /// The call's context while it runs; emptied when it ends, so a handle the host keeps does
    /// not keep the connection's senders (and a stdio server's output) open.
    ctx: Mutex<Option<RequestContext>>,
    /// Changes (its sender drops) when the call ends: a pending input request then stops.
    ended: watch::Receiver<()>,
    on_abandon: Mutex<Abandon>,
    /// Set when an input request ended with `InputRequired` (2026-07-28: answers missing).
    needs_input: AtomicBool,
    /// A middleware's call: the rest of the chain and the request, until passed on.
    next: Mutex<Option<(crate::middleware::Next, crate::jsonrpc::Request)>>,
}

/// One call of a host function: who calls, progress and logging, cancellation, and input from
/// the client. Cheap to clone; every method is safe after the call ended (a no-op, or an error
/// naming it).
#[derive(Clone)]
pub struct HostCall {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HostCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostCall").field("running", &self.context().is_some()).finish()
    }
}

/// Ends a [`HostCall`] when dropped: with the future that runs the host function, whether it
/// finished or was abandoned.
pub(crate) struct CallEnd {
    inner: Arc<Inner>,
    finished: bool,
    _alive: watch::Sender<()>,
}

impl CallEnd {
    /// The host function answered: the call was not abandoned.
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for CallEnd {
    fn drop(&mut self) {
        self.inner.ctx.lock().unwrap_or_else(|e| e.into_inner()).take();
        let abandoned = !self.finished;
        let mut state = self.inner.on_abandon.lock().unwrap_or_else(|e| e.into_inner());
        if let Abandon::Armed(f) = std::mem::replace(&mut *state, Abandon::Ended(abandoned)) {
            drop(state);
            if abandoned {
                f();
            }
        }
    }
}

impl HostCall {
    /// A call for `ctx` (`None`: a completer, which runs outside any request), and the guard
    /// that ends it.
    pub(crate) fn start(ctx: Option<RequestContext>) -> (HostCall, CallEnd) {
        let (alive, ended) = watch::channel(());
        let inner = Arc::new(Inner {
            ctx: Mutex::new(ctx),
            ended,
            on_abandon: Mutex::default(),
            needs_input: AtomicBool::new(false),
            next: Mutex::new(None),
        });
        (HostCall { inner: inner.clone() }, CallEnd { inner, finished: false, _alive: alive })
    }

    /// A call with no request behind it (an in-process call).
    pub fn detached() -> HostCall {
        let (call, end) = HostCall::start(Some(RequestContext::local()));
        std::mem::forget(end);
        call
    }

    /// The request context, while the call runs.
    pub fn context(&self) -> Option<RequestContext> {
        self.inner.ctx.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn running(&self, what: &str) -> Result<RequestContext> {
        self.context().ok_or_else(|| Error::invalid_input(format!("{what}: this call has ended")))
    }

    pub(crate) fn needed_input(&self) -> bool {
        self.inner.needs_input.load(Ordering::SeqCst)
    }

    /// Gives a middleware's call the rest of its chain.
    pub(crate) fn set_next(&self, next: crate::middleware::Next, request: crate::jsonrpc::Request) {
        *self.inner.next.lock().unwrap_or_else(|e| e.into_inner()) = Some((next, request));
    }

    /// A middleware passes its request on: `request` is `{"method"?, "params"?}` (an absent
    /// member keeps what the client sent). Resolves to the result, or fails with the JSON-RPC
    /// error of the rest of the chain ([`ErrorKind::Rpc`], code and data intact). Once per
    /// call: a second call, or a call outside a middleware, is an error saying so; after the
    /// call ended (cancelled), [`ErrorKind::Cancelled`], and the rest of the chain stops when it
    /// ends.
    pub fn next(&self, request: Value) -> crate::context::BoxFuture<'static, Result<Value>> {
        if self.has_ended() {
            // Cancelled (or answered) already: nothing further may act on the request.
            let e = Error::cancelled("next(): the request was cancelled or answered already");
            return Box::pin(async move { Err(e) });
        }
        let taken = self.inner.next.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some((next, original)) = taken else {
            let e = Error::invalid_input("next() was already called, or this is not a middleware's call");
            return Box::pin(async move { Err(e) });
        };
        let request = match passed_on(&original, request) {
            Ok(r) => r,
            Err(e) => {
                // Not passed on: the middleware may try again with a corrected request.
                *self.inner.next.lock().unwrap_or_else(|e| e.into_inner()) = Some((next, original));
                return Box::pin(async move { Err(e) });
            }
        };
        let run = next.run(request);
        // The rest of the chain (the handler included) ends with the call: a host whose
        // promises cannot be cancelled (JS) still stops what it started when the client
        // cancels or a timeout outside it fires.
        let mut ended = self.inner.ended.clone();
        Box::pin(async move {
            tokio::select! {
                reply = run => next_outcome(reply),
                _ = ended.changed() => Err(Error::cancelled("the request was cancelled while it ran")),
            }
        })
    }

    /// The request this call serves (`method`, `params`) as the OpenTelemetry conventions for
    /// MCP describe its server span and metric ([`crate::semconv`]), as JSON;
    /// `None` once the call has ended.
    pub fn telemetry_operation(&self, method: &str, params: Value) -> Option<Value> {
        let ctx = self.context()?;
        let id = ctx.request_id().cloned().unwrap_or(crate::jsonrpc::RequestId::Number(0));
        let request =
            crate::jsonrpc::Request { id, method: method.to_owned(), params: params.as_object().cloned() };
        let op = crate::semconv::server_operation(&request, &ctx);
        Some(serde_json::to_value(op).expect("serializable"))
    }

    /// The JSON-RPC id of the request as text (an integer id as its digits), or `None`
    /// in-process.
    pub fn request_id(&self) -> Option<String> {
        let ctx = self.context()?;
        ctx.request_id().map(|id| match id {
            crate::jsonrpc::RequestId::Number(n) => n.to_string(),
            crate::jsonrpc::RequestId::String(s) => s.clone(),
        })
    }

    /// The revision of the request, or `None` in-process.
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.context()?.protocol_version().map(|v| v.as_str())
    }

    /// True when the caller asked for progress notifications (and the call still runs).
    pub fn wants_progress(&self) -> bool {
        self.context().is_some_and(|c| c.wants_progress())
    }

    /// What the client declared (legacy: in `initialize`; 2026-07-28: in this request's
    /// `_meta`), as JSON; `None` in-process.
    pub fn client_capabilities(&self) -> Option<Value> {
        let ctx = self.context()?;
        ctx.client_capabilities().map(|c| serde_json::to_value(c).expect("serializable"))
    }

    /// The client's `clientInfo`, as JSON, when known.
    pub fn client_info(&self) -> Option<Value> {
        let ctx = self.context()?;
        ctx.client_info().map(|c| serde_json::to_value(c).expect("serializable"))
    }

    /// The authenticated caller (subject, client id, scopes, claims), as JSON, when the server
    /// verifies tokens.
    pub fn identity(&self) -> Option<Value> {
        let ctx = self.context()?;
        let id = ctx.identity()?;
        Some(serde_json::json!({
            "subject": id.subject, "clientId": id.client_id, "scopes": id.scopes, "claims": id.claims,
        }))
    }

    /// The HTTP request header `name` (over HTTP), the first value as text.
    pub fn header(&self, name: &str) -> Option<String> {
        let ctx = self.context()?;
        ctx.headers()?.get(name)?.to_str().ok().map(str::to_owned)
    }

    /// The state stored with [`HostCall::set_request_state`] in the previous round of this
    /// request (2026-07-28), when there is one.
    pub fn request_state(&self) -> Option<Value> {
        self.context()?.request_state()
    }

    /// Stores state for the next round of this request (2026-07-28; sealed in `requestState`);
    /// a no-op on legacy sessions.
    pub fn set_request_state(&self, state: Value) -> Result<()> {
        self.running("cannot set the request state")?.set_request_state(state);
        Ok(())
    }

    /// Sends `notifications/message` at `level` (`debug` … `emergency`) with `data`, when the
    /// caller asked for that level; a no-op otherwise (and once the call has ended).
    pub fn log(&self, level: &str, data: Value, logger: Option<&str>) -> Result<()> {
        let level = level.parse::<LoggingLevel>().map_err(Error::invalid_input)?;
        if let Some(ctx) = self.context() {
            ctx.log(level, logger, data);
        }
        Ok(())
    }

    /// Sends `notifications/progress` (a no-op when the caller did not ask, or the call ended).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(ctx) = self.context() {
            ctx.progress(progress, total, message);
        }
    }

    /// Asks the client for input: `requests` is `{key: {method, params}}`; resolves to the
    /// answers by key. Fails with [`ErrorKind::InputRequired`] (2026-07-28: answers missing; let
    /// it propagate: the call's outcome is then `input_required` whatever the host does with
    /// it), `-32021` when the client lacks a capability, [`ErrorKind::Cancelled`] when the call
    /// is abandoned meanwhile.
    pub async fn input(&self, requests: Value) -> Result<Value> {
        let requests: InputRequests = serde_json::from_value(requests)
            .map_err(|e| Error::invalid_input(format!("invalid input requests: {e}")))?;
        let ctx = self.running("cannot ask the client for input")?;
        let mut ended = self.inner.ended.clone();
        let answers = tokio::select! {
            answers = ctx.input(requests) => answers,
            _ = ended.changed() => {
                Err(Error::cancelled("the call was cancelled while it waited for client input"))
            }
        };
        if answers.as_ref().is_err_and(|e| e.kind() == ErrorKind::InputRequired) {
            self.inner.needs_input.store(true, Ordering::SeqCst);
        }
        answers.map(|a| serde_json::to_value(a).expect("serializable"))
    }

    /// Asks for approval of `action` under the input key `key`
    /// ([`crate::context::approval`]): `"approved"`, `"declined"`, or `"pending"` when the caller
    /// cannot be asked (then answer a `pending_approval` result). Errors as [`Self::input`].
    pub async fn approve(&self, key: &str, action: &str) -> Result<&'static str> {
        use crate::context::approval::{approval_form, approval_of};
        if !self.running("cannot ask for approval")?.can_elicit() {
            return Ok(crate::context::Approval::Pending.as_str());
        }
        let form = serde_json::to_value(approval_form(action)).expect("serializable");
        let mut requests = serde_json::Map::new();
        requests.insert(key.to_owned(), serde_json::json!({"method": "elicitation/create", "params": form}));
        let mut answers = self.input(Value::Object(requests)).await?;
        let answer = serde_json::from_value(answers[key].take()).map_err(|e| {
            Error::protocol(format!("the client's answer to the approval is not an elicitation result: {e}"))
        })?;
        Ok(approval_of(&answer).as_str())
    }

    /// Calls `f` once if the call is abandoned (cancelled on the wire, timed out, its
    /// connection closed); at once when it already was, never when it finished.
    pub fn on_abandon(&self, f: OnAbandon) {
        let mut state = self.inner.on_abandon.lock().unwrap_or_else(|e| e.into_inner());
        match &*state {
            Abandon::Ended(true) => {
                drop(state);
                f();
            }
            Abandon::Ended(false) => {}
            _ => *state = Abandon::Armed(f),
        }
    }

    /// True once the call ended (finished or abandoned).
    pub fn has_ended(&self) -> bool {
        self.context().is_none()
    }
}

/// The request a middleware's host function passes on: `{"method"?, "params"?}` over
/// `original` (an absent member keeps the original's).
fn passed_on(original: &crate::jsonrpc::Request, given: Value) -> Result<crate::jsonrpc::Request, Error> {
    let Value::Object(mut given) = given else {
        return Err(Error::invalid_input("next() takes the request: an object with method and params"));
    };
    let method = match given.remove("method") {
        None | Some(Value::Null) => original.method.clone(),
        Some(Value::String(m)) => m,
        Some(other) => {
            return Err(Error::invalid_input(format!("the request's method must be text, not {other}")))
        }
    };
    let params = match given.remove("params") {
        None => original.params.clone(),
        Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p),
        Some(other) => {
            return Err(Error::invalid_input(format!("the request's params must be an object, not {other}")))
        }
    };
    Ok(crate::jsonrpc::Request { id: original.id.clone(), method, params })
}

/// What the rest of a chain answered, as a binding's error: a JSON-RPC error keeps its code and
/// data.
fn next_outcome(reply: crate::middleware::Reply) -> crate::Result<Value> {
    reply.map_err(Error::rpc)
}
