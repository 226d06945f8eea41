//! Legacy sessions as records: what an `initialize`-based session is ([`LegacySession`]), the
//! serializable [`SessionRecord`] a [`SessionStore`] keeps, and the in-memory default store.
//!
//! A record holds only what must survive the process that served a message: the negotiated
//! revision, the client's info and capabilities, the log level, resource subscriptions and the
//! ids of server→client requests still awaiting the client's answer. What only one process can
//! hold (open streams, running handlers) stays with that process, so any store that keeps JSON
//! (an in-memory map, Redis) can back sessions shared by several server instances.

use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::protocol::logging::LoggingLevel;
use crate::protocol::{ClientCapabilities, Implementation, ProtocolVersion};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The state of one legacy (`initialize`-based) session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacySession {
    /// The negotiated revision.
    pub version: ProtocolVersion,
    /// What the client declared in `initialize`.
    pub client_capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// `notifications/initialized` has arrived.
    pub initialized: bool,
    /// The level set by `logging/setLevel`; until then every level is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// URIs passed to `resources/subscribe`.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub subscriptions: BTreeSet<String>,
}

/// Which transport a session belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SessionKind {
    /// Streamable HTTP (2025-03-26 and later): the id travels in `Mcp-Session-Id`.
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport: every server message goes down the SSE stream.
    Sse,
}

/// A server→client request still awaiting the client's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutstandingRequest {
    /// Its JSON-RPC id (as sent).
    pub id: String,
    /// Its method.
    pub method: String,
}

/// What a [`SessionStore`] keeps of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The transport.
    pub kind: SessionKind,
    /// The session state, once `initialize` was answered (2024-11-05 sessions exist before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<LegacySession>,
    /// Server→client requests awaiting the client's answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outstanding: Vec<OutstandingRequest>,
}

impl SessionRecord {
    /// A record for a new session of `kind`.
    pub fn new(kind: SessionKind) -> Self {
        SessionRecord { kind, session: None, outstanding: Vec::new() }
    }
}

/// What instances sharing a store tell each other about one session (see
/// [`SessionStore::publish`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// A server→client message produced where the session's server→client stream is not open:
    /// the instance holding that stream sends it.
    ToClient,
    /// A client's response to a server→client request that the instance receiving it did not
    /// send: the instance that sent the request hands it to the waiting handler.
    FromClient,
}

impl Topic {
    /// The name used in channel names.
    pub fn name(self) -> &'static str {
        match self {
            Topic::ToClient => "to-client",
            Topic::FromClient => "from-client",
        }
    }
}

/// Messages published on one topic of one session, from the time of subscribing; dropping it
/// unsubscribes.
pub struct Subscription {
    rx: tokio::sync::mpsc::UnboundedReceiver<String>,
    _guard: Box<dyn Send + Sync>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").finish_non_exhaustive()
    }
}

impl Subscription {
    /// Messages arrive on `rx`; `guard` is dropped (and so unsubscribes) with the subscription.
    pub fn new(rx: tokio::sync::mpsc::UnboundedReceiver<String>, guard: Box<dyn Send + Sync>) -> Self {
        Subscription { rx, _guard: guard }
    }

    /// The next message; `None` when the store closed the subscription.
    pub async fn recv(&mut self) -> Option<String> {
        self.rx.recv().await
    }
}

