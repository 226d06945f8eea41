//! Idempotent writes through chaos on the fleet (issue 50, "no idempotent write acts twice"):
//! three `echo_server --store redis://… --idempotency --ledger FILE` instances behind nginx
//! (`common::fleet`), the `append(text, idempotency_key)` tool writing one line per call to one
//! ledger file, under four 2026-07-28 writers that retry each key until it is acknowledged,
//! while Redis is paused for 8 s (`CLIENT PAUSE`: every command waits) and then has every
//! connection cut (`CLIENT KILL TYPE normal`).
//!
//! What must hold: every request is answered, with a result or a JSON-RPC error; no key's line is in the ledger twice; every key
//! acknowledged with a result is there once; and once Redis is back, every writer's keys are
//! acknowledged again. (A Redis restarted empty forgets its keys by definition: a retry after
//! that acts again; run Redis with persistence where that matters.)

use mcpcore_tests::chaos::{exchange, Phase};
use mcpcore_tests::fleet::{self, Fleet, Scratch};
use mcpcore_tests::http::{modern, Raw};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What one attempt of a key got.
#[derive(Debug, Clone)]
struct Attempt {
    key: String,
    phase: &'static str,
    /// HTTP status, or 0 when no answer came within the client's timeout.
    status: u16,
    code: Option<i64>,
    /// A result that is not an error: the write is acknowledged.
    acked: bool,
    took: Duration,
}

/// A 2026-07-28 writer until `stop`: key after key, each retried until acknowledged.
async fn writer(w: usize, url: String, phase: Phase, stop: Arc<AtomicBool>, out: Arc<Mutex<Vec<Attempt>>>) {
    let raw = Raw::new(&url);
    let mut id = 0u32;
    // Bounded: the chaos script ends well before this many keys.
    'keys: for k in 0..2_000u32 {
        let key = format!("w{w}-k{k}");
        for _ in 0..200 {
            if stop.load(Ordering::Relaxed) {
                break 'keys;
            }
            id += 1;
            let call = modern(
                i64::from(id),
                "tools/call",
                json!({"name": "append", "arguments": {"text": key, "idempotency_key": key}}),
            );
            let (status, body, _, took) = exchange(raw.post_modern(&call), Duration::from_secs(30)).await;
            let acked = status == 200 && body["result"]["isError"] != true && body["result"].is_object();
            let code = body["error"]["code"].as_i64();
            out.lock().unwrap().push(Attempt {
                key: key.clone(),
                phase: phase.get(),
                status,
                code,
                acked,
                took,
            });
            if acked {
                continue 'keys;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[test]
fn under_redis_pause_and_cut_no_idempotent_write_acts_twice() {
    let scratch = Scratch::new("chaos-ledger");
    let ledger = scratch.0.join("ledger.txt");
    let ledger_arg = ledger.to_str().unwrap().to_owned();
    let Some(f) = Fleet::start_echo("fleet-chaos-writes", 3, &["--idempotency", "--ledger", &ledger_arg])
    else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let out = Arc::new(Mutex::new(Vec::new()));
    let phase = Phase::default();
    let writers: Vec<_> = (0..4)
        .map(|w| rt.spawn(writer(w, f.url.clone(), phase.clone(), stop.clone(), out.clone())))
        .collect();

    std::thread::sleep(Duration::from_millis(1500));
    phase.set("paused");
    assert_eq!(fleet::redis_cmd(f.redis_port, "CLIENT PAUSE 8000 ALL"), "+OK");
    std::thread::sleep(Duration::from_millis(8500));
    phase.set("cut");
    let killed = fleet::redis_cmd(f.redis_port, "CLIENT KILL TYPE normal");
    assert!(killed.starts_with(':'), "{killed}");
    std::thread::sleep(Duration::from_millis(1500));
    phase.set("after");
    std::thread::sleep(Duration::from_millis(3000));
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        rt.block_on(w).unwrap();
    }

    let out = out.lock().unwrap().clone();
    let mut lines: HashMap<String, usize> = HashMap::new();
    for line in std::fs::read_to_string(&ledger).unwrap_or_default().lines() {
        *lines.entry(line.to_owned()).or_default() += 1;
    }
    let summary = ["steady", "paused", "cut", "after"]
        .map(|p| {
            let o: Vec<&Attempt> = out.iter().filter(|a| a.phase == p).collect();
            let acked = o.iter().filter(|a| a.acked).count();
            let slowest = o.iter().map(|a| a.took).max().unwrap_or_default();
            format!("{p}: {} attempts, {acked} acknowledged, slowest {slowest:?}", o.len())
        })
        .join("; ");
    eprintln!("fleet chaos writes: {summary}; {} lines in the ledger", lines.values().sum::<usize>());
    for a in &out {
        assert_ne!(a.status, 0, "an attempt got no answer: {a:?} ({summary})");
        // One not acknowledged says why, as a JSON-RPC error (Redis unreachable: -32603).
        assert!(a.acked || a.code.is_some(), "an attempt neither acknowledged nor refused: {a:?}");
    }
    let twice: Vec<_> = lines.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "keys that acted more than once: {twice:?} ({summary})");
    for a in out.iter().filter(|a| a.acked) {
        assert_eq!(lines.get(&a.key), Some(&1), "an acknowledged write is not in the ledger once: {a:?}");
    }
    for w in 0..4 {
        let mine = out.iter().filter(|a| a.phase == "after" && a.key.starts_with(&format!("w{w}-")));
        assert!(mine.clone().any(|a| a.acked), "writer {w} did not recover ({summary})");
    }
}
