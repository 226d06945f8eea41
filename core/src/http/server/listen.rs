//! The accept loop of [`serve_http`](super::serve_http): HTTP/1 connections served by hyper with
//! a timer, so a client that trickles its request head, or keeps a connection idle, is cut off
//! after [`HttpServerConfig::header_timeout`](super::HttpServerConfig::header_timeout); and a
//! cap on open connections ([`HttpServerConfig::max_connections`](super::HttpServerConfig::max_connections)),
//! past which a new connection is answered `503 Service Unavailable` with `Retry-After` and
//! closed, so that idle connections cannot exhaust the process's file descriptors and lock
//! every client out. A full listener (or one out of descriptors) first closes its oldest idle
//! connection to admit the newcomer ([`super::conns`]): the 503 falls on newcomers only when
//! every open connection is serving a request.

use super::conns::{Busy, Conns, Registered};
use axum::body::Body;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

/// The connection a request came on, as a request extension: [`Connection::disconnect`]
/// closes it (a reader that fell too far behind its stream, `super::queue`). Absent when a
/// host serves the router itself.
#[derive(Clone, Debug)]
pub(crate) struct Connection {
    kill: Arc<tokio::sync::Notify>,
}

impl Connection {
    /// Closes the connection now: whatever it was sending is dropped.
    pub(crate) fn disconnect(&self) {
        self.kill.notify_one();
    }
}

/// How many over-cap connections may be being answered 503 at once; past that they are
/// closed unanswered (each answer holds a descriptor for up to [`REFUSE_TIME`]).
const REFUSING: usize = 64;
/// The longest an over-cap connection is kept to read its request and send the 503.
const REFUSE_TIME: Duration = Duration::from_secs(2);

/// The bounds of one listener, and its TLS.
#[derive(Clone)]
pub(crate) struct ConnLimits {
    /// Time to receive a request head, counted from when the connection is ready for one (and
    /// for a TLS handshake).
    pub(crate) header_timeout: Duration,
    /// The most connections open at once.
    pub(crate) max_connections: usize,
    /// Serve HTTPS with this acceptor.
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
}

/// The default connection cap: 10,000, or less when the process may open fewer files (the soft
/// `RLIMIT_NOFILE` less 64 descriptors kept for everything else, at least 16).
pub(crate) fn default_max_connections() -> usize {
    const CAP: usize = 10_000;
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes into the struct we own; no other effect.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0
            && lim.rlim_cur != libc::RLIM_INFINITY
        {
            let soft = usize::try_from(lim.rlim_cur).unwrap_or(CAP);
            return soft.saturating_sub(64).clamp(16, CAP);
        }
    }
    CAP
}

/// A listening socket: TCP, or (on Unix) a Unix domain socket.
pub(crate) trait Listener: Send + Sync + 'static {
    /// A connection.
    type Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static;
    /// Polls for the next connection and its peer's address (a Unix socket's peers all get
    /// `127.0.0.1:0`: one local client as far as per-client quotas go).
    fn poll_accept(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<(Self::Stream, SocketAddr)>>;
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    fn poll_accept(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<(TcpStream, SocketAddr)>> {
        TcpListener::poll_accept(self, cx).map_ok(|(stream, peer)| {
            let _ = stream.set_nodelay(true);
            (stream, peer)
        })
    }
}

#[cfg(unix)]
impl Listener for tokio::net::UnixListener {
    type Stream = tokio::net::UnixStream;
    fn poll_accept(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<(tokio::net::UnixStream, SocketAddr)>> {
        tokio::net::UnixListener::poll_accept(self, cx)
            .map_ok(|(stream, _)| (stream, SocketAddr::from(([127, 0, 0, 1], 0))))
    }
}

/// Accepts and serves connections until `stop` turns true, then lets the open connections
/// finish their requests (hyper's graceful shutdown) and returns once all have closed.
pub(crate) async fn run<L: Listener>(
    listener: L,
    router: axum::Router,
    limits: ConnLimits,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let refusing = Arc::new(Semaphore::new(REFUSING));
    let trimmer = tokio::spawn(trim_after_bursts(open.clone(), limits.max_connections.max(1)));
    // Each connection holds a receiver; `closed()` on the sender completes once all are gone.
    let (alive_tx, alive_rx) = watch::channel(false);
    let base = Admit {
        conns: Arc::new(Conns::default()),
        router,
        header_timeout: limits.header_timeout,
        tls: limits.tls.clone(),
        alive: alive_rx,
    };
    loop {
        let accepted = tokio::select! {
            biased;
            _ = stop.wait_for(|down| *down) => break,
            accepted = std::future::poll_fn(|cx| listener.poll_accept(cx)) => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                accept_error(e, &base.conns).await;
                continue;
            }
        };
        // A slot of the cap: a free one, else the one of the oldest idle connection, closed
        // for it.
        let slot = open.clone().try_acquire_owned().ok().or_else(|| base.conns.close_oldest_idle());
        match slot {
            Some(slot) => {
                let conn = base.conns.register(slot);
                tokio::spawn(base.clone().serve(conn, stream, peer));
            }
            None if limits.tls.is_some() => {} // no plain 503 on a TLS port: closed unanswered
            None => {
                if let Ok(permit) = refusing.clone().try_acquire_owned() {
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(REFUSE_TIME, refuse(stream)).await;
                        drop(permit);
                    });
                }
                // else: dropped here, closed unanswered.
            }
        }
    }
    drop(listener);
    trimmer.abort();
    let _ = alive_tx.send(true);
    drop(base);
    alive_tx.closed().await;
    Ok(())
}

