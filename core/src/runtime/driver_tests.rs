//! Frames handed to the driver in place: answered on the caller's task when the driver is
//! idle, queued behind what waits in its inbox otherwise, refused once it stopped.

use super::*;
use crate::context::RequestContext;
use crate::engine::{ServerConfig, ServerEngine};
use crate::protocol::{CallToolResult, Tool};
use crate::registry::{Arguments, ToolRegistry};
use crate::runtime::tasks::Tasks;
use crate::runtime::ManualClock;
use crate::tasks::{MemoryTaskStore, TaskSettings};
use serde_json::json;
use std::time::UNIX_EPOCH;

/// Records what the driver sends.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Message>>>);

impl Recorder {
    fn ids(&self) -> Vec<i64> {
        let sent = self.0.lock().unwrap();
        sent.iter()
            .filter_map(|m| match m {
                Message::Response(r) => r.id.as_ref().and_then(|id| id.to_string().parse().ok()),
                _ => None,
            })
            .collect()
    }
}

impl Outbound for Recorder {
    fn send(&mut self, _route: Option<RouteId>, message: Message) {
        self.0.lock().unwrap().push(message);
    }
    fn send_batch(&mut self, _route: RouteId, messages: Vec<Message>) {
        self.0.lock().unwrap().extend(messages);
    }
}

fn driver() -> (Driver<Recorder>, DriverHandle, Recorder) {
    let reg = ToolRegistry::new();
    reg.register(
        Tool::new("plain", "plain", json!({"type": "object"})),
        |_: Arguments, _: RequestContext| async { Ok(CallToolResult::text("p")) },
    )
    .unwrap();
    // Waits for the test to open its gate (a handler that waits for its host).
    reg.register(
        Tool::new("gated", "gated", json!({"type": "object"})),
        |_: Arguments, _: RequestContext| async {
            let gate = GATE.with(|g| g.clone());
            gate.notified().await;
            Ok(CallToolResult::text("g"))
        },
    )
    .unwrap();
    let engine = Arc::new(ServerEngine::new(ServerConfig::new("test", "1.0"), Arc::new(reg)));
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_800_000_000)));
    let tasks = Arc::new(Tasks::with_clock(
        Arc::new(MemoryTaskStore::default()),
        TaskSettings::default(),
        clock.clone(),
    ));
    let env = Env::new(engine.clone(), tasks, clock);
    let out = Recorder::default();
    let (d, h) = Driver::new(ServerConnection::new(engine), env, out.clone(), Duration::from_secs(1));
    (d, h, out)
}

thread_local! {
    /// What the `gated` tool waits for (one per test thread).
    static GATE: Arc<tokio::sync::Notify> = Arc::new(tokio::sync::Notify::new());
}

/// A [`JobSpawner`] whose jobs run only when the test polls them (a host's own thread).
#[derive(Clone, Default)]
struct Manual(Arc<Mutex<Vec<HostJob>>>);

/// A job the host holds: stopped or not, and its future.
type HostJob = (Arc<std::sync::atomic::AtomicBool>, crate::registry::BoxFuture<'static, ()>);

struct Stop(Arc<std::sync::atomic::AtomicBool>);

impl JobAbort for Stop {
    fn abort(&self) {
        self.0.store(true, Ordering::Release);
    }
}

impl JobSpawner for Manual {
    fn spawn(&self, job: crate::registry::BoxFuture<'static, ()>) -> Box<dyn JobAbort> {
        let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        self.0.lock().unwrap().push((stopped.clone(), job));
        Box::new(Stop(stopped))
    }
}

impl Manual {
    /// Polls every job once (a no-op waker: the test polls again); jobs that ended or were
    /// stopped are dropped. The number left.
    fn poll_all(&self) -> usize {
        let mut jobs = std::mem::take(&mut *self.0.lock().unwrap());
        let mut cx = Context::from_waker(Waker::noop());
        jobs.retain_mut(|(stopped, job)| {
            !stopped.load(Ordering::Acquire) && job.as_mut().poll(&mut cx).is_pending()
        });
        let n = jobs.len();
        self.0.lock().unwrap().extend(jobs);
        n
    }
}

/// A stateless (2026-07-28) call of `tool` with `id`.
fn call_of(tool: &str, id: i64) -> Result<Inbound, Response> {
    crate::jsonrpc::parse(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string()
        .as_bytes(),
    )
}

/// A stateless (2026-07-28) call of `plain` with `id`.
fn call(id: i64) -> Result<Inbound, Response> {
    crate::jsonrpc::parse(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "plain", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string()
        .as_bytes(),
    )
}

#[tokio::test]
async fn a_frame_handed_over_in_place_is_answered_before_the_call_returns() {
    // The driver's task is not even running: the caller's task does the work.
    let (_driver, handle, out) = driver();
    assert!(handle.frame_in_place(call(1), RouteId(1), Origin::none()));
    assert_eq!(out.ids(), vec![1]);
}

#[tokio::test]
async fn a_frame_in_place_waits_behind_what_the_inbox_holds() {
    let (driver, handle, out) = driver();
    assert!(handle.frame(call(1), RouteId(1), Origin::none()));
    assert!(handle.frame_in_place(call(2), RouteId(2), Origin::none()));
    assert!(out.ids().is_empty(), "the second frame must not overtake the first");
    handle.close();
    driver.run().await;
    assert_eq!(out.ids(), vec![1, 2]);
}

#[tokio::test]
async fn frames_go_through_the_inbox_after_close_and_are_refused_once_stopped() {
    let (driver, handle, out) = driver();
    handle.close();
    let run = tokio::spawn(driver.run());
    run.await.unwrap();
    assert!(!handle.frame_in_place(call(3), RouteId(1), Origin::none()));
    assert!(out.ids().is_empty());
}

/// A driver whose waiting calls run on a [`Manual`] host, with a `gated` call `id` started.
fn gated_on_host(id: i64) -> (Driver<Recorder>, DriverHandle, Recorder, Manual) {
    let (driver, handle, out) = driver();
    let host = Manual::default();
    let driver = driver.with_spawner(Arc::new(host.clone()));
    assert!(handle.frame_in_place(call_of("gated", id), RouteId(1), Origin::none()));
    (driver, handle, out, host)
}

#[tokio::test]
async fn a_call_that_waits_runs_on_the_hosts_spawner_and_is_answered_where_it_ends() {
    let (driver, _handle, out, host) = gated_on_host(1);
    assert!(out.ids().is_empty());
    assert_eq!(host.poll_all(), 1, "the waiting call went to the host, not to a task");
    GATE.with(|g| g.notify_one());
    assert_eq!(host.poll_all(), 0);
    // Answered in place by the poll that ended it: the driver's task never ran.
    assert_eq!(out.ids(), vec![1]);
    drop(driver);
}

#[tokio::test]
async fn a_cancelled_call_on_the_hosts_spawner_is_stopped() {
    let (_driver, handle, out, host) = gated_on_host(7);
    let cancel = crate::jsonrpc::parse(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
    );
    assert!(handle.frame_in_place(cancel, RouteId(2), Origin::none()));
    assert_eq!(host.poll_all(), 0, "the stopped job is dropped, not polled");
    assert!(out.ids().is_empty(), "a cancelled call is not answered");
}
