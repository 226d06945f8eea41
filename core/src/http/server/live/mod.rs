//! Legacy sessions alive on this process: each has a [`Driver`] pumping its connection, the
//! per-POST routes its answers travel on, and its server→client stream (the Streamable HTTP
//! GET stream, or the 2024-11-05 SSE stream). The session's record lives in the configured
//! [`SessionStore`]; this process keeps only what cannot be stored.

mod fleet;

use super::listen::Connection;
use super::replay::{self, ReplayLog};
use super::{ResponseMode, State};
use crate::context::{ClientKey, Origin};
use crate::engine::{IdMap, RouteId, ServerConnection};
use crate::error::ErrorData;
use crate::jsonrpc::{Inbound, Message, Response};
use crate::runtime::queue::{self, QueueRx, QueueTx, Refused};
use crate::runtime::{Driver, DriverHandle, Outbound};
use crate::session::{LegacySession, SessionKind, SessionRecord, SessionStore, Topic};
use axum::http::StatusCode;
use fleet::{spawn_answers_listener, spawn_change_follower, spawn_publisher, Publish, Shared};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::{mpsc, oneshot, watch};

/// What a POST's route carries back: one message (a response, a batch response, or a
/// notification or request sent while the call runs), serialized once, when it is produced.
#[derive(Debug)]
pub(crate) struct RouteMsg {
    /// The message (or batch) as JSON.
    pub(crate) json: String,
    /// True for the answer itself (a response or a batch): nothing follows it.
    pub(crate) last: bool,
    /// The HTTP status the answer owes when sent as the whole JSON body.
    pub(crate) status: StatusCode,
    /// `Retry-After` seconds, for an answer over a limit (429).
    pub(crate) retry_after: Option<u64>,
}

impl RouteMsg {
    fn new(message: &Message) -> Self {
        let (status, retry_after) = match message {
            Message::Response(r) => (answer_status(r), super::reply::retry_after(r)),
            _ => (StatusCode::OK, None),
        };
        RouteMsg {
            json: message.to_json(),
            last: matches!(message, Message::Response(_)),
            status,
            retry_after,
        }
    }
}

/// The status of a legacy POST answered with `r`: a second `initialize` on a session is a 400
/// (as the TypeScript SDK answers), a call over a limit that waiting lifts
/// ([`crate::ErrorData::over_limit`], with `data.retryAfter`) 429.
pub(crate) fn answer_status(r: &Response) -> StatusCode {
    match &r.outcome {
        Err(e) if e.message.contains("initialize was already received") => StatusCode::BAD_REQUEST,
        Err(_) if super::reply::retry_after(r).is_some() => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::OK,
    }
}

/// The server→client stream open on this process: its queue of SSE events (text) and the
/// token it was opened with.
pub(super) struct OpenStream {
    pub(super) tx: QueueTx<String>,
    pub(super) token: String,
}

pub(super) struct Routes {
    posts: IdMap<RouteId, QueueTx<RouteMsg>>,
    pub(super) stream: Option<OpenStream>,
    /// The recent messages of the GET stream, for a client resuming it (in one process; on a
    /// shared store the store keeps them).
    log: ReplayLog,
}

impl Routes {
    fn new(max_bytes: usize) -> Self {
        Routes { posts: IdMap::default(), stream: None, log: ReplayLog::new(max_bytes) }
    }

    /// True while a server→client stream is open here.
    pub(super) fn streaming(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| !s.tx.is_closed())
    }

    /// Sends `event` (SSE text) down the open stream; handed back when none is open here.
    fn push(&self, event: String) -> Result<(), String> {
        let Some(s) = &self.stream else { return Err(event) };
        let size = event.len();
        match s.tx.push(event, size) {
            Ok(()) | Err(Refused::Overflow) => Ok(()),
            Err(Refused::Closed(event)) => Err(event),
        }
    }
}

/// A queue to one HTTP response of `limit` bytes that closes the response's connection (when
/// known) once its reader falls that far behind.
pub(super) fn backlog<T>(limit: usize, connection: Option<Connection>) -> (QueueTx<T>, QueueRx<T>) {
    let hook = connection.map(|c| Box::new(move || c.disconnect()) as crate::runtime::queue::OnOverflow);
    queue::bounded(limit, hook)
}

