//! Rust futures as asyncio awaitables, completed without entering Python from the runtime.
//!
//! pyo3-async-runtimes' `future_into_py` spawns the future twice (a task to run it inside a
//! task that catches its panic), then completes the asyncio future from a blocking-pool thread
//! that takes the GIL and calls `loop.call_soon_threadsafe`: three thread hand-offs and a GIL
//! entry per call, most of what a client call from Python cost above one from Rust
//! (bench/NOTES.md, "The Python client's completion path"). [`spawn`] runs the future on one
//! task; when it ends, its outcome is put in its loop's queue and, if the queue was empty, one
//! byte is written to a socket the loop watches (`loop.add_reader`). The loop's own thread then
//! drains the queue: it turns each outcome into Python objects and resolves the futures, a
//! whole batch per wake-up. A loop with no `add_reader` (Windows' proactor), and every loop on
//! Windows, falls back to `future_into_py`. [`spawn_here`] also makes the first poll on the
//! calling thread (a client call writes its request there) and then parks the future
//! ([`crate::parked`]) until its answer wakes it, then runs on the thread that woke it, without
//! a runtime worker woken only to poll it a second time. Cancelling the awaiting task aborts the Rust future (dropping it: a pending
//! tool call sends its cancellation to the server).

use futures_util::FutureExt as _;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::IntoPyObjectExt as _;
use std::future::Future;
use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use tokio::task::AbortHandle;

/// Builds the result on the loop's thread, holding the GIL.
type Finish = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// The socket pair that wakes a loop: a Unix one. (On Windows none is ever made: its default
/// proactor loop has no `add_reader`, so every call takes `future_into_py`; the type is only
/// there for the code to compile.)
#[cfg(unix)]
type WakeSocket = std::os::unix::net::UnixStream;
#[cfg(not(unix))]
type WakeSocket = std::net::TcpStream;

/// The finished futures of one asyncio loop, and the socket pair that wakes it.
struct Queue {
    done: Mutex<Vec<(Py<PyAny>, Finish)>>,
    wake: WakeSocket,
    watched: WakeSocket,
}

impl Queue {
    fn push(&self, future: Py<PyAny>, finish: Finish) {
        let first = {
            let mut done = self.done.lock().expect("lock");
            done.push((future, finish));
            done.len() == 1
        };
        if first {
            // Non-blocking: a full socket already holds a wake-up the loop has yet to read.
            let _ = (&self.wake).write(&[1]);
        }
    }
}

/// The loop's reader callback: resolves every future finished since the last call.
#[pyclass(module = "mcpcore._native", frozen)]
struct Drain {
    queue: Arc<Queue>,
}

#[pymethods]
impl Drain {
    fn __call__(&self, py: Python<'_>) {
        let mut buf = [0u8; 64];
        while matches!((&self.queue.watched).read(&mut buf), Ok(n) if n > 0) {}
        let done = std::mem::take(&mut *self.queue.done.lock().expect("lock"));
        for (future, finish) in done {
            let future = future.bind(py);
            // Cancelled meanwhile: nobody waits for the outcome.
            if future
                .call_method0(pyo3::intern!(py, "done"))
                .and_then(|d| d.extract::<bool>())
                .unwrap_or(true)
            {
                continue;
            }
            let set = match finish(py) {
                Ok(v) => future.call_method1(pyo3::intern!(py, "set_result"), (v,)),
                Err(e) => future.call_method1(pyo3::intern!(py, "set_exception"), (e.into_value(py),)),
            };
            if let Err(e) = set {
                e.print(py);
            }
        }
    }
}

/// Aborts the Rust future when its asyncio future is cancelled (its done callback).
#[pyclass(module = "mcpcore._native", frozen)]
struct AbortOnCancel {
    target: Abort,
}

/// What cancelling stops: a spawned task, or a parked call.
enum Abort {
    Task(AbortHandle),
    Parked(Arc<crate::parked::Parked>),
}

#[pymethods]
impl AbortOnCancel {
    fn __call__(&self, py: Python<'_>, future: &Bound<'_, PyAny>) {
        if future.call_method0("cancelled").and_then(|c| c.extract::<bool>()).unwrap_or(false) {
            match &self.target {
                Abort::Task(task) => task.abort(),
                // Dropping the call may write its cancellation to the server: without the GIL.
                Abort::Parked(parked) => py.detach(|| parked.cancel()),
            }
        }
    }
}

