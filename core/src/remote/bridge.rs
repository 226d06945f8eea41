//! The lineage bridge of one forwarded call (`tools/call`, `prompts/get`, `resources/read`):
//! whatever the remote asks of its client during the call is asked of the local caller, in
//! the caller's lineage, and the answers go back the way the remote asks for them.
//!
//! | remote \ caller | legacy session | 2026-07-28 |
//! |---|---|---|
//! | **2026-07-28** | the remote's `input_required` becomes real requests to the caller; the call is retried on the remote with `inputResponses` and its `requestState` until complete | the remote's `inputRequests` pass through unchanged (same keys, all at once); its `requestState` rides inside the gateway's sealed one, and the caller's `inputResponses` go back to the remote as they are |
//! | **legacy** | the remote's requests are asked of the caller as real requests | each remote request becomes an `input_required` result (key `remote.<server>.<n>`); the remote's request stays open, the call parked (`parked.rs`) until the caller's retry brings the answer |
//!
//! (2026-07-28 basic/patterns/mrtr; 2025-11-25 client/elicitation, client/sampling,
//! client/roots.) The gateway's own `requestState` holds a [`BridgeState`], sealed by the
//! local engine like any handler's state.

use super::logs;
use super::parked::Parked;
use super::relay::{kinds_of, Ask, Declares, Dispatch, Entry};
use super::task::{self, Followed};
use super::Remote;
use crate::client::{CallOptions, Client};
use crate::context::RequestContext;
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
use crate::protocol::elicitation::{ElicitRequest, ElicitRequestParams};
use crate::protocol::mrtr::{InputRequest, InputRequiredResult, InputResponse};
use crate::protocol::Lineage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How many `input_required` rounds of a 2026-07-28 remote one forwarded call goes through
/// (answered by a legacy caller) before it fails.
const MAX_ROUNDS: usize = 16;

/// What the gateway keeps in its sealed `requestState` between a caller's MRTR rounds.
#[derive(Debug, Default, Serialize, Deserialize)]
struct BridgeState {
    /// A 2026-07-28 remote's own `requestState`, echoed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    upstream: Option<String>,
    /// A legacy remote: the ticket of the parked call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parked: Option<String>,
    /// A 2026-07-28 remote's task waiting for the caller's input (see `task.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task: Option<String>,
}

/// Forwards `method` with `params` to `remote` for the caller of `ctx`; returns the remote's
/// complete result.
pub(crate) async fn forward(
    remote: &Remote,
    ctx: &RequestContext,
    method: &'static str,
    params: Map<String, Value>,
) -> Result<Value> {
    let conn = remote.conn_for(ctx).await?;
    let (client, dispatch) = (conn.client, conn.dispatch);
    let _in_flight = conn.logs.enter(ctx);
    let state: BridgeState =
        ctx.request_state().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
    match client.lineage() {
        Lineage::Modern => modern(&client, ctx, method, params, state).await,
        Lineage::Legacy => legacy(remote, &client, &dispatch, ctx, method, params, state).await,
    }
}

/// Progress of the remote's call reported to the caller of `ctx`, when it asked for progress.
fn relay_progress(opts: &mut CallOptions, ctx: &RequestContext) {
    if ctx.wants_progress() {
        let ctx = ctx.clone();
        opts.on_progress =
            Some(std::sync::Arc::new(move |p| ctx.progress(p.progress, p.total, p.message.as_deref())));
    }
}