/// One live legacy session.
pub(crate) struct LiveSession {
    pub(crate) id: String,
    pub(crate) kind: SessionKind,
    /// The client that opened (or revived) it here, for the per-client quota.
    client: Option<ClientKey>,
    pub(super) driver: DriverHandle,
    pub(super) routes: Arc<Mutex<Routes>>,
    next_route: AtomicU64,
    in_flight: Arc<AtomicUsize>,
    last_used: Mutex<SystemTime>,
    shared: Option<Shared>,
    /// The session state as this process last knew it (from its driver or the store).
    pub(super) state: Arc<Mutex<Option<LegacySession>>>,
    /// [`HttpServerConfig::max_backlog`](super::HttpServerConfig::max_backlog).
    pub(super) backlog: usize,
    /// Dropped with the session: its bus listeners stop.
    _stop: watch::Sender<()>,
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession").field("id", &self.id).field("kind", &self.kind).finish_non_exhaustive()
    }
}

/// Why a server→client stream was not opened.
pub(crate) enum NoStream {
    /// One is open here already (and the request did not resume it).
    Open,
    /// The shared store failed.
    Store(ErrorData),
}

impl LiveSession {
    /// The session state as this process last knew it.
    pub(crate) fn session(&self) -> Option<LegacySession> {
        self.state.lock().expect("lock").clone()
    }

    /// Marks the session as used at `now`.
    pub(crate) fn touch(&self, now: SystemTime) {
        *self.last_used.lock().expect("lock") = now;
    }

    /// True while it serves a request or has its stream open: it must not be evicted.
    pub(crate) fn busy(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0 || self.routes.lock().expect("lock").streaming()
    }

    /// How long it has been unused at `now`.
    fn idle(&self, now: SystemTime) -> Duration {
        now.duration_since(*self.last_used.lock().expect("lock")).unwrap_or_default()
    }

