//! Our client against our server over real HTTP on 127.0.0.1 (port 0): every revision on
//! Streamable HTTP and the 2024-11-05 HTTP+SSE transport, transport fallback, JSON and SSE
//! answers with progress, legacy session expiry, cancellation, concurrency, graceful shutdown,
//! and the `fixture_server` binary serving HTTP as a child process.

use mcpcore::client::{CallOptions, Client, ClientOptions};
use mcpcore::context::BoxFuture;
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::http::server::{
    HttpServerConfig, HttpServing, InMemorySessionStore, ResponseMode, SessionKind, SessionRecord,
    SessionStore,
};
use mcpcore::protocol::notifications::ProgressNotificationParams;
use mcpcore::protocol::{CallToolResult, Lineage, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::ErrorData;
use mcpcore::ErrorKind;
use mcpcore_tests::http::{
    eventually, fixture_registry, modern_echo, send, serve_fixture, serve_registry, HttpChild, Raw, Watch,
};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

const V2026: ProtocolVersion = ProtocolVersion::V2026_07_28;
const V1125: ProtocolVersion = ProtocolVersion::V2025_11_25;
const V0618: ProtocolVersion = ProtocolVersion::V2025_06_18;
const V0326: ProtocolVersion = ProtocolVersion::V2025_03_26;
const V2024: ProtocolVersion = ProtocolVersion::V2024_11_05;

// ----- helpers --------------------------------------------------------------------------------

fn options(version: Option<ProtocolVersion>) -> ClientOptions {
    ClientOptions { version, request_timeout: Duration::from_secs(10), ..Default::default() }
}

fn pinned(version: ProtocolVersion) -> ClientOptions {
    options(Some(version))
}

async fn connect(url: &str, transport: HttpTransport, options: ClientOptions) -> Client {
    let http = HttpOptions { transport, ..Default::default() };
    tokio::time::timeout(Duration::from_secs(10), Client::connect_http(url, http, options))
        .await
        .unwrap_or_else(|_| panic!("connecting to {url} took over 10 s"))
        .unwrap_or_else(|e| panic!("connect to {url} ({transport:?}): {e}"))
}

/// `http://ADDR/sse`, the 2024-11-05 SSE endpoint.
fn sse_url(serving: &HttpServing) -> String {
    format!("http://{}/sse", serving.local_addr())
}

/// tools/list, echo, add and fail at the negotiated `version`.
async fn round_trip(client: &Client, version: ProtocolVersion) {
    assert_eq!(client.protocol_version(), version);
    assert_eq!(client.server_info().expect("server info").name, "fixture");
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "exit", "fail", "panic", "progress", "slow"]);
    let echo = client.call_tool("echo", json!({"text": "héllo\nworld"})).await.unwrap();
    assert_eq!(echo.first_text(), Some("héllo\nworld"));
    let add = client.call_tool("add", json!({"a": 2, "b": 3.5})).await.unwrap();
    if version >= V0618 {
        assert_eq!(add.structured_content, Some(json!({"sum": 5.5})));
    } else {
        assert_eq!(add.structured_content, None, "structuredContent does not exist before 2025-06-18");
    }
    assert_eq!(add.first_text(), Some(r#"{"sum":5.5}"#));
    let failed = client.call_tool("fail", json!({"text": "x"})).await.unwrap();
    assert!(failed.is_error());
}

/// Calls `progress` with `n` steps; returns the result and the progress seen by `on_progress`.
async fn call_with_progress(client: &Client, n: u64) -> (CallToolResult, Vec<ProgressNotificationParams>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let opts = CallOptions {
        on_progress: Some(std::sync::Arc::new(move |p| sink.lock().unwrap().push(p))),
        ..Default::default()
    };
    let r = client.call_tool_with("progress", json!({"n": n}), &opts).await.unwrap();
    // Whatever the callback saw by the time the call returned was delivered before the result.
    let seen = seen.lock().unwrap().clone();
    (r, seen)
}

fn assert_all_progress(seen: &[ProgressNotificationParams], n: u64, what: &str) {
    let steps: Vec<(f64, Option<f64>, Option<String>)> =
        seen.iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
    let want: Vec<_> = (1..=n).map(|i| (i as f64, Some(n as f64), Some(format!("step {i}")))).collect();
    assert_eq!(steps, want, "{what}: progress before the result");
}

/// A session store that remembers every session it was given, and can be told to be slow.
#[derive(Debug, Default)]
struct RecordingStore {
    inner: InMemorySessionStore,
    inserted: Mutex<Vec<(String, SessionKind)>>,
    slow_insert: AtomicBool,
    inserting: AtomicBool,
}

impl SessionStore for RecordingStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        self.inserted.lock().unwrap().push((id.to_owned(), record.kind));
        Box::pin(async move {
            if self.slow_insert.load(Ordering::SeqCst) {
                self.inserting.store(true, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(400)).await;
            }
            self.inner.create(id, record, now).await
        })
    }
    fn load<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, ErrorData>> {
        self.inner.load(id, now)
    }
    fn store<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        self.inner.store(id, record, now)
    }
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>> {
        self.inner.delete(id)
    }
    fn touch<'a>(&'a self, id: &'a str, now: SystemTime) -> BoxFuture<'a, Result<(), ErrorData>> {
        self.inner.touch(id, now)
    }
}

