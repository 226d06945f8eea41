//! Helpers for the HTTP tests: the fixture tools (shared with `bin/fixture_server.rs`), serving
//! them in-process on `127.0.0.1:0`, the `fixture_server` binary as an HTTP child process, and a
//! raw HTTP client for requests our client would never send.

use mcpcore::engine::ServerConfig;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::protocol::{CallToolResult, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

/// The modern revision, as it appears on the wire.
pub const MODERN: &str = "2026-07-28";

/// Upper bound for any single raw HTTP exchange in the tests.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

fn schema(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// The fixture tools: echo, add, fail, slow, progress, panic, exit.
pub fn fixture_registry() -> ToolRegistry {
    let r = ToolRegistry::new();
    let text = || schema(json!({"text": {"type": "string"}}), &["text"]);
    r.register(
        Tool::new("echo", "Echo the text.", text()).with_title("Echo"),
        |a: Arguments, _c: ToolContext| async move {
            Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default()))
        },
    )
    .unwrap();
    r.register(
        Tool::new(
            "add",
            "Add a and b.",
            schema(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
        )
        .with_output_schema(schema(json!({"sum": {"type": "number"}}), &["sum"])),
        |a: Arguments, _c: ToolContext| async move {
            Ok(CallToolResult::structured(
                json!({"sum": a["a"].as_f64().unwrap() + a["b"].as_f64().unwrap()}),
            ))
        },
    )
    .unwrap();
    r.register(Tool::new("fail", "Always fails.", text()), |a: Arguments, _c: ToolContext| async move {
        Err(mcpcore::Error::tool(format!("fail: {}", a["text"].as_str().unwrap_or_default())))
    })
    .unwrap();
    r.register(
        Tool::new("slow", "Sleeps for ms milliseconds.", schema(json!({"ms": {"type": "integer"}}), &["ms"])),
        |a: Arguments, _c: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(a["ms"].as_u64().unwrap_or(0))).await;
            Ok(CallToolResult::text("slept"))
        },
    )
    .unwrap();
    r.register(
        Tool::new("progress", "Reports n progress steps.", schema(json!({"n": {"type": "integer"}}), &["n"])),
        |a: Arguments, c: ToolContext| async move {
            let n = a["n"].as_u64().unwrap_or(0);
            for i in 1..=n {
                c.progress(i as f64, Some(n as f64), Some(&format!("step {i}")));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(CallToolResult::text(format!("{n} steps")))
        },
    )
    .unwrap();
    r.register(
        Tool::new("panic", "Panics.", schema(json!({}), &[])),
        |_a: Arguments, _c: ToolContext| async move {
            if std::env::var_os("NEVER_SET_BY_ANYONE").is_none() {
                panic!("deliberate panic in a tool");
            }
            Ok(CallToolResult::text("unreachable"))
        },
    )
    .unwrap();
    r.register(
        Tool::new(
            "exit",
            "Exits the process with code.",
            schema(json!({"code": {"type": "integer"}}), &["code"]),
        ),
        |a: Arguments, _c: ToolContext| async move {
            eprintln!("fixture_server: exiting on request");
            std::process::exit(a["code"].as_i64().unwrap_or(1) as i32)
        },
    )
    .unwrap();
    r
}