    /// Hands `frame` to the session; its answers come on the returned receiver, which closes
    /// when nothing more is owed (or the reader fell a backlog behind: its connection is
    /// closed). `None` when the session has ended.
    pub(crate) fn post(&self, frame: Inbound, origin: Arc<Origin>) -> Option<QueueRx<RouteMsg>> {
        let route = RouteId(self.next_route.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = backlog(self.backlog, origin.extensions.get::<Connection>().cloned());
        self.routes.lock().expect("lock").posts.insert(route, tx);
        if !self.driver.frame_in_place(Ok(frame), route, origin) {
            self.routes.lock().expect("lock").posts.remove(&route);
            return None;
        }
        Some(rx)
    }

    /// Hands `frame` to the session when its answers (if any) go down the session's stream
    /// (2024-11-05) or nothing is owed (notifications, responses). False when it has ended.
    pub(crate) fn post_quiet(&self, frame: Inbound, origin: Arc<Origin>) -> bool {
        let route = RouteId(self.next_route.fetch_add(1, Ordering::Relaxed));
        self.driver.frame_in_place(Ok(frame), route, origin)
    }

    /// On a shared store, completes once what the session's frames so far changed in its
    /// record is stored, so the client's next request finds it on any instance (the
    /// `notifications/initialized` before a `tools/list`, a `resources/subscribe` before the
    /// update another instance produces). At once otherwise.
    pub(crate) async fn synced(&self) {
        if self.shared.is_none() {
            return;
        }
        let (tx, rx) = oneshot::channel();
        if self.driver.flush(tx) {
            let _ = rx.await;
        }
    }

    /// Replaces the session state with the store's (a store shared with other instances).
    pub(crate) fn restore(&self, record: &SessionRecord) {
        *self.state.lock().expect("lock") = record.session.clone();
        self.driver.restore(record.session.clone());
    }

    /// Opens the server→client stream on `connection` (closed when its reader falls a backlog
    /// behind): SSE events as text, ready to send. A Streamable HTTP session's events carry
    /// ids; `resume` (the event id of a `Last-Event-ID`, [`replay::resume_point`]) replays
    /// what came after it and takes the stream over from an older one, here or on another
    /// instance; `prime` starts with the priming event (2025-11-25 sessions). A plain GET
    /// while a stream is open here is refused ([`NoStream::Open`]).
    pub(crate) async fn open_stream(
        self: &Arc<Self>,
        connection: Option<Connection>,
        resume: Option<&str>,
        prime: bool,
    ) -> Result<QueueRx<String>, NoStream> {
        let ids = self.kind == SessionKind::Streamable;
        let Some(shared) = &self.shared else {
            let mut routes = self.routes.lock().expect("lock");
            if routes.streaming() && resume.is_none() {
                return Err(NoStream::Open);
            }
            let (tx, rx) = backlog(self.backlog, connection);
            let cursor = resume.map_or_else(|| routes.log.head(), str::to_owned);
            let mut first = Vec::new();
            if ids && prime {
                first.push(replay::priming(&cursor));
            }
            if ids {
                first.extend(
                    routes.log.since(&cursor).into_iter().map(|(e, m)| replay::event_text(Some(&e), m)),
                );
            }
            for event in first {
                let size = event.len();
                let _ = tx.push(event, size);
            }
            // An older stream ends here (its queue's only sender goes).
            routes.stream = Some(OpenStream { tx, token: String::new() });
            return Ok(rx);
        };
        fleet::open_stream(self, shared, connection, resume, prime && ids).await
    }

    /// The transport is going away: in-flight calls get the grace period.
    pub(crate) fn close(&self) {
        self.driver.close();
    }

    /// The session ended: in-flight calls are aborted, its stream closes.
    pub(crate) fn terminate(&self) {
        self.driver.terminate();
        self.routes.lock().expect("lock").stream.take();
    }
}

/// The shell's side of a session's driver.
struct SessionOut {
    kind: SessionKind,
    json: bool,
    routes: Arc<Mutex<Routes>>,
    records: mpsc::UnboundedSender<Write>,
    in_flight: Arc<AtomicUsize>,
    shared: Option<Shared>,
    /// Shared with the [`LiveSession`].
    state: Arc<Mutex<Option<LegacySession>>>,
}

impl SessionOut {
    /// Down the session's stream: a Streamable HTTP session's message gets an event id (in
    /// the store's replay log on a shared store, which hands it to the instance holding the
    /// stream; else in this process's log); a 2024-11-05 session's goes down the stream here,
    /// else to the instance that has it open.
    fn to_stream(&self, routes: &mut Routes, message: Message) {
        let json = message.to_json();
        if self.kind == SessionKind::Streamable {
            match &self.shared {
                Some(shared) => {
                    let _ = shared.publish.send(Publish::Append(json, None));
                }
                None => {
                    let event = routes.log.push(&json);
                    let _ = routes.push(replay::event_text(Some(&event), &json));
                }
            }
            return;
        }
        if routes.push(replay::event_text(None, &json)).is_err() {
            if let Some(shared) = &self.shared {
                let _ = shared.publish.send(Publish::Raw(Topic::ToClient, json));
            }
        }
    }
}

impl Outbound for SessionOut {
    fn send(&mut self, route: Option<RouteId>, message: Message) {
        let mut routes = self.routes.lock().expect("lock");
        if let (Some(shared), Message::Request(r)) = (&self.shared, &message) {
            shared.outstanding.lock().expect("lock").insert(r.id.clone());
        }
        if self.kind == SessionKind::Sse {
            return self.to_stream(&mut routes, message);
        }
        let Some(route) = route else { return self.to_stream(&mut routes, message) };
        // JSON answers carry only the response: requests to the client take the GET stream,
        // notifications are dropped.
        if self.json {
            match &message {
                Message::Response(_) => {}
                Message::Request(_) => return self.to_stream(&mut routes, message),
                Message::Notification(_) => return,
            }
        }
        let is_request = matches!(message, Message::Request(_));
        let delivered = routes.posts.get(&route).is_some_and(|tx| {
            let msg = RouteMsg::new(&message);
            let size = msg.json.len();
            tx.push(msg, size).is_ok()
        });
        // A legacy call runs on when its POST is abandoned: its requests to the client still
        // reach it through the GET stream.
        if !delivered && is_request {
            self.to_stream(&mut routes, message);
        }
    }

    fn send_batch(&mut self, route: RouteId, messages: Vec<Message>) {
        let mut routes = self.routes.lock().expect("lock");
        if self.kind == SessionKind::Sse {
            for m in messages {
                self.to_stream(&mut routes, m);
            }
            return;
        }
        if let Some(tx) = routes.posts.get(&route) {
            let json = serde_json::to_string(&messages).expect("messages serialize");
            let size = json.len();
            let _ = tx.push(RouteMsg { json, last: true, status: StatusCode::OK, retry_after: None }, size);
        }
    }

    fn route_done(&mut self, route: RouteId) {
        self.routes.lock().expect("lock").posts.remove(&route);
    }

    /// Not ours: with a shared store, maybe another instance's request.
    fn unmatched(&mut self, response: Response) {
        if let Some(shared) = &self.shared {
            let _ =
                shared.publish.send(Publish::Raw(Topic::FromClient, Message::Response(response).to_json()));
        }
    }

