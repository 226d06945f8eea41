use super::*;
use crate::state::{StateKey, StateKeys};
use serde_json::json;
use std::time::{Duration, UNIX_EPOCH};

fn at(s: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_800_000_000 + s)
}

fn registry() -> EventRegistry {
    let r = EventRegistry::with_epoch(7);
    r.declare(EventDecl::new("tick", "A tick").retain(3).payload_schema(
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    ))
    .unwrap();
    r
}

fn seqs(read: &Read) -> Vec<u64> {
    read.events.iter().map(|(s, _)| *s).collect()
}

#[test]
fn a_null_position_starts_from_now() {
    let r = registry();
    r.emit_at("tick", json!({"n": 1}), at(0)).unwrap();
    let read = r.read("tick", None, 10, None);
    assert!(read.events.is_empty());
    assert_eq!(read.position, Position { epoch: 7, seq: 1 });
    assert!(!read.truncated && !read.has_more);
}

#[test]
fn reads_resume_page_and_report_what_retention_dropped() {
    let r = registry();
    let start = r.head("tick");
    for n in 1..=2 {
        r.emit_at("tick", json!({"n": n}), at(n)).unwrap();
    }
    let first = r.read("tick", Some(start), 1, None);
    assert_eq!(seqs(&first), [1]);
    assert!(first.has_more && !first.truncated);
    assert_eq!(first.position.seq, 1);
    let second = r.read("tick", Some(first.position), 10, None);
    assert_eq!(seqs(&second), [2]);
    assert!(!second.has_more);
    assert_eq!(second.events[0].1.event_id, "evt_0000000000000007_2");
    assert_eq!(second.events[0].1.timestamp, "2027-01-15T08:00:02.000Z");
    // Five more: the log keeps 3, so a reader at 2 missed 3 and 4.
    for n in 3..=7 {
        r.emit_at("tick", json!({"n": n}), at(n)).unwrap();
    }
    let late = r.read("tick", Some(second.position), 10, None);
    assert_eq!(seqs(&late), [5, 6, 7]);
    assert!(late.truncated);
    // Another process's position: everything kept, truncated.
    let foreign = r.read("tick", Some(Position { epoch: 8, seq: 6 }), 10, None);
    assert_eq!(seqs(&foreign), [5, 6, 7]);
    assert!(foreign.truncated);
}

#[test]
fn max_age_skips_old_occurrences_and_says_so() {
    let r = registry();
    let start = r.head("tick");
    r.emit_at("tick", json!({"n": 1}), at(0)).unwrap();
    r.emit_at("tick", json!({"n": 2}), at(100)).unwrap();
    let floor = millis(at(50));
    let read = r.read("tick", Some(start), 10, Some(floor));
    assert_eq!(seqs(&read), [2]);
    assert!(read.truncated);
    assert_eq!(read.position.seq, 2);
}

#[test]
fn emit_refuses_unknown_types_bad_payloads_and_oversized_ones() {
    let r = registry();
    assert!(r.emit_at("nope", json!({}), at(0)).is_err());
    assert!(r.emit_at("tick", json!([1]), at(0)).is_err());
    let e = r.emit_at("tick", json!({"n": "one"}), at(0)).unwrap_err();
    assert!(e.to_string().contains("payloadSchema"), "{e}");
    r.declare(EventDecl::new("big", "Big")).unwrap();
    let e = r.emit_at("big", json!({"s": "x".repeat(300 * 1024)}), at(0)).unwrap_err();
    assert!(e.to_string().contains("at most 262144 bytes"), "{e}");
    // Nothing was recorded by the refusals.
    assert_eq!(r.head("tick").seq, 0);
    assert_eq!(r.head("big").seq, 0);
}

#[test]
fn declarations_are_checked() {
    let r = EventRegistry::with_epoch(1);
    assert!(r.declare(EventDecl::new("", "x")).is_err());
    assert!(r.declare(EventDecl::new("a", "x").delivery([])).is_err());
    assert!(r.declare(EventDecl::new("a", "x").retain(0)).is_err());
    assert!(r.declare(EventDecl::new("a", "x").input_schema(json!({"type": 5}))).is_err());
    assert!(r.is_empty());
}

#[test]
fn a_declaration_reads_from_the_json_a_binding_passes() {
    let d =
        EventDecl::from_json(json!({"name": "a", "delivery": ["push"], "retain": 3, "pollIntervalMs": 10,
        "payloadSchema": {"type": "object"}}))
        .unwrap();
    assert_eq!((d.event.delivery.clone(), d.retain, d.poll_interval_ms), (vec![DeliveryMode::Push], 3, 10));
    assert_eq!(d.event.description, None);
    let e = EventDecl::from_json(json!({"name": "a", "delivery": ["fax"]})).unwrap_err();
    assert!(e.to_string().contains("fax"), "{e}");
    let e = EventDecl::from_json(json!({"name": "a", "retian": 3})).unwrap_err();
    assert!(e.to_string().contains("retian"), "{e}");
}

