//! Legacy sessions alive on this process: each has a [`Driver`] pumping its connection, the
//! per-POST routes its answers travel on, and its server→client stream (the Streamable HTTP
//! GET stream, or the 2024-11-05 SSE stream). The session's record lives in the configured
//! [`SessionStore`]; this process keeps only what cannot be stored.

use super::{ResponseMode, State};
use crate::context::Origin;
use crate::engine::{RouteId, ServerConnection};
use crate::jsonrpc::{Inbound, Message, RequestId, Response};
use crate::runtime::{Driver, DriverHandle, Outbound};
use crate::session::{SessionKind, SessionRecord, SessionStore, Topic};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::{mpsc, watch};

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
    /// Sends `message` down the open server→client stream; false when none is open here.
    fn to_stream(&self, message: Message) -> Result<(), Message> {
        match &self.stream {
            Some(tx) => tx.send(message).map_err(|e| e.0),
            None => Err(message),
        }
    }
}

/// How a session on a shared store reaches the other instances.
#[derive(Clone)]
struct Shared {
    store: Arc<dyn SessionStore>,
    /// Ordered publishing (one task per session).
    publish: mpsc::UnboundedSender<(Topic, String)>,
    /// Server→client requests sent from here and not yet answered through the bus.
    outstanding: Arc<Mutex<HashSet<RequestId>>>,
}

/// Publishes a session's messages in order.
fn spawn_publisher(store: Arc<dyn SessionStore>, id: String) -> mpsc::UnboundedSender<(Topic, String)> {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Topic, String)>();
    tokio::spawn(async move {
        while let Some((topic, message)) = rx.recv().await {
            let _ = store.publish(&id, topic, message).await;
        }
    });
    tx
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
    shared: Option<Shared>,
    /// Dropped with the session: its bus listener stops.
    _stop: watch::Sender<()>,
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
        routes.stream = Some(tx.clone());
        if let Some(shared) = &self.shared {
            // What other instances produce for this session comes here while the stream is open.
            let (store, id) = (shared.store.clone(), self.id.clone());
            tokio::spawn(async move {
                let Ok(Some(mut sub)) = store.subscribe(&id, Topic::ToClient).await else { return };
                loop {
                    tokio::select! {
                        m = sub.recv() => {
                            let Some(m) = m else { return };
                            if let Ok(Inbound::Single(message)) = crate::jsonrpc::parse(m.as_bytes()) {
                                if tx.send(message).is_err() {
                                    return;
                                }
                            }
                        }
                        _ = tx.closed() => return,
                    }
                }
            });
        }
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
    shared: Option<Shared>,
}

impl SessionOut {
    /// Down this instance's stream, else (a shared store) to the instance that has it open.
    fn to_stream(&self, routes: &Routes, message: Message) {
        if let Err(message) = routes.to_stream(message) {
            if let Some(shared) = &self.shared {
                let _ = shared.publish.send((Topic::ToClient, message.to_json()));
            }
        }
    }
}

impl Outbound for SessionOut {
    fn send(&mut self, route: Option<RouteId>, message: Message) {
        let routes = self.routes.lock().expect("lock");
        if let (Some(shared), Message::Request(r)) = (&self.shared, &message) {
            shared.outstanding.lock().expect("lock").insert(r.id.clone());
        }
        if self.kind == SessionKind::Sse {
            return self.to_stream(&routes, message);
        }
        let Some(route) = route else { return self.to_stream(&routes, message) };
        // JSON answers carry only the response: requests to the client take the GET stream,
        // notifications are dropped.
        if self.json {
            match &message {
                Message::Response(_) => {}
                Message::Request(_) => return self.to_stream(&routes, message),
                Message::Notification(_) => return,
            }
        }
        let is_request = matches!(message, Message::Request(_));
        let delivered =
            routes.posts.get(&route).is_some_and(|tx| tx.send(RouteMsg::One(message.clone())).is_ok());
        // A legacy call runs on when its POST is abandoned: its requests to the client still
        // reach it through the GET stream.
        if !delivered && is_request {
            self.to_stream(&routes, message);
        }
    }

    fn send_batch(&mut self, route: RouteId, messages: Vec<Message>) {
        let routes = self.routes.lock().expect("lock");
        if self.kind == SessionKind::Sse {
            for m in messages {
                self.to_stream(&routes, m);
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

    /// Not ours: with a shared store, maybe another instance's request.
    fn unmatched(&mut self, response: Response) {
        if let Some(shared) = &self.shared {
            let _ = shared.publish.send((Topic::FromClient, Message::Response(response).to_json()));
        }
    }

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

/// Hands the client's answers to this instance's server→client requests, POSTed to another
/// instance, to the waiting handler; ends with the session.
fn spawn_answers_listener(live: std::sync::Weak<LiveSession>, mut stopped: watch::Receiver<()>) {
    tokio::spawn(async move {
        let Some((store, id)) =
            live.upgrade().and_then(|l| l.shared.as_ref().map(|s| (s.store.clone(), l.id.clone())))
        else {
            return;
        };
        let Ok(Some(mut sub)) = store.subscribe(&id, Topic::FromClient).await else { return };
        loop {
            let m = tokio::select! {
                m = sub.recv() => m,
                _ = stopped.changed() => None,
            };
            let (Some(m), Some(session)) = (m, live.upgrade()) else { return };
            let Ok(Inbound::Single(Message::Response(r))) = crate::jsonrpc::parse(m.as_bytes()) else {
                continue;
            };
            let Some(shared) = &session.shared else { return };
            // Only requests sent from here, each once: an answer nobody here waits for is not
            // handed on again (it would come back as unmatched and be published anew).
            let ours = r.id.as_ref().is_some_and(|id| shared.outstanding.lock().expect("lock").remove(id));
            if ours {
                session.post_quiet(Inbound::Single(Message::Response(r)), Origin::none());
            }
        }
    });
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
        mut conn: ServerConnection,
    ) -> Arc<LiveSession> {
        if st.config.sessions.shared() {
            // 32 random bits above room for 2^24 requests: two instances' ids meet only when
            // their random parts do (2^-32), and the counter cannot overflow.
            let hex = crate::runtime::entropy::random_id();
            conn.number_requests_from(u64::from_str_radix(&hex[..8], 16).expect("hex") << 24);
        }
        let routes = Arc::new(Mutex::new(Routes::default()));
        let records = spawn_writer(st.config.sessions.clone(), id.clone(), st.env.clock.clone());
        let json = st.config.response_mode == ResponseMode::Json;
        let in_flight = Arc::new(AtomicUsize::new(0));
        let store = st.config.sessions.clone();
        let shared = store.shared().then(|| Shared {
            publish: spawn_publisher(store.clone(), id.clone()),
            store,
            outstanding: Arc::default(),
        });
        let out = SessionOut {
            kind,
            json,
            routes: routes.clone(),
            records,
            in_flight: in_flight.clone(),
            shared: shared.clone(),
        };
        let (stop, stopped) = watch::channel(());
        let (driver, handle) = Driver::new(conn, st.env.clone(), out, st.config.shutdown_grace);
        let live = Arc::new(LiveSession {
            id: id.clone(),
            kind,
            driver: handle,
            routes,
            next_route: AtomicU64::new(1),
            in_flight,
            last_used: Mutex::new(st.env.now()),
            shared,
            _stop: stop,
        });
        if live.shared.is_some() {
            spawn_answers_listener(Arc::downgrade(&live), stopped);
        }
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