    fn session_changed(&mut self, conn: &ServerConnection) {
        *self.state.lock().expect("lock") = conn.session().cloned();
        let _ = self.records.send(Write::Record(Box::new(conn.record(self.kind))));
    }

    fn flush(&mut self, done: oneshot::Sender<()>) {
        let _ = self.records.send(Write::Flush(done));
    }

    fn in_flight(&mut self, n: usize) {
        self.in_flight.store(n, Ordering::SeqCst);
    }
}

/// What a session's record writer is asked.
enum Write {
    /// Store this record.
    Record(Box<SessionRecord>),
    /// Answer once every record sent before is stored.
    Flush(oneshot::Sender<()>),
}

/// Writes a session's records to the store in order, the latest of a burst only.
fn spawn_writer(
    store: Arc<dyn SessionStore>,
    id: String,
    clock: Arc<dyn crate::runtime::Clock>,
) -> mpsc::UnboundedSender<Write> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Write>();
    tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let (mut record, mut flushed) = (None, Vec::new());
            let mut take = |w: Write| match w {
                Write::Record(r) => record = Some(*r),
                Write::Flush(done) => flushed.push(done),
            };
            take(first);
            while let Ok(more) = rx.try_recv() {
                take(more);
            }
            if let Some(record) = record {
                let _ = store.store(&id, &record, clock.now()).await;
            }
            for done in flushed {
                let _ = done.send(());
            }
        }
    });
    tx
}

/// The live sessions of one HTTP endpoint, and how many each client holds.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    live: crate::engine::PeerMap<String, Arc<LiveSession>>,
    per_client: HashMap<ClientKey, usize>,
}

impl Inner {
    fn insert(&mut self, live: Arc<LiveSession>) {
        if let Some(old) = self.live.insert(live.id.clone(), live.clone()) {
            self.forget_client(&old);
        }
        if let Some(c) = &live.client {
            *self.per_client.entry(c.clone()).or_default() += 1;
        }
    }

    fn remove(&mut self, id: &str) -> Option<Arc<LiveSession>> {
        let gone = self.live.remove(id)?;
        self.forget_client(&gone);
        Some(gone)
    }

    fn forget_client(&mut self, s: &LiveSession) {
        let Some(c) = &s.client else { return };
        if let Some(n) = self.per_client.get_mut(c) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(c);
            }
        }
    }

    /// The least recently used session that is not busy among those `pick` accepts.
    fn lru_idle(&self, now: SystemTime, pick: impl Fn(&LiveSession) -> bool) -> Option<String> {
        self.live.values().filter(|s| pick(s) && !s.busy()).max_by_key(|s| s.idle(now)).map(|s| s.id.clone())
    }
}

/// Why a new session was refused (see [`Sessions::make_room`]).
pub(crate) enum Full {
    /// The client holds its quota of sessions, all busy.
    Client(usize),
    /// The endpoint holds `max_sessions`, none of which may be ended.
    Server,
}

