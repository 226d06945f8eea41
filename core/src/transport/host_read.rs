//! A child's stdout read by the host's own event loop (Node's libuv on its JS thread), its
//! frames dispatched in place on that thread: the answer to a call reaches the call without a
//! runtime thread waking to read the pipe and handing it over (issue 47 step 2, bench/NOTES.md
//! "A client reads its child's stdout on the JS thread").
//!
//! [`super::child::spawn_host_read`] spawns the server as [`super::child::spawn`] does, but
//! leaves its stdout to the host: the host takes the descriptor ([`HostRead::take_fd`]), reads
//! it, and gives every chunk to [`HostRead::push`] and the end of the stream to
//! [`HostRead::end`]. The frames go to the peer logic's [`InPlace`] sink as they complete; the
//! end, with the reason the process gave (its exit code or signal and last stderr lines), goes
//! through the [`Channel`](super::Channel)'s receiver, after every frame. Once the process has
//! exited, a stdout still held open (by a process outside its group) ends a moment later, as
//! the task reader's does.

use super::framing::{Side, Splitter};
use super::TransportEvent;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How long the client keeps reading a server's stdout after the server process exited: enough
/// for what it wrote last; a process outside its group may hold the pipe open forever.
pub(super) const STDOUT_LINGER: Duration = Duration::from_secs(1);

/// Where inbound events go in place, on the thread that read them.
pub type Sink = Arc<dyn Fn(TransportEvent) + Send + Sync>;

/// The slot a transport delivers its frames to in place, set by the peer logic before anything
/// is read (until then, frames go through the channel's receiver).
#[derive(Clone, Default)]
pub struct InPlace(Arc<OnceLock<Sink>>);

impl InPlace {
    /// Puts the peer logic's handler in the slot (once; a second call changes nothing).
    pub fn set(&self, sink: Sink) {
        let _ = self.0.set(sink);
    }

    fn get(&self) -> Option<&Sink> {
        self.0.get()
    }
}

impl std::fmt::Debug for InPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InPlace").field("set", &self.0.get().is_some()).finish()
    }
}

/// A child's stdout, read by the host. Cheap to share; only the host's reading thread pushes.
pub struct HostRead {
    #[cfg(unix)]
    fd: Mutex<Option<std::os::fd::OwnedFd>>,
    splitter: Mutex<Splitter>,
    sink: InPlace,
    events: mpsc::UnboundedSender<TransportEvent>,
    ended: AtomicBool,
    exited: watch::Receiver<Option<String>>,
}

impl std::fmt::Debug for HostRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostRead").field("ended", &self.ended.load(Ordering::Relaxed)).finish_non_exhaustive()
    }
}

impl HostRead {
    #[cfg(unix)]
    pub(super) fn new(
        fd: std::os::fd::OwnedFd,
        max_frame: usize,
        sink: InPlace,
        events: mpsc::UnboundedSender<TransportEvent>,
        exited: watch::Receiver<Option<String>>,
    ) -> Arc<HostRead> {
        let read = Arc::new(HostRead {
            fd: Mutex::new(Some(fd)),
            splitter: Mutex::new(Splitter::new(max_frame, Side::Client)),
            sink,
            events,
            ended: AtomicBool::new(false),
            exited,
        });
        // Once the process is gone, a stdout some other process still holds ends a moment later.
        let weak = Arc::downgrade(&read);
        let mut exited = read.exited.clone();
        tokio::spawn(async move {
            let _ = exited.wait_for(Option::is_some).await;
            tokio::time::sleep(STDOUT_LINGER).await;
            if let Some(read) = weak.upgrade() {
                read.end();
            }
        });
        read
    }

    /// The read end of the child's stdout, once: the host reads it from now on (and closes it).
    #[cfg(unix)]
    pub fn take_fd(&self) -> Option<std::os::fd::OwnedFd> {
        self.fd.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The next bytes of the child's stdout: each frame they complete is dispatched now, on this
    /// thread (in the runtime's context: a server request's answer is spawned on it).
    pub fn push(&self, bytes: &[u8]) {
        if self.ended.load(Ordering::Acquire) {
            return;
        }
        let mut splitter = self.splitter.lock().unwrap_or_else(|p| p.into_inner());
        let sink = self.sink.get();
        splitter.push(bytes, &mut |event| self.dispatch(sink, event));
    }

    /// The host's read ended (end of file or an error): a last line without its newline is
    /// dispatched, and the connection closes with the process's reason once it has one (a
    /// bounded wait). Later calls, and later pushes, do nothing.
    pub fn end(&self) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let last = self.splitter.lock().unwrap_or_else(|p| p.into_inner()).finish();
        if let Some(event) = last {
            self.dispatch(self.sink.get(), event);
        }
        let (events, mut exited) = (self.events.clone(), self.exited.clone());
        let close = async move {
            let reason =
                match tokio::time::timeout(Duration::from_secs(5), exited.wait_for(Option::is_some)).await {
                    Ok(Ok(r)) => r.clone().unwrap_or_default(),
                    _ => "server closed its stdout".to_owned(),
                };
            let _ = events.send(TransportEvent::Closed(reason));
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => drop(rt.spawn(close)),
            // Outside the runtime (the host is shutting down): close without the exit reason.
            Err(_) => drop(self.events.send(TransportEvent::Closed("server closed its stdout".to_owned()))),
        }
    }

    fn dispatch(&self, sink: Option<&Sink>, event: TransportEvent) {
        match sink {
            Some(sink) => sink(event),
            None => drop(self.events.send(event)),
        }
    }
}
