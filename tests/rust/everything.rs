//! `@modelcontextprotocol/server-everything` (pinned in `tests/interop/ts`) driven by our Rust
//! client over stdio, legacy Streamable HTTP and the 2024-11-05 HTTP+SSE transport: every tool
//! it offers a client that declares sampling, elicitation (form and URL) and roots, as listed
//! in `tests/vectors/everything/tools.json` (the Python, Node and Kotlin tests run the same
//! file). The host's handlers answer its sampling and elicitation tools, the task-required
//! `simulate-research-query` runs as a task (its elicitation arrives on the `tasks/result`
//! stream), and logs, resource updates and a roots change travel on each transport's
//! server→client stream (the GET stream on Streamable HTTP).

use mcpcore::client::{BoxFuture, CallOptions, Client, ClientOptions, InputHandler, InputKinds, ServerEvent};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpcore::protocol::roots::Root;
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpcore::transport::child::StdioCommand;
use mcpcore::ProtocolVersion;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn vector() -> Value {
    let path = workspace().join("tests/vectors/everything/tools.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn everything_js() -> String {
    let p = workspace()
        .join("tests/interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(p.exists(), "{} is missing: run `npm ci` in tests/interop/ts", p.display());
    p.to_string_lossy().into_owned()
}

/// The host's answers, from the vector; counts what it was asked.
struct Host {
    v: Value,
    asked: AtomicUsize,
}

impl InputHandler for Host {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, elicitation_url: true, sampling: true, ..InputKinds::default() }
    }
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = match params {
            ElicitRequestParams::Url(_) => json!({"action": self.v["url_elicitation"]}),
            _ => json!({"action": "accept", "content": self.v["elicitation"]}),
        };
        Box::pin(async move { Ok(serde_json::from_value(answer).unwrap()) })
    }
    fn create_message(
        &self,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let text = self.v["sampling"].clone();
        Box::pin(async move {
            Ok(serde_json::from_value(json!({
                "role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model"
            }))
            .unwrap())
        })
    }
}

fn roots(v: &Value) -> Vec<Root> {
    serde_json::from_value(v.clone()).unwrap()
}

fn options(v: &Value) -> (ClientOptions, Arc<Host>) {
    let host = Arc::new(Host { v: v["host"].clone(), asked: AtomicUsize::new(0) });
    let options = ClientOptions {
        input: Some(host.clone()),
        roots: Some(roots(&v["host"]["roots"])),
        // A long task, a long-running tool: none takes a second here.
        request_timeout: Duration::from_secs(30),
        ..Default::default()
    };
    (options, host)
}

