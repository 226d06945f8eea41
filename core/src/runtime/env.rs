//! What the jobs of a server share ([`Env`]), and the two steps every job takes, whichever runs
//! it (a request's job, a task's runner): the handler's [`RequestContext`] and the response its
//! outcome settles into.

use super::changes::ChangeListener;
use super::clock::Clock;
use super::tasks::Tasks;
use super::unwind::CatchUnwind;
use crate::context::{BoxFuture, InputLedger, NotificationSink, Origin, PeerLink, RequestContext};
use crate::engine::{Outcome, PendingCall, ServerEngine};
use crate::jsonrpc::Response;
use crate::state::{MemoryStateLedger, StateLedger};
use std::sync::Arc;
use std::time::SystemTime;

/// What the jobs of a server share: the engine, the tasks, the clock and the single-use
/// ledger of `requestState`s.
#[derive(Debug)]
pub struct Env {
    /// The protocol engine.
    pub engine: Arc<ServerEngine>,
    /// The tasks (Tasks extension).
    pub tasks: Arc<Tasks>,
    /// Where time comes from.
    pub clock: Arc<dyn Clock>,
    /// Which `requestState`s were accepted (when the engine's `state_single_use` is on).
    pub states: Arc<dyn StateLedger>,
    /// The changes shared with other instances (a change bus), if any.
    pub fanout: Option<Arc<super::fanout::Fanout>>,
}

impl Env {
    /// The environment of a server (with an in-memory state ledger).
    pub fn new(engine: Arc<ServerEngine>, tasks: Arc<Tasks>, clock: Arc<dyn Clock>) -> Arc<Env> {
        Arc::new(Env { engine, tasks, clock, states: Arc::new(MemoryStateLedger::default()), fanout: None })
    }

    /// The time now.
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    /// A listener on every change feed of the server: its catalogs and its tasks, and what
    /// other instances announced (a change bus).
    pub fn change_listener(&self) -> ChangeListener {
        let mut feeds = self.engine.feeds();
        feeds.push(self.tasks.changes());
        feeds.push(self.tasks.remote_changes());
        if let Some(f) = &self.fanout {
            feeds.push(f.heard());
        }
        ChangeListener::new(feeds)
    }

    /// Starts sharing changes with the other instances (once; a no-op without a change bus).
    /// Needs a tokio runtime.
    pub fn start_fanout(&self) {
        if let Some(f) = &self.fanout {
            f.start(&self.engine, &self.tasks);
        }
    }
}

/// The context of `call`'s handler: caller and origin, progress and logs to `sink`, client
/// input through the returned ledger (legacy requests through `peer`).
pub(crate) fn context(
    call: &PendingCall,
    origin: Arc<Origin>,
    sink: NotificationSink,
    peer: Option<Arc<dyn PeerLink>>,
) -> (RequestContext, Option<Arc<InputLedger>>) {
    let ledger = call.input.clone().map(|seed| InputLedger::new(seed, peer));
    let mut ctx =
        RequestContext::for_request(call.id.clone(), call.version, call.progress_token.clone(), sink.clone())
            .with_caller(call.caller.clone())
            .with_origin(origin)
            .with_log_level(call.log_level, sink);
    if let Some(l) = &ledger {
        ctx = ctx.with_input(l.clone());
    }
    (ctx, ledger)
}

/// Runs host code to its response: a panicking tool becomes an `isError` result, another
/// panicking handler `-32603`.
pub(crate) async fn settle(
    env: &Env,
    call: &PendingCall,
    run: BoxFuture<'static, crate::Result<Outcome>>,
    ledger: Option<&InputLedger>,
) -> Response {
    match (CatchUnwind { inner: run }).await {
        Ok(outcome) => env.engine.finish_call(call, outcome, ledger, env.now()),
        Err(why) => env.engine.crashed_call(call, &why),
    }
}
