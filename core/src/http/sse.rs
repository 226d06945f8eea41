//! Server-Sent Events codec (WHATWG `text/event-stream` rules), sans I/O.
//!
//! [`encode_event`], [`encode_comment`] and [`encode_retry_priming`] produce wire text;
//! [`SseParser`] turns bytes, split anywhere, into [`SseEvent`]s.

/// Builds one event: an optional `event:` line, one `data:` line per line of `data`, a blank line.
///
/// Line breaks in `data` (LF, CRLF or CR) become separate `data:` lines, so a parser gets the
/// data back with LF breaks. `event` must not contain line breaks.
pub fn encode_event(event: Option<&str>, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(event) = event {
        debug_assert!(!event.contains(['\r', '\n']), "SSE event names cannot contain line breaks");
        out.push_str("event: ");
        out.push_str(event);
        out.push('\n');
    }
    for line in split_lines(data) {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Builds a comment (`: text`, one per line of `text`) followed by a blank line; parsers ignore
/// it, so it serves as a keep-alive.
pub fn encode_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for line in split_lines(text) {
        out.push(':');
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Builds a 2025-11-25 priming event: `id: {id}`, `retry: {retry_ms}` and an empty `data:` line.
///
/// A parser dispatches it as an event with empty data (callers skip those), and records the id
/// and the reconnection delay. `id` must not contain line breaks or NUL.
pub fn encode_retry_priming(id: &str, retry_ms: u64) -> String {
    debug_assert!(!id.contains(['\r', '\n', '\0']), "SSE ids cannot contain line breaks or NUL");
    format!("id: {id}\nretry: {retry_ms}\ndata: \n\n")
}

/// Splits on LF, CRLF and CR, as an event-stream parser does.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        match s.find(['\r', '\n']) {
            Some(i) => {
                let skip = if s[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&s[i + skip..]);
                Some(&s[..i])
            }
            None => {
                rest = None;
                Some(s)
            }
        }
    })
}

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (the event type); `None` when absent or empty (type `message`).
    pub event: Option<String>,
    /// The `data:` lines joined with LF.
    pub data: String,
    /// The `id:` field given in this event, if any (see [`SseParser::last_event_id`]).
    pub id: Option<String>,
    /// The valid `retry:` field given in this event, in milliseconds, if any.
    pub retry: Option<u64>,
}

/// Why a stream could not be parsed; the stream should then be abandoned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// An event (or a single line) exceeded the configured size limit.
    #[error("SSE event larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A line was not valid UTF-8.
    #[error("SSE stream is not valid UTF-8")]
    InvalidUtf8,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// An incremental event-stream parser.
///
/// Feed it chunks with [`push`](Self::push); an event is returned once its terminating blank
/// line has arrived. An unterminated event at the end of the stream is discarded, as the
/// specification requires, so there is nothing to flush. Events whose data buffer is empty
/// (e.g. only `id:`/`retry:` lines) are not dispatched; their fields still update
/// [`last_event_id`](Self::last_event_id) and [`retry`](Self::retry).
#[derive(Debug)]
pub struct SseParser {
    max_event_bytes: usize,
    /// Bytes of the line being read.
    line: Vec<u8>,
    /// How many bytes of a leading BOM have been matched; 3 once the check is over.
    bom_seen: usize,
    /// The previous byte was CR: an immediately following LF belongs to the same line break.
    after_cr: bool,
    data: String,
    event_type: String,
    event_id: Option<String>,
    event_retry: Option<u64>,
    last_event_id: String,
    retry: Option<u64>,
    failed: Option<SseError>,
}

