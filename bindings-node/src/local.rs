//! Futures polled on the JS thread: the engine's calls that wait, for a stdio connection the JS
//! thread feeds (`src/stdio.rs`). A handler's Promise settles on the JS thread; with this, the
//! call it belongs to is finished there too, and its answer written from there, instead of a
//! tokio worker being woken for it (one thread hand-off a call, bench/NOTES.md issue 47).
//!
//! A task woken on the JS thread (its handler's Promise settling, in a microtask) is polled at
//! once; one woken elsewhere (a client's answer, a timer) is queued and the JS thread asked to
//! run the queue through a weak thread-safe function (`StdioConnection.runReady`). A task
//! started by `feed` is polled when that `feed` is done (outside the driver's lock).

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
    /// The JS thread and its environment, known from the first `feed` (`JsThread::serving`).
    js: std::sync::OnceLock<(std::thread::ThreadId, SendEnv)>,
    /// The JS thread is polling this connection's tasks or serving its frames now: a task woken
    /// meanwhile waits for the run that follows.
    polling: AtomicBool,
}

/// The JS thread's `napi_env`, only ever used on that thread.
#[derive(Clone, Copy)]
struct SendEnv(napi::sys::napi_env);
// SAFETY: the pointer is only dereferenced (by napi) on the thread it came from, checked by
// comparing thread ids before each use.
unsafe impl Send for SendEnv {}
unsafe impl Sync for SendEnv {}

/// Clears a connection's `polling` flag when dropped (also when a panic unwinds).
struct Polling<'a>(&'a AtomicBool, bool);

impl Drop for Polling<'_> {
    fn drop(&mut self) {
        self.0.store(self.1, Ordering::SeqCst);
    }
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
        // On the JS thread (a handler's Promise settling in a microtask), outside a poll: run it
        // now, with no turn of the event loop. Elsewhere: ask the JS thread.
        match owner.js.get() {
            // Polling or serving on the JS thread: the run that follows takes it.
            Some((thread, _))
                if *thread == std::thread::current().id() && owner.polling.load(Ordering::SeqCst) => {}
            Some((thread, env)) if *thread == std::thread::current().id() => owner.run(env.0),
            _ => {
                owner.wake.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
        }
    }
}

/// Stops a task.
struct Abort(Arc<Task>);

impl JobAbort for Abort {
    fn abort(&self) {
        self.0.aborted.store(true, Ordering::SeqCst);
        // Dropped now unless the JS thread is polling it (it drops it after that poll).
        if let Ok(mut future) = self.0.future.try_lock() {
            future.take();
        }
    }
}

impl JsThread {
    /// An executor whose wake-ups call `wake` (which must call [`JsThread::run_ready`]).
    pub(crate) fn new(wake: WakeJs) -> JsThread {
        let inner = Inner {
            ready: Mutex::new(VecDeque::new()),
            wake,
            js: std::sync::OnceLock::new(),
            polling: AtomicBool::new(false),
        };
        JsThread { inner: Arc::new(inner) }
    }

    /// Polls every task woken so far, on the JS thread (`env`).
    pub(crate) fn run_ready(&self, env: &Env) {
        self.inner.run(env.raw());
    }

    /// Runs `f` on the JS thread (`env`; it serves frames, holding the driver's lock), then
    /// polls what it started or woke: a task woken inside `f` waits for that, so it never runs
    /// under the lock.
    pub(crate) fn serving<R>(&self, env: &Env, f: impl FnOnce() -> R) -> R {
        let _ = self.inner.js.set((std::thread::current().id(), SendEnv(env.raw())));
        let outer = self.inner.polling.swap(true, Ordering::SeqCst);
        let out = {
            let _restore = Polling(&self.inner.polling, outer);
            f()
        };
        if !outer {
            self.inner.run(env.raw());
        }
        out
    }
}

impl Inner {
    /// Polls the tasks queued now, on the JS thread (`env`). Bounded: tasks woken while it runs
    /// are queued for the next run, which their wake-up asked for.
    fn run(&self, env: napi::sys::napi_env) {
        if self.polling.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            // Woken while polling: queued for the next run, asked for below.
            let _restore = Polling(&self.polling, false);
            let n = self.ready.lock().unwrap_or_else(|p| p.into_inner()).len();
            on_js_thread(&Env::from_raw(env), || {
                for _ in 0..n {
                    let next = self.ready.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                    let Some(task) = next else { break };
                    poll(&task);
                }
            });
        }
        // Tasks woken while polling: another run, rather than loop here.
        if !self.ready.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
            self.wake.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// Polls `task` once (its own waker); drops its future once it ended or was stopped.
fn poll(task: &Arc<Task>) {
    task.queued.store(false, Ordering::Release);
    let waker = Waker::from(task.clone());
    let mut cx = Context::from_waker(&waker);
    let mut slot = task.future.lock().unwrap_or_else(|p| p.into_inner());
    if !task.aborted.load(Ordering::SeqCst) {
        if let Some(future) = slot.as_mut() {
            // A panic in host code is caught before; this keeps the JS thread alive regardless.
            let polled = std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
            if matches!(polled, Ok(Poll::Pending)) {
                drop(slot);
                // Stopped while this poll held the future (its `abort` could not take it).
                if task.aborted.load(Ordering::SeqCst) {
                    if let Ok(mut slot) = task.future.try_lock() {
                        slot.take();
                    }
                }
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
        // Polled again with its own waker (the first poll's was a no-op): by the run that ends
        // the `feed` that started it on the JS thread, else through a wake-up.
        task.wake_by_ref();
        Box::new(Abort(task))
    }
}