/// The queue of `event_loop`, made (and watched) on first use; None when the loop cannot
/// watch a socket.
fn queue_of(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<Option<Arc<Queue>>> {
    static QUEUES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let queues = QUEUES
        .get_or_try_init(py, || {
            py.import("weakref")?.getattr("WeakKeyDictionary")?.call0().map(Bound::unbind)
        })?
        .bind(py);
    if let Some(found) = queues.call_method1("get", (event_loop,))?.extract::<Option<Bound<'_, PyAny>>>()? {
        if found.is_none() {
            return Ok(None);
        }
        return Ok(Some(found.cast::<Drain>()?.get().queue.clone()));
    }
    match watch(py, event_loop)? {
        Some(drain) => {
            let queue = drain.get().queue.clone();
            queues.set_item(event_loop, drain)?;
            Ok(Some(queue))
        }
        None => {
            queues.set_item(event_loop, py.None())?;
            Ok(None)
        }
    }
}

/// A new queue whose socket `event_loop` watches (`add_reader`); None when it cannot.
#[cfg(unix)]
fn watch<'py>(py: Python<'py>, event_loop: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, Drain>>> {
    use std::os::fd::AsRawFd as _;
    let (wake, watched) = WakeSocket::pair()?;
    wake.set_nonblocking(true)?;
    watched.set_nonblocking(true)?;
    let fd = watched.as_raw_fd();
    let queue = Arc::new(Queue { done: Mutex::new(Vec::new()), wake, watched });
    let drain = Bound::new(py, Drain { queue })?;
    Ok(event_loop.call_method1("add_reader", (fd, &drain)).is_ok().then_some(drain))
}

/// Windows: never a queue (see [`WakeSocket`]).
#[cfg(not(unix))]
fn watch<'py>(_py: Python<'py>, _event_loop: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, Drain>>> {
    Ok(None)
}

/// `future` as an awaitable of the running asyncio loop; `finish` turns its output into the
/// awaited value (or exception) on the loop's thread.
pub(crate) fn spawn<'py, F, T, C>(py: Python<'py>, future: F, finish: C) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    start(py, future, finish, false)
}

/// [`spawn`], with the future's first poll made here, on the loop's thread, inside the
/// runtime's context: a client call writes its request from the thread that made it (the core
/// writes a child's stdin in place, `mcpcore::transport::direct`) instead of waking a runtime
/// worker to start it; only the answer crosses threads (bench/NOTES.md, "A client writes its
/// request from the calling thread"). For futures whose first poll does not block.
pub(crate) fn spawn_here<'py, F, T, C>(py: Python<'py>, future: F, finish: C) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    start(py, future, finish, true)
}

fn start<'py, F, T, C>(py: Python<'py>, future: F, finish: C, here: bool) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    if crate::gil::in_inline_tool() {
        // The tool holds this runtime thread; work spawned here would queue behind it forever.
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "an inline tool cannot call mcpcore's async API (it holds the engine's thread); register it without inline=True",
        ));
    }
    static RUNNING: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let running = RUNNING
        .get_or_try_init(py, || py.import("asyncio")?.getattr("get_running_loop").map(Bound::unbind))?
        .bind(py);
    let event_loop = running.call0()?;
    let Some(queue) = queue_of(py, &event_loop)? else {
        // Completed from a runtime thread that enters Python uncounted: the interpreter's exit
        // waits its whole grace period from now on (`gil::engine_work_in_python`).
        crate::gil::FALLBACK_USED.store(true, std::sync::atomic::Ordering::SeqCst);
        return pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let out = future.await;
            crate::gil::attach(|py| finish(py, out))
        });
    };
    let awaited = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
    let handle = awaited.clone().unbind();
    let runtime = pyo3_async_runtimes::tokio::get_runtime();
    let future = AssertUnwindSafe(future).catch_unwind();
    let outcome = |out: std::thread::Result<T>| -> Finish {
        match out {
            Ok(out) => Box::new(move |py| finish(py, out)),
            Err(_) => {
                Box::new(|_| Err(pyo3::exceptions::PyRuntimeError::new_err("the mcpcore call panicked")))
            }
        }
    };
    let job = async move {
        let out = future.await;
        queue.push(handle, outcome(out));
    };
    let target = if here {
        // Polled once here, then parked until woken (crate::parked): no runtime thread wakes
        // just to poll it again.
        Abort::Parked(crate::parked::Parked::start(runtime.handle().clone(), Box::pin(job)))
    } else {
        Abort::Task(runtime.spawn(job).abort_handle())
    };
    // If nobody can cancel it, it runs to its end, its outcome unread.
    awaited.call_method1(pyo3::intern!(py, "add_done_callback"), (AbortOnCancel { target },))?;
    Ok(awaited)
}

/// `pyo3_async_runtimes::tokio::future_into_py`'s contract (a future of `PyResult<T>` as an
/// awaitable of the running loop), completed as [`spawn`] completes.
pub(crate) fn future_into_py<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    spawn(py, future, |py, out| out.and_then(|v| v.into_py_any(py)))
}