/// A 2026-07-28 remote: its MRTR rounds passed on (see the module docs).
async fn modern(
    client: &Client,
    ctx: &RequestContext,
    method: &'static str,
    params: Map<String, Value>,
    state: BridgeState,
) -> Result<Value> {
    let kinds = ctx.client_capabilities().map(kinds_of).unwrap_or_default();
    let mut opts = CallOptions {
        input: Some(Arc::new(Declares(kinds))),
        log_level: logs::wanted(ctx),
        extensions: Some(task::extensions(ctx)),
        ..CallOptions::default()
    };
    relay_progress(&mut opts, ctx);
    if let Some(id) = state.task {
        // The caller's retry answers the remote task its previous round stopped at.
        let answers = ctx.input_answers();
        return follow_task(client, ctx, &id, None, answers).await;
    }
    let mut next = params.clone();
    if let Some(s) = state.upstream {
        next.insert("requestState".into(), Value::String(s));
    }
    // The caller's answers (extra keys included: the remote ignores what it did not ask).
    if let Some(answers) = ctx.input_answers().filter(|a| !a.is_empty()) {
        next.insert("inputResponses".into(), Value::Object(answers));
    }
    for _ in 0..MAX_ROUNDS {
        let v = client.request_once(method, next, &opts).await?;
        match v.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {}
            Some(crate::protocol::tasks_ext::RESULT_TYPE_TASK) if method == "tools/call" => {
                let id = v.get("taskId").and_then(Value::as_str).unwrap_or_default().to_owned();
                return follow_task(client, ctx, &id, Some(&v), None).await;
            }
            _ => return Ok(v),
        }
        let irr: InputRequiredResult = serde_json::from_value(v)
            .map_err(|e| Error::protocol(format!("{method}: malformed input_required result: {e}")))?;
        let requests = irr.input_requests.unwrap_or_default();
        next = params.clone();
        if requests.is_empty() {
            // A state-only result (e.g. load shedding): retry at once.
            let Some(s) = irr.request_state else {
                return Err(Error::protocol(format!(
                    "{method}: the remote answered input_required with neither inputRequests nor requestState"
                )));
            };
            next.insert("requestState".into(), Value::String(s));
            continue;
        }
        if ctx.input_answers().is_some() {
            // A 2026-07-28 caller: its round ends with the remote's requests, as they are.
            let state = BridgeState { upstream: irr.request_state, ..BridgeState::default() };
            ctx.set_request_state(serde_json::to_value(state).expect("serializable"));
            return Err(ctx.require_input(requests));
        }
        // A legacy caller (or a task): asked now, with real requests; then the remote again.
        let answers = ctx.input(requests).await?;
        next.insert("inputResponses".into(), serde_json::to_value(answers).expect("serializable"));
        if let Some(s) = irr.request_state {
            next.insert("requestState".into(), Value::String(s));
        }
    }
    Err(Error::protocol(format!("{method}: the remote still asked for input after {MAX_ROUNDS} rounds")))
}

/// Follows the remote task `id` (`task.rs`); a 2026-07-28 caller whose call is no task gets
/// the task's input requests as its own round, the task id kept in the sealed state.
async fn follow_task(
    client: &Client,
    ctx: &RequestContext,
    id: &str,
    created: Option<&Value>,
    answers: Option<Map<String, Value>>,
) -> Result<Value> {
    match task::follow(client, ctx, id, created, answers, task::extensions(ctx)).await? {
        Followed::Done(v) => Ok(v),
        Followed::Input(requests) => {
            let state = BridgeState { task: Some(id.to_owned()), ..BridgeState::default() };
            ctx.set_request_state(serde_json::to_value(state).expect("serializable"));
            Err(ctx.require_input(requests))
        }
    }
}

/// A legacy remote: its requests asked of the caller; parked between a 2026-07-28 caller's
/// rounds (see the module docs).
async fn legacy(
    remote: &Remote,
    client: &Client,
    dispatch: &Arc<Dispatch>,
    ctx: &RequestContext,
    method: &'static str,
    params: Map<String, Value>,
    state: BridgeState,
) -> Result<Value> {
    let resumed = state.parked.and_then(|t| remote.parked.take(&t));
    let mut call = match resumed {
        Some(call) => call,
        None => LegacyCall::start(remote, dispatch, client, ctx, method, params),
    };
    match call.drive(ctx).await {
        Err(e) if e.kind() == ErrorKind::InputRequired && ctx.input_answers().is_some() => {
            let ticket = Parked::park(&remote.parked, call);
            let state = BridgeState { parked: Some(ticket), ..BridgeState::default() };
            ctx.set_request_state(serde_json::to_value(state).expect("serializable"));
            Err(e)
        }
        other => other,
    }
}

/// Aborts the task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<Result<Value>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One forwarded call on a legacy remote; it may outlive the caller's round (parked). Dropping
/// it cancels the remote's request.
pub(crate) struct LegacyCall {
    /// The remote request, running on its own.
    task: AbortOnDrop,
    /// The remote's requests for input routed to this call.
    asks: mpsc::UnboundedReceiver<Ask>,
    /// Asks whose answers the caller has not given yet, with their keys.
    waiting: Vec<(String, Ask)>,
    /// The number of the next ask (its key is `remote.<server>.<n>`).
    next_key: u64,
    server: String,
    /// The caller of the current round (progress goes there); `None` while parked.
    current: Arc<Mutex<Option<RequestContext>>>,
    /// How long the remote may still take, not counting time spent waiting on the caller.
    budget: Duration,
    _entry: Entry,
}

