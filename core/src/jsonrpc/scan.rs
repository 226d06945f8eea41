//! Reads the top-level `"id"` of a message too large to parse, as its bytes stream past, in
//! constant memory: so an oversized request or response is still answered or failed by id
//! instead of being dropped (and its caller left waiting).

use super::RequestId;

/// Longest id value kept (bytes of its JSON text); longer ids are not recognised.
const ID_MAX: usize = 256;
/// Longest key compared (`"id"` and `"method"` are short; longer keys only need skipping).
const KEY_MAX: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first byte that is not whitespace.
    Start,
    /// Inside the top-level object, where a key (or its end) may come.
    ExpectKey,
    /// Inside a top-level key string.
    Key,
    /// After a top-level key, before its colon.
    AfterKey,
    /// After the colon, before the value.
    ExpectValue,
    /// Inside a top-level scalar that is not a string (number, literal).
    Scalar,
    /// Inside a top-level string value.
    StringValue,
    /// Inside a nested array or object (`depth` > 1).
    Nested,
    /// Inside a string within a nested value.
    NestedString,
    /// After a top-level value, before `,` or `}`.
    AfterValue,
    /// Done: the object closed, or the input is not an object.
    Done,
}

/// What [`IdScan`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The top-level `id`, when it is a string or an integer that fits an `i64`.
    pub id: Option<RequestId>,
    /// Whether the object has a top-level `method` (a request or notification, not a response).
    pub has_method: bool,
}

/// A streaming scan of one JSON object for its top-level `id` and `method` keys.
#[derive(Debug, Clone)]
pub struct IdScan {
    state: State,
    escaped: bool,
    depth: u32,
    key: Vec<u8>,
    key_long: bool,
    /// Which key the current value belongs to.
    current: Key,
    value: Vec<u8>,
    value_long: bool,
    found: Found,
    saw_id: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Method,
    Other,
}

impl Default for IdScan {
    fn default() -> Self {
        IdScan {
            state: State::Start,
            escaped: false,
            depth: 0,
            key: Vec::with_capacity(KEY_MAX),
            key_long: false,
            current: Key::Other,
            value: Vec::new(),
            value_long: false,
            found: Found::default(),
            saw_id: false,
        }
    }
}

impl IdScan {
    /// A fresh scan.
    pub fn new() -> Self {
        IdScan::default()
    }

    /// What was found so far.
    pub fn found(&self) -> Found {
        self.found.clone()
    }

    /// True once nothing more can be learnt (the object ended, or both keys were seen).
    pub fn done(&self) -> bool {
        self.state == State::Done || (self.saw_id && self.found.has_method)
    }

