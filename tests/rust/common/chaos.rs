//! Load for chaos on the fleet (issue 50): legacy clients holding sessions and stateless
//! 2026-07-28 clients calling `echo` through the proxy in a loop, each request's outcome
//! recorded with the chaos step under way, and the checks every chaos test makes of them
//! (`fleet_chaos.rs`).

use crate::http::{modern_echo, Raw};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What one request got.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub worker: usize,
    /// `initialize`, `initialized` or `call` (legacy), `modern` (a 2026-07-28 call).
    pub kind: &'static str,
    pub phase: &'static str,
    /// HTTP status, or 0 when no answer came (a transport error or the client's timeout).
    pub status: u16,
    /// The JSON-RPC error code of the body, if any.
    pub code: Option<i64>,
    pub took: Duration,
    /// For a call answered 200: its text was the one sent.
    pub echoed: bool,
}

/// Which chaos step of one test is under way (its outcomes are labelled with it; "steady"
/// before the first [`Phase::set`]).
#[derive(Clone, Default)]
pub struct Phase(Arc<Mutex<&'static str>>);

impl Phase {
    /// The step under way.
    pub fn get(&self) -> &'static str {
        let p = *self.0.lock().unwrap();
        if p.is_empty() {
            "steady"
        } else {
            p
        }
    }

    /// Labels what comes next `p`.
    pub fn set(&self, p: &'static str) {
        *self.0.lock().unwrap() = p;
    }
}

/// Sends `rb` (a request of [`Raw`], bounded by `timeout`): its status (0 when no answer came:
/// a transport error or the timeout), body, `Mcp-Session-Id` and the time taken. Unlike
/// [`crate::http::send`] a missing answer is an outcome here, not a failure of the test.
pub async fn exchange(
    rb: reqwest::RequestBuilder,
    timeout: Duration,
) -> (u16, Value, Option<String>, Duration) {
    let started = Instant::now();
    let Ok(resp) = rb.timeout(timeout).send().await else { return (0, Value::Null, None, started.elapsed()) };
    let status = resp.status().as_u16();
    let sid = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let text = resp.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), sid, started.elapsed())
}

/// How long a chaos worker waits for one answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(15);

