//! A queue to one consumer that may read slowly (an HTTP response streaming server→client
//! messages), bounded in bytes: producers never wait (the driver loop and handlers push
//! synchronously), the consumer takes items at the pace its socket drains, and once more than
//! the bound waits the queue overflows: what waited is dropped at once (its memory freed), the
//! consumer sees the end, and `on_overflow` runs (the HTTP server closes the connection). One
//! item larger than the bound is still taken when nothing waits before it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Called once when a queue overflows.
pub(crate) type OnOverflow = Box<dyn FnOnce() + Send>;

struct State<T> {
    items: VecDeque<(T, usize)>,
    bytes: usize,
    senders: usize,
    receiver: bool,
    overflowed: bool,
    on_overflow: Option<OnOverflow>,
}

struct Shared<T> {
    limit: usize,
    state: Mutex<State<T>>,
    /// Wakes the consumer (an item, the last sender gone, an overflow).
    ready: Notify,
    /// Wakes producers waiting in [`QueueTx::closed`].
    gone: Notify,
}

/// Why [`QueueTx::push`] did not queue an item.
#[derive(Debug)]
pub(crate) enum Refused<T> {
    /// The consumer is gone (or the queue overflowed before): the item is handed back.
    Closed(T),
    /// This item overflowed the queue: it and everything waiting were dropped.
    Overflow,
}

/// The producing side; clones share the queue.
pub(crate) struct QueueTx<T> {
    shared: Arc<Shared<T>>,
}

/// The consuming side.
pub(crate) struct QueueRx<T> {
    shared: Arc<Shared<T>>,
}

/// A queue holding at most `limit` bytes (as the producers count them); `on_overflow` runs
/// when a push would pass it.
pub(crate) fn bounded<T>(limit: usize, on_overflow: Option<OnOverflow>) -> (QueueTx<T>, QueueRx<T>) {
    let shared = Arc::new(Shared {
        limit,
        state: Mutex::new(State {
            items: VecDeque::new(),
            bytes: 0,
            senders: 1,
            receiver: true,
            overflowed: false,
            on_overflow,
        }),
        ready: Notify::new(),
        gone: Notify::new(),
    });
    (QueueTx { shared: shared.clone() }, QueueRx { shared })
}

impl<T> QueueTx<T> {
    /// Queues `item` of `size` bytes, unless the consumer is gone or it would pass the bound
    /// (then the queue overflows: see the module docs).
    pub(crate) fn push(&self, item: T, size: usize) -> Result<(), Refused<T>> {
        let overflow = {
            let mut st = self.shared.state.lock().expect("lock");
            if !st.receiver || st.overflowed {
                return Err(Refused::Closed(item));
            }
            if st.bytes > 0 && st.bytes.saturating_add(size) > self.shared.limit {
                st.overflowed = true;
                st.items.clear();
                st.bytes = 0;
                st.on_overflow.take()
            } else {
                st.bytes += size;
                st.items.push_back((item, size));
                drop(st);
                self.shared.ready.notify_one();
                return Ok(());
            }
        };
        self.shared.ready.notify_one();
        self.shared.gone.notify_waiters();
        if let Some(f) = overflow {
            f();
        }
        Err(Refused::Overflow)
    }

    /// True once nothing more will be taken: the consumer is gone or the queue overflowed.
    pub(crate) fn is_closed(&self) -> bool {
        let st = self.shared.state.lock().expect("lock");
        !st.receiver || st.overflowed
    }

    /// Completes once [`QueueTx::is_closed`] holds.
    pub(crate) async fn closed(&self) {
        loop {
            let gone = self.shared.gone.notified();
            let mut gone = std::pin::pin!(gone);
            gone.as_mut().enable();
            if self.is_closed() {
                return;
            }
            gone.await;
        }
    }
}

impl<T> Clone for QueueTx<T> {
    fn clone(&self) -> Self {
        self.shared.state.lock().expect("lock").senders += 1;
        QueueTx { shared: self.shared.clone() }
    }
}

impl<T> Drop for QueueTx<T> {
    fn drop(&mut self) {
        let last = {
            let mut st = self.shared.state.lock().expect("lock");
            st.senders -= 1;
            st.senders == 0
        };
        if last {
            self.shared.ready.notify_one();
        }
    }
}

impl<T> QueueRx<T> {
    /// The next item; `None` once every producer is gone and the queue is empty, or it
    /// overflowed.
    pub(crate) async fn recv(&mut self) -> Option<T> {
        loop {
            {
                let mut st = self.shared.state.lock().expect("lock");
                if st.overflowed {
                    return None;
                }
                if let Some((item, size)) = st.items.pop_front() {
                    st.bytes -= size;
                    return Some(item);
                }
                if st.senders == 0 {
                    return None;
                }
            }
            // One consumer: a wake-up sent before we wait is kept as a permit.
            self.shared.ready.notified().await;
        }
    }

    /// True once the queue overflowed (its reader fell too far behind).
    pub(crate) fn overflowed(&self) -> bool {
        self.shared.state.lock().expect("lock").overflowed
    }

    /// The next item if one waits.
    pub(crate) fn try_recv(&mut self) -> Option<T> {
        let mut st = self.shared.state.lock().expect("lock");
        if st.overflowed {
            return None;
        }
        let (item, size) = st.items.pop_front()?;
        st.bytes -= size;
        Some(item)
    }

    /// Stops taking items: producers see the queue closed, what waits is dropped.
    pub(crate) fn close(&mut self) {
        {
            let mut st = self.shared.state.lock().expect("lock");
            st.receiver = false;
            st.items.clear();
            st.bytes = 0;
        }
        self.shared.gone.notify_waiters();
    }
}

impl<T> Drop for QueueRx<T> {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test]
    async fn items_flow_until_the_producers_go() {
        let (tx, mut rx) = bounded::<u32>(10, None);
        tx.push(1, 4).unwrap();
        let tx2 = tx.clone();
        tx2.push(2, 4).unwrap();
        assert_eq!(rx.recv().await, Some(1));
        drop(tx);
        assert_eq!(rx.recv().await, Some(2));
        drop(tx2);
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn passing_the_bound_drops_everything_and_runs_the_hook() {
        let hit = Arc::new(AtomicBool::new(false));
        let h = hit.clone();
        let (tx, mut rx) = bounded::<u32>(10, Some(Box::new(move || h.store(true, Ordering::SeqCst))));
        tx.push(1, 100).expect("one large item goes when nothing waits");
        assert_eq!(rx.try_recv(), Some(1));
        tx.push(2, 6).unwrap();
        tx.push(3, 4).unwrap();
        assert!(!hit.load(Ordering::SeqCst));
        assert!(matches!(tx.push(4, 1), Err(Refused::Overflow)));
        assert!(hit.load(Ordering::SeqCst));
        assert!(tx.is_closed());
        tx.closed().await;
        assert_eq!(rx.recv().await, None, "what waited was dropped");
        assert!(matches!(tx.push(5, 1), Err(Refused::Closed(5))));
    }

    #[tokio::test]
    async fn a_dropped_consumer_closes_the_queue() {
        let (tx, rx) = bounded::<u32>(10, None);
        let waiter = tokio::spawn({
            let tx = tx.clone();
            async move { tx.closed().await }
        });
        drop(rx);
        waiter.await.unwrap();
        assert!(matches!(tx.push(1, 1), Err(Refused::Closed(1))));
    }
}
