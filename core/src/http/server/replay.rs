//! Resumable server→client streams (2025-11-25 basic/transports, "Resumability and
//! Redelivery"): the events of a legacy session's GET stream carry ids, `get:<event id>` (the
//! prefix names the stream; POST streams carry none, so a client never tries to resume a call
//! whose instance may be gone, and gets an error instead of waiting), and a client that comes
//! back with `Last-Event-ID` gets what it missed, from the store's replay log on a shared store
//! or, in one process, from [`ReplayLog`].

use crate::http::sse;
use crate::session::event_order;
use std::collections::VecDeque;

/// How long a client waits before reconnecting a stream, sent in the priming event.
pub(crate) const RETRY_MS: u64 = 1000;

/// The most messages a session's in-memory replay log keeps.
const MAX_ENTRIES: usize = 256;

/// The most bytes a session's in-memory replay log keeps (less when
/// [`max_backlog`](super::HttpServerConfig::max_backlog) is smaller).
pub(crate) const MAX_BYTES: usize = 256 * 1024;

/// The SSE id of event `event` of the GET stream.
fn sse_id(event: &str) -> String {
    format!("get:{event}")
}

/// The event id a `Last-Event-ID` names, when it is one of the GET stream's (`get:<u64>-<u64>`).
pub(crate) fn resume_point(last_event_id: &str) -> Option<&str> {
    let event = last_event_id.trim().strip_prefix("get:")?;
    event_order(event, event).map(|_| event)
}

/// One SSE event carrying `json`, with the id of `event` when given.
pub(crate) fn event_text(event: Option<&str>, json: &str) -> String {
    match event {
        Some(e) => format!("id: {}\n{}", sse_id(e), sse::encode_event(Some("message"), json)),
        None => sse::encode_event(Some("message"), json),
    }
}

/// The event a resumable stream starts with (2025-11-25 basic/transports): the id to resume
/// from and the reconnection delay, no data.
pub(crate) fn priming(event: &str) -> String {
    sse::encode_retry_priming(&sse_id(event), RETRY_MS)
}

/// True when `event` comes after `cursor` (an id not of the `<u64>-<u64>` form always does).
pub(crate) fn after(event: &str, cursor: &str) -> bool {
    event_order(event, cursor).is_none_or(|o| o.is_gt())
}

/// The recent messages of one session's GET stream, in one process: event ids `0-<n>`, at
/// most [`MAX_ENTRIES`] messages and `max_bytes` bytes (the oldest go first).
#[derive(Debug)]
pub(crate) struct ReplayLog {
    entries: VecDeque<(u64, String)>,
    bytes: usize,
    max_bytes: usize,
    last: u64,
}

impl ReplayLog {
    /// An empty log of at most `max_bytes` bytes.
    pub(crate) fn new(max_bytes: usize) -> Self {
        ReplayLog { entries: VecDeque::new(), bytes: 0, max_bytes, last: 0 }
    }

    /// Appends `json`; its event id.
    pub(crate) fn push(&mut self, json: &str) -> String {
        self.last += 1;
        self.bytes += json.len();
        self.entries.push_back((self.last, json.to_owned()));
        while self.entries.len() > MAX_ENTRIES || (self.bytes > self.max_bytes && self.entries.len() > 1) {
            if let Some((_, old)) = self.entries.pop_front() {
                self.bytes -= old.len();
            }
        }
        format!("0-{}", self.last)
    }

    /// The newest event id (`0-0` before the first message).
    pub(crate) fn head(&self) -> String {
        format!("0-{}", self.last)
    }

    /// The messages after event `cursor` (an id of this log), oldest first, with their ids.
    pub(crate) fn since(&self, cursor: &str) -> Vec<(String, &str)> {
        let from = cursor.strip_prefix("0-").and_then(|n| n.parse::<u64>().ok()).unwrap_or(self.last);
        self.entries.iter().filter(|(n, _)| *n > from).map(|(n, m)| (format!("0-{n}"), m.as_str())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_keeps_the_newest_messages_and_replays_after_a_cursor() {
        let mut log = ReplayLog::new(1_000_000);
        assert_eq!(log.head(), "0-0");
        for i in 1..=MAX_ENTRIES + 5 {
            assert_eq!(log.push(&format!("{{\"n\":{i}}}")), format!("0-{i}"));
        }
        assert_eq!(log.since("0-0").len(), MAX_ENTRIES, "the oldest five were dropped");
        let tail = log.since(&format!("0-{}", MAX_ENTRIES + 3));
        let (n4, n5) = (MAX_ENTRIES + 4, MAX_ENTRIES + 5);
        assert_eq!(
            tail,
            [(format!("0-{n4}"), format!("{{\"n\":{n4}}}")), (format!("0-{n5}"), format!("{{\"n\":{n5}}}"))]
                .iter()
                .map(|(a, b)| (a.clone(), b.as_str()))
                .collect::<Vec<_>>()
        );
        assert!(log.since(&log.head()).is_empty());
        let mut small = ReplayLog::new(10);
        small.push("12345678");
        small.push("12345678");
        assert_eq!(small.since("0-0").len(), 1, "bounded in bytes too");
    }

    #[test]
    fn only_the_get_streams_ids_resume() {
        assert_eq!(resume_point("get:1712-3"), Some("1712-3"));
        assert_eq!(resume_point(" get:0-7 "), Some("0-7"));
        for other in ["1712-3", "get:x", "get:1-", "post:1-2", ""] {
            assert_eq!(resume_point(other), None, "{other:?}");
        }
        assert!(after("2-0", "1-9") && !after("1-9", "1-9") && after("x", "1-0"));
        assert_eq!(event_text(Some("5-1"), "{}"), "id: get:5-1\nevent: message\ndata: {}\n\n");
        assert_eq!(priming("0-0"), "id: get:0-0\nretry: 1000\ndata: \n\n");
    }
}
