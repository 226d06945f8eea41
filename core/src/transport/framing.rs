//! Newline-delimited JSON framing (stdio and any byte stream), with a bound on frame size.

use super::{OutFrame, TransportEvent};
use crate::error::ErrorData;
use crate::jsonrpc::scan::{Found, IdScan};
use crate::jsonrpc::{self, Response};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// Newline framing over chunks as they arrive, without I/O: the reader (a tokio task, or a
/// host's own event loop feeding stdin's bytes on its thread) pushes each chunk and gets back
/// the frames it completed. A line is held up to `max` bytes; past that it is skipped as it
/// streams by, scanned in constant memory for its top-level `id` (see [`Side`]).
#[derive(Debug)]
pub struct Splitter {
    buf: Vec<u8>,
    /// A line over the limit being skipped: its length so far and the scan of its bytes.
    skipped: Option<(usize, IdScan)>,
    max: usize,
    side: Side,
}

impl Splitter {
    /// A splitter for `side` holding lines of at most `max` bytes.
    pub fn new(max: usize, side: Side) -> Self {
        Splitter { buf: Vec::new(), skipped: None, max, side }
    }

    /// Takes the next `bytes` of the stream; `emit` gets the event of each frame they complete,
    /// in order (blank lines are skipped, a trailing `\r` is tolerated).
    pub fn push(&mut self, mut bytes: &[u8], emit: &mut impl FnMut(TransportEvent)) {
        while !bytes.is_empty() {
            let found = memchr_newline(bytes);
            let chunk = &bytes[..found.unwrap_or(bytes.len())];
            bytes = found.map_or(&[][..], |i| &bytes[i + 1..]);
            if found.is_some() && self.skipped.is_none() && self.buf.is_empty() && chunk.len() <= self.max {
                // The whole line is in this chunk: parsed where it lies, not copied.
                if let Some(event) = line_event(chunk) {
                    emit(event);
                }
                continue;
            }
            self.take(chunk);
            if found.is_some() {
                if let Some(event) = self.end_line() {
                    emit(event);
                }
            }
        }
    }

    /// The stream ended: the event of a last line without its newline, if any.
    pub fn finish(&mut self) -> Option<TransportEvent> {
        self.end_line()
    }

    /// Adds part of the current line.
    fn take(&mut self, chunk: &[u8]) {
        match &mut self.skipped {
            Some((n, scan)) => {
                *n += chunk.len();
                scan.feed(chunk);
            }
            None if self.buf.len() + chunk.len() > self.max => {
                let mut scan = IdScan::new();
                scan.feed(&self.buf);
                scan.feed(chunk);
                self.skipped = Some((self.buf.len() + chunk.len(), scan));
                self.buf.clear();
                self.buf.shrink_to(64 * 1024);
            }
            None => self.buf.extend_from_slice(chunk),
        }
    }

    /// The event of the line gathered so far (none for a blank one); starts the next line.
    fn end_line(&mut self) -> Option<TransportEvent> {
        if let Some((n, scan)) = self.skipped.take() {
            return Some(oversized(self.side, n, self.max, scan.found()));
        }
        let event = line_event(&self.buf);
        self.buf.clear();
        event
    }
}

/// The frame of one complete line (without its newline); none for a blank line.
fn line_event(mut line: &[u8]) -> Option<TransportEvent> {
    if line.last() == Some(&b'\r') {
        line = &line[..line.len() - 1];
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(TransportEvent::Frame(jsonrpc::parse(line)))
}

/// The first `\n` (SIMD search: a byte-by-byte loop was 21% of the instructions of a 1 MiB echo).
fn memchr_newline(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', b)
}

/// Who reads the frames: decides what a frame over the size limit becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A server reading requests: an oversized request is answered with `-32600` under its id
    /// (when its top-level `id` could be read), so the client is not left waiting.
    Server,
    /// A client reading replies: an oversized response fails its request with a size-limit
    /// error ([`crate::Error::too_large`]) instead of leaving the caller to time out.
    Client,
}

/// What an oversized frame of `n` bytes becomes for `side`.
fn oversized(side: Side, n: usize, max: usize, found: Found) -> TransportEvent {
    let message = format!("Invalid Request: message of {n} bytes exceeds the limit of {max} bytes");
    match (side, found.id) {
        (Side::Client, Some(id)) if !found.has_method => {
            let e = crate::Error::too_large(
                format!("the reply to request {id} is {n} bytes, over this client's limit of {max} bytes"),
                n,
                max,
            );
            TransportEvent::Failed(id, e)
        }
        (Side::Server, Some(id)) if found.has_method => {
            TransportEvent::Frame(Err(Response::error(Some(id), ErrorData::invalid_request(message))))
        }
        _ => TransportEvent::Frame(Err(Response::error(None, ErrorData::invalid_request(message)))),
    }
}

/// Reads frames until end of stream, sending each to `tx`. Blank lines are skipped; a trailing
/// `\r` is tolerated. Returns when the stream ends or the receiver is gone. Reads as a server
/// (see [`Side`]); [`pump_frames`] chooses.
pub async fn pump_reader<R: AsyncBufRead + Unpin>(
    r: R,
    tx: &mpsc::UnboundedSender<TransportEvent>,
    max: usize,
) -> std::io::Result<()> {
    pump_frames(r, tx, max, Side::Server).await
}

