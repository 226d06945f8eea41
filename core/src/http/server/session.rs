//! Legacy sessions: Streamable HTTP (`Mcp-Session-Id`) and 2024-11-05 SSE (`?sessionId=`).
//!
//! Modern requests are stateless and never touch a session.

use crate::engine::Connection;
use crate::input::PeerRequests;
use crate::jsonrpc::{Message, RequestId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// Which transport a session belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// Streamable HTTP (2025-03-26 and later): the id travels in `Mcp-Session-Id`.
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport: every server message goes down the SSE stream.
    Sse,
}

/// One legacy session: the engine's connection state plus its in-flight calls and stream.
pub struct Session {
    id: String,
    kind: SessionKind,
    pub(crate) conn: Mutex<Connection>,
    pub(crate) inflight: Mutex<HashMap<RequestId, AbortHandle>>,
    /// The server→client stream: the standalone GET stream, or the 2024-11-05 SSE stream.
    pub(crate) stream: Mutex<Option<mpsc::UnboundedSender<Message>>>,
    /// Requests sent to the client, awaiting its answers (POSTed back).
    pub(crate) peers: Arc<PeerRequests>,
    last_seen: Mutex<Instant>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("kind", &self.kind).finish_non_exhaustive()
    }
}

impl Session {
    /// A fresh session with a new unguessable id.
    pub fn new(kind: SessionKind) -> Arc<Session> {
        Arc::new(Session {
            id: new_session_id(),
            kind,
            conn: Mutex::new(Connection::new()),
            inflight: Mutex::default(),
            stream: Mutex::default(),
            peers: PeerRequests::new(),
            last_seen: Mutex::new(Instant::now()),
        })
    }

    /// The session id (visible ASCII, 32 hex digits).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The transport it belongs to.
    pub fn kind(&self) -> SessionKind {
        self.kind
    }

    /// Marks the session as used now.
    pub fn touch(&self) {
        *self.last_seen.lock().expect("lock") = Instant::now();
    }

    /// How long since the session was last used.
    pub fn idle(&self) -> Duration {
        self.last_seen.lock().expect("lock").elapsed()
    }

    /// Sends a message down the session's server→client stream; false when none is open.
    pub(crate) fn push(&self, msg: Message) -> bool {
        match &*self.stream.lock().expect("lock") {
            Some(tx) => tx.send(msg).is_ok(),
            None => false,
        }
    }

    /// Ends the session: aborts its in-flight calls and closes its stream.
    pub(crate) fn close(&self) {
        for (_, h) in self.inflight.lock().expect("lock").drain() {
            h.abort();
        }
        self.stream.lock().expect("lock").take();
    }
}

/// Sends `session` the change notifications it is owed (list changes, updates of subscribed
/// resources) down its server→client stream, until that stream closes or the server stops.
pub(crate) fn forward_changes(st: &Arc<super::State>, session: &Arc<Session>) {
    let Some(tx) = session.stream.lock().expect("lock").clone() else { return };
    let (st, session) = (st.clone(), session.clone());
    let mut changes = st.engine.change_listener();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                change = changes.recv() => {
                    let Some(change) = change else { break };
                    let note = st.engine.legacy_notification(&session.conn.lock().expect("lock"), &change);
                    if let Some(note) = note {
                        if tx.send(note).is_err() {
                            break;
                        }
                    }
                }
                _ = tx.closed() => break,
                _ = st.shutting_down() => break,
            }
        }
    });
}

/// Where sessions live. The default is [`InMemorySessionStore`].
pub trait SessionStore: Send + Sync + fmt::Debug {
    /// Stores a new session; `false` when the store is full.
    fn insert(&self, session: Arc<Session>) -> bool;
    /// The live session with `id`.
    fn get(&self, id: &str) -> Option<Arc<Session>>;
    /// Removes and returns the session with `id`.
    fn remove(&self, id: &str) -> Option<Arc<Session>>;
    /// How many sessions are stored.
    fn len(&self) -> usize;
    /// True when no session is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Sessions in a map, bounded in number; idle ones expire.
#[derive(Debug)]
pub struct InMemorySessionStore {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    max: usize,
    idle_timeout: Duration,
}

impl Default for InMemorySessionStore {
    fn default() -> Self {
        InMemorySessionStore::new(10_000, Duration::from_secs(3600))
    }
}

impl InMemorySessionStore {
    /// A store holding at most `max` sessions; one unused for `idle_timeout` expires.
    pub fn new(max: usize, idle_timeout: Duration) -> Self {
        InMemorySessionStore { sessions: Mutex::default(), max, idle_timeout }
    }
}

impl SessionStore for InMemorySessionStore {
    fn insert(&self, session: Arc<Session>) -> bool {
        let mut map = self.sessions.lock().expect("lock");
        if map.len() >= self.max {
            // Expire idle sessions, but never one with an open stream or calls in flight.
            map.retain(|_, s| {
                // A stream whose client went away leaves a closed sender behind: not busy.
                let open = s.stream.lock().expect("lock").as_ref().is_some_and(|tx| !tx.is_closed());
                let busy = open || !s.inflight.lock().expect("lock").is_empty();
                let keep = busy || s.idle() < self.idle_timeout;
                if !keep {
                    s.close();
                }
                keep
            });
            if map.len() >= self.max {
                return false;
            }
        }
        map.insert(session.id().to_owned(), session);
        true
    }

    fn get(&self, id: &str) -> Option<Arc<Session>> {
        let map = self.sessions.lock().expect("lock");
        let s = map.get(id)?.clone();
        s.touch();
        Some(s)
    }

    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions.lock().expect("lock").remove(id)
    }

    fn len(&self) -> usize {
        self.sessions.lock().expect("lock").len()
    }
}

/// 128 random bits as 32 lowercase hex digits.
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