/// What serving one admitted connection needs.
#[derive(Clone)]
struct Admit {
    conns: Arc<Conns>,
    router: axum::Router,
    header_timeout: Duration,
    tls: Option<tokio_rustls::TlsAcceptor>,
    alive: watch::Receiver<bool>,
}

impl Admit {
    /// Serves `stream` (after its TLS handshake, if any), registered as `conn` (which holds its
    /// slot of the cap until it is dropped or handed to a newcomer).
    async fn serve<S>(self, conn: Registered, stream: S, peer: SocketAddr)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (router, timeout, alive) = (self.router, self.header_timeout, self.alive);
        match self.tls {
            None => serve(stream, peer, router, timeout, alive, conn).await,
            Some(acceptor) => {
                // A failed or stalled handshake just closes the connection.
                if let Ok(Ok(stream)) = tokio::time::timeout(timeout, acceptor.accept(stream)).await {
                    serve(stream, peer, router, timeout, alive, conn).await;
                }
            }
        }
    }
}

/// Serves one connection until it closes (or a handler disconnects it), or shuts it down
/// gracefully once `alive` says so. Each request carries the peer's address (axum's
/// `ConnectInfo`, as `into_make_service_with_connect_info` would give) and the [`Connection`].
async fn serve<S>(
    stream: S,
    peer: SocketAddr,
    router: axum::Router,
    header_timeout: Duration,
    mut alive: watch::Receiver<bool>,
    conn: Registered,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let kill = conn.kill.clone();
    let connection = Connection { kill: kill.clone() };
    let inner = TowerToHyperService::new(router);
    let busy = conn.busy.clone();
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        // Busy from the request's head to the end of its answer's body.
        let busy = Busy::new(&busy);
        req.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        req.extensions_mut().insert(connection.clone());
        let answer = inner.call(req);
        async move {
            let r = answer.await?;
            Ok::<_, Infallible>(r.map(|body| Tracked { body, _busy: busy }))
        }
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_timeout).keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        // Dropping the connection closes the socket: a reader past its backlog is cut off.
        _ = kill.notified() => return,
        _ = alive.wait_for(|down| *down) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// An answer's body that keeps its connection marked busy until it is done or dropped.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl hyper::body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// A burst of at least this many connections, once over, returns freed memory to the OS.
const BURST: usize = 1_000;

/// Returns the heap memory a burst of connections left free to the OS once it is over (glibc
/// keeps it otherwise: 10,000 concurrent slow calls left the process at ~395 MB resident for
/// good; trimmed, at ~9 MB, `bench/memory/run.sh`). Every 2 s: when the open connections have
/// fallen to a tenth of a peak of at least [`BURST`], `malloc_trim(0)` once.
async fn trim_after_bursts(open: Arc<Semaphore>, max: usize) {
    let mut peak = 0;
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let now = max.saturating_sub(open.available_permits());
        peak = peak.max(now);
        if peak >= BURST && now <= peak / 10 {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            // SAFETY: malloc_trim only hands free heap pages back to the OS.
            unsafe {
                libc::malloc_trim(0);
            }
            peak = now;
        }
    }
}

/// Answers one request on an over-cap connection with 503 and closes it.
async fn refuse<S>(stream: S)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(|_req: Request<Incoming>| async {
        let body = crate::jsonrpc::Message::Response(crate::jsonrpc::Response::error(
            None,
            crate::ErrorData::new(
                crate::ErrorCode::INTERNAL_ERROR,
                "Service Unavailable: the server has too many open connections; retry shortly",
            ),
        ))
        .to_json();
        let mut r = Response::new(Body::from(body));
        *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        let h = r.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(crate::http::JSON));
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        Ok::<_, Infallible>(r)
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(REFUSE_TIME).keep_alive(false);
    let _ = builder.serve_connection(TokioIo::new(stream), service).await;
}

/// After a failed accept: per-connection errors (the peer reset before we took it) are
/// retried at once. Out of file descriptors (`EMFILE`, `ENFILE`): the oldest idle connection
/// is closed to free one, and accepting resumes shortly; with none idle, after a pause, so the
/// loop never spins.
async fn accept_error(e: io::Error, conns: &Conns) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(e.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    #[cfg(unix)]
    let out_of_fds = matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE));
    #[cfg(not(unix))]
    let out_of_fds = false;
    let pause = if out_of_fds && conns.close_oldest_idle().is_some() { 5 } else { 100 };
    tokio::time::sleep(Duration::from_millis(pause)).await;
}