/// A 2026-07-28 client in a loop until `stop`: stateless `echo` calls (2026-07-28
/// basic/transports: the `Mcp-Method` and `Mcp-Name` headers, the revision in `_meta`).
pub async fn modern_worker(
    w: usize,
    url: String,
    phase: Phase,
    stop: Arc<AtomicBool>,
    out: Arc<Mutex<Vec<Outcome>>>,
) {
    let raw = Raw::new(&url);
    // Bounded: the chaos script ends well before this many requests.
    for n in 0..20_000u32 {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let text = format!("m{w} n{n}");
        let call = modern_echo(i64::from(n) + 1, &text);
        let (status, body, _, took) = exchange(raw.post_modern(&call), ANSWER_TIMEOUT).await;
        let echoed = body["result"]["content"][0]["text"] == text.as_str();
        let code = body["error"]["code"].as_i64();
        out.lock().unwrap().push(Outcome {
            worker: w,
            kind: "modern",
            phase: phase.get(),
            status,
            code,
            took,
            echoed,
        });
        if status != 200 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A legacy client in a loop until `stop`: a session (again after a 404), then `echo` calls.
pub async fn worker(
    w: usize,
    url: String,
    phase: Phase,
    stop: Arc<AtomicBool>,
    out: Arc<Mutex<Vec<Outcome>>>,
) {
    let raw = Raw::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "chaos", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let mut session: Option<String> = None;
    let record = |kind: &'static str, status: u16, body: &Value, took: Duration, echoed: bool| {
        let code = body["error"]["code"].as_i64();
        out.lock().unwrap().push(Outcome { worker: w, kind, phase: phase.get(), status, code, took, echoed });
    };
    // Bounded: the chaos script ends well before this many requests.
    for n in 0..20_000u32 {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let Some(sid) = session.clone() else {
            let (status, body, sid, took) = exchange(raw.post_legacy(None, &init), ANSWER_TIMEOUT).await;
            record("initialize", status, &body, took, false);
            match (status, sid) {
                (200, Some(sid)) => {
                    let (status, body, _, took) =
                        exchange(raw.post_legacy(Some(&sid), &initialized), ANSWER_TIMEOUT).await;
                    record("initialized", status, &body, took, false);
                    if status == 202 {
                        session = Some(sid);
                    }
                }
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
            continue;
        };
        let text = format!("w{w} n{n}");
        let call = json!({"jsonrpc": "2.0", "id": n + 2, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}});
        let (status, body, _, took) = exchange(raw.post_legacy(Some(&sid), &call), ANSWER_TIMEOUT).await;
        let echoed = body["result"]["content"][0]["text"] == text.as_str();
        record("call", status, &body, took, echoed);
        match status {
            200 => {}
            404 => session = None,
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// The load of one chaos test: six legacy workers and two 2026-07-28 ones on a runtime of their
/// own, labelling their outcomes with the step [`Load::phase`] names last.
pub struct Load {
    rt: tokio::runtime::Runtime,
    phase: Phase,
    stop: Arc<AtomicBool>,
    out: Arc<Mutex<Vec<Outcome>>>,
    workers: Vec<tokio::task::JoinHandle<()>>,
}

impl Load {
    /// Starts the workers against `url` (step "steady").
    pub fn start(url: &str) -> Load {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let (phase, stop, out) = (Phase::default(), Arc::new(AtomicBool::new(false)), Arc::default());
        let spawn = |w, modern: bool| {
            let (url, phase, stop, out) =
                (url.to_owned(), phase.clone(), Arc::clone(&stop), Arc::clone(&out));
            if modern {
                rt.spawn(modern_worker(w, url, phase, stop, out))
            } else {
                rt.spawn(worker(w, url, phase, stop, out))
            }
        };
        let workers = (0..6).map(|w| spawn(w, false)).chain((0..2).map(|w| spawn(w, true))).collect();
        Load { rt, phase, stop, out, workers }
    }

    /// Labels what comes next `p`.
    pub fn phase(&self, p: &'static str) {
        self.phase.set(p);
    }

    /// Stops the workers and returns every outcome.
    pub fn finish(self) -> Vec<Outcome> {
        self.stop.store(true, Ordering::Relaxed);
        for w in self.workers {
            self.rt.block_on(w).unwrap();
        }
        let out = self.out.lock().unwrap().clone();
        out
    }
}

/// One line per step of `phases`: requests, 2xx, 503 and the slowest answer of the legacy
/// workers, then the 2026-07-28 calls.
pub fn summary(out: &[Outcome], phases: &[&str]) -> String {
    let line = |p: &str| {
        let o: Vec<&Outcome> = out.iter().filter(|o| o.phase == p && o.kind != "modern").collect();
        let ok = o.iter().filter(|o| o.status == 200 || o.status == 202).count();
        let n503 = o.iter().filter(|o| o.status == 503).count();
        let slowest = o.iter().map(|o| o.took).max().unwrap_or_default();
        format!("{p}: {} requests, {ok} 2xx, {n503} 503, slowest {slowest:?}", o.len())
    };
    let modern: Vec<&Outcome> = out.iter().filter(|o| o.kind == "modern").collect();
    let slowest = modern.iter().map(|o| o.took).max().unwrap_or_default();
    let lines: Vec<String> = phases.iter().map(|p| line(p)).collect();
    format!("{}; 2026-07-28: {} calls, slowest {slowest:?}", lines.join("; "), modern.len())
}

/// What every chaos test checks: every request answered within `bound`, with a result, a 503
/// carrying a JSON-RPC error, or a 404 (a session Redis forgot); each 200 echoing what it sent;
/// every 2026-07-28 call a success when `modern_unaffected`; and in the `last` step every legacy
/// worker calling successfully again.
pub fn check(out: &[Outcome], bound: Duration, modern_unaffected: bool, last: &str, summary: &str) {
    for o in out {
        assert_ne!(o.status, 0, "a request got no answer: {o:?} ({summary})");
        assert!(o.took < bound, "an answer took {:?}: {o:?} ({summary})", o.took);
        match (o.kind, o.status) {
            // A call answered 200 echoes what it sent (no answer crossed to another call).
            ("call" | "modern", 200) => assert!(o.echoed, "{o:?}"),
            ("initialize", 200) | ("initialized", 202) => assert_eq!(o.code, None, "{o:?}"),
            (_, 503) => assert_eq!(o.code, Some(-32603), "a 503 carries a JSON-RPC error: {o:?}"),
            (_, 404) => assert!(o.code.is_some(), "a 404 carries a JSON-RPC error: {o:?}"),
            _ => panic!("an answer that is neither a result, 503 nor 404: {o:?}"),
        }
    }
    let modern: Vec<&Outcome> = out.iter().filter(|o| o.kind == "modern").collect();
    assert!(modern.len() > 20, "the 2026-07-28 workers made {} calls ({summary})", modern.len());
    if modern_unaffected {
        for o in &modern {
            assert!(o.status == 200 && o.echoed, "a 2026-07-28 call failed: {o:?} ({summary})");
        }
    }
    for w in 0..6 {
        let mine: Vec<&Outcome> =
            out.iter().filter(|o| o.kind != "modern" && o.worker == w && o.phase == last).collect();
        assert!(mine.iter().any(|o| o.echoed), "worker {w} did not recover: {mine:?} ({summary})");
        assert!(mine.last().is_some_and(|o| o.status == 200 && o.echoed), "worker {w}: {mine:?}");
    }
}
