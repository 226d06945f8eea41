//! A pipe written from the thread that has the frame: our stdout (a stdio server's answers) or
//! a child's stdin (a client's requests). A frame is written at once, on the caller's thread,
//! when nothing waits before it, and only what the pipe does not take now is left to a task on
//! the runtime (which waits until the pipe is writable). A stdio server whose host answers on
//! its own thread (Node's JS thread) thus sends a reply, and a client its request, without
//! waking another thread, where a writer task costs one thread hand-off a message
//! (bench/NOTES.md, "What a hand-off between threads costs here").
//!
//! A pipe or socket is written without blocking; a terminal or a file (no readiness to wait
//! for) is written in place, blocking, as Node itself writes them.

use super::{framing, OutFrame};
use std::io::Write;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// The writable end: a non-blocking pipe or socket, or a blocking stdout.
enum Sink {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    /// The socket, and a second handle to shut its writing side down when done.
    #[cfg(unix)]
    Socket(tokio::net::UnixStream, Option<std::os::unix::net::UnixStream>),
    Blocking(std::io::Stdout),
}

impl Sink {
    /// Writes what it can now: the bytes taken (an error of kind `WouldBlock` when none).
    fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            #[cfg(unix)]
            Sink::Pipe(p) => p.try_write(bytes),
            #[cfg(unix)]
            Sink::Socket(s, _) => s.try_write(bytes),
            Sink::Blocking(out) => {
                let mut out = out.lock();
                // A terminal or file someone left non-blocking: no readiness to wait for, so
                // a full one fails rather than spins.
                let n = out.write(bytes).map_err(|e| match e.kind() {
                    std::io::ErrorKind::WouldBlock => {
                        std::io::Error::other("stdout is non-blocking and full")
                    }
                    _ => e,
                })?;
                out.flush()?;
                Ok(n)
            }
        }
    }

    /// No more bytes: a socket's reader sees its end now, though our fd 1 stays open.
    fn finish(&self) {
        #[cfg(unix)]
        if let Sink::Socket(_, Some(s)) = self {
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
    }

    /// Waits until the end may take more.
    async fn writable(&self) -> std::io::Result<()> {
        match self {
            #[cfg(unix)]
            Sink::Pipe(p) => p.writable().await,
            #[cfg(unix)]
            Sink::Socket(s, _) => s.writable().await,
            Sink::Blocking(_) => Ok(()),
        }
    }
}

/// What the writers share.
struct State {
    /// The end written to, until the writer is done with it: closed, every byte written (or
    /// writing failed). Dropping it closes a pipe, so that a child reading its stdin sees its
    /// end then, while clones of the writer still live.
    sink: Option<Arc<Sink>>,
    /// Bytes the pipe did not take yet, in order; the task writes them. A frame is encoded
    /// here, and written from here when nothing waited before it.
    pending: Vec<u8>,
    /// No more frames come ([`DirectWriter::close`]).
    closed: bool,
    /// Writing failed (the reader went away): later frames are dropped.
    failed: bool,
    /// What is written, for the one line said on stderr when writing fails.
    what: &'static str,
}

/// A pipe (our stdout, a child's stdin), written from the caller's thread when nothing waits
/// (see the module docs).
/// Cheap to clone; every clone writes to the same stream in the order frames are given.
#[derive(Clone)]
pub struct DirectWriter {
    state: Arc<Mutex<State>>,
    wake: Arc<Notify>,
}

impl std::fmt::Debug for DirectWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectWriter").finish_non_exhaustive()
    }
}

impl DirectWriter {
    /// Our stdout (a duplicate of its descriptor), and the task that writes what waits, which
    /// ends once [`DirectWriter::close`] was called and every byte is written (or writing
    /// failed). Call inside a tokio runtime.
    pub fn own() -> (DirectWriter, impl std::future::Future<Output = ()> + Send + 'static) {
        Self::with(sink(), "stdout")
    }

    /// The writing end of a pipe (`what` names it in the one error line), and the task that
    /// writes what waits, as [`DirectWriter::own`]. Call inside a tokio runtime.
    #[cfg(unix)]
    pub fn pipe(
        pipe: tokio::net::unix::pipe::Sender,
        what: &'static str,
    ) -> (DirectWriter, impl std::future::Future<Output = ()> + Send + 'static) {
        Self::with(Sink::Pipe(pipe), what)
    }

    fn with(
        sink: Sink,
        what: &'static str,
    ) -> (DirectWriter, impl std::future::Future<Output = ()> + Send + 'static) {
        let sink = Some(Arc::new(sink));
        let state =
            Arc::new(Mutex::new(State { sink, pending: Vec::new(), closed: false, failed: false, what }));
        let wake = Arc::new(Notify::new());
        let out = DirectWriter { state, wake };
        let task = out.clone().drain();
        (out, task)
    }

    /// Writes `frame` (as one line), now when nothing waits before it, else after what waits.
    pub fn send(&self, frame: &OutFrame) {
        self.try_send(frame);
    }

