//! Forwarded calls on a legacy remote waiting for a 2026-07-28 caller's next MRTR round.
//!
//! When a legacy remote asks for input during a call whose caller speaks 2026-07-28, the
//! caller gets an `input_required` result and will retry later with the answers
//! (2026-07-28 basic/patterns/mrtr). The remote's request meanwhile stays open: the call is
//! parked here under a random ticket, which travels in the gateway's own sealed
//! `requestState` (so it cannot be forged, and the engine binds it to the request's method,
//! target and arguments). The retry takes the call back by its ticket and feeds the answers
//! to the still-waiting remote request. A ticket is taken once; a retry that finds none (it
//! went to another instance, or the call expired) runs the call afresh, and the answers of
//! earlier rounds, kept in the sealed state under the same keys, are replayed to the remote.
//!
//! A parked call is dropped (its remote request cancelled) after [`PARK_TTL`], the lifetime
//! of the `requestState` that names it by default, or when more than [`PARK_MAX`] calls are
//! parked on one remote (the oldest goes first).

use crate::runtime::entropy;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a call stays parked (the engine's default `input_state_ttl`).
pub(crate) const PARK_TTL: Duration = Duration::from_secs(600);

/// How many calls one remote may have parked at once.
pub(crate) const PARK_MAX: usize = 1024;

/// The parked calls of one remote, by ticket (`C`: the bridge's `LegacyCall`; dropping one
/// cancels its remote request).
pub(crate) struct Parked<C> {
    calls: Mutex<HashMap<String, (u64, C)>>,
    next: AtomicU64,
}

impl<C> Default for Parked<C> {
    fn default() -> Self {
        Parked { calls: Mutex::new(HashMap::new()), next: AtomicU64::new(0) }
    }
}

impl<C> std::fmt::Debug for Parked<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parked").field("calls", &self.len()).finish()
    }
}

impl<C: Send + 'static> Parked<C> {
    /// Parks `call`; returns its ticket.
    pub(crate) fn park(self: &Arc<Self>, call: C) -> String {
        let ticket = entropy::random_id();
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let evicted = {
            let mut calls = self.calls.lock().expect("lock");
            let oldest = match calls.len() >= PARK_MAX {
                true => calls.iter().min_by_key(|(_, (s, _))| *s).map(|(t, _)| t.clone()),
                false => None,
            };
            let evicted = oldest.and_then(|t| calls.remove(&t));
            calls.insert(ticket.clone(), (seq, call));
            evicted
        };
        drop(evicted);
        let (weak, t) = (Arc::downgrade(self), ticket.clone());
        tokio::spawn(async move {
            tokio::time::sleep(PARK_TTL).await;
            if let Some(parked) = weak.upgrade() {
                let expired = {
                    let mut calls = parked.calls.lock().expect("lock");
                    match calls.get(&t) {
                        Some((s, _)) if *s == seq => calls.remove(&t),
                        _ => None,
                    }
                };
                drop(expired);
            }
        });
        ticket
    }

    /// Takes the call parked under `ticket`, if it is still here.
    pub(crate) fn take(&self, ticket: &str) -> Option<C> {
        self.calls.lock().expect("lock").remove(ticket).map(|(_, c)| c)
    }
}

impl<C> Parked<C> {
    /// How many calls are parked.
    pub(crate) fn len(&self) -> usize {
        self.calls.lock().expect("lock").len()
    }

    /// Drops every parked call (their remote requests are cancelled).
    pub(crate) fn clear(&self) {
        let calls = std::mem::take(&mut *self.calls.lock().expect("lock"));
        drop(calls);
    }
}
