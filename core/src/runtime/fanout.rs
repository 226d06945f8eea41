//! Changes shared with the other instances of a server ([`Fanout`]): what this process's
//! catalogs and tasks announce goes out on a [`ChangeBus`], and what the others announce comes
//! back in as changes heard here, so list changes, resource updates and task changes reach the
//! legacy sessions and `subscriptions/listen` streams of every instance. A process skips its own
//! announcements (it heard them already on its own feeds), so nothing is delivered twice.
//!
//! Every change, this process's and the others', also goes out once on [`Fanout::tagged`] with
//! an id that is the same on every instance (`<origin>-<seq>`): a legacy session live on
//! several instances is notified by each of them, and the store keeps the first notification
//! per change id only.

use super::tasks::Tasks;
use crate::changes::{Announcement, Change, ChangeBus, ChangeFeed};
use crate::engine::ServerEngine;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio::task::AbortHandle;

/// How many of this process's changes wait to be published before the newest are dropped (a
/// bus that cannot keep up loses hints, never memory); also how many tagged changes a slow
/// reader of [`Fanout::tagged`] may fall behind.
const OUTBOX: usize = 1024;

/// How long to wait before subscribing again when the bus could not be reached.
const RESUBSCRIBE: Duration = Duration::from_secs(1);

/// A change with its id in the fleet (the same on every instance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagged {
    /// `<origin>-<seq>` ([`Announcement::id`]).
    pub id: String,
    /// The change.
    pub change: Change,
}

/// This process's side of a [`ChangeBus`]: started once per server with [`Fanout::start`],
/// stopped when dropped.
pub struct Fanout {
    bus: Arc<dyn ChangeBus>,
    /// This process's id on the bus.
    origin: String,
    /// Catalog changes other instances made.
    heard: ChangeFeed,
    /// Every change, with its id.
    tagged: broadcast::Sender<Tagged>,
    running: OnceLock<Running>,
}

impl std::fmt::Debug for Fanout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fanout").field("bus", &self.bus).field("origin", &self.origin).finish_non_exhaustive()
    }
}

/// The publishing and listening tasks, aborted with the fan-out.
struct Running(Vec<AbortHandle>);

impl Drop for Running {
    fn drop(&mut self) {
        for h in &self.0 {
            h.abort();
        }
    }
}

impl Fanout {
    /// A fan-out over `bus`, not started yet.
    pub fn new(bus: Arc<dyn ChangeBus>) -> Self {
        Fanout {
            bus,
            origin: super::entropy::random_id(),
            heard: ChangeFeed::default(),
            tagged: broadcast::channel(OUTBOX).0,
            running: OnceLock::new(),
        }
    }

    /// The catalog changes other instances announced (list changes, resource updates; their
    /// task changes go to [`Tasks::remote_changes`]).
    pub fn heard(&self) -> &ChangeFeed {
        &self.heard
    }

    /// Every change from now on, this process's and the others', each once, with its fleet id.
    /// A reader that falls [`OUTBOX`] changes behind misses the oldest.
    pub fn tagged(&self) -> broadcast::Receiver<Tagged> {
        self.tagged.subscribe()
    }

    /// This process's id on the bus.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// True once started.
    pub fn started(&self) -> bool {
        self.running.get().is_some()
    }

    /// Starts publishing the changes of `engine`'s catalogs and of `tasks`, and hearing the
    /// other instances'; later calls do nothing. Needs a tokio runtime.
    pub fn start(&self, engine: &ServerEngine, tasks: &Arc<Tasks>) {
        if self.started() {
            return;
        }
        let _ = self.running.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Change>(OUTBOX);
            let mut feeds = engine.feeds();
            feeds.push(tasks.changes());
            let subscriptions: Vec<_> = feeds
                .into_iter()
                .map(|feed| {
                    let tx = tx.clone();
                    feed.subscribe(move |c| {
                        let _ = tx.try_send(c.clone());
                    })
                })
                .collect();
            let out =
                Outbox { bus: self.bus.clone(), origin: self.origin.clone(), tagged: self.tagged.clone() };
            let publish = tokio::spawn(out.run(rx, subscriptions));
            let inbox = Inbox {
                bus: self.bus.clone(),
                origin: self.origin.clone(),
                heard: self.heard.clone(),
                tagged: self.tagged.clone(),
                tasks: tasks.clone(),
            };
            let listen = tokio::spawn(inbox.run());
            Running(vec![publish.abort_handle(), listen.abort_handle()])
        });
    }
}

/// Publishes this process's changes in order.
struct Outbox {
    bus: Arc<dyn ChangeBus>,
    origin: String,
    tagged: broadcast::Sender<Tagged>,
}

impl Outbox {
    /// Runs as long as the feeds' subscriptions live.
    async fn run(self, mut rx: mpsc::Receiver<Change>, _subscriptions: Vec<crate::changes::Subscription>) {
        let mut seq = 0u64;
        while let Some(change) = rx.recv().await {
            seq += 1;
            let announcement = Announcement { origin: self.origin.clone(), seq, change };
            let _ = self.tagged.send(Tagged { id: announcement.id(), change: announcement.change.clone() });
            if let Err(e) = self.bus.publish(&announcement).await {
                tracing::debug!(target: "mcpcore::server", "a change was not announced to the other instances: {}", e.message);
            }
        }
    }
}

/// Hears the other instances' changes.
struct Inbox {
    bus: Arc<dyn ChangeBus>,
    origin: String,
    heard: ChangeFeed,
    tagged: broadcast::Sender<Tagged>,
    tasks: Arc<Tasks>,
}

impl Inbox {
    /// Task changes go to `tasks` (waking waiters, stopping a handler whose task was cancelled
    /// elsewhere), the others to `heard`; every one to `tagged`. Subscribes again while the bus
    /// cannot be reached.
    async fn run(self) {
        loop {
            let mut sub = match self.bus.subscribe().await {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(target: "mcpcore::server", "cannot hear the other instances' changes yet: {}", e.message);
                    tokio::time::sleep(RESUBSCRIBE).await;
                    continue;
                }
            };
            while let Some(text) = sub.recv().await {
                let Some(a) = Announcement::parse(&text) else { continue };
                if a.origin == self.origin {
                    continue;
                }
                let _ = self.tagged.send(Tagged { id: a.id(), change: a.change.clone() });
                match a.change {
                    Change::Task(id) => self.tasks.changed_elsewhere(&id).await,
                    other => self.heard.send(other),
                }
            }
        }
    }
}
