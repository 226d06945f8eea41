//! MCP Events figures (issue 48), all on 127.0.0.1, one process: a server over HTTP, our client,
//! and an axum webhook receiver.
//!
//! ```text
//! events_bench [--emits N] [--subscriptions N] [--store redis://127.0.0.1:PORT]
//! ```
//! With `--store`, the server is one instance of a fleet on that Redis (occurrences and webhook
//! subscriptions kept there: `Server::with_scale_out`), and `redis_used_kib` adds Redis's own
//! memory growth for the idle subscriptions (`INFO memory`'s `used_memory`).
//! Prints one JSON object:
//! - `push_per_s`: occurrences a second reaching one `events/stream` (the client's `next()`),
//!   emitted as fast as the registry takes them (N emits, retention N so none is dropped);
//! - `webhook_p50_us` / `webhook_p99_us`: from `emit` to the receiver's handler, one at a time
//!   (N/10 emits, each waited for);
//! - `idle_subscriptions_kib`: the process's RSS growth for N idle webhook subscriptions (one
//!   callback, N argument sets: N keys, one verification), and per subscription in bytes.
//!
//! Not a test: figures for bench/NOTES.md and the closing note. Build with `--profile dist`.

use axum::routing::post;
use axum::Router;
use mcpcore::client::{Client, ClientOptions, StreamItem};
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::events::DeliveryMode;
use mcpcore::server::webhooks::WebhookPolicy;
use mcpcore::server::Server;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn option(args: &[String], flag: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Redis's `used_memory` in KiB, read with one inline `INFO memory` on `url`'s host and port.
fn redis_used_kib(url: &str) -> u64 {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("redis://").split('/').next().unwrap_or_default();
    let Ok(mut s) = std::net::TcpStream::connect(addr) else { return 0 };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = s.write_all(b"INFO memory\r\n");
    let mut buf = vec![0u8; 64 * 1024];
    let n = s.read(&mut buf).unwrap_or(0);
    let text = String::from_utf8_lossy(&buf[..n]);
    text.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(0, |b| b / 1024)
}

fn percentile(sorted: &[u128], p: f64) -> u128 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let emits = option(&args, "--emits", 20_000);
    let subscriptions = option(&args, "--subscriptions", 10_000);
    let store = args.iter().position(|a| a == "--store").and_then(|i| args.get(i + 1)).cloned();

    let events = Arc::new(EventRegistry::new());
    let modes = [DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook];
    events.declare(EventDecl::new("push", "throughput").delivery(modes).retain(emits)).unwrap();
    events.declare(EventDecl::new("hook", "latency").delivery(modes)).unwrap();
    let idle_schema = json!({"type": "object", "properties": {"i": {"type": "integer"}}});
    events.declare(EventDecl::new("idle", "memory").delivery(modes).input_schema(idle_schema)).unwrap();
    let policy = WebhookPolicy {
        max_subscriptions: subscriptions + 10,
        max_per_principal: subscriptions + 10,
        ..WebhookPolicy::development()
    };
    let config = mcpcore::engine::ServerConfig::new("events-bench", "1.0");
    let server = Server::new(config, Arc::new(mcpcore::registry::ToolRegistry::new()))
        .with_events(events.clone())
        .with_webhook_policy(policy);
    let server = match &store {
        // One instance of a fleet: occurrences and webhook subscriptions in Redis.
        Some(url) => {
            let key = "6d6370636f72652d6576656e74732d62656e63682d73746174652d6b6579212121";
            let scale = mcpcore::store::ScaleOut::new(Some(url), Some(key), &[]).expect("a Redis URL");
            server.with_scale_out(&scale)
        }
        None => server,
    };
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();

    // Push throughput: one stream, emits as fast as they go, until the last one arrives.
    let mut stream = client.stream_events("push", json!({}), None).await.unwrap();
    assert!(matches!(stream.next().await, Some(StreamItem::Active { .. })));
    let start = Instant::now();
    let emitter = {
        let events = events.clone();
        tokio::spawn(async move {
            for n in 0..emits {
                events.emit("push", json!({ "n": n })).unwrap();
                if n % 256 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    let mut got = 0usize;
    while got < emits {
        if let Some(StreamItem::Event(_)) = stream.next().await {
            got += 1;
        }
    }
    let push_per_s = emits as f64 / start.elapsed().as_secs_f64();
    emitter.await.unwrap();
    drop(stream);

    // Webhook latency: emit, wait for the receiver's handler, one at a time.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let tx = Arc::new(Mutex::new(tx));
    let app = Router::new().route(
        "/hook",
        post(move |body: axum::body::Bytes| {
            let tx = tx.clone();
            async move {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                if v["type"] == "verification" {
                    return json!({ "challenge": v["challenge"] }).to_string();
                }
                let _ = tx.lock().unwrap().send(Instant::now());
                String::new()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    client.subscribe_webhook("hook", json!({}), &hook, secret, None).await.unwrap();
    let rounds = (emits / 10).max(10);
    let mut lat = Vec::with_capacity(rounds);
    for n in 0..rounds {
        let sent = Instant::now();
        events.emit("hook", json!({ "n": n })).unwrap();
        let arrived = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
        lat.push(arrived.duration_since(sent).as_micros());
    }
    lat.sort_unstable();

    // Idle subscriptions: RSS growth for N of them (one callback URL, N argument sets).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib();
    let redis_before = store.as_deref().map_or(0, redis_used_kib);
    for i in 0..subscriptions {
        client.subscribe_webhook("idle", json!({ "i": i }), &hook, secret, Some(3_600_000)).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = rss_kib();
    let grown = after.saturating_sub(before);
    let redis_grown = store.as_deref().map_or(0, redis_used_kib).saturating_sub(redis_before);
    println!(
        "{}",
        json!({
            "emits": emits,
            "push_per_s": push_per_s.round(),
            "webhook_rounds": rounds,
            "webhook_p50_us": percentile(&lat, 0.5),
            "webhook_p99_us": percentile(&lat, 0.99),
            "subscriptions": subscriptions,
            "idle_subscriptions_kib": grown,
            "bytes_per_subscription": grown * 1024 / subscriptions.max(1) as u64,
            "store": store,
            "redis_used_kib": redis_grown,
            "redis_bytes_per_subscription": redis_grown * 1024 / subscriptions.max(1) as u64,
        })
    );
    client.close().await;
}