impl RecordingStore {
    fn kinds(&self) -> Vec<SessionKind> {
        self.inserted.lock().unwrap().iter().map(|(_, k)| *k).collect()
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
    /// Forgets every session, as a server restart or an expiry would.
    fn forget_all(&self) -> usize {
        let ids: Vec<String> = self.inserted.lock().unwrap().iter().map(|(id, _)| id.clone()).collect();
        ids.iter()
            .filter(|id| futures_util::FutureExt::now_or_never(self.inner.delete(id)) == Some(Ok(true)))
            .count()
    }
}

fn config_with(store: &Arc<RecordingStore>) -> HttpServerConfig {
    HttpServerConfig { sessions: store.clone(), ..Default::default() }
}

/// The fixture tools plus `watched` (sleeps `ms`, reporting to `watch`).
fn watched_registry(watch: &Arc<Watch>) -> ToolRegistry {
    let r = fixture_registry();
    let watch = watch.clone();
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]});
    r.register(
        Tool::new("watched", "Sleeps ms milliseconds, observed.", schema),
        move |a: Arguments, _c: ToolContext| {
            let watch = watch.clone();
            async move {
                watch.sleep(Duration::from_millis(a["ms"].as_u64().unwrap_or(0))).await;
                Ok(CallToolResult::text("slept"))
            }
        },
    )
    .unwrap();
    r
}

// ----- every revision -------------------------------------------------------------------------

