//! The one tokio runtime of the process, and the adapter that runs exported futures in its
//! context.
//!
//! uniffi polls exported futures from the foreign side's threads (a Kotlin dispatcher, a Swift
//! executor). The core needs a tokio context to spawn tasks, open sockets and sleep, so
//! [`in_runtime`] enters the runtime around every poll. The future itself is not spawned: when
//! the Kotlin coroutine or Swift task is cancelled, uniffi drops it, and the core's drop guards
//! run (a dropped `call_tool` sends `notifications/cancelled`).

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use tokio::runtime::Runtime;

/// The runtime, built on first use: two worker threads drive I/O and timers for every future.
pub(crate) fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mcpcore-uniffi")
            .enable_all()
            .build()
            .expect("mcpcore-uniffi: cannot start the tokio runtime")
    })
}

/// Runs `fut` inside the runtime's context on each poll (and on drop).
pub(crate) fn in_runtime<F: Future>(fut: F) -> InRuntime<F> {
    InRuntime { inner: Some(Box::pin(fut)) }
}

/// A future polled inside the runtime's context; see [`in_runtime`].
pub(crate) struct InRuntime<F: Future> {
    inner: Option<Pin<Box<F>>>,
}

impl<F: Future> Future for InRuntime<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _guard = runtime().enter();
        match self.inner.as_mut() {
            Some(inner) => inner.as_mut().poll(cx),
            None => Poll::Pending,
        }
    }
}

impl<F: Future> Drop for InRuntime<F> {
    fn drop(&mut self) {
        // Drop guards of the core (e.g. the cancel notice of a call) may need the context.
        let _guard = runtime().enter();
        self.inner.take();
    }
}
