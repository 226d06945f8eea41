//! Newline framing as a stdio server reads it (`transport::framing::Splitter`, what every stdio
//! server and Node's JS-thread feeding use): the first two bytes choose the frame limit and a
//! chunk size, the rest is the stream. Properties: no panic; the frames do not depend on how
//! the stream is cut into chunks (whole, in chunks of the chosen size, byte by byte); each
//! line over the limit becomes exactly one error frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::transport::framing::{Side, Splitter};
use mcpcore::transport::TransportEvent;

fn frames(stream: &[u8], max: usize, step: usize) -> Vec<String> {
    let mut s = Splitter::new(max, Side::Server);
    let mut out = Vec::new();
    let mut keep = |e: TransportEvent| out.push(format!("{e:?}"));
    for chunk in stream.chunks(step.max(1)) {
        s.push(chunk, &mut keep);
    }
    if let Some(e) = s.finish() {
        keep(e);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let [max, step, stream @ ..] = data else { return };
    let max = usize::from(*max) * 4;
    let whole = frames(stream, max, stream.len());
    assert_eq!(frames(stream, max, usize::from(*step)), whole, "chunks of {step}");
    assert_eq!(frames(stream, max, 1), whole, "byte by byte");
    let over = stream.split(|b| *b == b'\n').filter(|l| l.len() > max).count();
    let refused = whole.iter().filter(|f| f.contains("exceeds the limit")).count();
    assert_eq!(refused, over, "one refusal per line over {max} bytes");
});
