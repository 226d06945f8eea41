//! The Events extension in a fleet (issue 48, "Subscriptions in a fleet"): three Rust
//! `echo_server --events --store redis://…` instances share one log of occurrences in a real
//! Redis (`mcpcore::store::redis::RedisEventLog`). Each instance is reached on its own port, so
//! which instance serves what is certain (nginx round-robin would only make it likely).
//!
//! - an `echo` on one instance is polled on a second and streamed on a third, on both lineages,
//!   with the cursors of one instance good on the others;
//! - an instance started after the emit replays it from Redis, and the instance that emitted
//!   it is gone by then;
//! - a Redis that lost its data (FLUSHALL) starts a new epoch: an old cursor reads as a gap
//!   (`truncated`), and what comes after it is delivered.
//!
//! Needs `redis-server` and `nginx`, as `scale_out.rs` (skipped without them, except in CI).

use mcpcore::client::{Client, ClientOptions, EventStream, StreamItem};
use mcpcore::protocol::events::EventOccurrence;
use mcpcore::protocol::ProtocolVersion;
use mcpcore_tests::fleet::{self, Fleet};
use mcpcore_tests::hooks::{self, Received};
use serde_json::json;
use std::time::{Duration, Instant};

async fn connect(port: u16, version: ProtocolVersion) -> Client {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let options = ClientOptions { version: Some(version), ..ClientOptions::default() };
    Client::connect_http(&url, Default::default(), options).await.expect("the instance answers")
}

async fn echo(client: &Client, text: &str) {
    let r = client.call_tool("echo", json!({ "text": text })).await.unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
}

fn texts(events: &[EventOccurrence]) -> Vec<String> {
    events.iter().map(|o| o.data["text"].as_str().unwrap_or_default().to_owned()).collect()
}

