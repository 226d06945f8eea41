//! The server side of stdio: our own stdin, read as the runtime's reactor allows. Logs belong
//! on stderr; stdout is written by [`super::direct`].
//!
//! When stdin is a pipe or a socket (how every client spawns a server), it is driven by the
//! runtime's reactor directly (non-blocking, epoll). `tokio::io::stdin()` would hand every read
//! to the blocking thread pool instead: a thread hand-off per read, the largest cost of a small
//! stdio call. A terminal or a file keeps the blocking path.

use tokio::io::AsyncRead;

/// Our stdin (a duplicate of its descriptor when it is a pipe or a socket). Call inside a tokio
/// runtime.
pub fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    #[cfg(unix)]
    if let Some(r) = reactor::reader() {
        return r;
    }
    Box::new(tokio::io::stdin())
}

#[cfg(unix)]
pub(super) mod reactor {
    //! stdin and stdout as reactor-driven pipes or sockets (a duplicate of the descriptor, so the
    //! process's own fd 0 and 1 stay open after we are done).
    use crate::transport::spin::SpinRead;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use tokio::io::AsyncRead;
    use tokio::net::unix::pipe;

    /// What a standard descriptor is, when the reactor can drive it.
    pub(in crate::transport) enum Kind {
        /// A pipe (FIFO).
        Pipe,
        /// A Unix socket.
        Socket,
    }

    /// A duplicate of `fd` and its kind; none for a terminal or a file.
    pub(in crate::transport) fn dup(fd: std::os::fd::BorrowedFd<'_>) -> Option<(OwnedFd, Kind)> {
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

    /// A non-blocking tokio socket of `fd`.
    pub(in crate::transport) fn socket(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
        let s = std::os::unix::net::UnixStream::from(fd);
        s.set_nonblocking(true).ok()?;
        tokio::net::UnixStream::from_std(s).ok()
    }

    pub(super) fn reader() -> Option<Box<dyn AsyncRead + Unpin + Send>> {
        // Each with the optional spin before it blocks (off unless MCPCORE_STDIO_SPIN_US).
        match dup(std::io::stdin().as_fd())? {
            (fd, Kind::Pipe) => Some(Box::new(SpinRead::new(pipe::Receiver::from_owned_fd(fd).ok()?))),
            (fd, Kind::Socket) => Some(Box::new(SpinRead::new(socket(fd)?))),
        }
    }
}