/// A server-everything HTTP mode on a free loopback port, stopped on drop.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(transport: &str) -> Served {
        let script = workspace().join("tests/interop/ts/everything.mjs");
        let mut child = Command::new("node")
            .args([script.to_str().unwrap(), "--transport", transport, "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node everything.mjs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url =
            line.trim().strip_prefix("READY ").unwrap_or_else(|| panic!("everything.mjs said {line:?}"));
        Served { url: url.to_owned(), child }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text_of(r: &mcpcore::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n")
}

async fn next<T>(rx: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    // A liveness bound, not a timing assertion: the server sends these at once.
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .unwrap_or_else(|_| panic!("no {what} arrived"))
        .unwrap()
}

/// Calls every tool of the vector; returns how many passed (all must).
async fn every_tool(client: &Client, v: &Value, host: &Host) -> usize {
    let (log_tx, mut logs) = mpsc::unbounded_channel();
    client.on_log(move |m| {
        let _ = log_tx.send(m.data.as_str().map(str::to_owned).unwrap_or_else(|| m.data.to_string()));
    });
    let (event_tx, mut events) = mpsc::unbounded_channel();
    client.on_notification(move |e| {
        if let ServerEvent::ResourceUpdated(p) = e {
            let _ = event_tx.send(p.uri);
        }
    });
    let calls = v["calls"].as_array().unwrap();
    let offered: BTreeSet<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    let covered: BTreeSet<String> = calls.iter().map(|c| c["tool"].as_str().unwrap().to_owned()).collect();
    assert_eq!(offered, covered, "the tools offered are the tools of the vector");
    let subscribed = v["subscribe"].as_str().unwrap();
    client.subscribe_resource(subscribed).await.unwrap();

    let mut passed = 0;
    for call in calls {
        let name = call["tool"].as_str().unwrap();
        let progress = Arc::new(Mutex::new(Vec::new()));
        let seen = progress.clone();
        let opts = CallOptions {
            on_progress: Some(std::sync::Arc::new(move |p| seen.lock().unwrap().push(p.progress))),
            ..Default::default()
        };
        let asked_before = host.asked.load(Ordering::SeqCst);
        let r = client
            .call_tool_with(name, call["arguments"].clone(), &opts)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e} (code {}, data {:?})", e.code(), e.data()));
        assert!(!r.is_error(), "{name}: {r:?}");
        let text = text_of(&r);
        for want in call["text"].as_array().into_iter().flatten() {
            assert!(text.contains(want.as_str().unwrap()), "{name}: {want} not in {text}");
        }
        for ty in call["types"].as_array().into_iter().flatten() {
            let ty = ty.as_str().unwrap();
            let types: Vec<Value> =
                r.content.iter().map(|c| serde_json::to_value(c).unwrap()["type"].clone()).collect();
            assert!(types.iter().any(|t| t == ty), "{name}: no {ty} block in {types:?}");
        }
        for key in call["structured"].as_array().into_iter().flatten() {
            let s = r.structured_content.as_ref().unwrap_or_else(|| panic!("{name}: no structuredContent"));
            assert!(s.get(key.as_str().unwrap()).is_some(), "{name}: {key} missing in {s}");
        }
        if let Some(n) = call["progress"].as_u64() {
            assert_eq!(progress.lock().unwrap().len() as u64, n, "{name}: progress notifications");
        }
        if let Some(want) = call["log"].as_str() {
            // Other logs (the subscription, the roots) may come first.
            while !next(&mut logs, "log message").await.contains(want) {}
        }
        if call["resource_updated"].as_bool() == Some(true) {
            assert_eq!(next(&mut events, "resources/updated").await, subscribed, "{name}");
        }
        if name.starts_with("trigger-elicitation")
            || name.starts_with("trigger-url")
            || name.starts_with("trigger-sampling")
            || call["task"].as_bool() == Some(true)
        {
            assert!(host.asked.load(Ordering::SeqCst) > asked_before, "{name}: the host was not asked");
        }
        passed += 1;
    }

    // The roots change: the server asks again and says so in a log, then lists the new roots.
    client.set_roots(roots(&v["host"]["roots_later"])).unwrap();
    loop {
        if next(&mut logs, "the roots log").await.contains("Roots updated: 2 root(s)") {
            break;
        }
    }
    let r = client.call_tool("get-roots-list", json!({})).await.unwrap();
    assert!(text_of(&r).contains("file:///srv/second-root"), "{r:?}");
    passed
}

#[tokio::test]
async fn stdio_every_tool() {
    let v = vector();
    let (options, host) = options(&v);
    let cmd = StdioCommand::new("node", [everything_js(), "stdio".into()]);
    let client = Client::connect_stdio(cmd, options).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let n = every_tool(&client, &v, &host).await;
    assert_eq!(n, 17);
    client.close().await;
}

#[tokio::test]
async fn streamable_http_every_tool() {
    let v = vector();
    let served = Served::start("streamableHttp");
    let (options, host) = options(&v);
    let client = Client::connect_http(&served.url, HttpOptions::default(), options).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let n = every_tool(&client, &v, &host).await;
    assert_eq!(n, 17);
    client.close().await;
}

#[tokio::test]
async fn sse_every_tool() {
    let v = vector();
    let served = Served::start("sse");
    let (mut options, host) = options(&v);
    // The 2024-11-05 transport would otherwise speak 2024-11-05, which has no elicitation.
    options.version = Some(ProtocolVersion::V2025_11_25);
    let http = HttpOptions { transport: HttpTransport::Sse, ..Default::default() };
    let client = Client::connect_http(&served.url, http, options).await.unwrap();
    let n = every_tool(&client, &v, &host).await;
    assert_eq!(n, 17);
    client.close().await;
}
