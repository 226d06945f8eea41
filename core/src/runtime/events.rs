//! The clock and entropy an [`EventRegistry`] takes from the runtime: a random epoch per
//! registry (a process), and the time of each emit.

use crate::events::EventRegistry;
use crate::protocol::events::EventOccurrence;
use serde_json::Value;

impl EventRegistry {
    /// An empty registry with a random epoch: cursors of another process (a restart) read as
    /// a gap (`truncated: true`), never as a position here.
    pub fn new() -> Self {
        EventRegistry::with_epoch(super::entropy::random_u64())
    }

    /// Records an occurrence of `name` now (see [`EventRegistry::emit_at`]).
    pub fn emit(&self, name: &str, data: Value) -> crate::Result<EventOccurrence> {
        self.emit_at(name, data, std::time::SystemTime::now())
    }
}

impl Default for EventRegistry {
    fn default() -> Self {
        EventRegistry::new()
    }
}

impl crate::events::receiver::Receiver {
    /// [`Receiver::receive`](crate::events::receiver::Receiver::receive) now.
    pub fn receive_now(
        &self,
        header: impl Fn(&str) -> Option<String>,
        body: &[u8],
    ) -> Result<crate::events::receiver::Received, crate::events::receiver::Refused> {
        self.receive(header, body, std::time::SystemTime::now())
    }
}
