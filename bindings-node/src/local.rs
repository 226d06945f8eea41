//! Futures polled on the JS thread: the engine's calls that wait, for a stdio connection the JS
//! thread feeds (`src/stdio.rs`). A handler's Promise settles on the JS thread; with this, the
//! call it belongs to is finished there too, and its answer written from there, instead of a
//! tokio worker being woken for it (one thread hand-off a call, bench/NOTES.md issue 47).
//!
//! A woken task is queued and the JS thread is asked to run the queue through a weak
//! thread-safe function (from the JS thread itself that is a turn of its event loop, not a
//! hand-off); `StdioConnection.runReady` polls what is queued.

use crate::handler::on_js_thread;
use mcpcore::registry::BoxFuture;
use mcpcore::runtime::{JobAbort, JobSpawner};
use napi::bindgen_prelude::Unknown;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

/// The JS function that asks the JS thread to run what is ready (it calls `runReady`).
pub(crate) type WakeJs = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;

/// The futures of one connection polled on the JS thread.
pub(crate) struct JsThread {
    inner: Arc<Inner>,
}

struct Inner {
    ready: Mutex<VecDeque<Arc<Task>>>,
    wake: WakeJs,
}

/// One future and its state.
struct Task {
    future: Mutex<Option<BoxFuture<'static, ()>>>,
    /// In the ready queue (a task is queued once however often it is woken).
    queued: AtomicBool,
    /// Stopped: never polled again, dropped by whoever holds it next.
    aborted: AtomicBool,
    owner: Weak<Inner>,
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.aborted.load(Ordering::Acquire) || self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(owner) = self.owner.upgrade() else { return };
        owner.ready.lock().unwrap_or_else(|p| p.into_inner()).push_back(self.clone());
        owner.wake.call((), ThreadsafeFunctionCallMode::NonBlocking);
    }
}

/// Stops a task.
struct Abort(Arc<Task>);

impl JobAbort for Abort {
    fn abort(&self) {
        self.0.aborted.store(true, Ordering::Release);
        // Dropped now unless the JS thread is polling it (it drops it after that poll).
        if let Ok(mut future) = self.0.future.try_lock() {
            future.take();
        }
    }
}

impl JsThread {
    /// An executor whose wake-ups call `wake` (which must call [`JsThread::run_ready`]).
    pub(crate) fn new(wake: WakeJs) -> JsThread {
        JsThread { inner: Arc::new(Inner { ready: Mutex::new(VecDeque::new()), wake }) }
    }

    /// Polls every task woken so far, on the JS thread (`env`). Bounded: tasks woken while it
    /// runs are left to the next call, which their wake-up asked for.
    pub(crate) fn run_ready(&self, env: &Env) {
        let n = self.inner.ready.lock().unwrap_or_else(|p| p.into_inner()).len();
        on_js_thread(env, || {
            napi::bindgen_prelude::within_runtime_if_available(|| {
                for _ in 0..n {
                    let next = self.inner.ready.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                    let Some(task) = next else { break };
                    poll(&task);
                }
            })
        });
    }
}

/// Polls `task` once (its own waker); drops its future once it ended or was stopped.
fn poll(task: &Arc<Task>) {
    task.queued.store(false, Ordering::Release);
    let waker = Waker::from(task.clone());
    let mut cx = Context::from_waker(&waker);
    let mut slot = task.future.lock().unwrap_or_else(|p| p.into_inner());
    if !task.aborted.load(Ordering::Acquire) {
        if let Some(future) = slot.as_mut() {
            // A panic in host code is caught before; this keeps the JS thread alive regardless.
            let polled = std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
            if matches!(polled, Ok(Poll::Pending)) && !task.aborted.load(Ordering::Acquire) {
                return;
            }
        }
    }
    slot.take();
}

impl JobSpawner for JsThread {
    fn spawn(&self, job: BoxFuture<'static, ()>) -> Box<dyn JobAbort> {
        let task = Arc::new(Task {
            future: Mutex::new(Some(job)),
            queued: AtomicBool::new(false),
            aborted: AtomicBool::new(false),
            owner: Arc::downgrade(&self.inner),
        });
        // Polled again soon with its own waker (the first poll's waker was a no-op).
        task.wake_by_ref();
        Box::new(Abort(task))
    }
}
