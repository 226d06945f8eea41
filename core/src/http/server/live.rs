//! Legacy sessions alive on this process: each has a [`Driver`] pumping its connection, the
//! per-POST routes its answers travel on, and its server→client stream (the Streamable HTTP
//! GET stream, or the 2024-11-05 SSE stream). The session's record lives in the configured
//! [`SessionStore`]; this process keeps only what cannot be stored.

use super::{ResponseMode, State};
use crate::context::Origin;
use crate::engine::{RouteId, ServerConnection};
use crate::jsonrpc::{Inbound, Message, Response};
use crate::runtime::{Driver, DriverHandle, Outbound};
use crate::session::{SessionKind, SessionRecord, SessionStore};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;

/// What a POST's route carries back.
#[derive(Debug)]
pub(crate) enum RouteMsg {
    /// One message (a response, or a notification or request sent while the call runs).
    One(Message),
    /// A 2025-03-26 batch response.
    Batch(Vec<Message>),
}

#[derive(Default)]
struct Routes {
    posts: HashMap<RouteId, mpsc::UnboundedSender<RouteMsg>>,
    stream: Option<mpsc::UnboundedSender<Message>>,
}

impl Routes {
    fn to_stream(&self, message: Message) {
        if let Some(tx) = &self.stream {
            let _ = tx.send(message);
        }
    }
}

/// One live legacy session.
pub(crate) struct LiveSession {
    pub(crate) id: String,
    pub(crate) kind: SessionKind,
    driver: DriverHandle,
    routes: Arc<Mutex<Routes>>,
    next_route: AtomicU64,
    in_flight: Arc<AtomicUsize>,
    last_used: Mutex<SystemTime>,
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession").field("id", &self.id).field("kind", &self.kind).finish_non_exhaustive()
    }
}

impl LiveSession {
    /// Marks the session as used at `now`.
    pub(crate) fn touch(&self, now: SystemTime) {
        *self.last_used.lock().expect("lock") = now;
    }

