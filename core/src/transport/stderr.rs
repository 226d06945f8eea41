//! A child's stderr: read to its end whatever it holds, keeping a bounded tail for error messages.
//!
//! The pipe is read until end of file, never earlier: a server whose stderr pipe closed while it
//! lives gets `EPIPE` (or `SIGPIPE`) on its next log line and usually dies of it. Bytes are read
//! as bytes (a line that is not UTF-8 is kept lossily), and each kept line holds at most
//! [`LINE_MAX`] bytes however long the server's line is, so memory stays bounded.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt};

/// How many of the last stderr lines are kept for the message of a closed connection.
pub const LINES_KEPT: usize = 20;
/// The most bytes kept of one stderr line; the rest is counted and dropped.
pub const LINE_MAX: usize = 4096;

/// The last lines a child wrote on stderr.
#[derive(Debug, Default, Clone)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// The kept lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().expect("lock").iter().cloned().collect()
    }

    fn push(&self, line: &[u8], dropped: usize) {
        let mut text = String::from_utf8_lossy(line).into_owned();
        if dropped > 0 {
            text.push_str(&format!("… ({dropped} more bytes)"));
        }
        let mut l = self.0.lock().expect("lock");
        if l.len() == LINES_KEPT {
            l.pop_front();
        }
        l.push_back(text);
    }
}

/// Reads `r` to its end, keeping the tail in `tail`; with `inherit`, every byte is also copied
/// to our own stderr as it arrives.
pub async fn drain<R: AsyncRead + Unpin>(mut r: R, inherit: bool, tail: StderrTail) {
    let mut chunk = vec![0u8; 8 * 1024];
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut dropped = 0usize;
    loop {
        let n = match r.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // Not end of file, but the pipe cannot be read: nothing more will come.
            Err(_) => break,
        };
        if inherit {
            let _ = std::io::stderr().write_all(&chunk[..n]);
        }
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (part, newline) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            let room = LINE_MAX - line.len();
            line.extend_from_slice(&part[..part.len().min(room)]);
            dropped += part.len().saturating_sub(room);
            rest = &rest[part.len() + usize::from(newline)..];
            if newline {
                let text = line.strip_suffix(b"\r").unwrap_or(&line);
                tail.push(text, dropped);
                line.clear();
                dropped = 0;
            }
        }
    }
    if !line.is_empty() || dropped > 0 {
        tail.push(&line, dropped);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_cut_and_bad_bytes_do_not_stop_reading() {
        let mut input = vec![b'a'; LINE_MAX + 10];
        input.extend_from_slice(b"\n\xff\xfe bad\r\n");
        for i in 0..LINES_KEPT {
            input.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        input.extend_from_slice(b"last, no newline");
        let tail = StderrTail::default();
        drain(input.as_slice(), false, tail.clone()).await;
        let lines = tail.lines();
        assert_eq!(lines.len(), LINES_KEPT);
        assert_eq!(lines[LINES_KEPT - 1], "last, no newline");

        let input = [vec![b'a'; LINE_MAX + 10], b"\n\xff\xfe bad\r\nok\n".to_vec()].concat();
        let tail = StderrTail::default();
        drain(input.as_slice(), false, tail.clone()).await;
        let lines = tail.lines();
        assert_eq!(lines[0], format!("{}… (10 more bytes)", "a".repeat(LINE_MAX)));
        assert_eq!(lines[1], "\u{fffd}\u{fffd} bad");
        assert_eq!(lines[2], "ok");
    }
}
