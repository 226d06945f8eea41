//! Interop beyond tools with the official SDK clients: resources, prompts, completion, client
//! input (legacy server→client requests and 2026-07-28 MRTR rounds) and change notifications,
//! driven by `tests/interop/python/sdk_features_client.py` (`mcp==2.3.0`) and
//! `tests/interop/ts/sdk_features_client.mjs` (`@modelcontextprotocol/client` 2.4.0) against
//! `mcpcore conformance-server`, over stdio and Streamable HTTP, on both lineages.
//!
//! The interpreter is `$MCPCORE_PYTHON`, else `<workspace>/.venv/bin/python`; Node is `node` with
//! `npm ci` done in `tests/interop/ts`. A missing peer fails the test.

use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Upper bound for one script run (its own per-request timeout is 10 s).
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(90);

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    Ts,
}

impl Sdk {
    /// The interpreter and script path.
    fn command(self) -> (String, String) {
        let peers = workspace().join("tests/interop");
        match self {
            Sdk::Python => {
                (python(), peers.join("python/sdk_features_client.py").to_string_lossy().into_owned())
            }
            Sdk::Ts => {
                let dir = peers.join("ts");
                assert!(dir.join("node_modules").exists(), "run `npm ci` in {}", dir.display());
                ("node".into(), dir.join("sdk_features_client.mjs").to_string_lossy().into_owned())
            }
        }
    }
}

/// `mcpcore conformance-server --listen 127.0.0.1:0`, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start() -> HttpServer {
        let mut child = Command::new(bin("mcpcore"))
            .args(["conformance-server", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn mcpcore conformance-server");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            panic!("conformance-server printed no URL: {line:?}");
        };
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn drain(mut r: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// Runs `sdk`'s features script in `mode` ("legacy" | "modern") against a stdio child or, when
/// `http`, a server this test starts; returns its JSON line.
fn run(sdk: Sdk, mode: &str, http: bool) -> Value {
    let server = http.then(HttpServer::start);
    let (program, script) = sdk.command();
    let mut args = vec![script, "--mode".into(), mode.into()];
    match &server {
        Some(s) => args.extend(["--url".into(), s.url.clone()]),
        None => {
            args.extend(["--stdio".into(), bin("mcpcore"), "conformance-server".into(), "--stdio".into()])
        }
    }
    let mut child = Command::new(&program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let (out, err) = (drain(child.stdout.take().unwrap()), drain(child.stderr.take().unwrap()));
    let deadline = Instant::now() + SCRIPT_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let ctx = format!("{sdk:?} {mode} http={http}");
    let Some(status) = status else { panic!("{ctx}: timed out after {SCRIPT_TIMEOUT:?}; stderr:\n{err}") };
    assert!(status.success(), "{ctx}: {status}; stderr:\n{err}");
    serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("{ctx}: bad JSON ({e}): {out}\nstderr:\n{err}"))
}

/// What both SDKs must observe on both lineages and transports.
fn assert_common(r: &Value) {
    let resources = json!([
        "skill://acme/billing/refunds/SKILL.md",
        "skill://pdf-processing/SKILL.md",
        "test://static-binary",
        "test://static-text",
        "test://watched-resource"
    ]);
    assert_eq!(r["resources"], resources, "{r}");
    assert_eq!(r["static_text"], "This is the content of the static text resource.", "{r}");
    assert_eq!(r["template"], "42", "{r}");
    assert_eq!(r["templates"], json!(["test://template/{id}/data"]), "{r}");
    let prompts = json!([
        "test_input_required_result_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_simple_prompt"
    ]);
    assert_eq!(r["prompts"], prompts, "{r}");
    assert_eq!(r["prompt_text"], "Prompt with arguments: arg1='x', arg2='y'", "{r}");
    assert_eq!(r["completion"], json!(["test", "testValue1"]), "{r}");
    assert_eq!(r["elicitation"], "Hello, Ann!", "{r}");
    assert_eq!(r["sampling"], "The model said: re: What is the capital of France?", "{r}");
    let multiple = r["multiple"].as_str().unwrap_or_default();
    for part in ["user_name: User response: accept", "greeting: model sdk-model", "client_roots: 1 root(s)"] {
        assert!(multiple.contains(part), "multiple lacks {part:?}: {r}");
    }
    let multi = r["multi_round"].as_str().unwrap_or_default();
    assert!(multi.starts_with("Step 1: User response: accept") && multi.contains("; step 2: "), "{r}");
    assert!(r["input_prompt"].as_str().unwrap_or_default().contains("tea"), "{r}");
}

fn legacy(sdk: Sdk, http: bool) {
    let r = run(sdk, "legacy", http);
    assert_eq!(r["protocolVersion"], "2025-11-25", "{r}");
    assert_common(&r);
    assert_eq!(r["updated"], "test://watched-resource", "{r}");
}

fn modern(sdk: Sdk, http: bool) {
    let r = run(sdk, "modern", http);
    assert_eq!(r["protocolVersion"], "2026-07-28", "{r}");
    assert_common(&r);
    // Python prints its event class names; the TS SDK has no event objects, so its script prints
    // the notification methods its handlers received.
    let events = match sdk {
        Sdk::Python => json!(["ResourceUpdated", "ToolsListChanged"]),
        Sdk::Ts => json!(["notifications/resources/updated", "notifications/tools/list_changed"]),
    };
    assert_eq!(r["events"], events, "{r}");
}

#[test]
fn python_stdio_legacy() {
    legacy(Sdk::Python, false);
}

#[test]
fn python_stdio_modern() {
    modern(Sdk::Python, false);
}

#[test]
fn python_http_legacy() {
    legacy(Sdk::Python, true);
}

#[test]
fn python_http_modern() {
    modern(Sdk::Python, true);
}

#[test]
fn ts_stdio_legacy() {
    legacy(Sdk::Ts, false);
}

#[test]
fn ts_stdio_modern() {
    modern(Sdk::Ts, false);
}

#[test]
fn ts_http_legacy() {
    legacy(Sdk::Ts, true);
}

#[test]
fn ts_http_modern() {
    modern(Sdk::Ts, true);
}
