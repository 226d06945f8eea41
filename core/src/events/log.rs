//! One event type's recent occurrences, in order, and reads from a position. In a fleet
//! ([`super::SharedLog`]) the positions are the shared log's: occurrences arrive from it in any
//! order and are taken in sequence ([`Log::insert`]), those ahead of a gap waiting for it.

use crate::protocol::events::EventOccurrence;
use std::collections::{BTreeMap, VecDeque};

/// Occurrences waiting for a gap to close, at most: beyond this the gap is given up
/// ([`Log::skip`]) and readers learn of it as `truncated`.
const PENDING_MAX: usize = 1024;

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
    /// The same read, said to follow a gap.
    fn gap(mut self) -> Read {
        self.truncated = true;
        self
    }

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
    /// Occurrences of a shared log that arrived ahead of a gap: `seq → (at_ms, occurrence)`.
    pending: BTreeMap<u64, (u64, EventOccurrence)>,
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

    /// Takes occurrence `seq` of a shared log: in sequence it is appended (with any waiting
    /// behind it); one already taken is ignored; one ahead of a gap waits for it. True when
    /// the log moved on.
    pub(super) fn insert(
        &mut self,
        seq: u64,
        at_ms: u64,
        occurrence: EventOccurrence,
        retain: usize,
    ) -> bool {
        if seq <= self.last {
            return false;
        }
        self.pending.insert(seq, (at_ms, occurrence));
        if self.pending.len() > PENDING_MAX {
            let first = *self.pending.keys().next().expect("not empty");
            self.skip(first - 1);
        }
        self.drain(retain)
    }

    /// Gives up the occurrences up to `seq` that never came (the shared log no longer has
    /// them): what is kept is dropped, so a reader from before the gap learns of it
    /// (`truncated`), and the log goes on after `seq`.
    pub(super) fn skip(&mut self, seq: u64) {
        if seq > self.last {
            self.last = seq;
            self.items.clear();
            self.pending.retain(|s, _| *s > seq);
        }
    }

    /// Appends the waiting occurrences that are now in sequence; true when any was.
    fn drain(&mut self, retain: usize) -> bool {
        let mut moved = false;
        while let Some(entry) = self.pending.first_entry() {
            if *entry.key() != self.last + 1 {
                break;
            }
            let (at_ms, occurrence) = entry.remove();
            self.push(occurrence, at_ms, retain);
            moved = true;
        }
        moved
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
        // Another process's position (a restart, a shared log started over): what happened
        // since is unknown, so everything kept is offered and the reader learns of the gap.
        if after.epoch != epoch {
            return self.read(epoch, Some(Position { epoch, seq: 0 }), max, not_before_ms).gap();
        }
        // Ahead of this log: the position came from another instance of a fleet whose shared
        // log has not reached here yet (a cursor is sealed, so no client made it up). Nothing yet.
        if after.seq > self.last {
            return Read { events: Vec::new(), position: after, truncated: false, has_more: false };
        }
        let (from, mut truncated) = (after.seq, false);
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
