//! A call's future after its first poll on the asyncio thread: parked, not spawned, until
//! something wakes it (issue 47 step 2). The wake-up (a runtime worker that read the answer, a
//! timer) spawns it on the thread that woke it, from where it runs to its end: no runtime worker
//! is woken only to poll it a second time (as the Node binding's `settle.rs` does).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use tokio::task::AbortHandle;

/// A call's whole job: the call, then its outcome queued for the loop.
pub(crate) type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// One parked call.
pub(crate) struct Parked {
    state: Mutex<State>,
    runtime: tokio::runtime::Handle,
}

enum State {
    /// Being polled on the asyncio thread; `woken` if a wake-up came meanwhile.
    Polling { woken: bool },
    /// Waiting for its next wake-up.
    Waiting(Job),
    /// Spawned on the runtime: later wake-ups are the runtime's; cancelling aborts it.
    Spawned(AbortHandle),
    /// Done or cancelled.
    Gone,
}

impl Wake for Parked {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match std::mem::replace(&mut *st, State::Gone) {
            State::Polling { .. } => *st = State::Polling { woken: true },
            State::Waiting(job) => *st = State::Spawned(self.runtime.spawn(job).abort_handle()),
            other => *st = other,
        }
    }
}

impl Parked {
    /// Makes the first poll of `job` here (inside the runtime's context), then parks it.
    pub(crate) fn start(runtime: tokio::runtime::Handle, job: Job) -> Arc<Parked> {
        let parked = Arc::new(Parked { state: Mutex::new(State::Gone), runtime });
        parked.poll_here(job);
        parked
    }

    /// Polls `job` on this thread; parks it again if it still waits (spawns it if it was woken
    /// meanwhile).
    fn poll_here(self: &Arc<Self>, mut job: Job) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = State::Polling { woken: false };
        let waker = Waker::from(self.clone());
        let polled = {
            let _context = self.runtime.enter();
            std::panic::catch_unwind(AssertUnwindSafe(|| job.as_mut().poll(&mut Context::from_waker(&waker))))
        };
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match (polled, std::mem::replace(&mut *st, State::Gone)) {
            // Done (its outcome is queued), or it panicked outside the caught call: not expected.
            (Ok(Poll::Ready(())) | Err(_), _) => {}
            (Ok(Poll::Pending), State::Polling { woken: true }) => {
                *st = State::Spawned(self.runtime.spawn(job).abort_handle());
            }
            (Ok(Poll::Pending), State::Polling { woken: false }) => *st = State::Waiting(job),
            // Cancelled while it was polled: dropped (below, outside the lock).
            (Ok(Poll::Pending), _) => {
                drop(st);
                let _context = self.runtime.enter();
                drop(job);
            }
        }
    }

    /// The awaiting asyncio future was cancelled: the call is dropped (a pending tool call
    /// sends its cancellation to the server) or its task aborted.
    pub(crate) fn cancel(&self) {
        let old = std::mem::replace(&mut *self.state.lock().unwrap_or_else(|p| p.into_inner()), State::Gone);
        match old {
            State::Waiting(job) => {
                let _context = self.runtime.enter();
                drop(job);
            }
            State::Spawned(task) => task.abort(),
            State::Polling { .. } | State::Gone => {}
        }
    }
}
