//! Host code for one request: its [`RequestContext`], running it with panics caught, and
//! turning what it produced into the response; `subscriptions/listen` streams; task methods.

use super::env::{context, settle, Env};
use super::unwind::CatchUnwind;
use crate::changes::Change;
use crate::context::{BoxFuture, NotificationSink, Origin, PeerLink, RequestContext};
use crate::engine::{Action, EventStream, Listen, PendingCall, TaskOp, WebhookOp, Work};
use crate::error::ErrorData;
use crate::jsonrpc::Response;
use crate::middleware::Endpoint;
use std::sync::Arc;
use tokio::sync::watch;

/// Runs `call` to its response. `peer` carries legacy server→client requests.
pub(crate) async fn run_call(
    env: Arc<Env>,
    mut call: Box<PendingCall>,
    origin: Arc<Origin>,
    sink: NotificationSink,
    peer: Option<Arc<dyn PeerLink>>,
) -> Response {
    if let Work::Chain(_) = &call.work {
        return run_chain(env, call, origin, sink, peer).await;
    }
    if let Work::Task(op) = &call.work {
        // Another identity's task is answered exactly as an unknown one.
        let outcome = match env.tasks.get_owned(op.task_id(), origin.owner().as_deref()).await {
            Ok(Some(record)) => match op {
                TaskOp::Get(_) => Ok(Some(record)),
                TaskOp::Update { id, responses } => env.tasks.record_responses(id, responses.clone()).await,
                TaskOp::Cancel(id) => env.tasks.cancel(id).await,
            },
            other => other,
        };
        return env.engine.task_reply(&call, outcome);
    }
    if let Work::Webhook(op) = &call.work {
        let hub = env.engine.events().and_then(|e| e.webhooks());
        let outcome = match (hub, op.clone()) {
            (None, _) => None,
            (Some(hub), WebhookOp::Subscribe(s)) => Some(hub.subscribe(s).await.map(Some)),
            (Some(hub), WebhookOp::Unsubscribe(k)) => Some(hub.unsubscribe(k).await.map(|()| None)),
        };
        return env.engine.webhook_reply(&call, outcome);
    }
    if let Some(claim) = call.binding.as_ref().and_then(|b| b.claim.as_ref()) {
        if env.engine.config().state_single_use {
            match env.states.claim(claim, env.now()).await {
                Ok(true) => {}
                Ok(false) => return Response::error(Some(call.id.clone()), crate::state::replayed()),
                Err(e) => return Response::error(Some(call.id.clone()), e),
            }
        }
    }
    if let Some(start) = call.task {
        return super::tasks::run::run(env, call, origin, sink, start).await;
    }
    let (ctx, ledger) = context(&call, origin, sink, peer);
    let run = call.run(ctx);
    settle(&env, &call, run, ledger.as_deref()).await
}

/// Runs a chained request through the server's middleware ([`crate::middleware`]); the
/// chain's end is the engine's own answer ([`ServerEngine::dispatch`]), host code run as
/// [`run_call`] runs it. A panicking middleware is `-32603`.
fn run_chain(
    env: Arc<Env>,
    call: Box<PendingCall>,
    origin: Arc<Origin>,
    sink: NotificationSink,
    peer: Option<Arc<dyn PeerLink>>,
) -> BoxFuture<'static, Response> {
    let mut call = call;
    let Work::Chain(chained) = &mut call.work else { unreachable!("checked by run_call") };
    // Taken, not cloned: the chain owns the request; the call keeps who sent it.
    let request = std::mem::replace(
        &mut chained.request,
        crate::jsonrpc::Request { id: call.id.clone(), method: String::new(), params: None },
    );
    let ctx =
        RequestContext::for_request(call.id.clone(), call.version, call.progress_token.clone(), sink.clone())
            .with_caller(call.caller.clone())
            .with_origin(origin.clone())
            .with_log_level(call.log_level, sink.clone());
    let (id, version) = (call.id.clone(), call.version);
    let chain = env.engine.config().middleware.clone();
    let engine_env = env.clone();
    let call: Arc<PendingCall> = Arc::from(call);
    let endpoint: Endpoint = Arc::new(move |req| {
        let (env, call, origin, sink, peer) =
            (engine_env.clone(), call.clone(), origin.clone(), sink.clone(), peer.clone());
        Box::pin(async move {
            match env.engine.dispatch(&call, req, env.now(), &origin) {
                Action::Reply(r) => r.outcome,
                Action::CallTool(inner) => run_call(env, inner, origin, sink, peer).await.outcome,
                _ => Err(ErrorData::internal("Internal error: a middleware passed on a request it cannot")),
            }
        })
    });
    // Built inside the caught future: a middleware that panics in `handle` itself (before its
    // future) is a -32603 too, on every path (the stateless HTTP one polls without a guard).
    let run: BoxFuture<'static, crate::middleware::Reply> =
        Box::pin(async move { chain.run(request, ctx, endpoint).await });
    Box::pin(async move {
        match (CatchUnwind { inner: run }).await {
            Ok(Ok(result)) => Response::result(id, env.engine.chain_result(version, result)),
            Ok(Err(e)) => Response::error(Some(id), e),
            Err(why) => Response::error(
                Some(id),
                ErrorData::internal(format!("Internal error: a middleware crashed: {why}")),
            ),
        }
    })
}

