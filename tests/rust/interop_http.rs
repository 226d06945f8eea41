//! Interop over HTTP with the official SDKs, both ways, both lineages: the Python SDK
//! (`mcp==2.3.0`), the TypeScript SDK v2 (`@modelcontextprotocol/server` and `/client` 2.4.0) and
//! `@modelcontextprotocol/server-everything` in `sse` mode (the 2024-11-05 HTTP+SSE transport).
//!
//! Peers live in `tests/interop/{python,ts}`; the test command creates `.venv` and runs
//! `npm ci` in `tests/interop/ts`. A missing peer fails the test.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn peer(dir: &str, name: &str) -> String {
    workspace().join("tests/interop").join(dir).join(name).to_string_lossy().into_owned()
}

/// A server child that announces its URL on stdout (`READY <url>` or `listening on <url>`).
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(program: &str, args: &[&str]) -> Served {
        let mut child = Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("READY ")
            .or_else(|| line.trim().strip_prefix("listening on "))
            .unwrap_or_else(|| panic!("{program} {args:?} did not announce a URL: {line:?}"))
            .to_owned();
        Served { child, url }
    }

    fn ours() -> Served {
        Served::start(&bin("echo_server"), &["--http", "127.0.0.1:0"])
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs an SDK client; returns its one-line JSON report.
fn sdk_client(program: &str, script: String, flags: &[&str], url: &str) -> Value {
    let out = Command::new(program)
        .arg(&script)
        .args(flags)
        .args(["--text", "from the sdk", url])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    assert!(out.status.success(), "{script} {flags:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn assert_report(r: &Value, version: &str, lineage: &str) {
    assert_eq!(r["protocolVersion"], version, "{r}");
    assert_eq!(r["lineage"], lineage, "{r}");
    assert_eq!(r["tools"], json!(["add", "echo"]), "{r}");
    assert_eq!(r["echo"], "from the sdk", "{r}");
    // structuredContent exists from 2025-06-18 on; older revisions answer text only.
    if version >= "2025-06-18" {
        assert_eq!(r["add"]["sum"].as_f64(), Some(5.0), "{r}");
    }
}

#[test]
fn python_sdk_client_calls_our_http_server() {
    let ours = Served::ours();
    let py = |flags: &[&str]| sdk_client(&python(), peer("python", "sdk_http_client.py"), flags, &ours.url);
    assert_report(&py(&[]), "2026-07-28", "modern");
    assert_report(&py(&["--lineage", "modern"]), "2026-07-28", "modern");
    assert_report(&py(&["--lineage", "legacy"]), "2025-11-25", "legacy");
    assert_report(&py(&["--lineage", "legacy", "--protocol-version", "2025-03-26"]), "2025-03-26", "legacy");
}

#[test]
fn python_sdk_client_uses_our_2024_11_05_sse_transport() {
    let ours = Served::ours();
    let sse_url = ours.url.replace("/mcp", "/sse");
    let r = sdk_client(
        &python(),
        peer("python", "sdk_http_client.py"),
        &["--sse-transport", "--lineage", "legacy"],
        &sse_url,
    );
    assert_eq!(r["echo"], "from the sdk", "{r}");
    assert_eq!(r["lineage"], "legacy", "{r}");
}

#[test]
fn typescript_sdk_client_calls_our_http_server() {
    let ours = Served::ours();
    let ts = |flags: &[&str]| sdk_client("node", peer("ts", "sdk_client.mjs"), flags, &ours.url);
    assert_report(&ts(&[]), "2026-07-28", "modern");
    assert_report(&ts(&["--lineage", "modern"]), "2026-07-28", "modern");
    assert_report(&ts(&["--lineage", "legacy"]), "2025-11-25", "legacy");
    assert_report(&ts(&["--lineage", "legacy", "--protocol-version", "2025-06-18"]), "2025-06-18", "legacy");
    let sse_url = ours.url.replace("/mcp", "/sse");
    let r = sdk_client(
        "node",
        peer("ts", "sdk_client.mjs"),
        &["--sse-transport", "--lineage", "legacy"],
        &sse_url,
    );
    assert_eq!(r["echo"], "from the sdk", "{r}");
}

/// Our client against an SDK server: tools, echo, add; returns the negotiated version.
async fn call_sdk_server(url: &str, transport: HttpTransport, options: ClientOptions) -> ProtocolVersion {
    let http = HttpOptions { transport, ..Default::default() };
    let client =
        Client::connect_http(url, http, options).await.unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"echo".to_owned()) && names.contains(&"add".to_owned()), "{names:?}");
    let r = client.call_tool("echo", json!({"text": "from mcpcore"})).await.unwrap();
    assert_eq!(r.first_text(), Some("from mcpcore"));
    let r = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.structured_content.as_ref().and_then(|s| s["sum"].as_f64()), Some(5.0), "{r:?}");
    let v = client.protocol_version();
    client.close().await;
    v
}