/// Polls `echoed` from `cursor` until `want` texts came (at most 10 s); (texts, truncated on
/// the first answer that had any, the last cursor).
async fn poll_until(
    client: &Client,
    cursor: Option<String>,
    want: usize,
) -> (Vec<String>, bool, Option<String>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let (mut got, mut truncated, mut cursor) = (Vec::new(), None, cursor);
    while got.len() < want && Instant::now() < deadline {
        let r = client.poll_events("echoed", json!({}), cursor.clone(), None).await.unwrap();
        if !r.events.is_empty() && truncated.is_none() {
            truncated = Some(r.truncated);
        }
        got.extend(texts(&r.events));
        cursor = r.cursor;
        if got.len() < want {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    (got, truncated.unwrap_or(false), cursor)
}

/// The texts of the next `n` occurrences on `stream` (heartbeats skipped; at most 10 s).
async fn streamed(stream: &mut EventStream, n: usize) -> Vec<String> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while got.len() < n {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(StreamItem::Event(o))) => {
                got.push(o.data["text"].as_str().unwrap_or_default().to_owned())
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_emit_on_one_instance_is_polled_and_streamed_on_the_others_and_outlives_it() {
    let Some(mut fleet) = Fleet::start_echo("scale_out_events", 3, &["--events"]) else { return };
    let mut first_cursor = None;
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let (emitter, poller, streamer) = tokio::join!(
            connect(fleet.ports[0], version),
            connect(fleet.ports[1], version),
            connect(fleet.ports[2], version)
        );
        // Where the log stands now, from the second instance.
        let start = poller.poll_events("echoed", json!({}), None, None).await.unwrap();
        let cursor = start.cursor.clone();
        assert!(cursor.is_some(), "{version}: echoed replays, so a poll gives a cursor");
        first_cursor = first_cursor.or(cursor.clone());
        // The third instance streams from that cursor.
        let mut stream = streamer.stream_events("echoed", json!({}), cursor.clone()).await.unwrap();
        let first = format!("{version} one");
        let second = format!("{version} two");
        echo(&emitter, &first).await;
        echo(&emitter, &second).await;
        let (polled, truncated, _) = poll_until(&poller, cursor.clone(), 2).await;
        assert_eq!(
            polled,
            [first.clone(), second.clone()],
            "{version}: polled on another instance, once each"
        );
        assert!(!truncated, "{version}: nothing was dropped");
        assert_eq!(
            streamed(&mut stream, 2).await,
            [first.clone(), second.clone()],
            "{version}: streamed on a third"
        );
        // The first instance's cursor is good on the third, and the other way round.
        let on_first = emitter.poll_events("echoed", json!({}), cursor.clone(), None).await.unwrap();
        assert_eq!(texts(&on_first.events), [first.clone(), second.clone()], "{version}");
        let later = streamer.poll_events("echoed", json!({}), on_first.cursor.clone(), None).await.unwrap();
        assert!(later.events.is_empty() && !later.truncated, "{version}: {later:?}");
        emitter.close().await;
        poller.close().await;
        streamer.close().await;
    }

    // The emitter goes; an instance that was not there at the emit replays it from Redis.
    fleet.instances[0].kill();
    let port = fleet::free_port();
    let public = fleet.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let _late = fleet::start_echo(port, fleet.redis_port, &public, &["--events".to_owned()]);
    let late = connect(port, ProtocolVersion::V2026_07_28).await;
    // The cursor a client kept from before the first emit, on a fourth instance.
    let (replayed, _, _) = poll_until(&late, first_cursor, 4).await;
    assert_eq!(
        replayed,
        ["2026-07-28 one", "2026-07-28 two", "2025-11-25 one", "2025-11-25 two"],
        "a new instance replays what others emitted before it started"
    );

    // Redis loses its data: a new epoch, so an old cursor reads as a gap.
    let survivor = connect(fleet.ports[1], ProtocolVersion::V2026_07_28).await;
    let now = survivor.poll_events("echoed", json!({}), None, None).await.unwrap().cursor;
    assert_eq!(fleet::redis_cmd(fleet.redis_port, "FLUSHALL"), "+OK");
    echo(&late, "after the flush").await;
    let (after, truncated, _) = poll_until(&survivor, now, 1).await;
    assert_eq!(after, ["after the flush"]);
    assert!(truncated, "a cursor of the old epoch reads as a gap");
    late.close().await;
    survivor.close().await;
}

/// Waits (at most `limit`) until the receiver has `want` occurrence texts.
async fn received(r: &Received, want: &[&str], limit: Duration) -> Vec<String> {
    r.wait_count(want.len(), limit).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_subscription_is_the_fleets_delivered_once_and_outlives_its_instance() {
    let extra = ["--events", "--events-allow-http-loopback"];
    let Some(mut fleet) = Fleet::start_echo("scale_out_webhooks", 3, &extra) else { return };
    let v = ProtocolVersion::V2026_07_28;
    let (c0, c1, c2) =
        tokio::join!(connect(fleet.ports[0], v), connect(fleet.ports[1], v), connect(fleet.ports[2], v));
    let (got, url) = hooks::receiver().await;
    let secret = hooks::secret(7);
    // Subscribed through the first instance, which verifies the callback and holds it.
    let sub = c0.subscribe_webhook("echoed", json!({}), &url, &secret, Some(60_000)).await.unwrap();
    // Emitted on the two others: each delivered once, by one instance, not three times.
    // (An emit returns once queued for Redis, so two instances' emits are ordered only by
    // waiting for the first.)
    echo(&c1, "a").await;
    assert_eq!(received(&got, &["a"], Duration::from_secs(10)).await, ["a"]);
    echo(&c2, "b").await;
    assert_eq!(received(&got, &["a", "b"], Duration::from_secs(10)).await, ["a", "b"]);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(got.texts(), ["a", "b"], "three instances, one delivery each");
    // A refresh through another instance keeps the one subscription.
    let again = c2.subscribe_webhook("echoed", json!({}), &url, &secret, Some(60_000)).await.unwrap();
    assert_eq!(again.id, sub.id);
    assert_eq!(got.verifications(), 1, "a refresh is not a new subscription to verify");

    // The instance holding it dies: another takes it over (its lease runs out in 6 s).
    c0.close().await;
    fleet.instances[0].kill();
    echo(&c1, "c").await;
    let texts = received(&got, &["a", "b", "c"], Duration::from_secs(20)).await;
    assert_eq!(texts, ["a", "b", "c"], "delivered by a surviving instance");
    let ids = got.ids();
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no occurrence delivered twice: {ids:?}");

    // Unsubscribed through another instance than the one delivering: nothing more comes.
    c2.unsubscribe_webhook("echoed", json!({}), &url).await.unwrap();
    let gone = c1.unsubscribe_webhook("echoed", json!({}), &url).await.unwrap_err();
    assert_eq!(gone.rpc_error().map(|e| e.code.0), Some(-32011), "{gone:?}");
    echo(&c1, "d").await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(got.texts(), ["a", "b", "c"], "nothing after the unsubscribe");
    c1.close().await;
    c2.close().await;
}