async fn revision_over_streamable(version: ProtocolVersion) {
    let serving = serve_fixture(&[], HttpServerConfig::default()).await;
    let client = connect(&serving.url(), HttpTransport::Streamable, pinned(version)).await;
    round_trip(&client, version).await;
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn modern_2026_07_28_over_streamable_http() {
    revision_over_streamable(V2026).await;
}

#[tokio::test]
async fn legacy_2025_11_25_over_streamable_http() {
    revision_over_streamable(V1125).await;
}

#[tokio::test]
async fn legacy_2025_06_18_over_streamable_http() {
    revision_over_streamable(V0618).await;
}

#[tokio::test]
async fn legacy_2025_03_26_over_streamable_http() {
    revision_over_streamable(V0326).await;
}

#[tokio::test]
async fn legacy_2024_11_05_over_streamable_http_when_pinned() {
    revision_over_streamable(V2024).await;
}

#[tokio::test]
async fn legacy_2024_11_05_over_the_sse_transport() {
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[], config_with(&store)).await;
    let client = connect(&sse_url(&serving), HttpTransport::Sse, pinned(V2024)).await;
    round_trip(&client, V2024).await;
    assert_eq!(store.kinds(), [SessionKind::Sse]);
    client.close().await;
    // Closing the stream ends the 2024-11-05 session on the server.
    assert!(
        eventually(Duration::from_secs(3), || store.is_empty()).await,
        "the SSE session outlived its stream"
    );
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_sse_transport_is_also_served_by_get_on_the_endpoint() {
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[], config_with(&store)).await;
    let client = connect(&serving.url(), HttpTransport::Sse, pinned(V2024)).await;
    round_trip(&client, V2024).await;
    assert_eq!(store.kinds(), [SessionKind::Sse]);
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn unpinned_client_negotiates_modern() {
    let serving = serve_fixture(&[], HttpServerConfig::default()).await;
    let client = connect(&serving.url(), HttpTransport::Auto, options(None)).await;
    assert_eq!(client.lineage(), Lineage::Modern);
    round_trip(&client, V2026).await;
    assert_eq!(client.negotiated().server_versions[0], "2026-07-28");
    client.close().await;
    serving.shutdown().await.unwrap();
}

// ----- transport and lineage fallback ---------------------------------------------------------

#[tokio::test]
async fn auto_reaches_a_2024_11_05_only_server() {
    // The probe gets 400/-32022 naming only 2024-11-05, so the client sends initialize, which
    // this server accepts on the Streamable HTTP endpoint too.
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[V2024], config_with(&store)).await;
    let client = connect(&serving.url(), HttpTransport::Auto, options(None)).await;
    round_trip(&client, V2024).await;
    assert_eq!(store.kinds(), [SessionKind::Streamable]);
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn auto_falls_back_to_the_sse_transport_when_posts_are_refused() {
    // Pointed at the SSE endpoint, every POST is refused (405): the probe falls to legacy, the
    // initialize POST fails with a 4xx, and the client opens the 2024-11-05 SSE stream there.
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[V2024], config_with(&store)).await;
    let client = connect(&sse_url(&serving), HttpTransport::Auto, options(None)).await;
    round_trip(&client, V2024).await;
    assert_eq!(store.kinds(), [SessionKind::Sse], "the client must have used the SSE transport");
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_legacy_only_server_is_reached_via_initialize() {
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[V1125, V0618, V0326, V2024], config_with(&store)).await;
    let client = connect(&serving.url(), HttpTransport::Auto, options(None)).await;
    round_trip(&client, V1125).await;
    assert_eq!(store.kinds(), [SessionKind::Streamable]);
    client.close().await;
    // close() DELETEs the session.
    assert!(eventually(Duration::from_secs(3), || store.is_empty()).await, "close() left the session");
    serving.shutdown().await.unwrap();

    let serving = serve_fixture(&[V0326], HttpServerConfig::default()).await;
    let client = connect(&serving.url(), HttpTransport::Auto, options(None)).await;
    round_trip(&client, V0326).await;
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_legacy_pinned_client_fails_clearly_against_a_modern_only_server() {
    let serving = serve_fixture(&[V2026], HttpServerConfig::default()).await;
    let opts = ClientOptions { lineage: Some(Lineage::Legacy), ..options(None) };
    let http = HttpOptions { transport: HttpTransport::Streamable, ..Default::default() };
    let err = Client::connect_http(&serving.url(), http, opts).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert!(err.message().contains("-32022"), "{}", err.message());
    serving.shutdown().await.unwrap();
}

// ----- response modes and progress ------------------------------------------------------------

/// A modern client, a 2025-11-25 Streamable HTTP client and (when `sse`) a 2024-11-05 SSE client.
async fn clients(serving: &HttpServing, sse: bool) -> Vec<(&'static str, Client)> {
    let mut out = vec![
        ("modern", connect(&serving.url(), HttpTransport::Streamable, pinned(V2026)).await),
        ("2025-11-25", connect(&serving.url(), HttpTransport::Streamable, pinned(V1125)).await),
        ("2025-03-26", connect(&serving.url(), HttpTransport::Streamable, pinned(V0326)).await),
    ];
    if sse {
        out.push(("2024-11-05 SSE", connect(&sse_url(serving), HttpTransport::Sse, pinned(V2024)).await));
    }
    out
}

#[tokio::test]
async fn json_mode_answers_with_one_json_body() {
    let serving =
        serve_fixture(&[], HttpServerConfig { response_mode: ResponseMode::Json, ..Default::default() })
            .await;
    for (what, client) in clients(&serving, false).await {
        let r = client.call_tool("echo", json!({"text": what})).await.unwrap();
        assert_eq!(r.first_text(), Some(what));
        // Notifications sent during the call are dropped in JSON mode; the result still arrives.
        let (r, seen) = call_with_progress(&client, 3).await;
        assert_eq!(r.first_text(), Some("3 steps"), "{what}");
        assert!(seen.is_empty(), "{what}: JSON mode delivered progress {seen:?}");
        client.close().await;
    }
    let raw = Raw::new(&serving.url());
    let mut call = modern_echo(1, "x");
    call["params"]["arguments"] = json!({"n": 2});
    call["params"]["name"] = json!("progress");
    call["params"]["_meta"]["progressToken"] = json!("t");
    let r = send(raw.post_modern(&call)).await;
    assert_eq!((r.status, r.content_type()), (200, "application/json"), "{r:?}");
    assert_eq!(r.json["result"]["content"][0]["text"], "2 steps");
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn sse_mode_streams_every_answer() {
    let serving =
        serve_fixture(&[], HttpServerConfig { response_mode: ResponseMode::Sse, ..Default::default() }).await;
    for (what, client) in clients(&serving, false).await {
        let r = client.call_tool("echo", json!({"text": what})).await.unwrap();
        assert_eq!(r.first_text(), Some(what));
        let (r, seen) = call_with_progress(&client, 3).await;
        assert_eq!(r.first_text(), Some("3 steps"), "{what}");
        assert_all_progress(&seen, 3, what);
        client.close().await;
    }
    let raw = Raw::new(&serving.url());
    let r = send(raw.post_modern(&modern_echo(1, "streamed"))).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.content_type().starts_with("text/event-stream"), "{r:?}");
    assert_eq!(r.headers.get("x-accel-buffering").map(|v| v.to_str().unwrap()), Some("no"));
    let events = r.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].event.as_deref(), Some("message"));
    assert_eq!(r.json["id"], 1);
    assert_eq!(r.json["result"]["content"][0]["text"], "streamed");
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn auto_mode_delivers_progress_before_the_result() {
    let serving = serve_fixture(&[], HttpServerConfig::default()).await;
    for (what, client) in clients(&serving, true).await {
        let (r, seen) = call_with_progress(&client, 4).await;
        assert_eq!(r.first_text(), Some("4 steps"), "{what}");
        assert_all_progress(&seen, 4, what);
        // Without a progress token nothing is sent before the result.
        let (r, seen) = call_with_progress(&client, 0).await;
        assert_eq!(r.first_text(), Some("0 steps"), "{what}");
        assert!(seen.is_empty());
        client.close().await;
    }
    // Auto answers a call that sends nothing before its result as JSON, one that does as SSE.
    let raw = Raw::new(&serving.url());
    let r = send(raw.post_modern(&modern_echo(1, "plain"))).await;
    assert_eq!((r.status, r.content_type()), (200, "application/json"), "{r:?}");
    let mut call = modern_echo(2, "");
    call["params"]["name"] = json!("progress");
    call["params"]["arguments"] = json!({"n": 2});
    call["params"]["_meta"]["progressToken"] = json!("tok");
    let r = send(raw.post_modern(&call)).await;
    assert!(r.content_type().starts_with("text/event-stream"), "{r:?}");
    let events = r.events();
    let methods: Vec<String> = events
        .iter()
        .map(|e| {
            let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
            v["method"].as_str().map_or_else(|| format!("response {}", v["id"]), str::to_owned)
        })
        .collect();
    assert_eq!(methods, ["notifications/progress", "notifications/progress", "response 2"]);
    serving.shutdown().await.unwrap();
}

