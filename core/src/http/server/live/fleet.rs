//! What a legacy session on a shared store does with the other instances: its messages go out
//! in order ([`spawn_publisher`]); its server→client stream, when open here, gets what any
//! instance publishes for it and ends when another stream of the session opens ([`Follow`]);
//! the fleet's changes become its notifications once per change ([`spawn_change_follower`]);
//! and the client's answers to this instance's requests, POSTed elsewhere, reach the waiting
//! handler ([`spawn_answers_listener`]).

use super::super::listen::Connection;
use super::super::replay;
use super::{backlog, LiveSession, NoStream, OpenStream};
use crate::changes::Change;
use crate::context::Origin;
use crate::jsonrpc::{Inbound, Message, RequestId};
use crate::runtime::fanout::Tagged;
use crate::runtime::queue::{QueueRx, QueueTx};
use crate::runtime::Env;
use crate::session::{SessionKind, SessionStore, StreamPayload, Subscription, Topic};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};

/// How a session on a shared store reaches the other instances.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) store: Arc<dyn SessionStore>,
    /// Ordered publishing (one task per session).
    pub(super) publish: mpsc::UnboundedSender<Publish>,
    /// Server→client requests sent from here and not yet answered through the bus.
    pub(super) outstanding: Arc<Mutex<HashSet<RequestId>>>,
}

/// What a session publishes.
pub(super) enum Publish {
    /// A message on a topic as it is.
    Raw(Topic, String),
    /// A message for the GET stream: into the replay log, then to the stream's instance; with
    /// the id of the change it announces, only once per change for the session.
    Append(String, Option<String>),
}

/// Publishes a session's messages in order.
pub(super) fn spawn_publisher(store: Arc<dyn SessionStore>, id: String) -> mpsc::UnboundedSender<Publish> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Publish>();
    tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            let sent = match p {
                Publish::Raw(topic, message) => store.publish(&id, topic, message).await,
                Publish::Append(message, once) => {
                    store.append(&id, message, once.as_deref()).await.map(|_| ())
                }
            };
            if let Err(e) = sent {
                tracing::debug!(target: "mcpcore::http", "session {id}: a message was lost: {}", e.message);
            }
        }
    });
    tx
}

/// Opens `live`'s server→client stream here (see [`LiveSession::open_stream`]): a resumed
/// stream from `resume`, else from the replay log's newest event; `prime` starts it with the
/// priming event.
pub(super) async fn open_stream(
    live: &Arc<LiveSession>,
    shared: &Shared,
    connection: Option<Connection>,
    resume: Option<&str>,
    prime: bool,
) -> Result<QueueRx<String>, NoStream> {
    let ids = live.kind == SessionKind::Streamable;
    if resume.is_none() && live.routes.lock().expect("lock").streaming() {
        return Err(NoStream::Open);
    }
    let store = &shared.store;
    // The cursor first, then the subscription, then what came between: nothing is lost
    // and nothing comes twice.
    let mut cursor = match (resume, ids) {
        (Some(r), _) => Some(r.to_owned()),
        (None, true) => store.head(&live.id).await.map_err(NoStream::Store)?,
        (None, false) => None,
    };
    let sub = store.subscribe(&live.id, Topic::ToClient).await.map_err(NoStream::Store)?;
    let token = crate::runtime::entropy::random_id();
    // Another instance's (or an older) stream of this session ends.
    store
        .publish(&live.id, Topic::ToClient, StreamPayload::Opened(&token).encode())
        .await
        .map_err(NoStream::Store)?;
    let missed = match &cursor {
        Some(c) if ids => store.replay(&live.id, c).await.map_err(NoStream::Store)?,
        _ => Vec::new(),
    };
    let (tx, rx) = backlog(live.backlog, connection);
    let mut first = Vec::new();
    if let (Some(c), true) = (&cursor, prime) {
        first.push(replay::priming(c));
    }
    for (event, message) in missed {
        first.push(replay::event_text(Some(&event), &message));
        cursor = Some(event);
    }
    for event in first {
        let size = event.len();
        let _ = tx.push(event, size);
    }
    live.routes.lock().expect("lock").stream = Some(OpenStream { tx: tx.clone(), token: token.clone() });
    if let Some(sub) = sub {
        let follow = Follow { live: Arc::downgrade(live), tx, token, cursor, ids };
        tokio::spawn(follow.run(sub));
    }
    Ok(rx)
}

/// The server→client stream of a session on a shared store, open on this instance: what any
/// instance publishes for the session goes down it.
struct Follow {
    live: std::sync::Weak<LiveSession>,
    tx: QueueTx<String>,
    token: String,
    /// The last event sent (events up to it came in the replay).
    cursor: Option<String>,
    /// The events carry ids (Streamable HTTP).
    ids: bool,
}

