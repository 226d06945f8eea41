//! Change notifications from the registries: list changes, resource updates and task changes,
//! fanned out to every connection that listens (legacy sessions, `subscriptions/listen` streams).

use tokio::sync::broadcast;

/// Something that changed in what a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A tool was added or removed.
    ToolsListChanged,
    /// A prompt was added or removed.
    PromptsListChanged,
    /// A resource or template was added or removed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(String),
    /// The task with this id changed (Tasks extension; see [`crate::tasks::Tasks::changes`]).
    Task(String),
}

/// The sending side of a registry's changes; cheap to clone.
#[derive(Debug, Clone)]
pub struct ChangeFeed(broadcast::Sender<Change>);

impl Default for ChangeFeed {
    fn default() -> Self {
        ChangeFeed(broadcast::channel(256).0)
    }
}

impl ChangeFeed {
    /// Announces `change` to every current listener (none listening is fine).
    pub fn send(&self, change: Change) {
        let _ = self.0.send(change);
    }

    /// A new listener, seeing changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.0.subscribe()
    }
}

/// Listens to several feeds at once.
#[derive(Debug)]
pub struct ChangeListener {
    receivers: Vec<broadcast::Receiver<Change>>,
}

impl ChangeListener {
    /// Listens to `feeds`.
    pub fn new<'a>(feeds: impl IntoIterator<Item = &'a ChangeFeed>) -> Self {
        ChangeListener { receivers: feeds.into_iter().map(ChangeFeed::subscribe).collect() }
    }

    /// The next change from any feed; `None` once every feed is gone. A listener that fell
    /// behind skips what it missed, then goes on.
    pub async fn recv(&mut self) -> Option<Change> {
        loop {
            if self.receivers.is_empty() {
                return None;
            }
            let futures = self.receivers.iter_mut().map(|rx| Box::pin(rx.recv()));
            let (out, index, _) = futures_util::future::select_all(futures).await;
            match out {
                Ok(change) => return Some(change),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => {
                    self.receivers.remove(index);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listener_hears_every_feed_and_ends_when_they_are_gone() {
        let (a, b) = (ChangeFeed::default(), ChangeFeed::default());
        let mut l = ChangeListener::new([&a, &b]);
        b.send(Change::PromptsListChanged);
        assert_eq!(l.recv().await, Some(Change::PromptsListChanged));
        a.send(Change::ResourceUpdated("x://1".into()));
        assert_eq!(l.recv().await, Some(Change::ResourceUpdated("x://1".into())));
        drop((a, b));
        assert_eq!(l.recv().await, None);
    }
}
