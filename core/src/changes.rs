//! Change announcements from the catalogs: list changes, resource updates and task changes.
//!
//! Pure bookkeeping: a [`ChangeFeed`] calls its subscribers synchronously with each
//! [`Change`]; it holds no channel and spawns nothing. The runtime turns subscriptions into
//! bounded async listeners ([`crate::runtime::changes::ChangeListener`]) that fan changes out
//! to legacy sessions and `subscriptions/listen` streams.

use crate::error::ErrorData;
use crate::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, Weak};

/// Something that changed in what a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "camelCase")]
pub enum Change {
    /// A tool was added or removed.
    ToolsListChanged,
    /// A prompt was added or removed.
    PromptsListChanged,
    /// A resource or template was added or removed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(String),
    /// The task with this id changed (Tasks extension).
    Task(String),
    /// An occurrence of the event type with this name was emitted, or the type was removed
    /// (Events extension): its streams and webhook subscriptions wake.
    Event(String),
    /// An event type was added, removed or its descriptor changed (Events extension,
    /// SEP-3415 §Dynamic event types: `notifications/events/list_changed`).
    EventsListChanged,
}

type Subscriber = Arc<dyn Fn(&Change) + Send + Sync>;

#[derive(Default)]
struct Subscribers {
    next: u64,
    list: Vec<(u64, Subscriber)>,
}

/// Announces changes to whoever subscribed; cheap to clone (clones share subscribers).
#[derive(Clone, Default)]
pub struct ChangeFeed {
    inner: Arc<Mutex<Subscribers>>,
}

impl std::fmt::Debug for ChangeFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.inner.lock().map(|s| s.list.len()).unwrap_or(0);
        f.debug_struct("ChangeFeed").field("subscribers", &n).finish()
    }
}

impl ChangeFeed {
    /// Announces `change` to every current subscriber (none is fine). Subscribers run on the
    /// caller's thread and must be quick (the runtime's only push into a bounded queue).
    pub fn send(&self, change: Change) {
        let subscribers: Vec<Subscriber> = {
            let s = self.inner.lock().expect("change feed lock");
            if s.list.is_empty() {
                return;
            }
            s.list.iter().map(|(_, f)| f.clone()).collect()
        };
        for f in subscribers {
            f(&change);
        }
    }

    /// Calls `f` with every change from now on, until the returned [`Subscription`] is dropped.
    pub fn subscribe(&self, f: impl Fn(&Change) + Send + Sync + 'static) -> Subscription {
        let mut s = self.inner.lock().expect("change feed lock");
        s.next += 1;
        let id = s.next;
        s.list.push((id, Arc::new(f)));
        Subscription { feed: Arc::downgrade(&self.inner), id }
    }

    /// Number of current subscribers.
    pub fn subscribers(&self) -> usize {
        self.inner.lock().map(|s| s.list.len()).unwrap_or(0)
    }
}

/// A subscription to a [`ChangeFeed`]; dropping it unsubscribes.
pub struct Subscription {
    feed: Weak<Mutex<Subscribers>>,
    id: u64,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").field("id", &self.id).finish()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(feed) = self.feed.upgrade() {
            if let Ok(mut s) = feed.lock() {
                s.list.retain(|(id, _)| *id != self.id);
            }
        }
    }
}

/// One change as announced between server instances: which instance made it, its number there,
/// and the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announcement {
    /// The instance that made the change (a random id per process).
    pub origin: String,
    /// The change's number on that instance (from 1).
    pub seq: u64,
    /// The change.
    pub change: Change,
}

impl Announcement {
    /// The change's id in the fleet: `<origin>-<seq>`.
    pub fn id(&self) -> String {
        format!("{}-{}", self.origin, self.seq)
    }

    /// The wire text (JSON).
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("an announcement serializes")
    }

    /// Reads the wire text; `None` when it is not an announcement.
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

/// Changes shared by several server instances (one database, one channel), so that a list
/// change, a resource update or a task change made on one instance reaches the legacy
/// sessions and `subscriptions/listen` streams of every instance. The runtime publishes its
/// own changes and hands the others' to its listeners
/// ([`crate::runtime::fanout::Fanout`]); a store that cannot answer fails with `-32603`.
pub trait ChangeBus: Send + Sync + std::fmt::Debug + 'static {
    /// Announces `announcement` to every instance (the sender hears it too).
    fn publish<'a>(&'a self, announcement: &'a Announcement) -> BoxFuture<'a, Result<(), ErrorData>>;
    /// Every announcement from now on, as [`Announcement::encode`]d text.
    fn subscribe(&self) -> BoxFuture<'_, Result<crate::session::Subscription, ErrorData>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribers_hear_changes_until_they_unsubscribe() {
        let feed = ChangeFeed::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sub = {
            let seen = seen.clone();
            feed.subscribe(move |c| seen.lock().unwrap().push(c.clone()))
        };
        feed.send(Change::ToolsListChanged);
        feed.clone().send(Change::ResourceUpdated("x://1".into()));
        assert_eq!(feed.subscribers(), 1);
        drop(sub);
        feed.send(Change::PromptsListChanged);
        assert_eq!(feed.subscribers(), 0);
        assert_eq!(
            *seen.lock().unwrap(),
            [Change::ToolsListChanged, Change::ResourceUpdated("x://1".into())]
        );
    }

    #[test]
    fn announcements_round_trip_as_json() {
        for change in
            [Change::ToolsListChanged, Change::ResourceUpdated("x://1".into()), Change::Task("t".into())]
        {
            let a = Announcement { origin: "i1".into(), seq: 3, change };
            assert_eq!(Announcement::parse(&a.encode()), Some(a));
        }
        let a = Announcement { origin: "i".into(), seq: 1, change: Change::PromptsListChanged };
        assert_eq!(a.encode(), r#"{"origin":"i","seq":1,"change":{"kind":"promptsListChanged"}}"#);
        assert_eq!(a.id(), "i-1");
        assert_eq!(Announcement::parse("{}"), None);
    }
}