impl Follow {
    async fn run(mut self, mut sub: Subscription) {
        let tx = self.tx.clone();
        loop {
            tokio::select! {
                m = sub.recv() => {
                    let Some(m) = m else { return };
                    if !self.deliver(&m) {
                        return self.end();
                    }
                }
                _ = tx.closed() => return,
            }
        }
    }

    /// Sends one published payload down the stream; false when the stream should end (another
    /// stream of this session opened).
    fn deliver(&mut self, payload: &str) -> bool {
        let (event, message) = match StreamPayload::parse(payload) {
            StreamPayload::Opened(token) => return token == self.token,
            StreamPayload::Event { id, message } => (id, message),
        };
        if !matches!(crate::jsonrpc::parse(message.as_bytes()), Ok(Inbound::Single(_))) {
            return true;
        }
        let text = match event {
            Some(e) if self.ids => {
                if self.cursor.as_deref().is_some_and(|c| !replay::after(e, c)) {
                    return true;
                }
                self.cursor = Some(e.to_owned());
                replay::event_text(Some(e), message)
            }
            _ => replay::event_text(None, message),
        };
        let size = text.len();
        self.tx.push(text, size).is_ok()
    }

    /// Another stream took over: this one ends, and the session forgets it.
    fn end(&self) {
        if let Some(live) = self.live.upgrade() {
            let mut routes = live.routes.lock().expect("lock");
            if routes.stream.as_ref().is_some_and(|s| s.token == self.token) {
                routes.stream = None;
            }
        }
    }
}

/// Turns the fleet's changes into a session's notifications, for a session on a shared store:
/// every instance where the session is live does, and the store keeps the first per change
/// ([`SessionStore::append`] with the change's id), so the client hears each change once,
/// whichever instance made it and whether or not its stream is open (a stream that reconnects
/// gets what it missed from the replay log). A resource update is checked against the stored
/// record (another instance may have changed the subscriptions). Ends with the session.
pub(super) fn spawn_change_follower(
    live: std::sync::Weak<LiveSession>,
    env: Arc<Env>,
    mut stopped: watch::Receiver<()>,
) {
    tokio::spawn(async move {
        // Without a change bus only this process's changes exist: they get ids of their own.
        let (mut tagged, mut local) = match &env.fanout {
            Some(f) => (Some(f.tagged()), None),
            None => (None, Some(env.change_listener())),
        };
        let mut n = 0u64;
        loop {
            let next = tokio::select! {
                t = recv_tagged(&mut tagged) => t,
                c = recv_local(&mut local) => c.map(|change| {
                    n += 1;
                    Tagged { id: format!("local-{n}"), change }
                }),
                _ = stopped.changed() => None,
            };
            let Some(Tagged { id, change }) = next else { return };
            let Some(session) = live.upgrade() else { return };
            if !notify(&env, &session, &id, &change).await {
                return;
            }
        }
    });
}

/// The next tagged change; `None` once the fan-out is gone (a lagging reader skips ahead).
async fn recv_tagged(rx: &mut Option<tokio::sync::broadcast::Receiver<Tagged>>) -> Option<Tagged> {
    let Some(rx) = rx else { return std::future::pending().await };
    loop {
        match rx.recv().await {
            Ok(t) => return Some(t),
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
        }
    }
}

async fn recv_local(rx: &mut Option<crate::runtime::changes::ChangeListener>) -> Option<Change> {
    match rx {
        Some(l) => l.recv().await,
        None => std::future::pending().await,
    }
}

/// Appends the notification `change` owes `session`, if any, once per change id; false once
/// the session is gone from the store.
async fn notify(env: &Env, session: &LiveSession, id: &str, change: &Change) -> bool {
    let Some(shared) = &session.shared else { return false };
    let known = session.state.lock().expect("lock").clone();
    let Some(mut state) = known else { return true };
    if env.engine.legacy_notification(&state, change).is_none() {
        return true;
    }
    if matches!(change, Change::ResourceUpdated(_)) {
        match shared.store.load(&session.id, env.now()).await {
            Ok(Some(record)) => {
                session.restore(&record);
                let Some(fresh) = record.session else { return true };
                state = fresh;
            }
            Ok(None) => return false,
            Err(_) => {}
        }
    }
    if let Some(note) = env.engine.legacy_notification(&state, change) {
        let _ = shared.publish.send(Publish::Append(note.to_json(), Some(id.to_owned())));
    }
    true
}

/// Hands the client's answers to this instance's server→client requests, POSTed to another
/// instance, to the waiting handler; ends with the session.
pub(super) fn spawn_answers_listener(live: std::sync::Weak<LiveSession>, mut stopped: watch::Receiver<()>) {
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
