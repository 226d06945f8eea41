//! An optional short spin before a stdio read blocks, for users who trade a vCPU for latency
//! (issue 47, design step 7). Off by default.
//!
//! A sequential stdio call wakes a sleeping process twice (the server for the request, the
//! client for the answer), and on the 2-vCPU machines of bench/ each wake-up costs 14–20 µs
//! (`bench/profile/pingpong.c`). With `MCPCORE_STDIO_SPIN_US=N` (at most 10,000), a stdio read
//! that finds nothing keeps the runtime's thread awake for up to N µs: the reading task yields
//! (every other ready task runs) and reads the descriptor again, instead of letting the thread
//! park, so a request or answer that comes within N µs is read without a wake-up. It costs a
//! vCPU while it spins, once after each message, and nothing while the connection is idle (a
//! read that spun out waits for the reactor like any other). It applies
//! to the server's stdin ([`super::stdio::stdin`]) and the client's read of a child's stdout
//! ([`super::child`]), in every binding whose stdio runs in the core; the variable is read once
//! per process. bench/NOTES.md ("A spin before blocking") has its measured effect.

use std::future::Future;
use std::io;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, ReadBuf};

/// The environment variable that turns the spin on: microseconds, 0 or unset = off.
pub const SPIN_ENV: &str = "MCPCORE_STDIO_SPIN_US";

/// The longest spin [`SPIN_ENV`] may ask for.
pub const MAX_SPIN: Duration = Duration::from_millis(10);

/// The spin budget of this process ([`SPIN_ENV`], read once); zero when off or unparsable.
pub fn budget() -> Duration {
    static BUDGET: OnceLock<Duration> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        std::env::var(SPIN_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(Duration::ZERO, |us| Duration::from_micros(us).min(MAX_SPIN))
    })
}

/// A non-blocking, reactor-driven reader that spins up to `budget` before it reports
/// `Pending` (a zero budget is the reader as it is).
#[derive(Debug)]
pub struct SpinRead<R> {
    inner: R,
    budget: Duration,
    /// Where this wait for data is: not begun, spinning since, or spun out (waiting for the
    /// reactor until a read succeeds).
    spin: Spin,
}

#[derive(Debug, Clone, Copy)]
enum Spin {
    Idle,
    Since(Instant),
    Out,
}

impl<R> SpinRead<R> {
    /// `inner` with this process's budget ([`budget`]).
    pub fn new(inner: R) -> SpinRead<R> {
        SpinRead::with_budget(inner, budget())
    }

    /// `inner` spinning up to `budget` (capped at [`MAX_SPIN`]).
    pub fn with_budget(inner: R, budget: Duration) -> SpinRead<R> {
        SpinRead { inner, budget: budget.min(MAX_SPIN), spin: Spin::Idle }
    }
}

impl<R: AsyncRead + AsRawFd + Unpin> AsyncRead for SpinRead<R> {
    /// The reactor's read first (it registers the task for readiness when nothing is there). If
    /// that finds nothing and the budget allows, one direct `read(2)` of the descriptor, and
    /// while the spin lasts the task yields: the runtime runs every other ready task (the
    /// caller that waits for this answer, the writer of the last one), polls its reactor
    /// without blocking, and comes back here instead of parking the thread. A spin that runs out leaves the task to the reactor.
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let first = Pin::new(&mut this.inner).poll_read(cx, buf);
        if first.is_ready() || this.budget.is_zero() || buf.remaining() == 0 {
            this.spin = Spin::Idle;
            return first;
        }
        let since = match this.spin {
            Spin::Out => return Poll::Pending,
            Spin::Idle => Instant::now(),
            Spin::Since(t) => t,
        };
        let fd = this.inner.as_raw_fd();
        loop {
            let dst = buf.initialize_unfilled();
            // SAFETY: `dst` is an initialized, writable slice of `dst.len()` bytes, and `fd` is
            // the open descriptor `inner` owns for as long as `this` is borrowed.
            let n = unsafe { libc::read(fd, dst.as_mut_ptr().cast(), dst.len()) };
            if n >= 0 {
                // 0 is end of file, reported as a read of nothing (as the reactor's read does).
                buf.advance(n.unsigned_abs());
                this.spin = Spin::Idle;
                return Poll::Ready(Ok(()));
            }
            let err = io::Error::last_os_error();
            match err.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => break,
                _ => return Poll::Ready(Err(err)),
            }
        }
        if since.elapsed() >= this.budget {
            this.spin = Spin::Out;
        } else {
            this.spin = Spin::Since(since);
            // As `tokio::task::yield_now` does: the runtime wakes this task again after it has
            // run every other ready task and polled its reactor and timers without parking.
            // A plain `wake_by_ref` would keep the task in the run queue, and the reactor (and
            // the tasks deferred to it) would wait for the scheduler's event interval.
            let mut again = std::pin::pin!(tokio::task::yield_now());
            let _ = again.as_mut().poll(cx);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::task::Waker;
    use tokio::io::AsyncReadExt;
    use tokio::net::UnixStream;

    fn poll_once(r: &mut SpinRead<UnixStream>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut cx = Context::from_waker(Waker::noop());
        let mut rb = ReadBuf::new(buf);
        Pin::new(r).poll_read(&mut cx, &mut rb).map_ok(|()| rb.filled().len())
    }

    /// Polls that come back within the budget read a message the reactor has not reported;
    /// past the budget the reader waits for the reactor; with no budget a poll is `Pending` at
    /// once; the reactor reads as usual after, and end of file reads 0 bytes.
    #[tokio::test]
    async fn a_message_within_the_budget_is_read_by_the_spin() {
        let (a, b) = UnixStream::pair().unwrap();
        let b = b.into_std().unwrap();
        b.set_nonblocking(false).unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(2));
            (&b).write_all(b"during").unwrap();
            b
        });
        let mut spinning = SpinRead::with_budget(a, Duration::from_millis(10));
        spinning.budget = Duration::from_millis(500); // a slow machine still writes within it
        let mut buf = [0u8; 16];
        let mut polls = 0;
        let n = loop {
            polls += 1;
            match poll_once(&mut spinning, &mut buf) {
                Poll::Ready(Ok(n)) => break n,
                Poll::Pending => {
                    assert!(matches!(spinning.spin, Spin::Since(_)), "spun out before the message")
                }
                Poll::Ready(Err(e)) => panic!("{e}"),
            }
        };
        assert_eq!(&buf[..n], b"during");
        assert!(polls > 1, "the message was there before the first poll");
        assert!(matches!(spinning.spin, Spin::Idle));
        // Nothing more comes: the spin runs out, and the reader is left to the reactor.
        spinning.budget = Duration::from_millis(1);
        while poll_once(&mut spinning, &mut buf).is_pending() && !matches!(spinning.spin, Spin::Out) {}
        assert!(matches!(spinning.spin, Spin::Out));
        let b = writer.join().unwrap();
        let mut off = SpinRead::with_budget(spinning.inner, Duration::ZERO);
        assert!(poll_once(&mut off, &mut buf).is_pending());
        (&b).write_all(b"after").unwrap();
        let n = off.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"after");
        drop(b);
        assert_eq!(off.read(&mut buf).await.unwrap(), 0);
    }

    #[test]
    fn the_budget_is_capped() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(SpinRead::with_budget(a, Duration::from_secs(1)).budget, MAX_SPIN);
    }
}