// ----- legacy sessions ------------------------------------------------------------------------

#[tokio::test]
async fn an_expired_legacy_session_is_reinitialized_once() {
    let store = Arc::new(RecordingStore::default());
    let serving = serve_fixture(&[], config_with(&store)).await;
    let client = connect(&serving.url(), HttpTransport::Streamable, pinned(V1125)).await;
    assert_eq!(client.call_tool("echo", json!({"text": "a"})).await.unwrap().first_text(), Some("a"));
    assert_eq!(store.forget_all(), 1);
    // The next call gets 404, re-initializes and is resent.
    assert_eq!(client.call_tool("echo", json!({"text": "b"})).await.unwrap().first_text(), Some("b"));
    assert_eq!(store.kinds().len(), 2, "one re-initialize");
    assert_eq!(store.len(), 1);
    // Several calls failing together re-initialize once between them.
    assert_eq!(store.forget_all(), 1);
    let calls: Vec<_> = (0..5)
        .map(|i| {
            let c = client.clone();
            tokio::spawn(async move { c.call_tool("echo", json!({"text": format!("c{i}")})).await })
        })
        .collect();
    for (i, h) in calls.into_iter().enumerate() {
        let r = h.await.unwrap().unwrap_or_else(|e| panic!("call {i} after expiry: {e}"));
        assert_eq!(r.first_text(), Some(format!("c{i}").as_str()));
    }
    assert_eq!(store.kinds().len(), 3, "exactly one more re-initialize");
    let ids: Vec<String> = store.inserted.lock().unwrap().iter().map(|(id, _)| id.clone()).collect();
    assert!(ids[0] != ids[1] && ids[1] != ids[2], "{ids:?}");
    client.close().await;
    serving.shutdown().await.unwrap();
}