/// [`pump_reader`] for either side.
pub async fn pump_frames<R: AsyncBufRead + Unpin>(
    mut r: R,
    tx: &mpsc::UnboundedSender<TransportEvent>,
    max: usize,
    side: Side,
) -> std::io::Result<()> {
    let mut splitter = Splitter::new(max, side);
    let mut gone = false;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            if let Some(event) = splitter.finish() {
                let _ = tx.send(event);
            }
            return Ok(());
        }
        let n = available.len();
        splitter.push(available, &mut |event| gone |= tx.send(event).is_err());
        r.consume(n);
        if gone {
            return Ok(());
        }
    }
}

/// Writes frames from `rx` as lines, flushing whenever the queue runs dry.
pub async fn pump_writer<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::UnboundedReceiver<OutFrame>,
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(8 * 1024);
    let mut closing = false;
    while let Some(frame) = rx.recv().await {
        out.clear();
        closing |= !encode(&frame, &mut out);
        while !closing && out.len() < 1 << 20 {
            match rx.try_recv() {
                Ok(more) => closing |= !encode(&more, &mut out),
                Err(_) => break,
            }
        }
        w.write_all(&out).await?;
        w.flush().await?;
        if closing {
            break;
        }
    }
    w.shutdown().await.ok();
    Ok(())
}

/// Appends one frame as a line; false for [`OutFrame::Close`].
pub(crate) fn encode(frame: &OutFrame, out: &mut Vec<u8>) -> bool {
    match frame {
        OutFrame::One(m) => m.write_json(out),
        OutFrame::Batch(ms) => {
            out.push(b'[');
            for (i, m) in ms.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                m.write_json(out);
            }
            out.push(b']');
        }
        OutFrame::Close => return false,
    }
    out.push(b'\n');
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every frame of `input` pushed in chunks of `step` bytes, then the end of the stream.
    fn split(input: &[u8], step: usize, max: usize) -> Vec<String> {
        let mut s = Splitter::new(max, Side::Server);
        let mut out = Vec::new();
        let mut keep = |e: TransportEvent| out.push(format!("{e:?}"));
        for chunk in input.chunks(step) {
            s.push(chunk, &mut keep);
        }
        if let Some(e) = s.finish() {
            keep(e);
        }
        out
    }

    #[test]
    fn long_lines_are_skipped_and_reading_goes_on_whatever_the_chunks() {
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(
            b"\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n  \n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}",
        );
        let whole = split(&input, input.len(), 100);
        assert_eq!(whole.len(), 3, "{whole:?}");
        assert!(whole[0].contains("5000 bytes exceeds the limit of 100"), "{whole:?}");
        assert!(whole[1].contains("\"a\""), "{whole:?}");
        assert!(whole[2].contains("\"b\""), "{whole:?}");
        for step in [1, 2, 7, 64, 99, 100, 101, 4999] {
            assert_eq!(split(&input, step, 100), whole, "chunks of {step}");
        }
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let line = br#"{"jsonrpc":"2.0","method":"ping"}"#;
        for step in [1, 5, line.len(), line.len() + 1] {
            let mut input = line.to_vec();
            input.push(b'\n');
            let got = split(&input, step, line.len());
            assert!(got.len() == 1 && got[0].starts_with("Frame(Ok("), "{step}: {got:?}");
            let got = split(&input, step, line.len() - 1);
            assert!(got.len() == 1 && got[0].contains("exceeds the limit"), "{step}: {got:?}");
        }
    }

    async fn events(input: &[u8], side: Side) -> Vec<TransportEvent> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        pump_frames(tokio::io::BufReader::with_capacity(64, input), &tx, 100, side).await.unwrap();
        drop(tx);
        let mut out = Vec::new();
        while let Some(e) = rx.recv().await {
            out.push(e);
        }
        out
    }

    #[tokio::test]
    async fn an_oversized_reply_fails_its_request_with_a_size_error() {
        let reply =
            format!("{{\"jsonrpc\":\"2.0\",\"result\":{{\"t\":\"{}\"}},\"id\":9}}\n", "x".repeat(500));
        let got = events(reply.as_bytes(), Side::Client).await;
        let [TransportEvent::Failed(id, e)] = got.as_slice() else { panic!("{got:?}") };
        assert_eq!(*id, crate::jsonrpc::RequestId::Number(9));
        assert_eq!(e.kind(), crate::ErrorKind::Protocol);
        assert_eq!(e.code(), crate::ErrorCode::INVALID_REQUEST);
        assert_eq!(e.data().unwrap()["limit"], 100);
        assert!(e.message().contains("over this client's limit of 100 bytes"), "{}", e.message());
        // A server reading the same bytes has no request to answer.
        let got = events(reply.as_bytes(), Side::Server).await;
        let [TransportEvent::Frame(Err(r))] = got.as_slice() else { panic!("{got:?}") };
        assert_eq!(r.id, None);
    }

    #[tokio::test]
    async fn an_oversized_request_is_answered_under_its_id() {
        let req = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"tools/call\",\"params\":{{\"t\":\"{}\"}}}}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n", "x".repeat(500));
        let got = events(req.as_bytes(), Side::Server).await;
        let [TransportEvent::Frame(Err(r)), TransportEvent::Frame(Ok(_))] = got.as_slice() else {
            panic!("{got:?}")
        };
        assert_eq!(r.id, Some(crate::jsonrpc::RequestId::String("r1".into())));
        assert_eq!(r.outcome.as_ref().unwrap_err().code, crate::ErrorCode::INVALID_REQUEST);
        // A client does not mistake a server's request for a reply to its own.
        let got = events(req.as_bytes(), Side::Client).await;
        assert!(matches!(got[0], TransportEvent::Frame(Err(ref r)) if r.id.is_none()), "{got:?}");
    }
}
