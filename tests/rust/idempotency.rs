//! Idempotent writes (issue 35): a tool call carrying an `idempotency_key` acts once. Over real
//! HTTP on 127.0.0.1, both lineages: concurrent repeats wait for the first call and get its
//! result; a later repeat gets the stored result; the key with other arguments is `-32602`; a
//! call that failed with a JSON-RPC error keeps nothing. Then three `echo_server` instances on
//! one Redis behind nginx (round-robin, no affinity): the same key sent to all of them at once
//! acts once, counted in the file every instance's `append` writes to; and the rate limit's
//! buckets in Redis are one per client for the whole fleet.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prelude::*;
use mcpcore::protocol::ProtocolVersion;
use mcpcore::server::middleware::Idempotency;
use mcpcore_tests::fleet::Fleet;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

static CHARGED: AtomicUsize = AtomicUsize::new(0);

/// Charges `amount` (a side effect: counted); a negative amount is refused with -32602.
#[tool]
async fn charge(
    /** Repeat it to retry without charging twice. */
    idempotency_key: String,
    /** The amount. */
    amount: f64,
) -> mcpcore::Result<String> {
    if amount < 0.0 {
        return Err(mcpcore::Error::rpc(ErrorData::invalid_params("a negative amount")));
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    let n = CHARGED.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!("charge #{n} of {amount} under {idempotency_key}"))
}

