use super::*;
use serde_json::json;

fn at(s: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(s)
}

#[test]
fn the_same_arguments_in_any_key_order_are_one_fingerprint() {
    let a = fingerprint(&json!({"b": 1, "a": {"y": [1, {"q": 2, "p": 1}], "x": "s"}}));
    let b = fingerprint(&json!({"a": {"x": "s", "y": [1, {"p": 1, "q": 2}]}, "b": 1}));
    assert_eq!(a, b);
    assert_ne!(a, fingerprint(&json!({"b": 2, "a": {"y": [1, {"q": 2, "p": 1}], "x": "s"}})));
    assert_ne!(scope("c", "t", "k1"), scope("c", "t", "k2"));
    assert_ne!(scope("ab", "c", "k"), scope("a", "bc", "k"), "parts are delimited");
}

#[test]
fn a_key_is_claimed_once_answered_from_its_result_and_refused_for_other_arguments() {
    let s = MemoryIdempotencyStore::default();
    let lease = Duration::from_secs(60);
    assert_eq!(s.claim_now("k", "f1", "h-f1", lease, at(0)).unwrap(), Claimed::Fresh);
    assert_eq!(s.claim_now("k", "f1", "h-next", lease, at(1)).unwrap(), Claimed::Running);
    assert_eq!(s.claim_now("k", "f1", "h-f1", lease, at(1)).unwrap(), Claimed::Fresh, "its holder's again");
    assert_eq!(s.claim_now("k", "f2", "h-f2", lease, at(1)).unwrap(), Claimed::Conflict);
    let result = json!({"content": []});
    futures_util::FutureExt::now_or_never(s.complete("k", "f1", &result, Duration::from_secs(10), at(2)))
        .unwrap()
        .unwrap();
    assert_eq!(s.claim_now("k", "f1", "h-f1", lease, at(3)).unwrap(), Claimed::Done(result));
    assert_eq!(s.claim_now("k", "f2", "h-f2", lease, at(3)).unwrap(), Claimed::Conflict);
    // Expired: the key is new again.
    assert_eq!(s.claim_now("k", "f2", "h-f2", lease, at(13)).unwrap(), Claimed::Fresh);
}

#[test]
fn a_released_or_lapsed_claim_lets_the_next_call_act() {
    let s = MemoryIdempotencyStore::default();
    let lease = Duration::from_secs(5);
    assert_eq!(s.claim_now("k", "f", "h-f", lease, at(0)).unwrap(), Claimed::Fresh);
    futures_util::FutureExt::now_or_never(s.release("k", "another")).unwrap().unwrap();
    assert_eq!(
        s.claim_now("k", "f", "h-g", lease, at(1)).unwrap(),
        Claimed::Running,
        "only its holder releases it"
    );
    futures_util::FutureExt::now_or_never(s.release("k", "h-f")).unwrap().unwrap();
    assert_eq!(s.claim_now("k", "f", "h-f", lease, at(1)).unwrap(), Claimed::Fresh);
    assert_eq!(s.claim_now("k", "f", "h-f", lease, at(7)).unwrap(), Claimed::Fresh, "the lease lapsed");
}

#[test]
fn a_full_store_drops_finished_keys_first_and_refuses_when_all_run() {
    let s = MemoryIdempotencyStore::new(2);
    let lease = Duration::from_secs(60);
    assert_eq!(s.claim_now("a", "f", "h-f", lease, at(0)).unwrap(), Claimed::Fresh);
    futures_util::FutureExt::now_or_never(s.complete("a", "f", &json!({}), lease, at(0))).unwrap().unwrap();
    assert_eq!(s.claim_now("b", "f", "h-f", lease, at(0)).unwrap(), Claimed::Fresh);
    assert_eq!(s.claim_now("c", "f", "h-f", lease, at(0)).unwrap(), Claimed::Fresh, "a (finished) made room");
    assert_eq!(s.len(), 2);
    let e = s.claim_now("d", "f", "h-f", lease, at(0)).unwrap_err();
    assert_eq!(e.limit_reached(), Some("idempotency_keys"));
}

#[test]
fn only_the_holder_renews_its_claim_and_a_renewed_claim_outlives_its_first_lease() {
    let s = MemoryIdempotencyStore::default();
    let lease = Duration::from_secs(5);
    assert_eq!(s.claim_now("k", "f", "first", lease, at(0)).unwrap(), Claimed::Fresh);
    let renew = |holder: &str, t: u64| {
        futures_util::FutureExt::now_or_never(s.renew("k", holder, lease, at(t))).unwrap().unwrap()
    };
    assert!(!renew("second", 3), "another call cannot renew it");
    assert!(renew("first", 4));
    assert_eq!(s.claim_now("k", "f", "second", lease, at(7)).unwrap(), Claimed::Running, "still held at 7 s");
    // Lapsed (not renewed after 4 s + 5 s): the next call takes over; the first can no longer
    // renew or release the new claim.
    assert_eq!(s.claim_now("k", "f", "second", lease, at(10)).unwrap(), Claimed::Fresh);
    assert!(!renew("first", 11));
    futures_util::FutureExt::now_or_never(s.release("k", "first")).unwrap().unwrap();
    assert_eq!(
        s.claim_now("k", "f", "third", lease, at(11)).unwrap(),
        Claimed::Running,
        "the first cannot free it"
    );
}
