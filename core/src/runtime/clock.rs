//! The time: [`SystemClock`] in production, [`ManualClock`] in deterministic tests.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// Where the runtime reads the time. Everything time-dependent in the engine (MRTR
/// `requestState` expiry, task TTLs, server→client request timeouts) takes the time from here.
pub trait Clock: Send + Sync + std::fmt::Debug + 'static {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that moves only when told: for tests that step time (MRTR expiry, task TTLs,
/// request timeouts) without sleeping.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<SystemTime>>);

impl ManualClock {
    /// A clock reading `start`.
    pub fn new(start: SystemTime) -> Self {
        ManualClock(Arc::new(Mutex::new(start)))
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        *self.0.lock().expect("clock lock") += by;
    }

    /// Sets the clock to `to`.
    pub fn set(&self, to: SystemTime) {
        *self.0.lock().expect("clock lock") = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.0.lock().expect("clock lock")
    }
}

/// The default clock.
pub fn system() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}