fn text(r: &CallToolResult) -> String {
    r.first_text().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyed_call_acts_once_on_both_lineages() {
    let server = Server::builder("idem", "1.0")
        .tool(charge)
        .middleware(Arc::new(Idempotency::default()))
        .build()
        .unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let options = ClientOptions { version: Some(version), ..Default::default() };
        let client =
            Arc::new(Client::connect_http(&serving.url(), Default::default(), options).await.unwrap());
        let before = CHARGED.load(Ordering::SeqCst);
        let key = format!("pay-{version}");
        // Three at once: one acts, two wait for its result.
        let calls = (0..3).map(|_| {
            let (client, key) = (client.clone(), key.clone());
            tokio::spawn(async move {
                client.call_tool("charge", json!({"idempotency_key": key, "amount": 5})).await
            })
        });
        let results: Vec<String> = futures_util::future::join_all(calls)
            .await
            .into_iter()
            .map(|r| text(&r.unwrap().unwrap()))
            .collect();
        assert_eq!(CHARGED.load(Ordering::SeqCst), before + 1, "{version}: {results:?}");
        assert!(results.iter().all(|r| *r == results[0]), "{version}: {results:?}");
        // Later, in another key order: the stored result, no second charge.
        let again = client.call_tool("charge", json!({"amount": 5, "idempotency_key": key})).await.unwrap();
        assert_eq!(text(&again), results[0]);
        assert_eq!(CHARGED.load(Ordering::SeqCst), before + 1);
        // The key with other arguments.
        let e = client.call_tool("charge", json!({"idempotency_key": key, "amount": 6})).await.unwrap_err();
        assert_eq!(e.code(), mcpcore::ErrorCode::INVALID_PARAMS, "{version}: {e}");
        assert_eq!(e.data().unwrap()["reason"], "idempotency_key_reused");
        // A call that failed keeps nothing: the same key and arguments run again (and fail again).
        for _ in 0..2 {
            let e = client
                .call_tool("charge", json!({"idempotency_key": "bad", "amount": -1}))
                .await
                .unwrap_err();
            assert_eq!(e.message(), "a negative amount", "{version}");
        }
        // Another key acts.
        client
            .call_tool("charge", json!({"idempotency_key": format!("{key}-2"), "amount": 5}))
            .await
            .unwrap();
        assert_eq!(CHARGED.load(Ordering::SeqCst), before + 2);
        // Without a key, every call acts.
        Arc::try_unwrap(client).ok().unwrap().close().await;
    }
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_on_redis_act_once_for_one_key() {
    let scratch = mcpcore_tests::fleet::Scratch::new("idempotency-ledger");
    let ledger = scratch.0.join("ledger.txt");
    let ledger_arg = ledger.to_string_lossy().into_owned();
    let Some(fleet) = Fleet::start_echo("idempotency", 3, &["--idempotency", "--ledger", &ledger_arg]) else {
        return;
    };
    let lines = || {
        std::fs::read_to_string(&ledger).unwrap_or_default().lines().map(str::to_owned).collect::<Vec<_>>()
    };
    for (round, version) in
        [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25].into_iter().enumerate()
    {
        // Six clients at once, each a connection of its own: nginx spreads them over the three.
        let calls = (0..6).map(|_| {
            let url = fleet.url.clone();
            tokio::spawn(async move {
                let options = ClientOptions { version: Some(version), ..Default::default() };
                let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
                let args = json!({"idempotency_key": format!("k{round}"), "text": format!("line {round}")});
                let r = client.call_tool("append", args).await;
                client.close().await;
                r
            })
        });
        for r in futures_util::future::join_all(calls).await {
            let r = r.unwrap().unwrap();
            assert_eq!(r.structured_content, Some(json!({ "length": round + 1 })), "{version}");
        }
        assert_eq!(lines().len(), round + 1, "{version}: one line per key: {:?}", lines());
        let served: std::collections::BTreeSet<String> =
            fleet.log().iter().filter(|l| l.status == "200").map(|l| l.upstream.clone()).collect();
        assert_eq!(served.len(), 3, "every instance served some of it: {served:?}");
    }
    // The same key with other arguments, through any instance: refused.
    let client =
        Client::connect_http(&fleet.url, Default::default(), ClientOptions::default()).await.unwrap();
    let e = client.call_tool("append", json!({"idempotency_key": "k0", "text": "other"})).await.unwrap_err();
    assert_eq!(e.code(), mcpcore::ErrorCode::INVALID_PARAMS, "{e}");
    assert_eq!(lines().len(), 2);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_on_redis_share_each_clients_rate_limit() {
    // Every request reaches the instances from nginx's address: one client, one bucket of 3 for
    // the whole fleet (each instance's own bucket would let 9 through).
    let Some(fleet) = Fleet::start_echo("rate-fleet", 3, &["--rate-limit", "0.01,3"]) else { return };
    let raw = mcpcore_tests::http::Raw::new(&fleet.url);
    let mut statuses = Vec::new();
    for i in 0..6 {
        let r = mcpcore_tests::http::send(raw.post_modern(&mcpcore_tests::http::modern_echo(i, "x"))).await;
        statuses.push(r.status);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429, 429], "one bucket for the fleet");
    let served: std::collections::BTreeSet<String> = fleet.log().iter().map(|l| l.upstream.clone()).collect();
    assert_eq!(served.len(), 3, "the requests went to every instance: {served:?}");
}

#[tokio::test]
async fn the_redis_store_lets_only_the_holder_renew_or_release_a_claim() {
    use mcpcore::idempotency::{Claimed, IdempotencyStore};
    use mcpcore::store::redis::RedisIdempotencyStore;
    use mcpcore_tests::fleet::{free_port, redis_tool, start_redis, Scratch};
    use std::time::SystemTime;
    let Some(redis) = redis_tool("idempotency-redis-store") else { return };
    let scratch = Scratch::new("idempotency-redis-store");
    let port = free_port();
    let _server = start_redis(&redis, port, &scratch.0);
    let store = RedisIdempotencyStore::new(&format!("redis://127.0.0.1:{port}/0")).unwrap();
    let (lease, now) = (Duration::from_millis(300), SystemTime::now());
    assert_eq!(store.claim("k", "fp", "first", lease, now).await.unwrap(), Claimed::Fresh);
    assert_eq!(store.claim("k", "fp", "second", lease, now).await.unwrap(), Claimed::Running);
    // A claim sent again by its holder (after a dropped connection) finds its own: still fresh.
    assert_eq!(store.claim("k", "fp", "first", lease, now).await.unwrap(), Claimed::Fresh);
    assert_eq!(store.claim("k", "other", "second", lease, now).await.unwrap(), Claimed::Conflict);
    assert!(!store.renew("k", "second", lease, now).await.unwrap(), "only the holder renews");
    store.release("k", "second").await.unwrap();
    assert_eq!(store.claim("k", "fp", "second", lease, now).await.unwrap(), Claimed::Running, "nor releases");
    // Renewed past its first lease, the claim still stands.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(store.renew("k", "first", lease, now).await.unwrap());
    }
    assert_eq!(store.claim("k", "fp", "second", lease, now).await.unwrap(), Claimed::Running);
    store.release("k", "first").await.unwrap();
    assert_eq!(store.claim("k", "fp", "second", lease, now).await.unwrap(), Claimed::Fresh);
    // A finished record has no holder: nothing releases it.
    store.complete("k", "fp", &json!({"content": []}), Duration::from_secs(60), now).await.unwrap();
    store.release("k", "second").await.unwrap();
    assert_eq!(
        store.claim("k", "fp", "third", lease, now).await.unwrap(),
        Claimed::Done(json!({"content": []}))
    );
}
