//! The one driver loop: pumps a [`ServerConnection`] for a stdio connection, a legacy HTTP
//! session or a 2024-11-05 SSE session. The shell feeds frames through a [`DriverHandle`] and
//! receives what to send through its [`Outbound`]; the driver runs host code (polled once in
//! place, then on a task of its own if it waits), delivers clients' answers to waiting
//! handlers, times out server→client requests, forwards catalog changes to the session, and on
//! close lets in-flight requests finish within a grace period.
//!
//! The driver's state sits behind a lock that the driver's task takes for each thing it does.
//! A shell may also hand a frame over *in place* ([`DriverHandle::frame_in_place`]): when the
//! lock is free and nothing waits in the inbox, the frame is handled on the caller's task, so a
//! legacy POST is answered without a trip to the driver's task and back. On tokio's
//! multi-thread runtime that trip put the request and its answer on two workers, and glibc's
//! per-thread heaps then took a lock for every block freed away from the thread that made it
//! (bench/NOTES.md, "Legacy HTTP on the multi-thread runtime").

use super::env::Env;
use super::inbox::{Inbox, Input};
use super::jobs;
use super::peer::DriverPeer;
use crate::changes::Change;
use crate::context::{NotificationSink, Origin, PeerLink};
use crate::engine::{Event, IdMap, Job, JobId, RouteId, ServerConnection};
use crate::error::ErrorData;
use crate::jsonrpc::{Inbound, Message, RequestId, Response};
use futures_util::task::AtomicWaker;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

/// Where a driver's messages go: the shell's side of the connection.
pub trait Outbound: Send + 'static {
    /// Sends `message` on `route` (`None`: the session's own stream).
    fn send(&mut self, route: Option<RouteId>, message: Message);
    /// Sends a JSON-RPC batch response on `route`.
    fn send_batch(&mut self, route: RouteId, messages: Vec<Message>);
    /// Nothing more is owed on `route`.
    fn route_done(&mut self, _route: RouteId) {}
    /// A client's response that no request of this connection waits for.
    fn unmatched(&mut self, _response: Response) {}
    /// The session state changed (store it, when sessions are kept in a store).
    fn session_changed(&mut self, _conn: &ServerConnection) {}
    /// The number of requests in flight changed to `n` (a busy session is never evicted).
    fn in_flight(&mut self, _n: usize) {}
    /// Answer `done` once everything [`Outbound::session_changed`] was told before is stored.
    fn flush(&mut self, done: oneshot::Sender<()>) {
        let _ = done.send(());
    }
}

/// Where a call that waits runs once its first poll returned pending: by default a task of the
/// runtime; a host whose own thread settles its handlers (Node's JS thread) runs it there
/// instead ([`Driver::with_spawner`]), so the call's end is handled, and answered, on that
/// thread too (bench/NOTES.md, issue 47).
pub trait JobSpawner: Send + Sync + 'static {
    /// Runs `job` to its end; the handle stops it.
    fn spawn(&self, job: crate::registry::BoxFuture<'static, ()>) -> Box<dyn JobAbort>;
}

/// Stops a job a [`JobSpawner`] runs (its future is dropped, on whichever thread).
pub trait JobAbort: Send + Sync {
    /// Stops the job; it is not polled again.
    fn abort(&self);
}

/// A running job, wherever it runs.
enum JobHandle {
    Task(AbortHandle),
    Host(Box<dyn JobAbort>),
}

impl JobHandle {
    fn abort(&self) {
        match self {
            JobHandle::Task(h) => h.abort(),
            JobHandle::Host(h) => h.abort(),
        }
    }
}

/// Feeds a running [`Driver`]; cheap to clone.
#[derive(Clone)]
pub struct DriverHandle {
    tx: Inbox,
    in_place: Arc<dyn InPlace>,
}

impl std::fmt::Debug for DriverHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DriverHandle").field("closed", &self.tx.is_closed()).finish()
    }
}