impl Sessions {
    /// The live session `id`, if this process has it.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<LiveSession>> {
        self.inner.lock().expect("lock").live.get(id).cloned()
    }

    /// Starts a live session `id` of `kind` around `conn`, whose record the store has, for
    /// `client`; `opened`: the session begins here (not revived from the store), so its
    /// duration is measured here.
    pub(crate) fn start(
        st: &Arc<State>,
        id: String,
        kind: SessionKind,
        mut conn: ServerConnection,
        client: Option<ClientKey>,
        opened: bool,
    ) -> Arc<LiveSession> {
        if st.config.sessions.shared() {
            // 32 random bits above room for 2^24 requests: two instances' ids meet only when
            // their random parts do (2^-32), and the counter cannot overflow.
            let hex = crate::runtime::entropy::random_id();
            conn.number_requests_from(u64::from_str_radix(&hex[..8], 16).expect("hex") << 24);
        }
        let routes = Arc::new(Mutex::new(Routes::new(st.config.max_backlog.min(replay::MAX_BYTES))));
        let records = spawn_writer(st.config.sessions.clone(), id.clone(), st.env.clock.clone());
        let json = st.config.response_mode == ResponseMode::Json;
        let in_flight = Arc::new(AtomicUsize::new(0));
        let store = st.config.sessions.clone();
        let shared = store.shared().then(|| Shared {
            publish: spawn_publisher(store.clone(), id.clone()),
            store,
            outstanding: Arc::default(),
        });
        let state = Arc::new(Mutex::new(conn.session().cloned()));
        let out = SessionOut {
            kind,
            json,
            routes: routes.clone(),
            records,
            in_flight: in_flight.clone(),
            shared: shared.clone(),
            state: state.clone(),
        };
        let (stop, stopped) = watch::channel(());
        let (driver, handle) = Driver::new(conn, st.env.clone(), out, st.config.shutdown_grace);
        // On a shared store changes become notifications once per change for the whole fleet
        // (`spawn_change_follower`), not in the driver.
        let driver = if shared.is_some() { driver.fed_changes() } else { driver };
        let driver = if opened { driver.measure_session("tcp") } else { driver };
        let live = Arc::new(LiveSession {
            id: id.clone(),
            kind,
            client,
            driver: handle,
            routes,
            next_route: AtomicU64::new(1),
            in_flight,
            last_used: Mutex::new(st.env.now()),
            shared,
            state,
            backlog: st.config.max_backlog,
            _stop: stop,
        });
        if live.shared.is_some() {
            spawn_change_follower(Arc::downgrade(&live), st.env.clone(), stopped.clone());
            spawn_answers_listener(Arc::downgrade(&live), stopped);
        }
        st.sessions.inner.lock().expect("lock").insert(live.clone());
        let state = st.clone();
        tokio::spawn(async move {
            driver.run().await;
            let mut inner = state.sessions.inner.lock().expect("lock");
            if inner.live.get(&id).is_some_and(|s| s.driver.is_closed()) {
                inner.remove(&id);
            }
        });
        live
    }

    /// The live session for a record the store has: this process's, or a new one serving the
    /// stored state (the session was created by another instance, or before a restart) for
    /// `client`.
    pub(crate) fn get_or_revive(
        st: &Arc<State>,
        id: &str,
        record: &SessionRecord,
        client: Option<ClientKey>,
    ) -> Arc<LiveSession> {
        if let Some(live) = st.sessions.get(id) {
            live.touch(st.env.now());
            if st.config.sessions.shared() {
                live.restore(record);
            }
            return live;
        }
        let mut conn = ServerConnection::new(st.env.engine.clone());
        conn.restore(record.session.clone());
        Sessions::start(st, id.to_owned(), record.kind, conn, client, false)
    }

    /// Makes room for a new session of `client`; returns the sessions ended for it (to delete
    /// from the store). A session is never ended while busy (a request in flight, an open
    /// stream). In order:
    /// - a client holding `max_sessions_per_client` has its own least recently used session
    ///   ended, else it is refused ([`Full::Client`]);
    /// - an endpoint holding `max_sessions` ends the least recently used session idle for
    ///   `session_idle`, else the least recently used one of the client holding the most
    ///   sessions (so no client can lock the others out), else refuses ([`Full::Server`]).
    pub(crate) fn make_room(st: &Arc<State>, client: Option<&ClientKey>) -> Result<Vec<String>, Full> {
        let now = st.env.now();
        let c = &st.config;
        let mut inner = st.sessions.inner.lock().expect("lock");
        let mut ended = Vec::new();
        if let Some(key) = client {
            if inner.per_client.get(key).copied().unwrap_or(0) >= c.max_sessions_per_client {
                let victim = inner
                    .lru_idle(now, |s| s.client.as_ref() == Some(key))
                    .ok_or(Full::Client(c.max_sessions_per_client))?;
                ended.push(victim);
            }
        }
        if inner.live.len() - ended.len() >= c.max_sessions {
            let idle_long = inner.lru_idle(now, |s| !ended.contains(&s.id) && s.idle(now) >= c.session_idle);
            let victim = idle_long.or_else(|| {
                let mut holders: HashMap<Option<&ClientKey>, usize> = HashMap::new();
                for s in inner.live.values().filter(|s| !s.busy()) {
                    *holders.entry(s.client.as_ref()).or_default() += 1;
                }
                let (top, _) = holders.into_iter().max_by_key(|(_, n)| *n)?;
                let top = top.cloned();
                inner.lru_idle(now, |s| !ended.contains(&s.id) && s.client == top)
            });
            ended.push(victim.ok_or(Full::Server)?);
        }
        for id in &ended {
            if let Some(s) = inner.remove(id) {
                s.terminate();
            }
        }
        Ok(ended)
    }

    /// Forgets session `id` here and ends it.
    pub(crate) fn end(&self, id: &str) {
        let gone = self.inner.lock().expect("lock").remove(id);
        if let Some(s) = gone {
            s.terminate();
        }
    }

    /// Every live session.
    pub(crate) fn all(&self) -> Vec<Arc<LiveSession>> {
        self.inner.lock().expect("lock").live.values().cloned().collect()
    }
}