/// Runs a `subscriptions/listen` stream: the acknowledgement (with the known task ids of
/// those asked for, known meaning the listener's own or anyone's), the current state of those tasks, then matching changes, until the
/// stream is dropped (cancelled) or `closing` turns true (the connection or server ends),
/// which ends it gracefully with its result.
pub(crate) async fn run_listen(
    env: Arc<Env>,
    mut listen: Listen,
    sink: NotificationSink,
    mut closing: watch::Receiver<bool>,
) -> Response {
    let mut changes = env.change_listener();
    if let Some(ids) = listen.filter.task_ids.take() {
        let mut known = Vec::new();
        for id in ids {
            if let Ok(Some(_)) = env.tasks.get_owned(&id, listen.owner.as_deref()).await {
                known.push(id);
            }
        }
        listen.filter.task_ids = (!known.is_empty()).then_some(known);
    }
    sink(env.engine.listen_ack(&listen));
    for id in listen.filter.task_ids.clone().into_iter().flatten() {
        task_note(&env, &listen, &id, &sink).await;
    }
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Some(Change::Task(id)) => {
                    if env.engine.listen_wants_task(&listen, &id) {
                        task_note(&env, &listen, &id, &sink).await;
                    }
                }
                Some(c) => {
                    if let Some(note) = env.engine.listen_notification(&listen, &c) {
                        sink(note);
                    }
                }
                None => break,
            },
            _ = async { let _ = closing.wait_for(|c| *c).await; } => break,
        }
    }
    env.engine.listen_end(&listen)
}

async fn task_note(env: &Env, listen: &Listen, id: &str, sink: &NotificationSink) {
    if let Ok(Some(record)) = env.tasks.get(id).await {
        if let Some(note) = env.engine.task_notification(listen, &record) {
            sink(note);
        }
    }
}

/// Runs an `events/stream` request (SEP-3415 §Push): `notifications/events/active` at its
/// position, the occurrences it missed since its cursor (replay), then each new one as it is
/// emitted, a heartbeat every [`crate::events::EventRegistry::heartbeat`] with the position
/// checked up to, and `active` with `truncated: true` again when it fell so far behind that
/// occurrences were dropped. Ends when the stream is dropped (cancelled) or `closing` turns
/// true, gracefully with `StreamEventsResult`.
pub(crate) async fn run_events(
    env: Arc<Env>,
    stream: EventStream,
    sink: NotificationSink,
    mut closing: watch::Receiver<bool>,
) -> Response {
    let Some(events) = env.engine.events().cloned() else { return env.engine.events_end(&stream) };
    // Listening before the first read: an emit in between is read, not missed.
    let mut wake = super::changes::ChangeListener::new([events.changes()]);
    let read = |after| events.read(&stream.name, after, 256, stream.not_before_ms);
    let mut first = read(stream.after);
    sink(env.engine.events_active(&stream, first.start(), first.truncated));
    let every = events.heartbeat();
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut position;
    loop {
        let declared = events.get(&stream.name);
        for (seq, occurrence) in std::mem::take(&mut first.events) {
            // What the stream's arguments filter out is passed over (its cursor moves on).
            let delivered = match &declared {
                Some(t) => t.deliver(occurrence, &stream.arguments),
                None => Some(occurrence),
            };
            if let Some(occurrence) = delivered {
                sink(env.engine.events_occurrence(&stream, seq, occurrence));
            }
        }
        position = first.position;
        if first.has_more {
            first = read(Some(position));
            continue;
        }
        let woke = tokio::select! {
            change = wake.recv() => match change {
                Some(crate::changes::Change::Event(name)) => name == stream.name,
                Some(_) => false,
                None => break,
            },
            _ = beat.tick() => {
                sink(env.engine.events_heartbeat(&stream, position));
                false
            }
            _ = async { let _ = closing.wait_for(|c| *c).await; } => break,
        };
        if woke && events.get(&stream.name).is_none() {
            // The type was removed: the subscription ends (SEP-3415 §Event type removal).
            sink(env.engine.events_removed(&stream));
            break;
        }
        if woke {
            first = read(Some(position));
            if first.truncated {
                sink(env.engine.events_active(&stream, first.start(), true));
            }
        }
    }
    env.engine.events_end(&stream)
}
