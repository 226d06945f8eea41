//! Running a call that may become a task. The handler runs in its own spawned future; the
//! request waits for whichever comes first: the handler's answer (a synchronous result, an MRTR
//! `InputRequiredResult`, an error) or the start of a task, answered with `CreateTaskResult`
//! while the handler runs on and settles the task. Until the task starts, dropping the request
//! (cancellation, a closed stream) aborts the handler; afterwards only `tasks/cancel` does.

use super::input::TaskLink;
use super::Tasks;
use crate::context::ClientKey;
use crate::context::{BoxFuture, InputLedger, NotificationSink, Origin, TaskControl};
use crate::engine::PendingCall;
use crate::error::ErrorData;
use crate::jsonrpc::{Message, Response};
use crate::runtime::env::{self as job, Env as JobEnv};
use crate::tasks::{TaskMode, TaskRecord, TaskStart};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

/// What the waiting request learns first.
enum First {
    Task(Box<TaskRecord>),
    Done(Response),
}

/// The link between a handler that may start a task and the request waiting for it.
pub(crate) struct TaskSlot {
    tasks: Arc<Tasks>,
    /// Who asked, for the per-client task quota.
    client: Option<ClientKey>,
    /// Whose the task is ([`Origin::owner`]).
    owner: Option<String>,
    /// The tool may run synchronously when no task can be started.
    optional: bool,
    ledger: Option<Arc<InputLedger>>,
    muted: Arc<AtomicBool>,
    state: Mutex<SlotState>,
    /// Serializes starts: the store is asked once.
    starting: tokio::sync::Mutex<()>,
}

struct SlotState {
    first: Option<oneshot::Sender<First>>,
    task: Option<String>,
    abort: Option<AbortHandle>,
}

impl TaskSlot {
    /// Starts the task (once): stored, input switched to `tasks/update`, notifications to the
    /// request muted (none are sent for tasks), the request answered with `CreateTaskResult`.
    /// `None` when it could not be started and the tool may run synchronously.
    async fn start_now(&self) -> Result<Option<String>, ErrorData> {
        let _one = self.starting.lock().await;
        if let Some(id) = self.task_id() {
            return Ok(Some(id));
        }
        let record = match self.tasks.create_owned(self.client.as_ref(), self.owner.clone()).await {
            Ok(r) => r,
            // The quota or the store said no: an optional task runs on the request instead.
            Err(_) if self.optional => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut st = self.state.lock().expect("lock");
        if let Some(a) = &st.abort {
            self.tasks.attach(&record.id, a.clone());
        }
        if let Some(l) = &self.ledger {
            l.attach_task(Arc::new(TaskLink { tasks: self.tasks.clone(), id: record.id.clone() }));
        }
        self.muted.store(true, Ordering::SeqCst);
        st.task = Some(record.id.clone());
        if let Some(tx) = st.first.take() {
            let _ = tx.send(First::Task(Box::new(record.clone())));
        }
        Ok(Some(record.id))
    }

    fn done(&self, resp: Response) {
        if let Some(tx) = self.state.lock().expect("lock").first.take() {
            let _ = tx.send(First::Done(resp));
        }
    }
}

impl TaskControl for TaskSlot {
    fn start(&self) -> BoxFuture<'_, Result<Option<String>, ErrorData>> {
        Box::pin(self.start_now())
    }

    fn task_id(&self) -> Option<String> {
        self.state.lock().expect("lock").task.clone()
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
    env: Arc<JobEnv>,
    call: Box<PendingCall>,
    origin: Arc<Origin>,
    outbound: NotificationSink,
    start: TaskStart,
) -> Response {
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
    let (first_tx, first_rx) = oneshot::channel();
    let client = origin.client_key();
    let owner = origin.owner();
    let optional = call.tool().is_some_and(|t| t.task_policy().mode == TaskMode::Optional);
    let (ctx, ledger) = job::context(&call, origin, gated, None);
    let slot = Arc::new(TaskSlot {
        tasks: env.tasks.clone(),
        client,
        owner,
        optional,
        ledger: ledger.clone(),
        muted,
        state: Mutex::new(SlotState { first: Some(first_tx), task: None, abort: None }),
        starting: tokio::sync::Mutex::new(()),
    });
    let ctx = ctx.with_task(slot.clone());
    let (go_tx, go_rx) = oneshot::channel::<()>();
    let background = {
        let (slot, env) = (slot.clone(), env.clone());
        async move {
            // Wait until the abort handle is known, so a started task can be cancelled.
            if go_rx.await.is_err() {
                return;
            }
            if start == TaskStart::Immediate {
                if let Err(e) = slot.start_now().await {
                    return slot.done(Response::error(Some(call.id.clone()), e));
                }
            }
            let mut call = call;
            let run = call.run(ctx);
            let resp = job::settle(&env, &call, run, ledger.as_deref()).await;
            match slot.task_id() {
                Some(task) => env.tasks.settle(&task, resp).await,
                None => slot.done(resp),
            }
        }
    };
    let handle = tokio::spawn(background);
    slot.state.lock().expect("lock").abort = Some(handle.abort_handle());
    let mut guard = AbortOnDrop(Some(handle.abort_handle()));
    let _ = go_tx.send(());
    match first_rx.await {
        Ok(First::Task(record)) => {
            guard.0 = None;
            Response::result(id, env.engine.create_task_result(&record))
        }
        Ok(First::Done(resp)) => resp,
        Err(_) => {
            Response::error(Some(id), ErrorData::internal("Internal error: the call ended without an answer"))
        }
    }
}
