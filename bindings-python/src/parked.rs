//! A call's future after its first poll on the asyncio thread: parked, not spawned, until
//! something wakes it (issue 47 step 2). A wake-up on another thread (a runtime worker that read
//! the answer, a timer) spawns it there, from where it runs to its end. A wake-up on the asyncio
//! thread while it feeds a child's stdout to the client ([`feeding`], `stdout_feed.rs`) polls it
//! right there once the chunk is dispatched: the answer read on the loop's thread completes the
//! call on it, with no runtime thread woken and no hand-off back (bench/NOTES.md "A client reads
//! its child's stdout on the JS thread", which Python's loop does the same way).

use std::cell::{Cell, RefCell};
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
    /// Done, cancelled, or queued to be polled on this thread.
    Gone,
}

thread_local! {
    /// This thread is feeding a child's stdout ([`feeding`]).
    static FEEDING: Cell<bool> = const { Cell::new(false) };
    /// The parked calls woken while feeding, to poll here.
    static WOKEN: RefCell<Vec<(Arc<Parked>, Job)>> = const { RefCell::new(Vec::new()) };
}

impl Wake for Parked {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match std::mem::replace(&mut *st, State::Gone) {
            State::Polling { .. } => *st = State::Polling { woken: true },
            State::Waiting(job) if FEEDING.with(Cell::get) => {
                drop(st);
                WOKEN.with(|w| w.borrow_mut().push((self.clone(), job)));
            }
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

/// Runs `dispatch` (a chunk of a child's stdout handed to the client, on the loop's thread,
/// inside the runtime's context), then polls here the calls it woke. A call that keeps waking
/// itself past 64 rounds goes to the runtime.
pub(crate) fn feeding(runtime: &tokio::runtime::Handle, dispatch: impl FnOnce()) {
    /// Clears the flag when dropped (also when a panic unwinds).
    struct Feeding;
    impl Drop for Feeding {
        fn drop(&mut self) {
            FEEDING.with(|f| f.set(false));
        }
    }
    let feeding = Feeding;
    FEEDING.with(|f| f.set(true));
    {
        let _context = runtime.enter();
        dispatch();
    }
    for _ in 0..64 {
        let woken = WOKEN.with(|w| std::mem::take(&mut *w.borrow_mut()));
        if woken.is_empty() {
            break;
        }
        for (parked, job) in woken {
            parked.poll_here(job);
        }
    }
    drop(feeding);
    for (parked, job) in WOKEN.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        *parked.state.lock().unwrap_or_else(|p| p.into_inner()) =
            State::Spawned(parked.runtime.spawn(job).abort_handle());
    }
}
