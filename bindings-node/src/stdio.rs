//! `StdioConnection`: a stdio server fed by libuv on the JS thread (`Server.serveStdio` in
//! lib/mcpcore.js reads `process.stdin` and hands each chunk to `feed`). The frames are served
//! by the core's `FedStdio` on this thread: a handler that answers at once is called in place
//! (`handler::on_js_thread`) and its answer written to stdout from here, so a call costs no
//! thread hand-off. A call that waits for its handler's Promise is polled on the JS thread too
//! (`src/local.rs`); only timers, clients' answers and change feeds wake the engine's runtime.

use crate::handler::on_js_thread;
use crate::local::{JsThread, WakeJs};
use napi::bindgen_prelude::BufferSlice;
use napi::Env;
use napi_derive::napi;
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// A stdio connection whose bytes JS reads from `process.stdin` (`Server.serveStdio`); its
/// frames are served on the JS thread.
#[napi]
pub struct StdioConnection {
    /// Fed on the JS thread only; the lock is never contended.
    fed: Mutex<mcpcore::server::FedStdio>,
    serving: Mutex<Option<JoinHandle<()>>>,
    /// The calls that wait, polled on the JS thread.
    local: Arc<JsThread>,
}

impl StdioConnection {
    /// Opens the connection of `server` for `origin` and starts serving what waits.
    pub(crate) fn open(
        server: &mcpcore::server::Server,
        origin: Arc<mcpcore::context::Origin>,
        wake: WakeJs,
    ) -> StdioConnection {
        let local = Arc::new(JsThread::new(wake));
        let (fed, serve) = server.serve_fed_stdio(origin, Some(local.clone()));
        let serving = napi::bindgen_prelude::spawn(serve);
        StdioConnection { fed: Mutex::new(fed), serving: Mutex::new(Some(serving)), local }
    }
}

impl StdioConnection {
    /// Runs `f` on the connection, on the JS thread; the calls it starts and that wait get their
    /// second poll when it is done ([`JsThread::serving`]).
    fn serve<R>(&self, env: &Env, f: impl FnOnce(&mut mcpcore::server::FedStdio) -> R) -> R {
        self.local.serving(env, || {
            let mut fed = self.fed.lock().unwrap_or_else(|p| p.into_inner());
            on_js_thread(env, || f(&mut fed))
        })
    }
}

#[napi]
impl StdioConnection {
    /// Serves the next bytes read from stdin (handlers that answer at once run now, on this
    /// thread); false once the connection stopped.
    #[napi(catch_unwind)]
    pub fn feed(&self, env: Env, chunk: BufferSlice<'_>) -> bool {
        self.serve(&env, |fed| fed.feed(&chunk))
    }

    /// Stdin ended: in-flight requests finish (within the grace period), then `done` resolves.
    #[napi(catch_unwind)]
    pub fn end(&self, env: Env) {
        self.serve(&env, |fed| fed.end());
    }

    /// Polls the calls that were woken (what the `wake` function given to `openStdio` calls).
    #[napi(catch_unwind)]
    pub fn run_ready(&self, env: Env) {
        self.local.run_ready(&env);
    }

    /// Resolves once the connection is closed and stdout written.
    #[napi]
    pub async fn done(&self) -> napi::Result<()> {
        let serving = self.serving.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(s) = serving {
            let _ = s.await;
        }
        Ok(())
    }
}
