//! An event stream through `http::sse::SseParser`, fed whole and in chunks. Properties: no
//! panic; the chunking does not change the events, the last event id, the retry value or the
//! error; an event never exceeds the size limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::http::sse::{SseError, SseEvent, SseParser};

fn parse(
    stream: &[u8],
    limit: usize,
    chunk: usize,
) -> (Vec<SseEvent>, Option<SseError>, Option<String>, Option<u64>) {
    let mut p = SseParser::new(limit);
    let mut events = Vec::new();
    let mut error = None;
    for part in stream.chunks(chunk.max(1)) {
        match p.push(part) {
            Ok(mut e) => events.append(&mut e),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    (events, error, p.last_event_id().map(str::to_owned), p.retry())
}

fuzz_target!(|data: &[u8]| {
    let Some((&[limit, chunk], stream)) = data.split_first_chunk::<2>() else { return };
    let limit = 16 + usize::from(limit) * 4;
    let whole = parse(stream, limit, stream.len());
    let chunked = parse(stream, limit, usize::from(chunk) % 7 + 1);
    match (&whole.1, &chunked.1) {
        // After an error the two runs stop at different places; only the error must agree.
        (Some(a), Some(b)) => assert_eq!(a, b),
        (None, None) => assert_eq!(whole, chunked),
        _ => panic!("chunking changed the outcome: {whole:?} vs {chunked:?}"),
    }
    for e in &whole.0 {
        assert!(e.data.len() <= limit, "an event of {} bytes passed a limit of {limit}", e.data.len());
    }
});
