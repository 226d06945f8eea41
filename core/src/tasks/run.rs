//! Running a call that may become a task. The handler runs in its own spawned future; the
//! request waits for whichever comes first: the handler's answer (a synchronous result, an MRTR
//! `InputRequiredResult`, an error) or the start of a task, answered with `CreateTaskResult`
//! while the handler runs on and settles the task. Until the task starts, dropping the request
//! (cancellation, a closed stream) aborts the handler; afterwards only `tasks/cancel` does.

use super::input::TaskLink;
use super::{TaskRecord, TaskStart, Tasks};
use crate::engine::{PendingCall, ServerEngine};
use crate::error::ErrorData;
use crate::input::InputLedger;
use crate::jsonrpc::{Message, RequestId, Response};
use crate::registry::{NotificationSink, ToolContext};
use crate::server::CatchUnwind;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

/// What the waiting request learns first.
enum First {
    Task(TaskRecord),
    Done(Response),
}

/// The link between a handler that may start a task and the request waiting for it.
pub(crate) struct TaskSlot {
    tasks: Arc<Tasks>,
    ledger: Option<Arc<InputLedger>>,
    muted: Arc<AtomicBool>,
    state: Mutex<SlotState>,
}

struct SlotState {
    first: Option<oneshot::Sender<First>>,
    task: Option<String>,
    abort: Option<AbortHandle>,
}

impl std::fmt::Debug for TaskSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSlot").field("task", &self.task_id()).finish()
    }
}

impl TaskSlot {
    /// Starts the task (once): stored, input switched to `tasks/update`, notifications to the
    /// request muted (none are sent for tasks), the request answered with `CreateTaskResult`.
    pub(crate) fn start(&self) -> Result<String, ErrorData> {
        let mut st = self.state.lock().expect("lock");
        if let Some(id) = &st.task {
            return Ok(id.clone());
        }
        let record = self.tasks.create()?;
        if let Some(a) = &st.abort {
            self.tasks.attach(&record.id, a.clone());
        }
        if let Some(l) = &self.ledger {
            l.attach_task(TaskLink { tasks: self.tasks.clone(), id: record.id.clone() });
        }
        self.muted.store(true, Ordering::SeqCst);
        st.task = Some(record.id.clone());
        if let Some(tx) = st.first.take() {
            let _ = tx.send(First::Task(record.clone()));
        }
        Ok(record.id)
    }

    /// The task's id once started.
    pub(crate) fn task_id(&self) -> Option<String> {
        self.state.lock().expect("lock").task.clone()
    }

    fn done(&self, resp: Response) {
        if let Some(tx) = self.state.lock().expect("lock").first.take() {
            let _ = tx.send(First::Done(resp));
        }
    }
}

/// Aborts the handler when the request is dropped before the task started.
struct AbortOnDrop(Option<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.abort();
        }
    }
}

/// Runs a call that may become a task (see the module docs); returns the request's response.
pub(crate) async fn run(
    engine: Arc<ServerEngine>,
    call: Box<PendingCall>,
    outbound: NotificationSink,
    start: TaskStart,
) -> (RequestId, Response) {
    let id = call.id.clone();
    let muted = Arc::new(AtomicBool::new(false));
    let gated: NotificationSink = {
        let muted = muted.clone();
        Arc::new(move |m: Message| {
            if !muted.load(Ordering::SeqCst) {
                outbound(m)
            }
        })
    };
    let ledger = call.input.clone().map(|seed| InputLedger::new(seed, None));
    let (first_tx, first_rx) = oneshot::channel();
    let slot = Arc::new(TaskSlot {
        tasks: engine.tasks().clone(),
        ledger: ledger.clone(),
        muted,
        state: Mutex::new(SlotState { first: Some(first_tx), task: None, abort: None }),
    });
    let mut ctx =
        ToolContext::for_request(id.clone(), call.version, call.progress_token.clone(), gated.clone())
            .with_log_level(call.log_level, gated);
    if let Some(l) = &ledger {
        ctx = ctx.with_input(l.clone());
    }
    ctx.task = Some(slot.clone());
    let (go_tx, go_rx) = oneshot::channel::<()>();
    let background = {
        let (slot, engine) = (slot.clone(), engine.clone());
        async move {
            // Wait until the abort handle is known, so a started task can be cancelled.
            if go_rx.await.is_err() {
                return;
            }
            if start == TaskStart::Immediate {
                if let Err(e) = slot.start() {
                    return slot.done(Response::error(Some(call.id.clone()), e));
                }
            }
            let resp = match (CatchUnwind { inner: call.run(ctx) }).await {
                Ok(outcome) => engine.finish_call(&call, outcome, ledger.as_deref()),
                Err(why) => engine.crashed_call(&call, &why),
            };
            match slot.task_id() {
                Some(task) => engine.tasks().settle(&task, resp),
                None => slot.done(resp),
            }
        }
    };
    let handle = tokio::spawn(background);
    slot.state.lock().expect("lock").abort = Some(handle.abort_handle());
    let mut guard = AbortOnDrop(Some(handle.abort_handle()));
    let _ = go_tx.send(());
    let resp = match first_rx.await {
        Ok(First::Task(record)) => {
            guard.0 = None;
            Response::result(id.clone(), engine.create_task_result(&record))
        }
        Ok(First::Done(resp)) => resp,
        Err(_) => Response::error(
            Some(id.clone()),
            ErrorData::internal("Internal error: the call ended without an answer"),
        ),
    };
    (id, resp)
}
