//! Small requests of every session: `ping` and the log level.

use super::Client;
use crate::error::Result;
use crate::protocol::logging::LoggingLevel;
use serde_json::json;

impl Client {
    /// Checks that the server answers: `ping` on a legacy session; on 2026-07-28, which has no
    /// `ping`, a `server/discover` (spec 2026-07-28 changelog: ping is removed).
    pub async fn ping(&self) -> Result<()> {
        let method =
            if self.current_version().is_some_and(|v| v.is_modern()) { "server/discover" } else { "ping" };
        self.request(method, json!({})).await.map(drop)
    }

    /// Asks for `notifications/message` at `level` and above (delivered to
    /// [`Client::on_log`]): `logging/setLevel` on a legacy session; on 2026-07-28, where the level
    /// travels with each request, every later request carries it in `_meta` (a call's own
    /// [`CallOptions::log_level`](super::CallOptions::log_level) wins).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<()> {
        *self.inner.log_level.write().expect("lock") = Some(level);
        if self.current_version().is_some_and(|v| v.is_modern()) {
            return Ok(());
        }
        self.request("logging/setLevel", json!({ "level": level.as_str() })).await.map(drop)
    }
}
