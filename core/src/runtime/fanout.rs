//! Changes shared with the other instances of a server ([`Fanout`]): what this process's
//! catalogs and tasks announce goes out on a [`ChangeBus`], and what the others announce comes
//! back in as changes heard here, so list changes, resource updates and task changes reach the
//! legacy sessions and `subscriptions/listen` streams of every instance. A process skips its own
//! announcements (it heard them already on its own feeds), so nothing is delivered twice.

use super::tasks::Tasks;
use crate::changes::{Announcement, Change, ChangeBus, ChangeFeed};
use crate::engine::ServerEngine;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// How many of this process's changes wait to be published before the newest are dropped (a
/// bus that cannot keep up loses hints, never memory).
const OUTBOX: usize = 1024;

/// How long to wait before subscribing again when the bus could not be reached.
const RESUBSCRIBE: Duration = Duration::from_secs(1);

/// This process's side of a [`ChangeBus`]: started once per server with [`Fanout::start`],
/// stopped when dropped.
pub struct Fanout {
    bus: Arc<dyn ChangeBus>,
    /// This process's id on the bus.
    origin: String,
    /// Catalog changes other instances made.
    heard: ChangeFeed,
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
            running: OnceLock::new(),
        }
    }

    /// The catalog changes other instances announced (list changes, resource updates; their
    /// task changes go to [`Tasks::remote_changes`]).
    pub fn heard(&self) -> &ChangeFeed {
        &self.heard
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
            let publish = tokio::spawn(publish(self.bus.clone(), self.origin.clone(), rx, subscriptions));
            let listen = tokio::spawn(listen(
                self.bus.clone(),
                self.origin.clone(),
                self.heard.clone(),
                tasks.clone(),
            ));
            Running(vec![publish.abort_handle(), listen.abort_handle()])
        });
    }
}

/// Publishes this process's changes in order, as long as the feeds' subscriptions live.
async fn publish(
    bus: Arc<dyn ChangeBus>,
    origin: String,
    mut rx: mpsc::Receiver<Change>,
    _subscriptions: Vec<crate::changes::Subscription>,
) {
    while let Some(change) = rx.recv().await {
        let announcement = Announcement { origin: origin.clone(), change };
        if let Err(e) = bus.publish(&announcement).await {
            tracing::debug!(target: "mcpcore::server", "a change was not announced to the other instances: {}", e.message);
        }
    }
}

/// Hears the other instances' changes: task changes go to `tasks` (waking waiters, stopping a
/// handler whose task was cancelled elsewhere), the others to `heard`. Subscribes again while
/// the bus cannot be reached.
async fn listen(bus: Arc<dyn ChangeBus>, origin: String, heard: ChangeFeed, tasks: Arc<Tasks>) {
    loop {
        let mut sub = match bus.subscribe().await {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!(target: "mcpcore::server", "cannot hear the other instances' changes yet: {}", e.message);
                tokio::time::sleep(RESUBSCRIBE).await;
                continue;
            }
        };
        while let Some(text) = sub.recv().await {
            let Some(a) = Announcement::parse(&text) else { continue };
            if a.origin == origin {
                continue;
            }
            match a.change {
                Change::Task(id) => tasks.changed_elsewhere(&id).await,
                other => heard.send(other),
            }
        }
    }
}