/// Where legacy sessions live. Every method is async, and a store that cannot answer (its
/// database is down) fails with the JSON-RPC error the client should get (`-32603`; the HTTP
/// server answers 503 then).
pub trait SessionStore: Send + Sync + std::fmt::Debug + 'static {
    /// Stores a new session; `Ok(false)` when the store is full.
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>>;
    /// The session with `id`, unless unknown or expired; loading marks it as used at `now`.
    fn load<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, ErrorData>>;
    /// The kind of session `id`, unless unknown or expired, marking it used at `now`: what
    /// [`SessionStore::load`] tells without the record (asked for a session live in this
    /// process on a store no other instance shares). The default loads the record.
    fn kind<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionKind>, ErrorData>> {
        Box::pin(async move { Ok(self.load(id, now).await?.map(|r| r.kind)) })
    }
    /// Replaces the record of session `id` (a no-op when it is gone).
    fn store<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>>;
    /// Removes session `id`; `Ok(true)` when it existed.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>>;
    /// Marks session `id` as in use at `now` (the server touches sessions with open streams or
    /// calls in flight, so an idle-expiring store never drops a busy session).
    fn touch<'a>(&'a self, id: &'a str, now: SystemTime) -> BoxFuture<'a, Result<(), ErrorData>>;
    /// True when other server instances share this store: the server then reloads a session's
    /// record before each message instead of trusting its own copy.
    fn shared(&self) -> bool {
        false
    }
    /// Sends `message` (one JSON-RPC message) to every instance subscribed to `topic` of
    /// session `id`, this one included. The default store has no other instance: a no-op.
    fn publish<'a>(
        &'a self,
        id: &'a str,
        topic: Topic,
        message: String,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        let _ = (id, topic, message);
        Box::pin(std::future::ready(Ok(())))
    }
    /// What is published on `topic` of session `id` from now on; `None` when the store has no
    /// other instances to hear from (the default).
    fn subscribe<'a>(
        &'a self,
        id: &'a str,
        topic: Topic,
    ) -> BoxFuture<'a, Result<Option<Subscription>, ErrorData>> {
        let _ = (id, topic);
        Box::pin(std::future::ready(Ok(None)))
    }
    /// Appends `message` (one JSON-RPC message for the session's server→client stream) to the
    /// session's replay log and publishes it on [`Topic::ToClient`] as
    /// [`StreamPayload::Event`] with its event id, which it returns. Event ids are
    /// `<u64>-<u64>` and increase within a session (Redis stream ids). With `once` (the id of
    /// the change the message announces), only the first message appended for that id counts:
    /// the others are dropped (`Ok(None)`), so a session live on several instances, each of
    /// which announces the change, hears it once. The default publishes the message without an
    /// id (no log) and returns `None`.
    fn append<'a>(
        &'a self,
        id: &'a str,
        message: String,
        once: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<String>, ErrorData>> {
        let _ = once;
        Box::pin(async move { self.publish(id, Topic::ToClient, message).await.map(|()| None) })
    }
    /// The newest event id of session `id`'s replay log (`0-0` when empty); `None` without a
    /// log (the default).
    fn head<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, ErrorData>> {
        let _ = id;
        Box::pin(std::future::ready(Ok(None)))
    }
    /// The messages of session `id`'s replay log after event `after`, oldest first, with their
    /// event ids (what a stream resumed with `Last-Event-ID` missed); empty without a log.
    fn replay<'a>(
        &'a self,
        id: &'a str,
        after: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, ErrorData>> {
        let _ = (id, after);
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}

/// What travels on [`Topic::ToClient`]: a message for the session's stream (with its event id
/// when the store keeps a replay log), or the news that a stream opened on some instance (the
/// others close theirs: one message goes on one stream only, 2025-11-25 basic/transports,
/// "Multiple Connections").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamPayload<'a> {
    /// One JSON-RPC message.
    Event {
        /// Its event id in the replay log.
        id: Option<&'a str>,
        /// The message (JSON).
        message: &'a str,
    },
    /// A stream opened with this token.
    Opened(&'a str),
}

impl<'a> StreamPayload<'a> {
    /// Reads a payload: `{…}` (a message), `<event id> {…}`, or `!<token>`.
    pub fn parse(text: &'a str) -> Self {
        if let Some(token) = text.strip_prefix('!') {
            return StreamPayload::Opened(token);
        }
        match text.split_once(' ') {
            Some((id, message)) if !text.starts_with('{') => StreamPayload::Event { id: Some(id), message },
            _ => StreamPayload::Event { id: None, message: text },
        }
    }

    /// The wire text of this payload.
    pub fn encode(&self) -> String {
        match self {
            StreamPayload::Event { id: Some(id), message } => format!("{id} {message}"),
            StreamPayload::Event { id: None, message } => (*message).to_owned(),
            StreamPayload::Opened(token) => format!("!{token}"),
        }
    }
}

/// The order of event ids `<u64>-<u64>` (Redis stream ids): `None` when one is not of that form.
pub fn event_order(a: &str, b: &str) -> Option<std::cmp::Ordering> {
    let parse = |s: &str| -> Option<(u64, u64)> {
        let (ms, seq) = s.split_once('-')?;
        Some((ms.parse().ok()?, seq.parse().ok()?))
    };
    Some(parse(a)?.cmp(&parse(b)?))
}

struct Entry {
    record: SessionRecord,
    last_used: SystemTime,
}

/// Sessions in a map, bounded in number; one unused for `idle_timeout` expires, and a full
/// store makes room by evicting the least recently used session idle for at least a minute.
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<String, Entry>>,
    max: usize,
    idle_timeout: Duration,
}

/// The old name of [`MemorySessionStore`].
pub type InMemorySessionStore = MemorySessionStore;

impl std::fmt::Debug for MemorySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemorySessionStore").field("sessions", &self.len()).field("max", &self.max).finish()
    }
}