/// Adds the task fixture tools (Tasks extension): `task_sleep {ms}` (optional task),
/// `task_ask` (optional task asking the user's name), `task_fail` (optional task failing with
/// JSON-RPC -32603) and `task_only` (task required).
pub fn add_task_tools(r: &ToolRegistry) {
    use mcpcore::tasks::TaskPolicy;
    r.register_with_tasks(
        Tool::new(
            "task_sleep",
            "Sleeps ms milliseconds.",
            schema(json!({"ms": {"type": "integer"}}), &["ms"]),
        ),
        TaskPolicy::optional(),
        |a: Arguments, _c: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(a["ms"].as_u64().unwrap_or(0))).await;
            Ok(CallToolResult::text("slept"))
        },
    )
    .unwrap();
    r.register_with_tasks(
        Tool::new("task_ask", "Asks the user's name.", schema(json!({}), &[])),
        TaskPolicy::optional(),
        |_a: Arguments, c: ToolContext| async move {
            let form = serde_json::from_value(json!({"message": "Your name?", "requestedSchema":
                {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}))
            .expect("valid form");
            let answer = c.elicit("name", form).await?;
            let name = answer.content.and_then(|c| serde_json::to_value(&c).ok()).unwrap_or_default();
            Ok(CallToolResult::text(format!("hello {}", name["name"].as_str().unwrap_or("?"))))
        },
    )
    .unwrap();
    r.register_with_tasks(
        Tool::new("task_fail", "Fails with a JSON-RPC error.", schema(json!({}), &[])),
        TaskPolicy::optional(),
        |_a: Arguments, _c: ToolContext| async move {
            Err(mcpcore::Error::rpc(mcpcore::ErrorData::internal("Internal error: boom")))
        },
    )
    .unwrap();
    r.register_with_tasks(
        Tool::new("task_only", "Runs only as a task.", schema(json!({}), &[])),
        TaskPolicy::required(),
        |_a: Arguments, _c: ToolContext| async move { Ok(CallToolResult::text("only")) },
    )
    .unwrap();
}

/// A reqwest builder for the tests' raw requests (mcpcore's ring provider installed first:
/// the workspace's reqwest has rustls without a provider of its own).
pub fn client_builder() -> reqwest::ClientBuilder {
    mcpcore::http::tls::install_provider();
    reqwest::Client::builder()
}

/// Serves `registry` in-process on `127.0.0.1:0` with `versions` (all when empty).
pub async fn serve_registry(
    registry: ToolRegistry,
    versions: &[ProtocolVersion],
    config: HttpServerConfig,
) -> HttpServing {
    serve_registry_at("127.0.0.1:0", registry, versions, config).await
}

/// Serves `registry` in-process on `addr` (e.g. `0.0.0.0:0`) with `versions` (all when empty).
pub async fn serve_registry_at(
    addr: &str,
    registry: ToolRegistry,
    versions: &[ProtocolVersion],
    config: HttpServerConfig,
) -> HttpServing {
    let mut server_config = ServerConfig::new("fixture", "1.0.0");
    if !versions.is_empty() {
        server_config.versions = versions.to_vec();
    }
    let server = Server::new(server_config, Arc::new(registry));
    server
        .serve_http(addr.parse().unwrap(), config)
        .await
        .unwrap_or_else(|e| panic!("serve_http on {addr}: {e}"))
}

/// Serves the fixture tools in-process with `versions` (all when empty).
pub async fn serve_fixture(versions: &[ProtocolVersion], config: HttpServerConfig) -> HttpServing {
    serve_registry(fixture_registry(), versions, config).await
}

/// The `fixture_server` binary serving HTTP as a child process; killed when dropped.
pub struct HttpChild {
    child: tokio::process::Child,
    /// The endpoint URL it printed (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
}

impl HttpChild {
    /// Spawns `fixture_server --http 127.0.0.1:0 ARGS…` and waits (bounded) for its
    /// `listening on …` line.
    pub async fn spawn(args: &[&str]) -> HttpChild {
        let mut child = tokio::process::Command::new(crate::bin("fixture_server"))
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn fixture_server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        let mut reader = tokio::io::BufReader::new(stdout);
        let read = tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line)).await;
        assert!(matches!(read, Ok(Ok(n)) if n > 0), "fixture_server printed no line: {read:?}");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
        HttpChild { child, url }
    }

    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Waits (bounded) for the child to exit on its own.
    pub async fn wait(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(limit, self.child.wait()).await.ok().map(|r| r.expect("wait"))
    }

    /// Sends SIGTERM and waits (bounded) for the exit.
    pub async fn terminate(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let ok = std::process::Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill -TERM failed");
        self.wait(limit).await
    }
}

