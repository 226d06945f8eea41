//! A stdio server fed by its host: the host reads stdin on its own thread (Node: libuv on the
//! JS thread) and hands each chunk to [`FedStdio::feed`], which frames it and serves each frame
//! on that same thread when the connection is idle ([`DriverHandle::frame_in_place`]): a
//! handler that answers without waiting runs in place, and its answer is written to stdout from
//! that thread ([`DirectWriter`]). Only what waits (a handler's future, a timeout, a client's
//! answer) goes to the runtime's driver task. It is the same [`Driver`] and
//! [`ServerConnection`] as [`Server::serve_stdio`]'s, so every rule is served alike; what
//! changes is which thread runs a call (ARCHITECTURE.md, "Which thread runs what").

use super::Server;
use crate::context::Origin;
use crate::engine::{RouteId, ServerConnection};
use crate::jsonrpc::Message;
use crate::runtime::{Driver, DriverHandle, JobSpawner, Outbound};
use crate::transport::direct::DirectWriter;
use crate::transport::framing::{Side, Splitter};
use crate::transport::{OutFrame, TransportEvent};
use std::future::Future;
use std::sync::Arc;
use tokio::io::AsyncReadExt;

/// The host's side of a stdio connection it reads itself (see the module docs).
#[derive(Debug)]
pub struct FedStdio {
    handle: DriverHandle,
    splitter: Splitter,
    origin: Arc<Origin>,
    ended: bool,
}

impl FedStdio {
    /// Serves the next bytes read from stdin: each frame they complete is handled now, on this
    /// thread, when the connection is idle, else queued in order for its driver. False once the
    /// connection stopped (nothing more is read).
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        if self.ended {
            return false;
        }
        let (handle, origin) = (&self.handle, &self.origin);
        let mut open = true;
        self.splitter.push(bytes, &mut |event| {
            if let TransportEvent::Frame(frame) = event {
                open &= handle.frame_in_place(frame, RouteId(0), origin.clone());
            }
        });
        open && !handle.is_closed()
    }

    /// Stdin ended: a last line without its newline is served, then in-flight requests get the
    /// server's grace period and the connection closes. Later calls do nothing.
    pub fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        if let Some(TransportEvent::Frame(frame)) = self.splitter.finish() {
            self.handle.frame_in_place(frame, RouteId(0), self.origin.clone());
        }
        self.handle.close();
    }
}

impl Server {
    /// A stdio connection the host feeds ([`FedStdio`]), every message coming from `origin`,
    /// and the future that serves what waits; it ends once [`FedStdio::end`] was called, the
    /// requests in flight finished (within the grace period) and stdout is written. Call inside
    /// a tokio runtime and run the future on it; [`Server::serve_stdio`] is this with the
    /// runtime reading stdin.
    ///
    /// With a `spawner`, calls that wait run through it (a host's own thread,
    /// [`Driver::with_spawner`]) instead of on tasks of the runtime.
    pub fn serve_fed_stdio(
        &self,
        origin: Arc<Origin>,
        spawner: Option<Arc<dyn JobSpawner>>,
    ) -> (FedStdio, impl Future<Output = ()> + Send + 'static) {
        let (stdout, writer) = DirectWriter::own();
        let conn = ServerConnection::new(self.engine.clone());
        let (driver, handle) = Driver::new(conn, self.env(), DirectOut(stdout), self.shutdown_grace);
        let mut driver = driver.measure_session("pipe");
        if let Some(spawner) = spawner {
            driver = driver.with_spawner(spawner);
        }
        let fed =
            FedStdio { handle, splitter: Splitter::new(self.max_frame, Side::Server), origin, ended: false };
        let serve = async move {
            let run = async {
                let DirectOut(stdout) = driver.run().await;
                stdout.close();
            };
            tokio::join!(run, writer);
        };
        (fed, serve)
    }
}

impl Server {
    /// Serves our own stdin/stdout, every message coming from `origin`: the runtime reads stdin
    /// and feeds what it reads to a [`FedStdio`] on the same task, so a frame is served, and a
    /// handler that answers at once answered, where it was read, with no channel or task
    /// between (what [`Server::serve_stdio`] does).
    pub(super) async fn serve_own_stdio(&self, origin: Arc<Origin>) -> crate::Result<()> {
        let (mut fed, serve) = self.serve_fed_stdio(origin, None);
        let read = async move {
            let mut stdin = crate::transport::stdio::stdin();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stdin.read(&mut buf).await {
                    Ok(0) => break,
                    Ok(n) if fed.feed(&buf[..n]) => {}
                    Ok(_) => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        tracing::debug!(target: "mcpcore::server", "reading stdin failed: {e}");
                        break;
                    }
                }
            }
            fed.end();
        };
        tokio::join!(serve, read);
        Ok(())
    }
}

/// A driver's messages, written to stdout from the thread that has them.
struct DirectOut(DirectWriter);

impl Outbound for DirectOut {
    fn send(&mut self, _route: Option<RouteId>, message: Message) {
        self.0.send(&OutFrame::One(message));
    }

    fn send_batch(&mut self, _route: RouteId, messages: Vec<Message>) {
        self.0.send(&OutFrame::Batch(messages));
    }
}