    /// [`DirectWriter::send`]; false when the frame is dropped: the writer was closed, or
    /// writing failed (the reader went away), before or now.
    pub fn try_send(&self, frame: &OutFrame) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.failed || st.closed {
            return false;
        }
        let idle = st.pending.is_empty();
        framing::encode(frame, &mut st.pending);
        if idle && write_some(&mut st) && !st.pending.is_empty() {
            drop(st);
            self.wake.notify_one();
            return true;
        }
        !st.failed
    }

    /// No more frames: the end is closed once what waits is written (at once when nothing
    /// does), and then the task ends.
    pub fn close(&self) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.closed = true;
        if st.pending.is_empty() {
            finish(&mut st);
        }
        drop(st);
        self.wake.notify_one();
    }

    /// The task: writes what the callers left, as the pipe takes it.
    async fn drain(self) {
        loop {
            let sink = {
                let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
                if st.failed {
                    return;
                }
                if st.closed && st.pending.is_empty() {
                    finish(&mut st);
                    return;
                }
                if st.pending.is_empty() {
                    None
                } else {
                    st.sink.clone()
                }
            };
            let Some(sink) = sink else {
                self.wake.notified().await;
                continue;
            };
            if let Err(e) = sink.writable().await {
                fail(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()), &e);
                return;
            }
            drop(sink);
            if !write_some(&mut self.state.lock().unwrap_or_else(|p| p.into_inner())) {
                return;
            }
        }
    }
}

/// Writes as much of what waits as the end takes now, and drops that from the queue; false
/// once writing failed.
fn write_some(st: &mut State) -> bool {
    let Some(sink) = st.sink.as_deref() else {
        return false;
    };
    let mut at = 0;
    let mut failed = None;
    while at < st.pending.len() {
        match sink.try_write(&st.pending[at..]) {
            Ok(0) => {
                failed = Some(std::io::Error::from(std::io::ErrorKind::WriteZero));
                break;
            }
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    if let Some(e) = failed {
        fail(st, &e);
        return false;
    }
    st.pending.drain(..at);
    true
}

/// Done with the end: a socket's writing side is shut down, and the writers' handle dropped,
/// which closes a pipe (a child's stdin ends here, not when the last writer clone goes).
fn finish(st: &mut State) {
    if let Some(sink) = st.sink.take() {
        sink.finish();
    }
}

/// Writing failed: later frames are dropped (the reader is gone), once said on stderr.
fn fail(st: &mut State, e: &std::io::Error) {
    if !st.failed && e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("mcpcore: writing {} failed: {e}", st.what);
    }
    st.failed = true;
    st.pending = Vec::new();
    st.sink = None;
}

/// Our stdout: a non-blocking duplicate when it is a pipe or a socket (how every client spawns
/// a server), else the blocking `std::io::stdout()`.
fn sink() -> Sink {
    #[cfg(unix)]
    {
        use super::stdio::reactor::{dup, socket, Kind};
        use std::os::fd::AsFd;
        match dup(std::io::stdout().as_fd()) {
            Some((fd, Kind::Pipe)) => {
                if let Ok(p) = tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
                    return Sink::Pipe(p);
                }
            }
            Some((fd, Kind::Socket)) => {
                let shutdown = fd.try_clone().ok().map(std::os::unix::net::UnixStream::from);
                if let Some(s) = socket(fd) {
                    return Sink::Socket(s, shutdown);
                }
            }
            None => {}
        }
    }
    Sink::Blocking(std::io::stdout())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::jsonrpc::{Message, Notification};
    use tokio::io::AsyncReadExt;

    fn note(i: usize, pad: &str) -> OutFrame {
        let params = serde_json::json!({"i": i, "pad": pad});
        OutFrame::One(Message::Notification(Notification {
            method: "n".into(),
            params: params.as_object().cloned(),
        }))
    }

    /// More than a pipe holds, written while nobody reads: what the pipe refuses waits, in
    /// order, and the task writes it once the reader drains the pipe.
    #[tokio::test]
    async fn what_the_pipe_refuses_waits_in_order() {
        let (tx, mut rx) = tokio::net::unix::pipe::pipe().unwrap();
        let (out, task) = DirectWriter::with(Sink::Pipe(tx), "a test pipe");
        let task = tokio::spawn(task);
        let pad = "x".repeat(1000);
        for i in 0..500 {
            out.send(&note(i, &pad));
        }
        assert!(!out.state.lock().unwrap().pending.is_empty(), "500 kB fit in the pipe");
        out.close();
        out.send(&note(9999, "after close"));
        // The reader sees its end once the task wrote what waited, though `out` still lives.
        let mut got = Vec::new();
        rx.read_to_end(&mut got).await.unwrap();
        task.await.unwrap();
        let lines: Vec<serde_json::Value> = got
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 500);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line["params"]["i"], i);
        }
    }

    /// Closing closes the pipe once what waits is written, while clones of the writer live on
    /// (a client closing its child's stdin: the child sees its end and exits by itself).
    #[tokio::test]
    async fn close_ends_the_pipe_while_clones_live() {
        let (tx, mut rx) = tokio::net::unix::pipe::pipe().unwrap();
        let (out, task) = DirectWriter::with(Sink::Pipe(tx), "a test pipe");
        let _task = tokio::spawn(task);
        let clone = out.clone();
        out.send(&note(1, "before"));
        out.close();
        let mut got = Vec::new();
        let read = rx.read_to_end(&mut got);
        tokio::time::timeout(std::time::Duration::from_secs(5), read)
            .await
            .expect("the reader sees its end")
            .unwrap();
        assert_eq!(got.iter().filter(|b| **b == b'\n').count(), 1);
        assert!(!clone.try_send(&note(2, "after")), "a closed writer takes nothing");
    }

    /// A reader that went away: writing stops, the task ends, nothing panics.
    #[tokio::test]
    async fn a_closed_reader_ends_the_writer() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().unwrap();
        drop(rx);
        let (out, task) = DirectWriter::with(Sink::Pipe(tx), "a test pipe");
        out.send(&note(1, "lost"));
        out.send(&note(2, "lost"));
        out.close();
        tokio::time::timeout(std::time::Duration::from_secs(5), task).await.unwrap();
        assert!(out.state.lock().unwrap().failed);
    }
}
