//! A webhook delivery as a receiver gets it from the network (`events::receiver::Receiver`, the
//! Standard Webhooks checks of SEP-3415 §Webhook delivery): what anyone who knows the callback
//! URL can send. Input, split at the first three NULs: the `webhook-id`, `webhook-timestamp`
//! and `webhook-signature` header values, then the body. The same body is also delivered once
//! signed with the receiver's secret, so the envelope parsing behind the signature is reached.
//! Properties: no panic; a delivery with a made-up signature is never accepted (only the
//! secret's own signature is); a correctly signed delivery is answered 200 or refused 400 for
//! its body, never 401; the same id twice is a duplicate the second time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::events::receiver::{Delivery, Receiver};
use mcpcore::events::webhook::{parse_secret, sign};
use std::time::{Duration, UNIX_EPOCH};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fuzz_target!(|data: &[u8]| {
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let receiver = Receiver::new(SECRET).expect("a valid secret");
    let mut parts = data.splitn(4, |b| *b == 0);
    let (Some(id), Some(ts), Some(sig)) = (parts.next(), parts.next(), parts.next()) else { return };
    let body = parts.next().unwrap_or_default();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (id, ts, sig) = (text(id), text(ts), text(sig));
    let headers = |id: String, ts: String, sig: String| {
        move |name: &str| match name {
            "webhook-id" => Some(id.clone()),
            "webhook-timestamp" => Some(ts.clone()),
            "webhook-signature" => Some(sig.clone()),
            _ => None,
        }
    };
    let key = parse_secret(SECRET).expect("a valid secret");
    // As sent: accepted only if the input happens to carry the secret's signature.
    if receiver.receive(headers(id.clone(), ts.clone(), sig.clone()), body, now).is_ok() {
        let stamp: u64 = ts.trim().parse().expect("accepted means a numeric timestamp");
        let genuine = sign(&key, &id, stamp, body);
        assert!(
            sig.split(' ').any(|s| s == genuine),
            "accepted a delivery not signed with the secret: {sig:?}"
        );
    }
    // Signed properly, now: only the body can be refused (400), never the signature (401).
    let fresh = Receiver::new(SECRET).expect("a valid secret");
    let stamp = 1_800_000_000;
    let good = sign(&key, &id, stamp, body);
    let first = fresh.receive(headers(id.clone(), stamp.to_string(), good.clone()), body, now);
    match &first {
        Ok(_) => {}
        Err(refused) => assert_eq!(refused.status, 400, "a signed delivery refused: {}", refused.reason),
    }
    if let Ok(r) = first {
        if !matches!(r.delivery, Delivery::Verification) {
            let again = fresh.receive(headers(id.clone(), stamp.to_string(), good), body, now).expect("accepted once");
            assert!(matches!(again.delivery, Delivery::Duplicate), "the same id twice was taken twice");
        }
    }
});
