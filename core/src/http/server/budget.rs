//! The bytes of request bodies being received, bounded across every connection of an endpoint
//! ([`HttpServerConfig::body_budget`](super::HttpServerConfig::body_budget)): 32 connections
//! each sending all but the last bytes of a 4 MiB body held +145 MB of server memory until
//! their body timeout, and +130 MB stayed after they closed. Past the budget a body is refused
//! with `503` and `Retry-After`; once a burst that held a good part of it is over, the freed
//! heap is handed back to the OS.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A burst that held at least this many body bytes, once over, returns freed memory to the OS.
const TRIM_PEAK: usize = 16 * 1024 * 1024;
/// At most one trim per this interval.
const TRIM_EVERY: Duration = Duration::from_secs(2);

/// The body bytes held now, against the most allowed.
#[derive(Debug)]
pub(crate) struct BodyBudget {
    max: usize,
    used: AtomicUsize,
    /// The most held since the last trim.
    peak: AtomicUsize,
    last_trim: Mutex<Option<Instant>>,
}

impl BodyBudget {
    /// A budget of `max` bytes.
    pub(crate) fn new(max: usize) -> BodyBudget {
        BodyBudget { max, used: AtomicUsize::new(0), peak: AtomicUsize::new(0), last_trim: Mutex::new(None) }
    }

    /// The budget in bytes.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// A share of the budget, empty for now: what one body holds.
    pub(crate) fn share(&self) -> Share<'_> {
        Share { budget: self, held: 0 }
    }

    fn take(&self, n: usize) -> bool {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = used.checked_add(n).filter(|v| *v <= self.max) else { return false };
            match self.used.compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return true;
                }
                Err(now) => used = now,
            }
        }
    }

    fn give_back(&self, n: usize) {
        let now = self.used.fetch_sub(n, Ordering::AcqRel) - n;
        if now <= self.peak.load(Ordering::Relaxed) / 10 && self.peak.load(Ordering::Relaxed) >= TRIM_PEAK {
            self.trim();
        }
    }

    /// Hands the heap a burst left free back to the OS (glibc keeps it otherwise), at most once
    /// per [`TRIM_EVERY`], off the async threads when a runtime is there.
    fn trim(&self) {
        let mut last = self.last_trim.lock().expect("lock");
        if last.is_some_and(|t| t.elapsed() < TRIM_EVERY) {
            return;
        }
        *last = Some(Instant::now());
        self.peak.store(self.used.load(Ordering::Relaxed), Ordering::Relaxed);
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: malloc_trim only hands free heap pages back to the OS.
            let trim = || unsafe {
                libc::malloc_trim(0);
            };
            match tokio::runtime::Handle::try_current() {
                Ok(rt) => drop(rt.spawn_blocking(trim)),
                Err(_) => trim(),
            }
        }
    }
}

/// The bytes one body holds of a [`BodyBudget`]; given back when dropped.
#[derive(Debug)]
pub(crate) struct Share<'a> {
    budget: &'a BodyBudget,
    held: usize,
}

impl Share<'_> {
    /// Takes `n` more bytes; false (and nothing taken) when the budget has no room.
    pub(crate) fn grow(&mut self, n: usize) -> bool {
        let ok = self.budget.take(n);
        if ok {
            self.held += n;
        }
        ok
    }
}

impl Drop for Share<'_> {
    fn drop(&mut self) {
        if self.held > 0 {
            self.budget.give_back(self.held);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_bounded_together_and_given_back_when_dropped() {
        let b = BodyBudget::new(10);
        let mut one = b.share();
        let mut two = b.share();
        assert!(one.grow(6));
        assert!(!two.grow(5), "6 + 5 > 10");
        assert!(two.grow(4));
        assert!(!one.grow(1));
        drop(one);
        assert!(two.grow(6));
        drop(two);
        assert_eq!(b.used.load(Ordering::Relaxed), 0);
    }
}