/// An input handled on the caller's task (the driver's state, whatever its [`Outbound`]).
trait InPlace: Send + Sync {
    /// Handles the input (a frame, a job's end) now, or gives it back when the driver is busy,
    /// has inputs waiting or has stopped.
    fn try_input(&self, input: Input) -> Result<(), Input>;
}

impl DriverHandle {
    /// Hands the driver one inbound frame from `origin` on `route`; false once it stopped.
    pub fn frame(&self, frame: Result<Inbound, Response>, route: RouteId, origin: Arc<Origin>) -> bool {
        self.tx.send(Input::Frame { frame, route, origin }).is_ok()
    }

    /// [`DriverHandle::frame`], handled on the calling task when the driver is idle with an
    /// empty inbox (what it sends is then sent before this returns); through the inbox
    /// otherwise, in order with what waits there. False once the driver stopped.
    pub fn frame_in_place(
        &self,
        frame: Result<Inbound, Response>,
        route: RouteId,
        origin: Arc<Origin>,
    ) -> bool {
        hand_over(Some(&*self.in_place), &self.tx, Input::Frame { frame, route, origin })
    }

    /// Replaces the session state (a store shared with other instances had a newer one).
    pub fn restore(&self, session: Option<crate::session::LegacySession>) -> bool {
        self.tx.send(Input::Restore(Box::new(session))).is_ok()
    }

    /// Asks the driver to answer `done` once the session state changed by the frames handed
    /// to it so far is stored ([`Outbound::flush`]); false once it stopped.
    pub fn flush(&self, done: oneshot::Sender<()>) -> bool {
        self.tx.send(Input::Flush(done)).is_ok()
    }

    /// Tells the driver the transport closed: in-flight requests get the grace period.
    pub fn close(&self) {
        let _ = self.tx.send(Input::Close);
    }

    /// Ends the connection now: in-flight requests are aborted.
    pub fn terminate(&self) {
        let _ = self.tx.send(Input::Terminate);
    }

    /// True once the driver stopped.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// Hands `input` to the driver: handled now on the caller's task when the driver is idle
/// (`in_place`, while it lives), else queued in its inbox behind what waits. False once the
/// driver stopped.
fn hand_over(in_place: Option<&dyn InPlace>, inbox: &Inbox, input: Input) -> bool {
    let tried = match in_place {
        Some(p) => p.try_input(input),
        None => Err(input),
    };
    match tried {
        Ok(()) => true,
        Err(input) => inbox.send(input).is_ok(),
    }
}

/// What the driver's task and a caller handing a frame over in place share.
struct Shared<O: Outbound> {
    core: Mutex<Core<O>>,
    /// Inputs sent and not yet handled (in the inbox, or received and waiting for the lock).
    queued: Arc<AtomicUsize>,
    /// The driver's task, when it waits for the lock a caller holds.
    task: AtomicWaker,
}

/// The driver's state: the connection and what its jobs need.
struct Core<O: Outbound> {
    conn: ServerConnection,
    env: Arc<Env>,
    /// Taken by [`Driver::run`] when it ends.
    out: Option<O>,
    inbox: Inbox,
    jobs: IdMap<JobId, JobHandle>,
    /// Runs the calls that wait, when not the runtime ([`Driver::with_spawner`]).
    spawner: Option<Arc<dyn JobSpawner>>,
    /// The shared state this core sits in, for a job ending off the driver's task to hand its
    /// answer over in place.
    me: std::sync::Weak<dyn InPlace>,
    waiters: HashMap<RequestId, oneshot::Sender<Result<Value, ErrorData>>>,
    origins: IdMap<RouteId, Arc<Origin>>,
    closing: watch::Sender<bool>,
    reported: usize,
    /// Requests being served, for the request log (kept only while debug logging is on).
    logged: HashMap<RequestId, (String, std::time::Instant)>,
    /// The transport closed (or the driver stopped): frames go through the inbox.
    closed: bool,
}

impl<O: Outbound> Drop for Core<O> {
    fn drop(&mut self) {
        for (_, job) in self.jobs.drain() {
            job.abort();
        }
    }
}

/// Pumps one [`ServerConnection`] (see the module docs).
pub struct Driver<O: Outbound> {
    shared: Arc<Shared<O>>,
    rx: mpsc::UnboundedReceiver<Input>,
    env: Arc<Env>,
    grace: Duration,
    /// Listens to the server's change feeds itself (else it is fed through
    /// [`DriverHandle::change`]).
    follow_changes: bool,
    /// When the session began and its transport, to tell the middleware its duration when it
    /// ends ([`Driver::measure_session`]).
    session_clock: Option<(std::time::Instant, &'static str)>,
}

/// True when the request log (debug, target `mcpcore::server`) goes anywhere: a `tracing`
/// subscriber, or a `log` logger (a binding's bridge) at debug level.
fn request_log_on() -> bool {
    tracing::enabled!(target: "mcpcore::server", tracing::Level::DEBUG)
        || log::max_level() >= log::LevelFilter::Debug
}

impl<O: Outbound> std::fmt::Debug for Driver<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").finish_non_exhaustive()
    }
}