impl Default for MemorySessionStore {
    fn default() -> Self {
        MemorySessionStore::new(10_000, Duration::from_secs(3600))
    }
}

/// A full store never evicts a session used less than this long ago.
const MIN_IDLE_TO_EVICT: Duration = Duration::from_secs(60);

impl MemorySessionStore {
    /// A store holding at most `max` sessions; one unused for `idle_timeout` expires.
    pub fn new(max: usize, idle_timeout: Duration) -> Self {
        MemorySessionStore { sessions: Mutex::default(), max: max.max(1), idle_timeout }
    }

    /// How many sessions are stored (expired ones included until evicted).
    pub fn len(&self) -> usize {
        self.sessions.lock().expect("lock").len()
    }

    /// True when no session is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn idle(&self, e: &Entry, now: SystemTime) -> Duration {
        now.duration_since(e.last_used).unwrap_or_default()
    }

    fn create_now(&self, id: &str, record: &SessionRecord, now: SystemTime) -> bool {
        let mut map = self.sessions.lock().expect("lock");
        if map.len() >= self.max {
            map.retain(|_, e| now.duration_since(e.last_used).unwrap_or_default() < self.idle_timeout);
        }
        if map.len() >= self.max {
            let lru = map
                .iter()
                .filter(|(_, e)| self.idle(e, now) >= MIN_IDLE_TO_EVICT.min(self.idle_timeout))
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone());
            match lru {
                Some(k) => {
                    map.remove(&k);
                }
                None => return false,
            }
        }
        map.insert(id.to_owned(), Entry { record: record.clone(), last_used: now });
        true
    }

    fn load_now(&self, id: &str, now: SystemTime) -> Option<SessionRecord> {
        self.used(id, now, |r| r.clone())
    }

    /// `read` of session `id`'s record, unless unknown or expired (then forgotten); marks it
    /// as used at `now`.
    fn used<T>(&self, id: &str, now: SystemTime, read: impl FnOnce(&SessionRecord) -> T) -> Option<T> {
        let mut map = self.sessions.lock().expect("lock");
        let expired = map.get(id).is_some_and(|e| self.idle(e, now) >= self.idle_timeout);
        if expired {
            map.remove(id);
            return None;
        }
        let e = map.get_mut(id)?;
        e.last_used = now;
        Some(read(&e.record))
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.create_now(id, record, now))))
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.load_now(id, now))))
    }

    fn kind<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionKind>, ErrorData>> {
        Box::pin(std::future::ready(Ok(self.used(id, now, |r| r.kind))))
    }

    fn store<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        if let Some(e) = self.sessions.lock().expect("lock").get_mut(id) {
            e.record = record.clone();
            e.last_used = now;
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>> {
        let existed = self.sessions.lock().expect("lock").remove(id).is_some();
        Box::pin(std::future::ready(Ok(existed)))
    }

    fn touch<'a>(&'a self, id: &'a str, now: SystemTime) -> BoxFuture<'a, Result<(), ErrorData>> {
        if let Some(e) = self.sessions.lock().expect("lock").get_mut(id) {
            e.last_used = now;
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn at(s: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(s)
    }

    #[test]
    fn records_round_trip_through_json() {
        let mut r = SessionRecord::new(SessionKind::Streamable);
        r.session = Some(LegacySession {
            version: ProtocolVersion::V2025_06_18,
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("c", "1"),
            initialized: true,
            log_level: Some(LoggingLevel::Warning),
            subscriptions: ["file:///a".to_owned()].into(),
        });
        r.outstanding.push(OutstandingRequest { id: "mcpcore-s1".into(), method: "roots/list".into() });
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<SessionRecord>(&text).unwrap(), r);
    }

    #[test]
    fn idle_sessions_expire_and_a_full_store_evicts_the_least_recently_used_idle_one() {
        let s = MemorySessionStore::new(2, Duration::from_secs(600));
        let r = SessionRecord::new(SessionKind::Streamable);
        assert!(s.create_now("a", &r, at(0)));
        assert!(s.create_now("b", &r, at(10)));
        assert!(!s.create_now("c", &r, at(30)), "both used within the last minute");
        assert!(s.load_now("a", at(50)).is_some(), "a is used again: b is now the older");
        assert!(s.create_now("c", &r, at(100)));
        assert!(s.load_now("b", at(100)).is_none(), "b was evicted");
        assert!(s.load_now("a", at(100)).is_some());
        assert!(s.load_now("a", at(800)).is_none(), "expired after 600 s unused");
    }
}