#[test]
fn a_call_started_during_reinitialization_joins_the_new_session() {
    // The server runs on its own runtime: its slow session store blocks only the server.
    let server_rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client_rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let store = Arc::new(RecordingStore::default());
    let serving = server_rt.block_on(serve_fixture(&[], config_with(&store)));
    client_rt.block_on(async {
        let client = connect(&serving.url(), HttpTransport::Streamable, pinned(V1125)).await;
        // A finished call proves notifications/initialized went out (the client posts
        // notifications in order): the re-initialize below is triggered by the call `first`.
        assert_eq!(client.call_tool("echo", json!({"text": "a"})).await.unwrap().first_text(), Some("a"));
        assert_eq!(store.forget_all(), 1);
        store.slow_insert.store(true, Ordering::SeqCst);
        let first = {
            let c = client.clone();
            tokio::spawn(async move { c.call_tool("echo", json!({"text": "first"})).await })
        };
        // Wait until the replayed initialize is being handled (the store is slow to insert it),
        // then call a few times while it is; any call may land in that window.
        assert!(eventually(Duration::from_secs(3), || store.inserting.load(Ordering::SeqCst)).await);
        let mut during = Vec::new();
        for i in 0..5 {
            let c = client.clone();
            during.push(tokio::spawn(
                async move { c.call_tool("echo", json!({"text": format!("d{i}")})).await },
            ));
            tokio::time::sleep(Duration::from_millis(40)).await; // spreads the calls over the window
        }
        let first = first.await.unwrap();
        assert_eq!(first.unwrap().first_text(), Some("first"));
        for (i, call) in during.into_iter().enumerate() {
            let outcome = call.await.unwrap();
            assert_eq!(
                outcome.map(|r| r.first_text().map(str::to_owned)).map_err(|e| e.to_string()),
                Ok(Some(format!("d{i}"))),
                "call {i}, sent while the client re-initialized"
            );
        }
        store.slow_insert.store(false, Ordering::SeqCst);
        client.close().await;
    });
    server_rt.block_on(serving.shutdown()).unwrap();
}