// ----- raw requests ---------------------------------------------------------------------------

/// The `_meta` of a modern request.
pub fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

/// A modern request with `_meta` for `MODERN`.
pub fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(MODERN);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A modern `tools/call` of `echo`.
pub fn modern_echo(id: i64, text: &str) -> Value {
    modern(id, "tools/call", json!({"name": "echo", "arguments": {"text": text}}))
}

/// The headers a correct modern client sends for `body`.
pub fn modern_headers(body: &Value) -> Vec<(String, String)> {
    let mut h = Vec::new();
    if let Some(v) = body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
        h.push(("MCP-Protocol-Version".to_owned(), v.to_owned()));
    }
    if let Some(m) = body["method"].as_str() {
        h.push(("Mcp-Method".to_owned(), m.to_owned()));
        let name = match m {
            "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
            "resources/read" => body["params"]["uri"].as_str(),
            "tasks/get" | "tasks/update" | "tasks/cancel" => body["params"]["taskId"].as_str(),
            _ => None,
        };
        if let Some(n) = name {
            h.push(("Mcp-Name".to_owned(), n.to_owned()));
        }
    }
    h
}

/// One SSE event: its `event:` type and its `data:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field.
    pub event: Option<String>,
    /// The joined `data:` lines.
    pub data: String,
}

/// Splits an SSE body into events (comments skipped).
pub fn sse_events(text: &str) -> Vec<SseEvent> {
    let mut out = Vec::new();
    let text = text.replace("\r\n", "\n");
    for block in text.split("\n\n") {
        let mut event = None;
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                event = Some(v.trim().to_owned());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push(v.strip_prefix(' ').unwrap_or(v));
            }
        }
        if event.is_some() || !data.is_empty() {
            out.push(SseEvent { event, data: data.join("\n") });
        }
    }
    out
}

/// A whole HTTP answer.
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body as text.
    pub text: String,
    /// The JSON body; for an SSE body, the last `message` event; `Null` when there is none.
    pub json: Value,
}

impl Reply {
    /// The `Content-Type`, or "".
    pub fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// The JSON-RPC error code of the body.
    pub fn error_code(&self) -> Option<i64> {
        self.json["error"]["code"].as_i64()
    }

    /// The SSE events of the body.
    pub fn events(&self) -> Vec<SseEvent> {
        sse_events(&self.text)
    }
}

/// A raw HTTP client for one server.
#[derive(Debug, Clone)]
pub struct Raw {
    /// The underlying client.
    pub http: reqwest::Client,
    /// The MCP endpoint URL.
    pub url: String,
    /// `http://ADDR`.
    pub base: String,
}

impl Raw {
    /// A raw client for the endpoint `url` (`http://ADDR/mcp`).
    pub fn new(url: &str) -> Raw {
        let base = url.rsplit_once('/').expect("a path").0.to_owned();
        let http = client_builder().build().expect("reqwest client");
        Raw { http, url: url.to_owned(), base }
    }