#[test]
fn webhook_signatures_follow_standard_webhooks() {
    use webhook::{parse_secret, sign, verify};
    // The Standard Webhooks specification's example (spec/standard-webhooks.md).
    let secret = parse_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
    let body = br#"{"test": 2432232314}"#;
    let sig = sign(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
    assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    assert!(verify(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, &format!("v1,bad {sig}")));
    assert!(!verify(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, &sig));
    // Secrets: the prefix, base64, 24 to 64 bytes.
    assert!(parse_secret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_none());
    assert!(parse_secret("whsec_AAAAAAAAAAA=").is_none(), "8 bytes");
    assert!(parse_secret("whsec_!!").is_none());
}

#[test]
fn subscription_ids_are_stable_over_the_key() {
    let key = |url: &str, args: serde_json::Value| webhook::SubscriptionKey {
        principal: "alice".into(),
        url: url.into(),
        name: "tick".into(),
        arguments: args,
    };
    let a = key("https://a.example/h", json!({"x": 1, "y": 2}));
    assert_eq!(
        a.id(),
        key("https://a.example/h", json!({"y": 2, "x": 1})).id(),
        "member order does not matter"
    );
    assert_ne!(a.id(), key("https://b.example/h", json!({"x": 1, "y": 2})).id());
    assert!(a.id().starts_with("sub_") && a.id().len() == 36);
}

#[test]
fn cursors_are_sealed_per_type() {
    let keys = StateKeys::from(StateKey::new(vec![9u8; 32]));
    let p = Position { epoch: 7, seq: 42 };
    let c = cursor::seal(&keys, "tick", p);
    assert_eq!(cursor::open(&keys, "tick", &c).unwrap(), p);
    assert!(cursor::open(&keys, "other", &c).is_err(), "bound to its type");
    let forged = c.replacen(".42.", ".43.", 1);
    assert!(cursor::open(&keys, "tick", &forged).is_err(), "tamper-evident");
    let other = StateKeys::from(StateKey::new(vec![1u8; 32]));
    assert!(cursor::open(&other, "tick", &c).is_err(), "another server's");
    // A rotation keeps old cursors open.
    let rotated = StateKeys::new([StateKey::new(vec![1u8; 32]), StateKey::new(vec![9u8; 32])]);
    assert_eq!(cursor::open(&rotated, "tick", &c).unwrap(), p);
    for junk in ["", "x", "7.1", "zz.1.AAAA", "7.-1.AAAA"] {
        assert!(cursor::open(&keys, "tick", junk).is_err(), "{junk:?}");
    }
}

mod receiving {
    use super::*;
    use crate::events::receiver::{Delivery, Receiver};
    use crate::events::webhook::sign;
    use std::collections::HashMap;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    fn post(id: &str, ts: u64, body: &str, secret: &str) -> HashMap<String, String> {
        let key = webhook::parse_secret(secret).unwrap();
        HashMap::from([
            ("webhook-id".to_owned(), id.to_owned()),
            ("webhook-timestamp".to_owned(), ts.to_string()),
            ("webhook-signature".to_owned(), sign(&key, id, ts, body.as_bytes())),
            ("x-mcp-subscription-id".to_owned(), "sub_1".to_owned()),
        ])
    }

    #[test]
    fn a_receiver_answers_challenges_takes_events_once_and_refuses_forgeries() {
        let r = Receiver::new(SECRET).unwrap();
        let now = at(0);
        let ts = now.duration_since(UNIX_EPOCH).unwrap().as_secs();
        let get = |h: &HashMap<String, String>| {
            let h = h.clone();
            move |k: &str| h.get(k).cloned()
        };
        let challenge = r#"{"type":"verification","challenge":"abc"}"#;
        let got = r
            .receive(get(&post("msg_verification_1", ts, challenge, SECRET)), challenge.as_bytes(), now)
            .unwrap();
        assert_eq!((got.delivery, got.body), (Delivery::Verification, br#"{"challenge":"abc"}"#.to_vec()));
        let event = r#"{"eventId":"evt_1","name":"tick","timestamp":"2027-01-15T08:00:00Z","data":{"n":1}}"#;
        let h = post("evt_1", ts, event, SECRET);
        let got = r.receive(get(&h), event.as_bytes(), now).unwrap();
        assert!(matches!(&got.delivery, Delivery::Event(o) if o.data == json!({"n": 1})), "{got:?}");
        assert_eq!(got.subscription_id.as_deref(), Some("sub_1"));
        // The same delivery again (a retry): acknowledged, not handed over.
        assert_eq!(r.receive(get(&h), event.as_bytes(), now).unwrap().delivery, Delivery::Duplicate);
        // A tampered body, a foreign secret, an old timestamp, missing headers.
        let tampered = event.replace("\"n\":1", "\"n\":2");
        assert_eq!(r.receive(get(&h), tampered.as_bytes(), now).unwrap_err().status, 401);
        let other = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        let h2 = post("evt_2", ts, event, other);
        assert_eq!(r.receive(get(&h2), event.as_bytes(), now).unwrap_err().status, 401);
        let old = post("evt_3", ts - 301, event, SECRET);
        assert_eq!(r.receive(get(&old), event.as_bytes(), now).unwrap_err().status, 401);
        assert_eq!(r.receive(|_: &str| None, event.as_bytes(), now).unwrap_err().status, 400);
        // A rotated secret is accepted once added.
        let r = r.also_accept(other).unwrap();
        assert!(matches!(r.receive(get(&h2), event.as_bytes(), now).unwrap().delivery, Delivery::Event(_)));
        // Envelopes.
        let gap = r#"{"type":"gap","cursor":"c9"}"#;
        let got = r.receive(get(&post("msg_gap_1", ts, gap, SECRET)), gap.as_bytes(), now).unwrap();
        assert_eq!(got.delivery, Delivery::Gap { cursor: Some("c9".into()) });
        assert!(Receiver::new("nope").is_err());
    }
}

/// A shared log that keeps what is appended (the real one is the Redis store's, tested in
/// `tests/rust/scale_out_events.rs`).
#[derive(Debug, Default)]
struct Appended(Mutex<Vec<(String, EventOccurrence, u64, usize)>>);

impl SharedLog for Appended {
    fn append(&self, name: &str, occurrence: &EventOccurrence, _: &str, at_ms: u64, retain: usize) {
        self.0.lock().unwrap().push((name.to_owned(), occurrence.clone(), at_ms, retain));
    }
    fn attach(&self, _: Weak<EventRegistry>) {}
}

#[test]
fn a_sharing_registry_emits_into_the_log_and_keeps_what_it_hands_back_in_sequence() {
    let r = Arc::new(registry());
    let log = Arc::new(Appended::default());
    r.share(log.clone(), StateKeys::default());
    assert!(r.is_shared());
    let start = r.head("tick");
    let first = r.emit_at("tick", json!({"n": 1}), at(1)).unwrap();
    let second = r.emit_at("tick", json!({"n": 2}), at(2)).unwrap();
    assert_ne!(first.event_id, second.event_id);
    // Nothing is kept until the log hands it back.
    assert!(r.read("tick", Some(start), 10, None).events.is_empty());
    let appended = log.0.lock().unwrap().clone();
    assert_eq!(appended.len(), 2);
    assert_eq!((appended[0].0.as_str(), appended[0].2, appended[0].3), ("tick", millis(at(1)), 3));
    // The log's epoch is 99; its occurrences arrive out of order: 2 waits for 1.
    let announced = Arc::new(AtomicU64::new(0));
    let count = announced.clone();
    let _feed = r.changes().subscribe(move |_| {
        count.fetch_add(1, Ordering::Relaxed);
    });
    r.mirror(99, "tick", 2, millis(at(2)), second.clone());
    assert_eq!(r.head("tick"), Position { epoch: 99, seq: 0 });
    assert_eq!(announced.load(Ordering::Relaxed), 0, "nothing new in sequence yet");
    r.mirror(99, "tick", 1, millis(at(1)), first.clone());
    r.mirror(99, "tick", 1, millis(at(1)), first.clone());
    assert_eq!(announced.load(Ordering::Relaxed), 1, "1 and 2 kept, announced once");
    let read = r.read("tick", Some(Position { epoch: 99, seq: 0 }), 10, None);
    assert_eq!(seqs(&read), [1, 2]);
    assert_eq!(read.events[1].1, second);
    assert!(!read.truncated);
    // A cursor of another instance that is ahead of this one: nothing yet, the same position.
    let ahead = r.read("tick", Some(Position { epoch: 99, seq: 5 }), 10, None);
    assert!(ahead.events.is_empty() && !ahead.truncated);
    assert_eq!(ahead.position, Position { epoch: 99, seq: 5 });
    // Occurrences the log no longer has: a reader from before them learns of the gap.
    r.skip(99, "tick", 6);
    r.mirror(99, "tick", 7, millis(at(7)), first.clone());
    let after_gap = r.read("tick", Some(Position { epoch: 99, seq: 2 }), 10, None);
    assert_eq!(seqs(&after_gap), [7]);
    assert!(after_gap.truncated);
    assert_eq!(r.positions(), [("tick".to_owned(), Position { epoch: 99, seq: 7 })]);
    // The log started over (a new epoch): what was kept is dropped.
    r.mirror(100, "tick", 1, millis(at(8)), second);
    assert_eq!(r.head("tick"), Position { epoch: 100, seq: 1 });
    let old = r.read("tick", Some(Position { epoch: 99, seq: 7 }), 10, None);
    assert_eq!(seqs(&old), [1]);
    assert!(old.truncated);
    // Types not declared here are ignored.
    r.mirror(100, "unknown", 1, 0, first);
    assert!(r.positions().iter().all(|(n, _)| n == "tick"));
}
