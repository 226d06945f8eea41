//! One event type's recent occurrences, in order, and reads from a position.

use crate::protocol::events::EventOccurrence;
use std::collections::VecDeque;

/// Where a reader is: after occurrence `seq` of a registry's `epoch` (0: before the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The registry (process) the count belongs to.
    pub epoch: u64,
    /// The last occurrence seen.
    pub seq: u64,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The occurrences, each with its own position's `seq`.
    pub events: Vec<(u64, EventOccurrence)>,
    /// Where the next read starts.
    pub position: Position,
    /// True when occurrences between the asked position and the first returned were dropped
    /// (retention, `maxAgeMs`, another epoch): SEP-3415 §Cursor lifecycle's `truncated`.
    pub truncated: bool,
    /// True when more occurrences wait beyond `max`.
    pub has_more: bool,
}

impl Read {
    /// Where this read starts: just before its first occurrence (a gap's fresh cursor), or
    /// where it ended when it found none.
    pub fn start(&self) -> Position {
        match self.events.first() {
            Some((seq, _)) => Position { seq: seq - 1, ..self.position },
            None => self.position,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Log {
    /// The last sequence number given (0: none yet).
    last: u64,
    items: VecDeque<(u64, u64, EventOccurrence)>,
}

impl Log {
    pub(super) fn next_seq(&self) -> u64 {
        self.last + 1
    }

    pub(super) fn last_seq(&self) -> u64 {
        self.last
    }

    pub(super) fn retain(&mut self, n: usize) {
        while self.items.len() > n {
            self.items.pop_front();
        }
    }

    pub(super) fn push(&mut self, occurrence: EventOccurrence, at_ms: u64, retain: usize) {
        self.last += 1;
        self.items.push_back((self.last, at_ms, occurrence));
        self.retain(retain);
    }

    pub(super) fn read(
        &self,
        epoch: u64,
        after: Option<Position>,
        max: usize,
        not_before_ms: Option<u64>,
    ) -> Read {
        let head = Position { epoch, seq: self.last };
        let Some(after) = after else {
            return Read { events: Vec::new(), position: head, truncated: false, has_more: false };
        };
        // Another process's position (a restart) or one ahead of this log: what happened since
        // is unknown, so everything kept is offered and the reader learns of the gap.
        let (from, mut truncated) =
            if after.epoch != epoch || after.seq > self.last { (0, true) } else { (after.seq, false) };
        let oldest = self.items.front().map_or(self.last + 1, |(seq, _, _)| *seq);
        if from + 1 < oldest && from < self.last {
            truncated = true;
        }
        let max = max.max(1);
        let mut events = Vec::new();
        let mut position = Position { epoch, seq: from.max(oldest.saturating_sub(1)).min(self.last) };
        let mut has_more = false;
        for (seq, at_ms, occurrence) in self.items.iter().filter(|(seq, _, _)| *seq > from) {
            if not_before_ms.is_some_and(|floor| *at_ms < floor) {
                truncated = true;
                position.seq = *seq;
                continue;
            }
            if events.len() == max {
                has_more = true;
                break;
            }
            events.push((*seq, occurrence.clone()));
            position.seq = *seq;
        }
        if !has_more {
            position.seq = self.last;
        }
        Read { events, position, truncated, has_more }
    }
}