    /// A POST to the endpoint with a correct `Accept` and `Content-Type` and `body`.
    pub fn post(&self, body: impl Into<String>) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.into())
    }

    /// A POST of `body` with the modern headers derived from it.
    pub fn post_modern(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut rb = self.post(body.to_string());
        for (k, v) in modern_headers(body) {
            rb = rb.header(k, v);
        }
        rb
    }

    /// A POST of a legacy message on `session` (none for `initialize`).
    pub fn post_legacy(&self, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        let rb = self.post(body.to_string());
        match session {
            Some(s) => rb.header("mcp-session-id", s),
            None => rb,
        }
    }

    /// Runs a legacy handshake at `version`; returns the session id.
    pub async fn legacy_session(&self, version: &str) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
        let r = send(self.post_legacy(None, &init)).await;
        assert_eq!(r.status, 200, "initialize: {r:?}");
        assert_eq!(r.json["result"]["protocolVersion"], version, "{r:?}");
        let sid = r.headers.get("mcp-session-id").expect("Mcp-Session-Id").to_str().unwrap().to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = send(self.post_legacy(Some(&sid), &note)).await;
        assert_eq!(r.status, 202, "notifications/initialized: {r:?}");
        sid
    }

    /// Proves the server still serves: a modern `echo` call succeeds.
    pub async fn assert_serving(&self) {
        let r = send(self.post_modern(&modern_echo(9999, "still serving"))).await;
        assert_eq!(r.status, 200, "the server stopped serving: {r:?}");
        assert_eq!(r.json["id"], 9999, "{r:?}");
        assert_eq!(r.json["result"]["content"][0]["text"], "still serving", "{r:?}");
    }
}

/// Sends `rb` and reads the whole answer (bounded by [`IO_TIMEOUT`]).
pub async fn send(rb: reqwest::RequestBuilder) -> Reply {
    let exchange = async {
        let resp = rb.send().await.expect("send");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let bytes = resp.bytes().await.expect("read body");
        (status, headers, String::from_utf8_lossy(&bytes).into_owned())
    };
    let (status, headers, text) = tokio::time::timeout(IO_TIMEOUT, exchange).await.expect("answer in time");
    let is_sse = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let json = if is_sse {
        sse_events(&text)
            .iter()
            .rev()
            .find(|e| e.event.as_deref().is_none_or(|k| k == "message"))
            .and_then(|e| serde_json::from_str(&e.data).ok())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    Reply { status, headers, text, json }
}

/// Sends `rb` and returns the response with its body unread (for endless streams), bounded by
/// [`IO_TIMEOUT`].
pub async fn open(rb: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(IO_TIMEOUT, rb.send()).await.expect("headers in time").expect("send")
}

/// Reads `resp` until `done(text so far)` holds (bounded by [`IO_TIMEOUT`]); returns the text.
pub async fn read_until(resp: &mut reqwest::Response, done: impl Fn(&str) -> bool) -> String {
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + IO_TIMEOUT;
    while !done(&text) {
        let chunk = tokio::time::timeout_at(deadline, resp.chunk())
            .await
            .unwrap_or_else(|_| panic!("timed out; got so far: {text:?}"))
            .expect("read chunk")
            .unwrap_or_else(|| panic!("stream ended; got: {text:?}"));
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

/// Polls `cond` every 10 ms for up to `limit`; true once it holds.
pub async fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// How watched handlers ended: started, finished, or dropped unfinished (cancelled). The
/// cancellation tests (http_roundtrip.rs, http_cancellation.rs) read it.
#[derive(Debug, Default)]
pub struct Watch {
    /// Handlers that began.
    pub started: AtomicUsize,
    /// Handlers that ran to their end.
    pub finished: AtomicUsize,
    /// Handlers dropped before their end: cancelled.
    pub dropped: AtomicUsize,
}

impl Watch {
    /// Sleeps `d` as a watched handler: counts its start, then its finish, or its drop before.
    pub async fn sleep(self: &Arc<Self>, d: Duration) {
        self.started.fetch_add(1, Ordering::SeqCst);
        let mut mark = Unfinished(self.clone(), false);
        tokio::time::sleep(d).await;
        mark.1 = true;
        self.finished.fetch_add(1, Ordering::SeqCst);
    }
}

/// Counts a drop as a cancellation unless the handler marked itself finished.
struct Unfinished(Arc<Watch>, bool);

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.1 {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Serves `gateway` over HTTP on a free loopback port (the gateway tests' client side).
pub async fn serve_gateway(gateway: &mcpcore::gateway::Gateway) -> HttpServing {
    gateway.server().serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap()
}