// ----- cancellation ---------------------------------------------------------------------------

#[tokio::test]
async fn a_timed_out_call_is_cancelled_and_the_server_keeps_serving() {
    for version in [V2026, V1125] {
        let watch = Arc::new(Watch::default());
        let serving = serve_registry(watched_registry(&watch), &[], HttpServerConfig::default()).await;
        let client = connect(&serving.url(), HttpTransport::Streamable, pinned(version)).await;
        let opts = CallOptions { timeout: Some(Duration::from_millis(150)), ..Default::default() };
        let err = client.call_tool_with("watched", json!({"ms": 5000}), &opts).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{version}: {err}");
        // Modern: closing the response stream cancels; legacy: notifications/cancelled does.
        let stopped = eventually(Duration::from_secs(3), || watch.dropped.load(Ordering::SeqCst) == 1).await;
        assert!(stopped, "{version}: the server did not stop the cancelled call ({watch:?})");
        assert_eq!(watch.finished.load(Ordering::SeqCst), 0);
        let r = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(r.first_text(), Some("still here"), "{version}");
        let r = client.call_tool("watched", json!({"ms": 10})).await.unwrap();
        assert_eq!(r.first_text(), Some("slept"), "{version}");
        client.close().await;
        serving.shutdown().await.unwrap();
    }
}

// ----- concurrency ----------------------------------------------------------------------------

#[tokio::test]
async fn twenty_concurrent_calls_on_one_client() {
    let serving = serve_fixture(&[], HttpServerConfig::default()).await;
    for (what, client) in clients(&serving, true).await {
        let start = Instant::now();
        let calls: Vec<_> = (0..20)
            .map(|i| {
                let c = client.clone();
                tokio::spawn(async move {
                    if i % 2 == 0 {
                        c.call_tool("echo", json!({"text": format!("m{i}")})).await
                    } else {
                        c.call_tool("slow", json!({"ms": 250})).await
                    }
                })
            })
            .collect();
        for (i, h) in calls.into_iter().enumerate() {
            let r = h.await.unwrap().unwrap_or_else(|e| panic!("{what}: call {i}: {e}"));
            let want = if i % 2 == 0 { format!("m{i}") } else { "slept".to_owned() };
            assert_eq!(r.first_text(), Some(want.as_str()), "{what}: call {i}");
        }
        // Ten 250 ms calls one after another would take 2.5 s.
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{what}: calls did not overlap ({:?})",
            start.elapsed()
        );
        client.close().await;
    }
    serving.shutdown().await.unwrap();
}

// ----- graceful shutdown ----------------------------------------------------------------------

#[tokio::test]
async fn shutdown_lets_an_in_flight_call_finish() {
    for version in [V2026, V1125] {
        let watch = Arc::new(Watch::default());
        let serving = serve_registry(watched_registry(&watch), &[], HttpServerConfig::default()).await;
        let url = serving.url();
        let client = connect(&url, HttpTransport::Streamable, pinned(version)).await;
        let call = {
            let c = client.clone();
            tokio::spawn(async move { c.call_tool("watched", json!({"ms": 400})).await })
        };
        assert!(eventually(Duration::from_secs(3), || watch.started.load(Ordering::SeqCst) == 1).await);
        let start = Instant::now();
        tokio::time::timeout(Duration::from_secs(5), serving.shutdown())
            .await
            .unwrap_or_else(|_| panic!("{version}: shutdown hung"))
            .unwrap();
        assert!(start.elapsed() < Duration::from_secs(3), "{version}: shutdown took {:?}", start.elapsed());
        let r = call.await.unwrap().unwrap_or_else(|e| panic!("{version}: in-flight call: {e}"));
        assert_eq!(r.first_text(), Some("slept"));
        assert_eq!(watch.finished.load(Ordering::SeqCst), 1);
        // Nothing listens any more.
        let err = client.call_tool("echo", json!({"text": "late"})).await.unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Io | ErrorKind::Closed), "{version}: {err}");
        client.close().await;
    }
}

