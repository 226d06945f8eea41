//! Opening a 2026-07-28 `requestState` (`input::state::open`), which a client sends back at
//! will. Input: a key length byte, the key, then the state text.
//! Properties: no panic; an arbitrary state never opens (it would need a forged HMAC); a state
//! sealed with answers and user state taken from the input opens to exactly those; the same
//! state with any one byte changed, or opened for other arguments, is refused with -32602.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::fuzzing::{open_request_state, seal_request_state};
use serde_json::{json, Map, Value};
use std::time::{Duration, UNIX_EPOCH};

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else { return };
    let (key, rest) = rest.split_at(usize::from(n).min(rest.len()));
    let key = if key.is_empty() { &b"fuzz"[..] } else { key };
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let args = json!({"city": "Paris"});
    let text = String::from_utf8_lossy(rest);

    let opened = open_request_state(key, &text, "tools/call", "weather", &args, now);
    assert!(opened.is_err(), "an unsealed state opened: {text:?}");
    assert_eq!(opened.unwrap_err().code.0, -32602);

    let user: Option<Value> = serde_json::from_str(&text).ok();
    let mut answers = Map::new();
    answers.insert("k".into(), Value::String(text.clone().into_owned()));
    let sealed = seal_request_state(
        key,
        "tools/call",
        "weather",
        &args,
        answers.clone(),
        user.clone(),
        Duration::from_secs(60),
        now,
    );
    let (a, u) = open_request_state(key, &sealed, "tools/call", "weather", &args, now).expect("round trip");
    assert_eq!((a, u), (answers, user));
    assert!(open_request_state(key, &sealed, "tools/call", "weather", &json!({"city": "Rome"}), now).is_err());
    assert!(open_request_state(key, &sealed, "tools/call", "weather", &args, now + Duration::from_secs(61))
        .is_err());

    let mut bytes = sealed.into_bytes();
    let at = rest.len() % bytes.len();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    if let Ok(tampered) = String::from_utf8(bytes) {
        let r = open_request_state(key, &tampered, "tools/call", "weather", &args, now);
        assert!(r.is_err(), "a state changed at byte {at} still opened: {tampered}");
    }
});