impl LegacyCall {
    /// Starts the call on `client`, whose requests to its client `dispatch` routes (the
    /// remote's, or the caller's own connection's when it is called on behalf of callers).
    fn start(
        remote: &Remote,
        dispatch: &Arc<Dispatch>,
        client: &Client,
        ctx: &RequestContext,
        method: &'static str,
        params: Map<String, Value>,
    ) -> Self {
        let (entry, asks) = dispatch.enter();
        let current = Arc::new(Mutex::new(Some(ctx.clone())));
        let dispatch: Arc<Dispatch> = dispatch.clone();
        let budget = client.options().request_timeout;
        // The remote's time is bounded here (`budget`), so its waits on the caller do not count.
        let mut opts = CallOptions {
            input: Some(dispatch),
            timeout: Some(budget + super::parked::PARK_TTL),
            ..CallOptions::default()
        };
        if ctx.wants_progress() {
            let current = current.clone();
            opts.on_progress = Some(std::sync::Arc::new(move |p| {
                if let Some(c) = current.lock().expect("lock").as_ref() {
                    c.progress(p.progress, p.total, p.message.as_deref());
                }
            }));
        }
        let client = client.clone();
        let task = tokio::spawn(async move { client.request_once(method, params, &opts).await });
        LegacyCall {
            task: AbortOnDrop(task),
            asks,
            waiting: Vec::new(),
            next_key: 1,
            server: remote.server.clone(),
            current,
            budget,
            _entry: entry,
        }
    }

    fn key(&mut self) -> String {
        let key = format!("remote.{}.{}", self.server, self.next_key);
        self.next_key += 1;
        key
    }

    /// Runs the call for the round of `ctx`: until the remote answers, or (2026-07-28 caller)
    /// until an answer the caller has not given is needed.
    async fn drive(&mut self, ctx: &RequestContext) -> Result<Value> {
        *self.current.lock().expect("lock") = Some(ctx.clone());
        let outcome = self.rounds(ctx).await;
        *self.current.lock().expect("lock") = None;
        outcome
    }

    async fn rounds(&mut self, ctx: &RequestContext) -> Result<Value> {
        let mut missing = false;
        for (key, ask) in std::mem::take(&mut self.waiting) {
            missing |= self.offer(ctx, key, ask).await;
        }
        loop {
            if missing {
                // What the remote asked meanwhile goes into the same round.
                while let Ok(ask) = self.asks.try_recv() {
                    let key = self.key();
                    self.offer(ctx, key, ask).await;
                }
                let keys: Vec<&str> = self.waiting.iter().map(|(k, _)| k.as_str()).collect();
                return Err(Error::new(ErrorKind::InputRequired, format!("client input required: {keys:?}")));
            }
            let started = tokio::time::Instant::now();
            tokio::select! {
                joined = &mut self.task.0 => {
                    return joined.unwrap_or_else(|e| Err(Error::protocol(format!("the forwarded call failed: {e}"))));
                }
                Some(ask) = self.asks.recv() => {
                    self.budget = self.budget.saturating_sub(started.elapsed());
                    let key = self.key();
                    missing = self.offer(ctx, key, ask).await;
                }
                _ = tokio::time::sleep(self.budget) => {
                    return Err(Error::timeout(format!(
                        "remote server {:?} did not answer within {:?}",
                        self.server,
                        self.budget
                    )));
                }
            }
        }
    }

    /// Asks the caller for `ask`; answers the remote, or keeps it waiting (returns `true`)
    /// when a 2026-07-28 caller has not given the answer yet.
    async fn offer(&mut self, ctx: &RequestContext, key: String, ask: Ask) -> bool {
        match answer(ctx, &key, &ask.request).await {
            Some(r) => {
                let _ = ask.reply.send(r);
                false
            }
            None => {
                self.waiting.push((key, ask));
                true
            }
        }
    }
}

/// The caller's answer to `request` under `key`; `None` when a 2026-07-28 caller still has to
/// give it. What the caller did not declare is refused (`-32601`, as a client without that
/// capability answers), not invented.
async fn answer(ctx: &RequestContext, key: &str, request: &InputRequest) -> Option<Result<InputResponse>> {
    let kinds = ctx.client_capabilities().map(kinds_of).unwrap_or_default();
    let declared = match request {
        InputRequest::Elicit(ElicitRequest { params: ElicitRequestParams::Url(_), .. }) => {
            kinds.elicitation && kinds.elicitation_url
        }
        InputRequest::Elicit(_) => kinds.elicitation,
        InputRequest::CreateMessage(_) => kinds.sampling,
        InputRequest::ListRoots(_) => kinds.roots,
    };
    if !declared {
        let message =
            format!("the gateway's caller did not declare the capability {} needs", request.method());
        return Some(Err(Error::rpc(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message))));
    }
    match ctx.input(BTreeMap::from([(key.to_owned(), request.clone())])).await {
        Ok(mut answers) => {
            Some(answers.remove(key).ok_or_else(|| Error::protocol("the caller gave no answer")))
        }
        Err(e) if e.kind() == ErrorKind::InputRequired => None,
        Err(e) => Some(Err(e)),
    }
}
