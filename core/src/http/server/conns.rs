//! The open connections of one listener, oldest first, and which of them are idle, so that a
//! full listener makes room by closing an idle one instead of turning newcomers away (issue 37:
//! under `nofile=1024`, 1,088 connections that sent nothing kept every legitimate client out
//! until their header timeout; the 503 of the cap fell on the newcomers, not on the holders).
//!
//! A connection is *busy* from the moment its request head has arrived until its answer's body
//! is done (an SSE stream stays busy while open); otherwise it is *idle*: it has not sent a
//! complete head yet, or it waits between keep-alive requests. Only idle connections are ever
//! closed to make room, the one opened first (the one that has held its descriptor longest)
//! first. Each entry holds its connection's slot of the cap (a semaphore permit), and closing
//! a connection hands that slot to the newcomer at once: the count of open connections never
//! passes the cap, and no newcomer waits for the closed one's task to end.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, OwnedSemaphorePermit};

/// One connection's entry: how many of its requests are being served, its kill switch, and
/// its slot of the cap.
#[derive(Debug)]
struct Entry {
    busy: Arc<AtomicUsize>,
    kill: Arc<Notify>,
    slot: OwnedSemaphorePermit,
}

/// The open connections, by opening order.
#[derive(Debug, Default)]
pub(crate) struct Conns {
    open: Mutex<BTreeMap<u64, Entry>>,
    next: std::sync::atomic::AtomicU64,
}

/// A registered connection: its requests mark it busy; dropping it unregisters it.
#[derive(Debug)]
pub(crate) struct Registered {
    conns: Arc<Conns>,
    id: u64,
    /// Requests of this connection being served.
    pub(crate) busy: Arc<AtomicUsize>,
    /// Notified to close the connection.
    pub(crate) kill: Arc<Notify>,
}

impl Conns {
    /// Registers a new connection holding `slot` (idle until its first request head arrives).
    pub(crate) fn register(self: &Arc<Self>, slot: OwnedSemaphorePermit) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let busy = Arc::new(AtomicUsize::new(0));
        let kill = Arc::new(Notify::new());
        self.open.lock().expect("lock").insert(id, Entry { busy: busy.clone(), kill: kill.clone(), slot });
        Registered { conns: self.clone(), id, busy, kill }
    }

    /// Closes the oldest idle connection and returns its slot; `None` when every open
    /// connection is busy. The connection is unregistered at once; its task sees the kill and
    /// drops the socket moments later.
    pub(crate) fn close_oldest_idle(&self) -> Option<OwnedSemaphorePermit> {
        let mut open = self.open.lock().expect("lock");
        let id = open.iter().find(|(_, e)| e.busy.load(Ordering::Acquire) == 0).map(|(id, _)| *id)?;
        let entry = open.remove(&id).expect("found above");
        entry.kill.notify_one();
        Some(entry.slot)
    }

    /// How many connections are registered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.lock().expect("lock").len()
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.conns.open.lock().expect("lock").remove(&self.id);
    }
}

/// Marks a connection busy while held (from a request's head to the end of its answer).
#[derive(Debug)]
pub(crate) struct Busy(Arc<AtomicUsize>);

impl Busy {
    /// One more request of the connection counted by `busy` is being served.
    pub(crate) fn new(busy: &Arc<AtomicUsize>) -> Busy {
        busy.fetch_add(1, Ordering::AcqRel);
        Busy(busy.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_connection_is_closed_first_and_busy_ones_never() {
        let cap = Arc::new(tokio::sync::Semaphore::new(3));
        let conns = Arc::new(Conns::default());
        let slot = || cap.clone().try_acquire_owned().unwrap();
        let (a, b, c) = (conns.register(slot()), conns.register(slot()), conns.register(slot()));
        assert_eq!(cap.available_permits(), 0);
        let busy_a = Busy::new(&a.busy);
        let handed = conns.close_oldest_idle().expect("b is idle");
        assert_eq!(cap.available_permits(), 0, "b's slot is handed over, not freed");
        drop(handed);
        assert_eq!(cap.available_permits(), 1);
        // b (the oldest idle one) was told to close; a (busy) and c were not.
        assert!(futures_util::FutureExt::now_or_never(b.kill.notified()).is_some());
        assert!(futures_util::FutureExt::now_or_never(a.kill.notified()).is_none());
        assert_eq!(conns.len(), 2);
        assert!(conns.close_oldest_idle().is_some()); // c
        assert!(conns.close_oldest_idle().is_none(), "only a is left, and it is busy");
        drop(busy_a);
        assert!(conns.close_oldest_idle().is_some());
        drop((a, b, c));
        assert_eq!(conns.len(), 0);
        assert_eq!(cap.available_permits(), 3);
    }
}
