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

use pyo3::{ffi, Python};
use std::cell::Cell;

/// Runs `f` holding the GIL, from any thread (see the module docs).
pub(crate) fn attach<F, R>(f: F) -> R
where
    F: for<'py> FnOnce(Python<'py>) -> R,
{
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
        unsafe {
            if ffi::Py_IsInitialized() == 0 || !ffi::PyGILState_GetThisThreadState().is_null() {
                return; // a Python thread (or a nested call): it has its state already
            }
            let _ = ffi::PyGILState_Ensure();
            ffi::PyEval_SaveThread();
        }
    });
}