impl<O: Outbound> Shared<O> {
    /// The lock, poisoned or not: a panic inside it (host code is caught before) leaves the
    /// connection's state as consistent as the engine left it.
    fn try_core(&self) -> Option<MutexGuard<'_, Core<O>>> {
        match self.core.try_lock() {
            Ok(g) => Some(g),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// The lock for the driver's task: taken when free, else waited for without blocking the
    /// thread (a caller holding it may be running a handler's first poll).
    async fn core(&self) -> MutexGuard<'_, Core<O>> {
        loop {
            if let Some(g) = self.try_core() {
                return g;
            }
            std::future::poll_fn(|cx| {
                self.task.register(cx.waker());
                // Released meanwhile: its holder may have woken nobody.
                if self.core.try_lock().is_ok() || self.core.is_poisoned() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
        }
    }
}

impl<O: Outbound> InPlace for Shared<O> {
    fn try_input(&self, input: Input) -> Result<(), Input> {
        if self.queued.load(Ordering::Acquire) != 0 {
            return Err(input);
        }
        let Some(mut core) = self.try_core() else { return Err(input) };
        // Re-checked under the lock: the task takes it before it counts an input handled.
        if core.closed || self.queued.load(Ordering::Acquire) != 0 {
            drop(core);
            // The task may have found the lock taken meanwhile, and waits to hear it is free.
            self.task.wake();
            return Err(input);
        }
        let before = (core.conn.poll_timeout(), core.conn.session().is_some());
        core.input(input);
        core.pump();
        if (core.conn.poll_timeout(), core.conn.session().is_some()) != before {
            let _ = core.inbox.send(Input::Wake);
        }
        drop(core);
        self.task.wake();
        Ok(())
    }
}

impl<O: Outbound> Driver<O> {
    /// A driver for `conn`, sending through `out`; in-flight requests get `grace` to finish
    /// after the transport closes.
    pub fn new(conn: ServerConnection, env: Arc<Env>, out: O, grace: Duration) -> (Driver<O>, DriverHandle) {
        let (tx, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let inbox = Inbox { tx: tx.clone(), queued: queued.clone() };
        let shared = Arc::new_cyclic(|me: &std::sync::Weak<Shared<O>>| {
            let me: std::sync::Weak<dyn InPlace> = me.clone();
            let core = Core {
                conn,
                env: env.clone(),
                out: Some(out),
                inbox,
                jobs: IdMap::default(),
                spawner: None,
                me,
                waiters: HashMap::new(),
                origins: IdMap::default(),
                closing: watch::channel(false).0,
                reported: 0,
                logged: HashMap::new(),
                closed: false,
            };
            Shared { core: Mutex::new(core), queued: queued.clone(), task: AtomicWaker::new() }
        });
        let handle =
            DriverHandle { tx: Inbox { tx, queued: shared.queued.clone() }, in_place: shared.clone() };
        let driver = Driver { shared, rx, env, grace, follow_changes: true, session_clock: None };
        (driver, handle)
    }

    /// Calls that wait run through `spawner` instead of on tasks of the runtime; their ends are
    /// handled in place where they happen when the driver is idle (through its inbox
    /// otherwise). Listen streams stay on the runtime.
    pub fn with_spawner(self, spawner: Arc<dyn JobSpawner>) -> Self {
        self.shared.core.lock().unwrap_or_else(|p| p.into_inner()).spawner = Some(spawner);
        self
    }

    /// The driver does not listen to the server's change feeds: the shell notifies the session
    /// of changes itself (a session shared by several instances is notified once per change for
    /// the whole fleet).
    pub fn fed_changes(mut self) -> Self {
        self.follow_changes = false;
        self
    }

    /// When the driver ends, tells the server's middleware how long the legacy session it
    /// served lasted, from now (nothing when the connection never became one): `transport` is
    /// `pipe` or `tcp` ([`crate::middleware::SessionEnded`]).
    pub fn measure_session(mut self, transport: &'static str) -> Self {
        if !self.env.engine.config().middleware.is_empty() {
            self.session_clock = Some((std::time::Instant::now(), transport));
        }
        self
    }

    /// Runs until the transport closed and in-flight requests finished (or the grace period
    /// ran out: they are aborted). Returns the outbound, so the shell can flush it.
    pub async fn run(mut self) -> O {
        let mut changes = self.follow_changes.then(|| self.env.change_listener());
        let mut closed = false;
        let mut grace_end: Option<tokio::time::Instant> = None;
        let shared = self.shared.clone();
        loop {
            let (timer, in_session) = {
                let core = shared.core().await;
                (core.timer(), core.conn.session().is_some())
            };
            /// What woke the loop.
            enum Woke {
                Input(Option<Input>),
                Change(Option<Change>),
                Timeout,
                GraceOver,
            }
            let woke = tokio::select! {
                biased;
                input = self.rx.recv() => Woke::Input(input),
                change = recv_change(&mut changes), if in_session => Woke::Change(change),
                _ = sleep_until(timer), if timer.is_some() => Woke::Timeout,
                _ = sleep_until(grace_end), if grace_end.is_some() => Woke::GraceOver,
            };
            let mut core = shared.core().await;
            match woke {
                Woke::Input(input) => {
                    if input.is_some() {
                        // Counted handled only under the lock: a frame handed over in place
                        // waits until this one is done.
                        shared.queued.fetch_sub(1, Ordering::AcqRel);
                    }
                    match input {
                        Some(Input::Close) => {
                            closed = true;
                            core.closed = true;
                            let _ = core.closing.send(true);
                            grace_end = Some(tokio::time::Instant::now() + self.grace);
                        }
                        Some(Input::Terminate) => {
                            core.conn.abort_all();
                            core.pump();
                            break;
                        }
                        Some(input) => core.input(input),
                        None => {
                            closed = true;
                            core.closed = true;
                        }
                    }
                }
                Woke::Change(Some(c)) => core.conn.on_change(&c),
                Woke::Change(None) => {}
                Woke::Timeout => {
                    let now = core.env.now();
                    core.conn.handle_timeout(now);
                }
                Woke::GraceOver => {
                    core.conn.abort_all();
                    core.pump();
                    break;
                }
            }
            core.pump();
            if closed && core.conn.in_flight() == 0 {
                break;
            }
        }
        let mut core = shared.core().await;
        core.closed = true;
        for (_, job) in core.jobs.drain() {
            job.abort();
        }
        if let (Some((started, transport)), Some(session)) = (self.session_clock, core.conn.session()) {
            let ended = crate::middleware::SessionEnded {
                version: session.version,
                transport,
                duration: started.elapsed(),
            };
            self.env.engine.config().middleware.session_ended(&ended);
        }
        core.out.take().expect("the driver runs once")
    }
}

/// The outbound of a running driver.
fn out<O>(out: &mut Option<O>) -> &mut O {
    out.as_mut().expect("the driver runs")
}

impl<O: Outbound> Core<O> {
    /// When the connection next has a timeout to handle, as a tokio instant.
    fn timer(&self) -> Option<tokio::time::Instant> {
        let deadline = self.conn.poll_timeout()?;
        let wait = deadline.duration_since(self.env.now()).unwrap_or(Duration::ZERO);
        Some(tokio::time::Instant::now() + wait)
    }

    fn input(&mut self, input: Input) {
        match input {
            Input::Frame { frame, route, origin } => {
                if let Ok(Inbound::Single(Message::Request(r))) = &frame {
                    if request_log_on() && self.logged.len() < 10_000 {
                        self.logged.insert(r.id.clone(), (r.method.clone(), std::time::Instant::now()));
                    }
                }
                let now = self.env.now();
                self.conn.handle(frame, route, &origin, now);
                self.origins.insert(route, origin);
                if self.conn.take_dirty() {
                    out(&mut self.out).session_changed(&self.conn);
                }
            }
            Input::Notify { route, message } => out(&mut self.out).send(Some(route), message),
            Input::Done { job, response } => {
                self.jobs.remove(&job);
                self.conn.complete(job, response);
            }
            Input::PeerRequest { job, method, params, reply } => {
                match self.conn.send_request(job, &method, params, self.env.now()) {
                    Ok(id) => {
                        self.waiters.insert(id, reply);
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
                if self.conn.take_dirty() {
                    out(&mut self.out).session_changed(&self.conn);
                }
            }
            Input::Restore(session) => self.conn.restore(*session),
            Input::Flush(done) => {
                if self.conn.take_dirty() {
                    out(&mut self.out).session_changed(&self.conn);
                }
                out(&mut self.out).flush(done);
            }
            Input::Close | Input::Terminate | Input::Wake => {}
        }
    }

    /// The request log: method, id, outcome and time of a request this connection answered.
    fn log_answer(&mut self, r: &crate::jsonrpc::Response) {
        if self.logged.is_empty() {
            return;
        }
        let Some((method, started)) = r.id.as_ref().and_then(|id| self.logged.remove(id)) else { return };
        let outcome = match &r.outcome {
            Ok(_) => "ok".to_owned(),
            Err(e) => format!("error {}", e.code.0),
        };
        tracing::debug!(
            target: "mcpcore::server",
            "{method} id={} -> {outcome} in {:.1} ms",
            r.id.as_ref().map(ToString::to_string).unwrap_or_default(),
            started.elapsed().as_secs_f64() * 1000.0
        );
    }

    /// Acts on everything the connection asked for.
    fn pump(&mut self) {
        while let Some(event) = self.conn.poll_event() {
            match event {
                Event::Send { route, message } => {
                    if let Message::Response(r) = &message {
                        self.log_answer(r);
                    }
                    out(&mut self.out).send(route, message)
                }
                Event::SendBatch { route, messages } => out(&mut self.out).send_batch(route, messages),
                Event::Start { job, route, work } => self.start(job, route, work),
                Event::Abort { job } => {
                    if let Some(h) = self.jobs.remove(&job) {
                        h.abort();
                    }
                }
                Event::Answer { id, outcome } => {
                    if let Some(tx) = self.waiters.remove(&id) {
                        let _ = tx.send(outcome);
                    }
                }
                Event::Unmatched(r) => out(&mut self.out).unmatched(r),
                Event::RouteDone(route) => {
                    self.origins.remove(&route);
                    out(&mut self.out).route_done(route);
                }
            }
        }
        if self.conn.take_dirty() {
            out(&mut self.out).session_changed(&self.conn);
        }
        let n = self.conn.in_flight();
        if n != self.reported {
            self.reported = n;
            out(&mut self.out).in_flight(n);
        }
    }

    fn start(&mut self, job: JobId, route: RouteId, work: Job) {
        let origin = self.origins.get(&route).cloned().unwrap_or_default();
        let tx = self.inbox.clone();
        let env = self.env.clone();
        let handle = match work {
            Job::Call(call) => {
                let id = call.id.clone();
                let peer: Option<Arc<dyn PeerLink>> = match call.wants_peer() {
                    true => Some(Arc::new(DriverPeer { job, inbox: tx.clone() })),
                    false => None,
                };
                let held = Arc::new(Mutex::new(Some(Vec::new())));
                let sink = held_sink(&tx, route, &held);
                let mut run = Box::pin(jobs::run_call(env, call, origin, sink, peer));
                // Polled here first: a handler that finishes without waiting (a sync tool)
                // costs no task and no trip back through the inbox. A future that waits is
                // polled again at once by its own task, so the no-op waker is never relied on.
                let mut cx = Context::from_waker(Waker::noop());
                let first = std::panic::catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(&mut cx)));
                for message in held.lock().expect("lock").take().unwrap_or_default() {
                    out(&mut self.out).send(Some(route), message);
                }
                match first {
                    Ok(Poll::Ready(response)) => return self.conn.complete(job, response),
                    Ok(Poll::Pending) => {}
                    Err(_) => {
                        let e = ErrorData::internal("the request's handler panicked");
                        return self.conn.complete(job, Response::error(Some(id), e));
                    }
                }
                match &self.spawner {
                    Some(spawner) => {
                        let me = self.me.clone();
                        JobHandle::Host(spawner.spawn(Box::pin(async move {
                            let response = run.await;
                            hand_over(me.upgrade().as_deref(), &tx, Input::Done { job, response });
                        })))
                    }
                    None => JobHandle::Task(
                        tokio::spawn(async move {
                            let response = run.await;
                            let _ = tx.send(Input::Done { job, response });
                        })
                        .abort_handle(),
                    ),
                }
            }
            Job::Listen(_) | Job::Events(_) => {
                let closing = self.closing.subscribe();
                let sink: NotificationSink = {
                    let tx = tx.clone();
                    Arc::new(move |message: Message| {
                        let _ = tx.send(Input::Notify { route, message });
                    })
                };
                JobHandle::Task(
                    tokio::spawn(async move {
                        let response = match work {
                            Job::Listen(listen) => jobs::run_listen(env, listen, sink, closing).await,
                            Job::Events(stream) => jobs::run_events(env, stream, sink, closing).await,
                            Job::Call(_) => unreachable!("matched above"),
                        };
                        let _ = tx.send(Input::Done { job, response });
                    })
                    .abort_handle(),
                )
            }
        };
        self.jobs.insert(job, handle);
    }
}

/// The notification sink of a call polled inline first: while `held` is `Some`, notifications
/// wait there (the driver sends them before the call's response); once the driver took them,
/// they go through the inbox, in order with the call's `Done`.
fn held_sink(tx: &Inbox, route: RouteId, held: &Arc<Mutex<Option<Vec<Message>>>>) -> NotificationSink {
    let (tx, held) = (tx.clone(), held.clone());
    Arc::new(move |message: Message| {
        let mut h = held.lock().expect("lock");
        match h.as_mut() {
            Some(waiting) => waiting.push(message),
            None => {
                drop(h);
                let _ = tx.send(Input::Notify { route, message });
            }
        }
    })
}

/// The next change, when listening; never otherwise.
async fn recv_change(changes: &mut Option<super::changes::ChangeListener>) -> Option<Change> {
    match changes {
        Some(l) => l.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[path = "driver_tests.rs"]
mod tests;
