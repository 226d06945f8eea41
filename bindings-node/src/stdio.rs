//! `StdioConnection`: a stdio server fed by libuv on the JS thread (`Server.serveStdio` in
//! lib/mcpcore.js reads `process.stdin` and hands each chunk to `feed`). The frames are served
//! by the core's `FedStdio` on this thread: a handler that answers at once is called in place
//! (`handler::on_js_thread`) and its answer written to stdout from here, so a call costs no
//! thread hand-off; what waits goes on to the engine's runtime.

use crate::handler::on_js_thread;
use napi::bindgen_prelude::{within_runtime_if_available, BufferSlice};
use napi::Env;
use napi_derive::napi;
use std::sync::Mutex;
use tokio::task::JoinHandle;

/// A stdio connection whose bytes JS reads from `process.stdin` (`Server.serveStdio`); its
/// frames are served on the JS thread.
#[napi]
pub struct StdioConnection {
    /// Fed on the JS thread only; the lock is never contended.
    fed: Mutex<mcpcore::server::FedStdio>,
    serving: Mutex<Option<JoinHandle<()>>>,
}

impl StdioConnection {
    /// Opens the connection of `server` for `origin` and starts serving what waits.
    pub(crate) fn open(
        server: &mcpcore::server::Server,
        origin: std::sync::Arc<mcpcore::context::Origin>,
    ) -> StdioConnection {
        let (fed, serve) = server.serve_fed_stdio(origin);
        let serving = napi::bindgen_prelude::spawn(serve);
        StdioConnection { fed: Mutex::new(fed), serving: Mutex::new(Some(serving)) }
    }
}

#[napi]
impl StdioConnection {
    /// Serves the next bytes read from stdin (handlers that answer at once run now, on this
    /// thread); false once the connection stopped.
    #[napi]
    pub fn feed(&self, env: Env, chunk: BufferSlice<'_>) -> bool {
        let mut fed = self.fed.lock().unwrap_or_else(|p| p.into_inner());
        within_runtime_if_available(|| on_js_thread(&env, || fed.feed(&chunk)))
    }

    /// Stdin ended: in-flight requests finish (within the grace period), then `done` resolves.
    #[napi]
    pub fn end(&self, env: Env) {
        let mut fed = self.fed.lock().unwrap_or_else(|p| p.into_inner());
        within_runtime_if_available(|| on_js_thread(&env, || fed.end()));
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