    /// Feeds the next bytes of the message.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.done() {
            // Long strings are the common bulk of a large message: skip them by search.
            if matches!(self.state, State::NestedString | State::StringValue) && !self.escaped {
                let Some(i) = memchr::memchr2(b'"', b'\\', bytes) else {
                    if self.state == State::StringValue {
                        self.keep_value(bytes);
                    }
                    return;
                };
                if self.state == State::StringValue {
                    self.keep_value(&bytes[..i]);
                }
                bytes = &bytes[i..];
            }
            self.step(bytes[0]);
            bytes = &bytes[1..];
        }
    }

    fn keep_value(&mut self, b: &[u8]) {
        if self.current != Key::Id || self.value_long {
            return;
        }
        if self.value.len() + b.len() > ID_MAX {
            self.value_long = true;
            self.value.clear();
        } else {
            self.value.extend_from_slice(b);
        }
    }

    fn end_value(&mut self) {
        if self.current == Key::Id && !self.saw_id {
            self.saw_id = true;
            if !self.value_long {
                self.found.id =
                    serde_json::from_slice(&self.value).ok().and_then(|v| RequestId::from_value(&v));
            }
        }
        self.value.clear();
        self.value_long = false;
        self.state = State::AfterValue;
    }

    fn step(&mut self, b: u8) {
        let ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            State::Done => {}
            State::Start => match b {
                _ if ws => {}
                b'{' => {
                    self.depth = 1;
                    self.state = State::ExpectKey;
                }
                _ => self.state = State::Done,
            },
            State::ExpectKey => match b {
                _ if ws || b == b',' => {}
                b'"' => {
                    self.key.clear();
                    self.key_long = false;
                    self.state = State::Key;
                }
                _ => self.state = State::Done, // `}` or malformed
            },
            State::Key => {
                if self.escaped {
                    self.escaped = false;
                    self.key_long = true; // an escaped key is never a plain `id`/`method`
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.current = match (&self.key[..], self.key_long) {
                        (b"id", false) => Key::Id,
                        (b"method", false) => Key::Method,
                        _ => Key::Other,
                    };
                    self.state = State::AfterKey;
                } else if self.key.len() < KEY_MAX {
                    self.key.push(b);
                } else {
                    self.key_long = true;
                }
            }
            State::AfterKey => match b {
                _ if ws => {}
                b':' => self.state = State::ExpectValue,
                _ => self.state = State::Done,
            },
            State::ExpectValue => {
                if ws {
                    return;
                }
                if self.current == Key::Method {
                    self.found.has_method = true;
                }
                match b {
                    b'"' => {
                        self.keep_value(b"\"");
                        self.state = State::StringValue;
                    }
                    b'{' | b'[' => {
                        self.depth = 2;
                        self.state = State::Nested;
                        if self.current == Key::Id {
                            self.value_long = true; // not a valid id
                        }
                    }
                    _ => {
                        self.keep_value(&[b]);
                        self.state = State::Scalar;
                    }
                }
            }
            State::Scalar => match b {
                b',' | b'}' => {
                    self.end_value();
                    self.after_value(b);
                }
                _ if ws => self.end_value(),
                _ => self.keep_value(&[b]),
            },
            State::StringValue => {
                self.keep_value(&[b]);
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.end_value();
                }
            }
            State::Nested => match b {
                b'"' => self.state = State::NestedString,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 1 {
                        self.end_value();
                    }
                }
                _ => {}
            },
            State::NestedString => {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.state = State::Nested;
                }
            }
            State::AfterValue => self.after_value(b),
        }
    }

    fn after_value(&mut self, b: u8) {
        match b {
            b',' => self.state = State::ExpectKey,
            b'}' => self.state = State::Done,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => self.state = State::Done,
        }
    }
}

/// Scans a whole message (for tests and fuzzing; transports feed [`IdScan`] chunk by chunk).
pub fn scan(bytes: &[u8]) -> Found {
    let mut s = IdScan::new();
    s.feed(bytes);
    s.found()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(b: &str) -> Option<RequestId> {
        scan(b.as_bytes()).id
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#), Some(RequestId::Number(7)));
        assert_eq!(
            id(r#"{"result":{"id":1,"x":[{"id":2}],"s":"\"id\":3"},"id" : "a\"b" }"#),
            Some(RequestId::String("a\"b".into()))
        );
        assert_eq!(id(r#"{"a":"\\","id":-5}"#), Some(RequestId::Number(-5)));
        assert_eq!(id(r#"{"a":1}"#), None);
        assert_eq!(id(r#"{"id":1.5}"#), None);
        assert_eq!(id(r#"{"id":{"x":1},"method":"m"}"#), None);
        assert_eq!(id(r#"[{"id":1}]"#), None);
        assert_eq!(id(r#"{"i\u0064":1}"#), None, "an escaped key is not compared");
    }

    #[test]
    fn tells_requests_from_responses() {
        assert!(scan(br#"{"id":1,"method":"tools/call","params":{}}"#).has_method);
        assert!(!scan(br#"{"id":1,"result":{"method":"x"}}"#).has_method);
    }

    #[test]
    fn works_across_chunks_of_any_size() {
        let text = "y".repeat(10_000);
        let msg =
            format!(r#"{{"jsonrpc":"2.0","result":{{"content":[{{"text":"{text}\\"}}]}},"id":"req-ü"}}"#);
        for size in [1, 2, 3, 7, 64, 4096] {
            let mut s = IdScan::new();
            for chunk in msg.as_bytes().chunks(size) {
                s.feed(chunk);
            }
            assert_eq!(s.found().id, Some(RequestId::String("req-ü".into())), "chunks of {size}");
        }
    }
}
