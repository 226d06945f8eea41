//! Async listeners on the catalogs' [`ChangeFeed`]s: what fans list changes, resource updates
//! and task changes out to legacy sessions and `subscriptions/listen` streams.

use crate::changes::{Change, ChangeFeed, Subscription};
use tokio::sync::mpsc;

/// How many changes a listener holds before it starts dropping (a slow stream loses changes,
/// never memory; list changes are idempotent hints).
pub const LISTENER_CAPACITY: usize = 256;

/// Listens to several feeds at once, through one bounded queue.
#[derive(Debug)]
pub struct ChangeListener {
    rx: mpsc::Receiver<Change>,
    _subscriptions: Vec<Subscription>,
}

impl ChangeListener {
    /// Listens to `feeds` from now on.
    pub fn new<'a>(feeds: impl IntoIterator<Item = &'a ChangeFeed>) -> Self {
        let (tx, rx) = mpsc::channel(LISTENER_CAPACITY);
        let subscriptions = feeds
            .into_iter()
            .map(|feed| {
                let tx = tx.clone();
                feed.subscribe(move |c| {
                    let _ = tx.try_send(c.clone());
                })
            })
            .collect();
        ChangeListener { rx, _subscriptions: subscriptions }
    }

    /// The next change from any feed. A listener that fell behind has skipped what did not fit.
    /// Never ends while the listener lives (the subscriptions keep the queue open).
    pub async fn recv(&mut self) -> Option<Change> {
        self.rx.recv().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listener_hears_every_feed() {
        let (a, b) = (ChangeFeed::default(), ChangeFeed::default());
        let mut l = ChangeListener::new([&a, &b]);
        b.send(Change::PromptsListChanged);
        assert_eq!(l.recv().await, Some(Change::PromptsListChanged));
        a.send(Change::ResourceUpdated("x://1".into()));
        assert_eq!(l.recv().await, Some(Change::ResourceUpdated("x://1".into())));
        drop(l);
        assert_eq!(a.subscribers(), 0, "dropping the listener unsubscribes");
    }

    #[tokio::test]
    async fn a_slow_listener_drops_changes_not_memory() {
        let feed = ChangeFeed::default();
        let mut l = ChangeListener::new([&feed]);
        for i in 0..LISTENER_CAPACITY + 10 {
            feed.send(Change::ResourceUpdated(format!("x://{i}")));
        }
        let mut n = 0;
        while let Ok(Some(_)) = tokio::time::timeout(std::time::Duration::from_millis(10), l.recv()).await {
            n += 1;
        }
        assert_eq!(n, LISTENER_CAPACITY);
    }
}