    /// True while it serves a request or has its stream open: it must not be evicted.
    pub(crate) fn busy(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
            || self.routes.lock().expect("lock").stream.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// How long it has been unused at `now`.
    fn idle(&self, now: SystemTime) -> Duration {
        now.duration_since(*self.last_used.lock().expect("lock")).unwrap_or_default()
    }

    /// Hands `frame` to the session; its answers come on the returned receiver, which closes
    /// when nothing more is owed. `None` when the session has ended.
    pub(crate) fn post(
        &self,
        frame: Inbound,
        origin: Arc<Origin>,
    ) -> Option<mpsc::UnboundedReceiver<RouteMsg>> {
        let route = RouteId(self.next_route.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = mpsc::unbounded_channel();
        self.routes.lock().expect("lock").posts.insert(route, tx);
        if !self.driver.frame(Ok(frame), route, origin) {
            self.routes.lock().expect("lock").posts.remove(&route);
            return None;
        }
        Some(rx)
    }

    /// Hands `frame` to the session when its answers (if any) go down the session's stream
    /// (2024-11-05) or nothing is owed (notifications, responses). False when it has ended.
    pub(crate) fn post_quiet(&self, frame: Inbound, origin: Arc<Origin>) -> bool {
        let route = RouteId(self.next_route.fetch_add(1, Ordering::Relaxed));
        self.driver.frame(Ok(frame), route, origin)
    }

    /// Replaces the session state with the store's (a store shared with other instances).
    pub(crate) fn restore(&self, record: &SessionRecord) {
        self.driver.restore(record.session.clone());
    }

    /// Opens the server→client stream; `None` while one is open already.
    pub(crate) fn open_stream(&self) -> Option<mpsc::UnboundedReceiver<Message>> {
        let mut routes = self.routes.lock().expect("lock");
        if routes.stream.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        routes.stream = Some(tx);
        Some(rx)
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
    records: mpsc::UnboundedSender<SessionRecord>,
    in_flight: Arc<AtomicUsize>,
}

impl Outbound for SessionOut {
    fn send(&mut self, route: Option<RouteId>, message: Message) {
        let routes = self.routes.lock().expect("lock");
        if self.kind == SessionKind::Sse {
            return routes.to_stream(message);
        }
        let Some(route) = route else { return routes.to_stream(message) };
        // JSON answers carry only the response: requests to the client take the GET stream,
        // notifications are dropped.
        if self.json {
            match &message {
                Message::Response(_) => {}
                Message::Request(_) => return routes.to_stream(message),
                Message::Notification(_) => return,
            }
        }
        let is_request = matches!(message, Message::Request(_));
        let delivered =
            routes.posts.get(&route).is_some_and(|tx| tx.send(RouteMsg::One(message.clone())).is_ok());
        // A legacy call runs on when its POST is abandoned: its requests to the client still
        // reach it through the GET stream.
        if !delivered && is_request {
            routes.to_stream(message);
        }
    }

    fn send_batch(&mut self, route: RouteId, messages: Vec<Message>) {
        let routes = self.routes.lock().expect("lock");
        if self.kind == SessionKind::Sse {
            for m in messages {
                routes.to_stream(m);
            }
            return;
        }
        if let Some(tx) = routes.posts.get(&route) {
            let _ = tx.send(RouteMsg::Batch(messages));
        }
    }

    fn route_done(&mut self, route: RouteId) {
        self.routes.lock().expect("lock").posts.remove(&route);
    }

    fn unmatched(&mut self, _response: Response) {}

    fn session_changed(&mut self, conn: &ServerConnection) {
        let _ = self.records.send(conn.record(self.kind));
    }

    fn in_flight(&mut self, n: usize) {
        self.in_flight.store(n, Ordering::SeqCst);
    }
}

/// Writes a session's records to the store in order, the latest of a burst only.
fn spawn_writer(
    store: Arc<dyn SessionStore>,
    id: String,
    clock: Arc<dyn crate::runtime::Clock>,
) -> mpsc::UnboundedSender<SessionRecord> {
    let (tx, mut rx) = mpsc::unbounded_channel::<SessionRecord>();
    tokio::spawn(async move {
        while let Some(mut record) = rx.recv().await {
            while let Ok(newer) = rx.try_recv() {
                record = newer;
            }
            let _ = store.store(&id, &record, clock.now()).await;
        }
    });
    tx
}

/// The live sessions of one HTTP endpoint.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    live: Mutex<HashMap<String, Arc<LiveSession>>>,
}

impl Sessions {
    /// The live session `id`, if this process has it.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<LiveSession>> {
        self.live.lock().expect("lock").get(id).cloned()
    }

    /// Starts a live session `id` of `kind` around `conn`, whose record the store has.
    pub(crate) fn start(
        st: &Arc<State>,
        id: String,
        kind: SessionKind,
        conn: ServerConnection,
    ) -> Arc<LiveSession> {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let records = spawn_writer(st.config.sessions.clone(), id.clone(), st.env.clock.clone());
        let json = st.config.response_mode == ResponseMode::Json;
        let in_flight = Arc::new(AtomicUsize::new(0));
        let out = SessionOut { kind, json, routes: routes.clone(), records, in_flight: in_flight.clone() };
        let (driver, handle) = Driver::new(conn, st.env.clone(), out, st.config.shutdown_grace);
        let live = Arc::new(LiveSession {
            id: id.clone(),
            kind,
            driver: handle,
            routes,
            next_route: AtomicU64::new(1),
            in_flight,
            last_used: Mutex::new(st.env.now()),
        });
        st.sessions.live.lock().expect("lock").insert(id.clone(), live.clone());
        let state = st.clone();
        tokio::spawn(async move {
            driver.run().await;
            let mut map = state.sessions.live.lock().expect("lock");
            if map.get(&id).is_some_and(|s| s.driver.is_closed()) {
                map.remove(&id);
            }
        });
        live
    }

    /// The live session for a record the store has: this process's, or a new one serving the
    /// stored state (the session was created by another instance, or before a restart).
    pub(crate) fn get_or_revive(st: &Arc<State>, id: &str, record: &SessionRecord) -> Arc<LiveSession> {
        if let Some(live) = st.sessions.get(id) {
            live.touch(st.env.now());
            if st.config.sessions.shared() {
                live.restore(record);
            }
            return live;
        }
        let mut conn = ServerConnection::new(st.env.engine.clone());
        conn.restore(record.session.clone());
        Sessions::start(st, id.to_owned(), record.kind, conn)
    }

    /// Makes room for a new session: false when `max_sessions` live here and none of them is
    /// idle (unused for `session_idle`, no request in flight, no open stream); otherwise the
    /// least recently used idle one is ended.
    pub(crate) fn make_room(st: &Arc<State>) -> bool {
        let now = st.env.now();
        let victim = {
            let map = st.sessions.live.lock().expect("lock");
            if map.len() < st.config.max_sessions {
                return true;
            }
            map.values()
                .filter(|s| !s.busy() && s.idle(now) >= st.config.session_idle)
                .max_by_key(|s| s.idle(now))
                .map(|s| s.id.clone())
        };
        let Some(id) = victim else { return false };
        st.sessions.end(&id);
        let st = st.clone();
        tokio::spawn(async move {
            let _ = st.config.sessions.delete(&id).await;
        });
        true
    }

    /// Forgets session `id` here and ends it.
    pub(crate) fn end(&self, id: &str) {
        if let Some(s) = self.live.lock().expect("lock").remove(id) {
            s.terminate();
        }
    }

    /// Every live session.
    pub(crate) fn all(&self) -> Vec<Arc<LiveSession>> {
        self.live.lock().expect("lock").values().cloned().collect()
    }
}