fn legacy() -> ClientOptions {
    ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_python_sdk_http_servers() {
    let script = peer("python", "sdk_http_server.py");
    let both = Served::start(&python(), &[&script, "--port", "0"]);
    let auto = HttpTransport::Auto;
    assert_eq!(
        call_sdk_server(&both.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2026_07_28
    );
    assert_eq!(call_sdk_server(&both.url, auto, legacy()).await, ProtocolVersion::V2025_11_25);
    let json_mode = Served::start(&python(), &[&script, "--port", "0", "--json-response"]);
    assert_eq!(call_sdk_server(&json_mode.url, auto, legacy()).await, ProtocolVersion::V2025_11_25);
    let legacy_only = Served::start(&python(), &[&script, "--port", "0", "--legacy-only"]);
    assert_eq!(
        call_sdk_server(&legacy_only.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2025_11_25
    );
    let modern_only = Served::start(&python(), &[&script, "--port", "0", "--modern-only"]);
    assert_eq!(
        call_sdk_server(&modern_only.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2026_07_28
    );
    let sse = Served::start(&python(), &[&script, "--port", "0", "--sse-transport", "--legacy-only"]);
    assert_eq!(call_sdk_server(&sse.url, HttpTransport::Sse, legacy()).await, ProtocolVersion::V2024_11_05);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_typescript_sdk_http_servers() {
    let script = peer("ts", "sdk_server.mjs");
    let auto = HttpTransport::Auto;
    let both = Served::start("node", &[&script, "--port", "0"]);
    assert_eq!(
        call_sdk_server(&both.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2026_07_28
    );
    assert_eq!(call_sdk_server(&both.url, auto, legacy()).await, ProtocolVersion::V2025_11_25);
    let stateful = Served::start("node", &[&script, "--port", "0", "--stateful-legacy"]);
    assert_eq!(call_sdk_server(&stateful.url, auto, legacy()).await, ProtocolVersion::V2025_11_25);
    let sse_answers = Served::start("node", &[&script, "--port", "0", "--sse-response"]);
    assert_eq!(
        call_sdk_server(&sse_answers.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2026_07_28
    );
    let json_answers = Served::start("node", &[&script, "--port", "0", "--json-response"]);
    assert_eq!(call_sdk_server(&json_answers.url, auto, legacy()).await, ProtocolVersion::V2025_11_25);
    let legacy_only = Served::start("node", &[&script, "--port", "0", "--legacy-only", "--stateful-legacy"]);
    assert_eq!(
        call_sdk_server(&legacy_only.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2025_11_25
    );
    let modern_only = Served::start("node", &[&script, "--port", "0", "--modern-only"]);
    assert_eq!(
        call_sdk_server(&modern_only.url, auto, ClientOptions::default()).await,
        ProtocolVersion::V2026_07_28
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_reaches_server_everything_over_2024_11_05_sse() {
    let everything = Served::start("node", &[&peer("ts", "everything.mjs"), "--port", "0"]);
    // Auto-detection from the SSE URL: the POST is refused, the GET offers the endpoint event.
    for transport in [HttpTransport::Sse, HttpTransport::Auto] {
        let http = HttpOptions { transport, ..Default::default() };
        let client = Client::connect_http(&everything.url, http, ClientOptions::default())
            .await
            .unwrap_or_else(|e| panic!("connect {transport:?}: {e}"));
        assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
        let r = client.call_tool("echo", json!({"message": "hi everything"})).await.unwrap();
        assert_eq!(r.first_text(), Some("Echo: hi everything"));
        client.close().await;
    }
}
