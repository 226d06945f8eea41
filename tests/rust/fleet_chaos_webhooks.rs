//! Webhook subscriptions through chaos on the fleet (issue 50, "no webhook subscription is
//! lost"; issue 48, "Subscriptions in a fleet"): three `echo_server --events --store redis://…`
//! instances, one webhook subscription to `echoed` taken through the first, and an `echo` on
//! another instance in each phase while Redis is:
//!
//! - paused for 8 s (`CLIENT PAUSE`: every command waits; the emit's append waits with it);
//! - cut off (`CLIENT KILL TYPE normal`: every connection dropped);
//! - snapshotted (`SAVE`), killed, unreachable for 10 s (longer than the 6-s lease, so the
//!   instance holding the subscription stops delivering rather than risk a second deliverer),
//!   and started again from its snapshot (a Redis with persistence, as docs/deployment.md
//!   asks for where subscriptions matter).
//!
//! What must hold: every phase's occurrence is delivered (an emit's append is retried while
//! Redis is away, and the holder's deliveries resume once it holds the lease again), the
//! subscription outlives the outage (the occurrence after it is delivered), and an occurrence
//! delivered more than once comes with the same `webhook-id` every time, so a receiver drops
//! the repeat (what an outage can cause: a delivery made while its position could not be
//! recorded). Needs `redis-server` and `nginx`, as `scale_out.rs`.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::ProtocolVersion;
use mcpcore_tests::fleet::{self, Fleet};
use mcpcore_tests::hooks;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Duration;

async fn connect(port: u16) -> Client {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let options = ClientOptions { version: Some(ProtocolVersion::V2026_07_28), ..ClientOptions::default() };
    Client::connect_http(&url, Default::default(), options).await.expect("the instance answers")
}

/// One `echo` (the server emits `echoed`); its outcome is not asserted: only deliveries are.
async fn echo(client: &Client, text: &str) {
    let r = tokio::time::timeout(Duration::from_secs(10), client.call_tool("echo", json!({ "text": text })))
        .await;
    assert!(matches!(r, Ok(Ok(_))), "echo {text:?}: {r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_subscription_outlives_redis_paused_cut_off_and_restarted() {
    let extra = ["--events", "--events-allow-http-loopback"];
    let Some(mut f) = Fleet::start_echo("fleet-chaos-webhooks", 3, &extra) else { return };
    let (got, url) = hooks::receiver().await;
    let (c0, c1, c2) = tokio::join!(connect(f.ports[0]), connect(f.ports[1]), connect(f.ports[2]));
    c0.subscribe_webhook("echoed", json!({}), &url, &hooks::secret(3), Some(600_000)).await.unwrap();
    let redis = f.redis_port;
    let redis_cmd = move |cmd: &str| fleet::redis_cmd(redis, cmd);
    let wait = Duration::from_secs(30);

    echo(&c1, "steady").await;
    assert!(got.wait_for("steady", wait).await, "{:?}", got.texts());

    // Paused: the emit is taken at once (queued); its append waits for Redis.
    assert_eq!(redis_cmd("CLIENT PAUSE 8000 ALL"), "+OK");
    echo(&c2, "paused").await;
    assert!(got.wait_for("paused", wait).await, "{:?}", got.texts());

    // Every connection cut: the stores reconnect.
    let killed = redis_cmd("CLIENT KILL TYPE normal");
    assert!(killed.starts_with(':'), "{killed}");
    echo(&c1, "cut").await;
    assert!(got.wait_for("cut", wait).await, "{:?}", got.texts());

    // Down for 10 s, then back from its snapshot.
    assert_eq!(redis_cmd("SAVE"), "+OK");
    f.redis.kill();
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (server, _) = fleet::tools("fleet-chaos-webhooks").unwrap();
    let _back = fleet::start_redis(&server, f.redis_port, &f.dir);
    echo(&c2, "after").await;
    assert!(got.wait_for("after", wait).await, "the subscription was lost: {:?}", got.texts());

    // Each occurrence once, or repeated under one webhook-id (a receiver drops the repeat).
    let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
    for id in got.ids() {
        *by_id.entry(id).or_default() += 1;
    }
    let texts = got.texts();
    let mut unique = texts.clone();
    unique.dedup();
    assert_eq!(unique, ["steady", "paused", "cut", "after"], "in order, every phase: {texts:?}");
    assert_eq!(by_id.len(), 4, "one webhook-id per occurrence: {by_id:?}");
    eprintln!("fleet chaos webhooks: deliveries {texts:?}, per webhook-id {by_id:?}");
    for kid in f.instances.iter_mut() {
        assert!(kid.0.try_wait().unwrap().is_none(), "an instance died");
    }
    for c in [c0, c1, c2] {
        c.close().await;
    }
}