#[tokio::test]
async fn shutdown_stops_calls_that_outlive_the_grace_period() {
    for version in [V2026, V1125] {
        let watch = Arc::new(Watch::default());
        let config = HttpServerConfig { shutdown_grace: Duration::from_millis(200), ..Default::default() };
        let serving = serve_registry(watched_registry(&watch), &[], config).await;
        let client = connect(&serving.url(), HttpTransport::Streamable, pinned(version)).await;
        let call = {
            let c = client.clone();
            tokio::spawn(async move { c.call_tool("watched", json!({"ms": 3000})).await })
        };
        assert!(eventually(Duration::from_secs(3), || watch.started.load(Ordering::SeqCst) == 1).await);
        let start = Instant::now();
        serving.shutdown().await.unwrap();
        assert!(start.elapsed() < Duration::from_secs(1), "{version}: shutdown took {:?}", start.elapsed());
        // Past the grace period the call is stopped, as stdio's serve_channel does.
        let stopped = eventually(Duration::from_secs(1), || watch.dropped.load(Ordering::SeqCst) == 1).await;
        assert!(stopped, "{version}: the call outlived shutdown ({watch:?})");
        let outcome = tokio::time::timeout(Duration::from_secs(5), call).await.unwrap().unwrap();
        assert!(outcome.is_err(), "{version}: answered after shutdown returned: {outcome:?}");
        client.close().await;
    }
}

// ----- the fixture_server binary over HTTP ----------------------------------------------------