impl SseParser {
    /// A parser that rejects events (and lines) larger than `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            line: Vec::new(),
            bom_seen: 0,
            after_cr: false,
            data: String::new(),
            event_type: String::new(),
            event_id: None,
            event_retry: None,
            last_event_id: String::new(),
            retry: None,
            failed: None,
        }
    }

    /// The last event id seen on the stream (`None` when unset or reset by an empty `id:`).
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|s| !s.is_empty())
    }

    /// The last valid reconnection delay (`retry:`) seen on the stream, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Parses the next chunk and returns the events it completes. After an error, every later
    /// call returns the same error.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.push_inner(chunk);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    fn push_inner(&mut self, mut chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        while self.bom_seen < BOM.len() {
            let Some((&b, rest)) = chunk.split_first() else { return Ok(events) };
            if b == BOM[self.bom_seen] {
                self.bom_seen += 1;
                chunk = rest;
            } else {
                // Not a BOM after all: the matched bytes are ordinary content.
                self.line.extend_from_slice(&BOM[..self.bom_seen]);
                self.bom_seen = BOM.len();
            }
        }
        while !chunk.is_empty() {
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                chunk = &chunk[1..];
                continue;
            }
            match chunk.iter().position(|&b| b == b'\r' || b == b'\n') {
                Some(i) => {
                    self.extend_line(&chunk[..i])?;
                    self.after_cr = chunk[i] == b'\r';
                    chunk = &chunk[i + 1..];
                    if let Some(ev) = self.end_line()? {
                        events.push(ev);
                    }
                }
                None => {
                    self.extend_line(chunk)?;
                    chunk = &[];
                }
            }
        }
        Ok(events)
    }

    fn pending_bytes(&self) -> usize {
        self.line.len() + self.data.len() + self.event_type.len()
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        self.line.extend_from_slice(bytes);
        if self.pending_bytes() > self.max_event_bytes {
            return Err(SseError::TooLarge { limit: self.max_event_bytes });
        }
        Ok(())
    }

    /// Processes the complete line in `self.line`; returns an event on a blank line.
    fn end_line(&mut self) -> Result<Option<SseEvent>, SseError> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            return Ok(self.dispatch());
        }
        if line[0] == b':' {
            return Ok(None);
        }
        let line = String::from_utf8(line).map_err(|_| SseError::InvalidUtf8)?;
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                if self.pending_bytes() > self.max_event_bytes {
                    return Err(SseError::TooLarge { limit: self.max_event_bytes });
                }
            }
            "id" if !value.contains('\0') => {
                value.clone_into(&mut self.last_event_id);
                self.event_id = Some(value.to_owned());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Absurdly long digit strings saturate rather than being dropped.
                let ms = value.parse().unwrap_or(u64::MAX);
                self.retry = Some(ms);
                self.event_retry = Some(ms);
            }
            _ => {}
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let id = self.event_id.take();
        let retry = self.event_retry.take();
        let event_type = std::mem::take(&mut self.event_type);
        let mut data = std::mem::take(&mut self.data);
        if data.is_empty() {
            return None;
        }
        data.pop(); // the LF appended after the last data line
        Some(SseEvent { event: Some(event_type).filter(|t| !t.is_empty()), data, id, retry })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent { event: event.map(str::to_owned), data: data.to_owned(), id: None, retry: None }
    }

    fn parse_all(bytes: &[u8]) -> Vec<SseEvent> {
        SseParser::new(1 << 20).push(bytes).unwrap()
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let stream = "\u{feff}: hi\r\nevent: message\r\ndata: {\"a\":\"é世\"}\r\n\r\n\
                      data:x\rdata: y\r\rid: 7\nretry: 3000\ndata\n\n: tail\nunknown: z\ndata: w\n\n"
            .as_bytes();
        let whole = parse_all(stream);
        assert_eq!(whole.len(), 4);
        assert_eq!(whole[0], ev(Some("message"), "{\"a\":\"é世\"}"));
        assert_eq!(whole[1], ev(None, "x\ny"));
        assert_eq!(
            whole[2],
            SseEvent { event: None, data: String::new(), id: Some("7".into()), retry: Some(3000) }
        );
        assert_eq!(whole[3], ev(None, "w"));
        for i in 0..=stream.len() {
            for j in i..=stream.len() {
                let mut p = SseParser::new(1 << 20);
                let mut got = p.push(&stream[..i]).unwrap();
                got.extend(p.push(&stream[i..j]).unwrap());
                got.extend(p.push(&stream[j..]).unwrap());
                assert_eq!(got, whole, "split at {i},{j}");
                assert_eq!(p.last_event_id(), Some("7"));
                assert_eq!(p.retry(), Some(3000));
            }
        }
        let mut p = SseParser::new(1 << 20);
        let one_by_one: Vec<_> = stream.iter().flat_map(|b| p.push(&[*b]).unwrap()).collect();
        assert_eq!(one_by_one, parse_all(stream));
    }

    #[test]
    fn line_endings_crlf_cr_lf() {
        let want = vec![ev(Some("a"), "1\n2"), ev(None, "3")];
        assert_eq!(parse_all(b"event: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\r\n\r\n"), want);
        assert_eq!(parse_all(b"event: a\rdata: 1\rdata: 2\r\rdata: 3\r\r"), want);
        assert_eq!(parse_all(b"event: a\ndata: 1\ndata: 2\n\ndata: 3\n\n"), want);
        // CR at the end of one chunk, LF at the start of the next: one line break.
        let mut p = SseParser::new(100);
        assert!(p.push(b"data: 1\r").unwrap().is_empty());
        assert!(p.push(b"\n").unwrap().is_empty());
        assert_eq!(p.push(b"\r\n").unwrap(), vec![ev(None, "1")]);
    }

    #[test]
    fn bom_only_stripped_at_start() {
        assert_eq!(parse_all(b"\xEF\xBB\xBFdata: a\n\n"), vec![ev(None, "a")]);
        let mut p = SseParser::new(100);
        assert!(p.push(b"\xEF").unwrap().is_empty());
        assert!(p.push(b"\xBB").unwrap().is_empty());
        assert_eq!(p.push(b"\xBFdata: a\n\n").unwrap(), vec![ev(None, "a")]);
        // A second BOM is part of the field name, so the line is an unknown field.
        assert!(parse_all(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n").is_empty());
    }

    #[test]
    fn comments_fields_and_spaces() {
        let s = b":keep-alive\n: another\ndata:no-space\ndata:  two spaces\ndata\nfoo: bar\n\n";
        assert_eq!(parse_all(s), vec![ev(None, "no-space\n two spaces\n")]);
        // Comment-only and id-only blocks dispatch nothing but update the parser state.
        let mut p = SseParser::new(100);
        assert!(p.push(b": ping\n\nid: 5\nretry: x\n\nretry: 10\n\n").unwrap().is_empty());
        assert_eq!((p.last_event_id(), p.retry()), (Some("5"), Some(10)));
        assert!(p.push(b"id\n\n").unwrap().is_empty());
        assert_eq!(p.last_event_id(), None);
        // An id containing NUL is ignored; an unterminated final event is never returned.
        assert_eq!(parse_all(b"id: a\0b\ndata: x\n\ndata: lost"), vec![ev(None, "x")]);
    }

    #[test]
    fn too_large_and_invalid_utf8() {
        // The limit counts the line being read plus the event's data and type so far.
        let mut p = SseParser::new(12);
        assert_eq!(p.push(b"data: 1234\n\n").unwrap(), vec![ev(None, "1234")]);
        assert_eq!(p.push(b"data: 12\ndata: 34567\n\n"), Err(SseError::TooLarge { limit: 12 }));
        assert_eq!(p.push(b"data: 1\n\n"), Err(SseError::TooLarge { limit: 12 }));
        // A line that never ends is caught too.
        assert!(matches!(SseParser::new(8).push(&[b'x'; 9]), Err(SseError::TooLarge { .. })));
        assert_eq!(SseParser::new(99).push(b"data: \xFF\n\n"), Err(SseError::InvalidUtf8));
        assert_eq!(SseError::TooLarge { limit: 8 }.to_string(), "SSE event larger than 8 bytes");
    }

    #[test]
    fn encode_then_parse_round_trips() {
        assert_eq!(encode_event(Some("message"), "{}"), "event: message\ndata: {}\n\n");
        assert_eq!(encode_event(None, "a\r\nb\nc"), "data: a\ndata: b\ndata: c\n\n");
        assert_eq!(encode_comment("keep-alive"), ": keep-alive\n\n");
        assert_eq!(encode_comment(""), ":\n\n");
        assert_eq!(encode_retry_priming("s1-0", 5000), "id: s1-0\nretry: 5000\ndata: \n\n");
        let mut wire = encode_retry_priming("s1-0", 5000);
        wire += &encode_comment("ping\npong");
        wire += &encode_event(Some("message"), "{\"jsonrpc\":\"2.0\"}");
        wire += &encode_event(None, " lead\n\ntrail ");
        wire += &encode_event(None, "");
        let got = parse_all(wire.as_bytes());
        let priming =
            SseEvent { event: None, data: String::new(), id: Some("s1-0".into()), retry: Some(5000) };
        let rest = [ev(Some("message"), "{\"jsonrpc\":\"2.0\"}"), ev(None, " lead\n\ntrail "), ev(None, "")];
        assert_eq!(got[0], priming);
        assert_eq!(got[1..], rest);
    }
}
