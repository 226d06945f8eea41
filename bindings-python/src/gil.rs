//! Entering Python from the runtime's threads without paying for a thread state each time.
//!
//! `Python::attach` on a thread Python did not create makes a thread state
//! (`PyGILState_Ensure`) and destroys it again on release: about 100 µs per handler call on
//! this project's machines, most of the cost of a sync Python tool. [`attach`] first gives such a
//! thread a thread state of its own that outlives the call (ensured once, then released with
//! `PyEval_SaveThread`), so every later attach only takes the GIL. The thread state is left to
//! the interpreter when the thread ends (the runtime keeps its threads; finalization frees it).
//! The runtime's threads get theirs when they start, since pyo3-async-runtimes enters Python
//! from them (with its own `Python::attach`) to complete every awaited coroutine.
//!
//! [`Busy`] counts the engine's work that is in, or on its way into, Python (every [`attach`],
//! and each handler call from when it is scheduled until it ends), so the interpreter's exit
//! waits only while there is some (`mcpcore._settle_engine_threads`): a thread that takes the GIL
//! while the interpreter finalizes is ended mid-frame (pthread_exit) and the process crashes.

use pyo3::{ffi, Python};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How much engine work is in, or on its way into, Python (see [`Busy`]).
static BUSY: AtomicUsize = AtomicUsize::new(0);

/// One piece of engine work that is in, or will enter, Python, for as long as it lives.
pub(crate) struct Busy(());

impl Busy {
    /// Counts one more piece of work until the guard is dropped.
    pub(crate) fn start() -> Busy {
        BUSY.fetch_add(1, Ordering::SeqCst);
        Busy(())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Set once an awaitable was completed the pyo3-async-runtimes way (a loop without
/// `add_reader`, e.g. Windows' proactor): those completions enter Python uncounted.
pub(crate) static FALLBACK_USED: AtomicBool = AtomicBool::new(false);

/// How much engine work is in, or on its way into, Python now (at least 1 once uncounted
/// completions may happen): the interpreter's exit waits (briefly) for none.
#[pyo3::pyfunction]
pub(crate) fn engine_work_in_python() -> usize {
    BUSY.load(Ordering::SeqCst) + usize::from(FALLBACK_USED.load(Ordering::SeqCst))
}

/// Runs `f` holding the GIL, from any thread (see the module docs).
pub(crate) fn attach<F, R>(f: F) -> R
where
    F: for<'py> FnOnce(Python<'py>) -> R,
{
    let _busy = Busy::start();
    keep_thread_state();
    Python::attach(f)
}

/// Gives this thread a Python thread state that outlives every attach (once per thread; a no-op
/// on a thread Python made). Also the runtime's `on_thread_start` hook: it may wait for the GIL.
pub(crate) fn keep_thread_state() {
    thread_local!(static KEPT: Cell<bool> = const { Cell::new(false) });
    KEPT.with(|kept| {
        if kept.replace(true) {
            return;
        }
        // SAFETY: plain C-API calls with the GIL not held by this thread: a thread with no
        // thread state holds no GIL. Ensure takes the GIL (creating the state), SaveThread gives
        // the GIL back and keeps the state current for this thread, with its counter at one.
        let _busy = Busy::start();
        unsafe {
            if ffi::Py_IsInitialized() == 0 || !ffi::PyGILState_GetThisThreadState().is_null() {
                return; // a Python thread (or a nested call): it has its state already
            }
            let _ = ffi::PyGILState_Ensure();
            ffi::PyEval_SaveThread();
        }
    });
}

thread_local! {
    /// Set while an inline tool runs on this (runtime) thread.
    static INLINE: Cell<bool> = const { Cell::new(false) };
}

/// True on a runtime thread while it runs an inline tool: the tool holds the thread, so it must
/// not start engine work and wait for it (work it starts would be queued on this very thread).
pub(crate) fn in_inline_tool() -> bool {
    INLINE.with(Cell::get)
}

/// Marks this thread as running an inline tool until dropped (also when the call unwinds).
pub(crate) struct InlineGuard;

impl InlineGuard {
    pub(crate) fn enter() -> InlineGuard {
        INLINE.with(|i| i.set(true));
        InlineGuard
    }
}

impl Drop for InlineGuard {
    fn drop(&mut self) {
        INLINE.with(|i| i.set(false));
    }
}