#[tokio::test]
async fn fixture_server_binary_serves_every_transport_over_http() {
    let mut child = HttpChild::spawn(&[]).await;
    let url = child.url.clone();
    let sse = url.replace("/mcp", "/sse");
    for (client, version) in [
        (connect(&url, HttpTransport::Auto, options(None)).await, V2026),
        (connect(&url, HttpTransport::Auto, pinned(V0618)).await, V0618),
        (connect(&sse, HttpTransport::Sse, pinned(V2024)).await, V2024),
    ] {
        round_trip(&client, version).await;
        let (r, seen) = call_with_progress(&client, 3).await;
        assert_eq!(r.first_text(), Some("3 steps"));
        assert_all_progress(&seen, 3, version.as_str());
        client.close().await;
    }
    let status = child.terminate(Duration::from_secs(5)).await.expect("exits on SIGTERM");
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn fixture_server_binary_honours_its_switches_over_http() {
    // --response-mode and --page-size.
    let mut child = HttpChild::spawn(&["--response-mode", "json", "--page-size", "2"]).await;
    let client = connect(&child.url, HttpTransport::Auto, options(None)).await;
    let page = client.list_tools_page(None).await.unwrap();
    assert_eq!(page.tools.len(), 2);
    assert!(page.next_cursor.is_some());
    assert_eq!(client.list_tools().await.unwrap().len(), 7);
    let (_, seen) = call_with_progress(&client, 2).await;
    assert!(seen.is_empty(), "json mode sends no progress");
    client.close().await;
    let raw = Raw::new(&child.url);
    let r = send(raw.post_modern(&modern_echo(1, "j"))).await;
    assert_eq!(r.content_type(), "application/json");
    child.terminate(Duration::from_secs(5)).await.unwrap();

    let mut child = HttpChild::spawn(&["--response-mode", "sse"]).await;
    let r = send(Raw::new(&child.url).post_modern(&modern_echo(1, "s"))).await;
    assert!(r.content_type().starts_with("text/event-stream"), "{r:?}");
    assert_eq!(r.json["result"]["content"][0]["text"], "s");
    child.terminate(Duration::from_secs(5)).await.unwrap();

    // --versions 2024-11-05: the client falls to initialize.
    let mut child = HttpChild::spawn(&["--versions", "2024-11-05"]).await;
    let client = connect(&child.url, HttpTransport::Auto, options(None)).await;
    round_trip(&client, V2024).await;
    client.close().await;
    child.terminate(Duration::from_secs(5)).await.unwrap();

    // --reject-first-call: the first modern call gets -32022, the client renegotiates and retries.
    let mut child = HttpChild::spawn(&["--reject-first-call"]).await;
    let client = connect(&child.url, HttpTransport::Auto, options(None)).await;
    assert_eq!(
        client.call_tool("echo", json!({"text": "retried"})).await.unwrap().first_text(),
        Some("retried")
    );
    assert_eq!(client.protocol_version(), V2026);
    client.close().await;
    let raw = Raw::new(&child.url);
    let r = send(raw.post_modern(&modern_echo(1, "again"))).await;
    assert_eq!(r.json["result"]["content"][0]["text"], "again", "only the first call is rejected: {r:?}");
    child.terminate(Duration::from_secs(5)).await.unwrap();

    // --shutdown-grace-ms: SIGTERM waits that long for an in-flight call, then exits.
    let mut child = HttpChild::spawn(&["--shutdown-grace-ms", "100"]).await;
    let client = connect(&child.url, HttpTransport::Auto, options(None)).await;
    // `progress` with 250 steps runs 5 s; its first progress note proves it is in flight.
    let running = Arc::new(AtomicBool::new(false));
    let call = {
        let c = client.clone();
        let running = running.clone();
        tokio::spawn(async move {
            let opts = CallOptions {
                on_progress: Some(std::sync::Arc::new(move |_| running.store(true, Ordering::SeqCst))),
                ..Default::default()
            };
            c.call_tool_with("progress", json!({"n": 250}), &opts).await
        })
    };
    assert!(eventually(Duration::from_secs(3), || running.load(Ordering::SeqCst)).await, "no progress");
    let start = Instant::now();
    let status = child.terminate(Duration::from_secs(4)).await.expect("exits within the grace period");
    assert!(status.success(), "{status:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "took {:?}", start.elapsed());
    let err = tokio::time::timeout(Duration::from_secs(5), call).await.unwrap().unwrap().unwrap_err();
    // Past the grace the server answers "shut down" if it can still write, else the line drops.
    let answered = err.kind() == ErrorKind::Rpc && err.message().contains("shut down");
    assert!(answered || matches!(err.kind(), ErrorKind::Io | ErrorKind::Closed), "{err}");
    client.close().await;
}

#[tokio::test]
async fn fixture_server_binary_exit_unless_initialize_over_http() {
    let args = ["--exit-unless-initialize", "--versions", "2025-11-25"];
    // A legacy-pinned client starts with initialize: served.
    let mut child = HttpChild::spawn(&args).await;
    let opts = ClientOptions { lineage: Some(Lineage::Legacy), ..options(None) };
    let client = connect(&child.url, HttpTransport::Streamable, opts).await;
    round_trip(&client, V1125).await;
    client.close().await;
    child.terminate(Duration::from_secs(5)).await.unwrap();

    // A modern probe first: the server exits with code 3 and the connect fails.
    let mut child = HttpChild::spawn(&args).await;
    let http = HttpOptions { transport: HttpTransport::Streamable, ..Default::default() };
    let connected =
        tokio::time::timeout(Duration::from_secs(10), Client::connect_http(&child.url, http, options(None)))
            .await
            .expect("connect gives up in time");
    assert!(connected.is_err(), "connected to a server that exited");
    let status = child.wait(Duration::from_secs(5)).await.expect("the server exited");
    assert_eq!(status.code(), Some(3));
}
