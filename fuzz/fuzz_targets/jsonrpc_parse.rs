//! One wire frame (a stdio line or an HTTP body) through `jsonrpc::parse`, every transport's
//! first step. Properties: no panic; a parsed message re-serializes to JSON that parses back to
//! the same message; the streaming id scan (used for frames over the size limit) never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::jsonrpc::{self, scan, Inbound};

fuzz_target!(|data: &[u8]| {
    let _ = scan::scan(data);
    let Ok(inbound) = jsonrpc::parse(data) else { return };
    let messages: Vec<_> = match inbound {
        Inbound::Single(m) => vec![m],
        Inbound::Batch(items) => items.into_iter().flatten().collect(),
    };
    for m in messages {
        let json = m.to_json();
        match jsonrpc::parse(json.as_bytes()) {
            Ok(Inbound::Single(again)) => assert_eq!(again.to_json(), json, "round trip changed {json}"),
            other => panic!("{json} did not parse back: {other:?}"),
        }
    }
});
