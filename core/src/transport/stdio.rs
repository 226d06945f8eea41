//! The server side of stdio: frames on our own stdin/stdout. Logs belong on stderr.
//!
//! When stdin/stdout are pipes or sockets (how every client spawns a server), they are driven by
//! the runtime's reactor directly (non-blocking, epoll). `tokio::io::stdin()`/`stdout()` would
//! hand every read and write to the blocking thread pool instead: two thread hand-offs per
//! message, the largest cost of a small stdio call. A terminal or a file keeps the blocking path.

use super::{framing, Channel, TransportEvent};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

/// Starts reading stdin and writing stdout; the channel closes when stdin reaches end of file.
pub fn own_stdio(max_frame: usize) -> Channel {
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let stdin = tokio::io::BufReader::with_capacity(64 * 1024, stdin());
        let reason = match framing::pump_reader(stdin, &in_tx, max_frame).await {
            Ok(()) => "stdin closed".to_owned(),
            Err(e) => format!("reading stdin failed: {e}"),
        };
        let _ = in_tx.send(TransportEvent::Closed(reason));
    });
    let flushed = tokio::spawn(async move {
        if let Err(e) = framing::pump_writer(stdout(), out_rx).await {
            eprintln!("mcpcore: writing stdout failed: {e}");
        }
    });
    Channel { tx: out_tx, rx: in_rx, flushed: Some(flushed) }
}

fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    #[cfg(unix)]
    if let Some(r) = reactor::reader() {
        return r;
    }
    Box::new(tokio::io::stdin())
}

fn stdout() -> Box<dyn AsyncWrite + Unpin + Send> {
    #[cfg(unix)]
    if let Some(w) = reactor::writer() {
        return w;
    }
    Box::new(tokio::io::stdout())
}

#[cfg(unix)]
mod reactor {
    //! stdin/stdout as reactor-driven pipes or sockets (a duplicate of the descriptor, so the
    //! process's own fd 0/1 stay open after we are done).
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use tokio::io::{AsyncRead, AsyncWrite};
    use tokio::net::unix::pipe;

    enum Kind {
        Pipe,
        Socket,
    }

    fn dup(fd: std::os::fd::BorrowedFd<'_>) -> Option<(OwnedFd, Kind)> {
        let owned = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        let ty = file.metadata().ok()?.file_type();
        let kind = if ty.is_fifo() {
            Kind::Pipe
        } else if ty.is_socket() {
            Kind::Socket
        } else {
            return None;
        };
        Some((file.into(), kind))
    }

    fn socket(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
        let s = std::os::unix::net::UnixStream::from(fd);
        s.set_nonblocking(true).ok()?;
        tokio::net::UnixStream::from_std(s).ok()
    }

    pub(super) fn reader() -> Option<Box<dyn AsyncRead + Unpin + Send>> {
        match dup(std::io::stdin().as_fd())? {
            (fd, Kind::Pipe) => Some(Box::new(pipe::Receiver::from_owned_fd(fd).ok()?)),
            (fd, Kind::Socket) => Some(Box::new(socket(fd)?)),
        }
    }

    pub(super) fn writer() -> Option<Box<dyn AsyncWrite + Unpin + Send>> {
        match dup(std::io::stdout().as_fd())? {
            (fd, Kind::Pipe) => Some(Box::new(pipe::Sender::from_owned_fd(fd).ok()?)),
            (fd, Kind::Socket) => Some(Box::new(socket(fd)?)),
        }
    }
}
