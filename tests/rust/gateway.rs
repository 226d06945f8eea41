//! `mcpcore gateway` against real peers, driven by the official Python SDK client
//! (`tests/interop/python/sdk_gateway_client.py`, `mcp==2.3.0`) in both lineages, over stdio
//! and over Streamable HTTP (`--listen`).
//!
//! Upstreams: `@modelcontextprotocol/server-everything` (a stdio child, legacy-only; from
//! `tests/interop/ts`, `npm ci` there), the Rust `echo_server` over HTTP, and
//! `mcpcore conformance-server --stdio` under a custom prefix. Proves: every tool listed under
//! its prefix, in sorted order; a call reaching each upstream; a resource read and a prompt get
//! from server-everything; include/exclude honoured; the `error` collision policy refusing to
//! start with a message naming both entries; no upstream process left once the gateway ends
//! (stdin closed, SIGTERM, SIGKILL). Upstream child processes are found by a marker in their
//! environment (`/proc/*/environ`, hence Linux only).
#![cfg(target_os = "linux")]

use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn everything_js() -> String {
    let p = workspace()
        .join("tests/interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(p.exists(), "{} is missing: run `npm ci` in tests/interop/ts", p.display());
    p.to_string_lossy().into_owned()
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first line `child` prints on stdout (within 60 s).
fn first_line(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("a first line on stdout").trim().to_owned()
}

/// The Rust echo server on HTTP; returns it and its endpoint.
fn echo_http() -> (Killed, String) {
    let mut child = Command::new(bin("echo_server"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("echo_server");
    let line = first_line(&mut child);
    let url =
        line.strip_prefix("listening on ").unwrap_or_else(|| panic!("echo_server said {line:?}")).to_owned();
    (Killed(child), url)
}

/// A marker no other test's processes carry.
fn marker() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("gw-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// Live (non-zombie) processes whose environment has `MCPCORE_GATEWAY_TEST=marker`.
fn marked(marker: &str) -> Vec<u32> {
    let wanted = format!("MCPCORE_GATEWAY_TEST={marker}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else { continue };
        if !env.split(|b| *b == 0).any(|v| v == wanted.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next());
        if !matches!(state, Some("Z" | "X") | None) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits until no process carries `marker`; panics naming the ones left after 15 s.
fn assert_all_gone(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = marked(marker);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "upstream processes left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The three upstreams; stdio ones carry `marker` in their environment.
fn config(echo_url: &str, marker: &str) -> Value {
    let env = json!({ "MCPCORE_GATEWAY_TEST": marker });
    json!({
        "mcpServers": {
            "everything": {
                "command": "node", "args": [everything_js(), "stdio"], "env": env,
                "include": ["echo", "get-*"], "exclude": ["get-env"],
                "alwaysAllow": ["echo"]
            },
            "echo": { "url": echo_url, "type": "http", "exclude": ["add"] },
            "conf": {
                "command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "env": env,
                "prefix": "fixture.", "include": ["echo", "test_simple_text"]
            }
        }
    })
}

/// A config file, removed when dropped (also when the test fails).
struct ConfigFile(PathBuf);

impl std::ops::Deref for ConfigFile {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for ConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes `config` to a fresh file.
fn write_config(config: &Value, marker: &str) -> ConfigFile {
    let path = std::env::temp_dir().join(format!("mcpcore-{marker}.json"));
    std::fs::write(&path, serde_json::to_vec_pretty(config).unwrap()).unwrap();
    ConfigFile(path)
}

/// The SDK client's arguments: one call per upstream, a read, a prompt get.
fn client_args(lineage: &str) -> Vec<String> {
    let mut a: Vec<String> = vec![
        workspace().join("tests/interop/python/sdk_gateway_client.py").to_string_lossy().into_owned(),
        "--lineage".into(),
        lineage.into(),
    ];
    for (tool, args) in [
        ("everything__echo", json!({"message": "to everything"})),
        ("echo__echo", json!({"text": "to echo"})),
        ("fixture.echo", json!({"text": "to the fixture"})),
        ("everything__get-sum", json!({"a": 2, "b": 3})),
    ] {
        a.extend(["--call".into(), tool.into(), args.to_string()]);
    }
    a.extend(["--read".into(), "everything+demo://resource/static/document/architecture.md".into()]);
    a.extend(["--prompt".into(), "everything__simple-prompt".into(), "{}".into()]);
    a
}

fn run_client(args: &[String]) -> Value {
    let out = Command::new(python()).args(args).output().expect("python with mcp==2.3.0 (see README)");
    assert!(out.status.success(), "sdk_gateway_client failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn assert_report(r: &Value, lineage: &str) {
    let version = if lineage == "modern" { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(r["protocolVersion"], version, "{r}");
    assert_eq!(r["lineage"], lineage, "{r}");
    let tools: Vec<&str> = r["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(tools, sorted, "tools/list is sorted");
    // Included: echo and get-*; excluded: get-env, add; the fixture's two tools only.
    assert!(
        tools.contains(&"everything__get-sum") && tools.contains(&"everything__get-tiny-image"),
        "{tools:?}"
    );
    for gone in ["everything__get-env", "everything__trigger-sampling-request", "echo__add", "fixture.greet"]
    {
        assert!(!tools.contains(&gone), "{gone} should be filtered out: {tools:?}");
    }
    let fixed: Vec<&str> = tools.iter().copied().filter(|t| !t.starts_with("everything__get-")).collect();
    assert_eq!(fixed, ["echo__echo", "everything__echo", "fixture.echo", "fixture.test_simple_text"]);
    let calls = &r["calls"];
    assert_eq!(calls["everything__echo"], json!({"isError": false, "text": "Echo: to everything"}));
    assert_eq!(calls["echo__echo"], json!({"isError": false, "text": "to echo"}));
    assert_eq!(calls["fixture.echo"], json!({"isError": false, "text": "to the fixture"}));
    assert!(calls["everything__get-sum"]["text"].as_str().unwrap().contains('5'), "{calls}");
    let resources = r["resources"].as_array().unwrap();
    assert!(
        resources.contains(&json!("everything+demo://resource/static/document/architecture.md")),
        "{resources:?}"
    );
    let read = r["reads"]["everything+demo://resource/static/document/architecture.md"].as_str().unwrap();
    assert!(!read.is_empty());
    let prompts = r["prompts"].as_array().unwrap();
    assert!(
        prompts.contains(&json!("everything__simple-prompt"))
            && prompts.contains(&json!("fixture.test_simple_prompt"))
    );
    let messages = r["gets"]["everything__simple-prompt"].as_array().unwrap();
    assert!(!messages.is_empty() && messages[0].is_string(), "{messages:?}");
}

/// `mcpcore gateway --listen 127.0.0.1:0` with `extra` arguments; returns it and its endpoint.
fn gateway_http(config: &std::path::Path, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(bin("mcpcore"))
        .args(["gateway", "--config", &config.to_string_lossy(), "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("mcpcore gateway");
    let line = first_line(&mut child);
    let url =
        line.strip_prefix("listening on ").unwrap_or_else(|| panic!("gateway said {line:?}")).to_owned();
    (child, url)
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on a child we started and have not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

#[test]
fn python_sdk_through_the_gateway_on_stdio_both_lineages() {
    let (_echo, url) = echo_http();
    for lineage in ["modern", "legacy"] {
        let m = marker();
        let path = write_config(&config(&url, &m), &m);
        let mut args = client_args(lineage);
        args.extend([
            "--".into(),
            bin("mcpcore"),
            "gateway".into(),
            "--config".into(),
            path.to_string_lossy().into(),
        ]);
        let r = run_client(&args);
        assert_report(&r, lineage);
        // The SDK client closed the gateway's stdin: the gateway stopped its upstreams.
        assert_all_gone(&m);
    }
}

#[test]
fn python_sdk_through_the_gateway_on_http_both_lineages_then_sigterm() {
    let (_echo, url) = echo_http();
    let m = marker();
    let path = write_config(&config(&url, &m), &m);
    // On one thread (`--threads 1`, stdio's default); the other HTTP tests run the default two.
    let (mut gateway, endpoint) = gateway_http(&path, &["--threads", "1"]);
    assert_eq!(marked(&m).len(), 2, "two stdio upstreams running");
    for lineage in ["modern", "legacy"] {
        let mut args = client_args(lineage);
        args.extend(["--url".into(), endpoint.clone()]);
        assert_report(&run_client(&args), lineage);
    }
    signal(&gateway, libc::SIGTERM);
    let status = gateway.wait().unwrap();
    assert_eq!(status.code(), Some(143), "SIGTERM exits 143 after an orderly stop");
    assert_all_gone(&m);
}

#[test]
fn a_killed_gateway_leaves_no_upstream() {
    let m = marker();
    let env = json!({ "MCPCORE_GATEWAY_TEST": m });
    let config = json!({"mcpServers": {
        "everything": {"command": "node", "args": [everything_js(), "stdio"], "env": env},
        "conf": {"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "env": env},
    }});
    let path = write_config(&config, &m);
    let (mut gateway, _) = gateway_http(&path, &[]);
    assert_eq!(marked(&m).len(), 2, "two stdio upstreams running");
    signal(&gateway, libc::SIGKILL);
    gateway.wait().unwrap();
    // No orderly stop: the parent-death signal and the group watchdog end them.
    assert_all_gone(&m);
}

#[test]
fn threads_must_be_at_least_one() {
    let out = Command::new(bin("mcpcore"))
        .args(["gateway", "--config", "mcp.json", "--threads", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a usage mistake: {stderr}");
    assert!(stderr.contains("--threads"), "{stderr}");
}

#[test]
fn a_collision_refuses_to_start_naming_both_entries() {
    let m = marker();
    let env = json!({ "MCPCORE_GATEWAY_TEST": m });
    let fixture = json!({"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "env": env, "prefix": ""});
    let config = json!({"mcpServers": {"alpha": fixture, "beta": fixture}, "collision": "error"});
    let path = write_config(&config, &m);
    let out = Command::new(bin("mcpcore"))
        .args(["gateway", "--config", &path.to_string_lossy(), "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "never listened: {}", String::from_utf8_lossy(&out.stdout));
    assert!(
        stderr.contains("upstream \"beta\"")
            && stderr.contains("server \"alpha\"")
            && stderr.contains("already registered"),
        "{stderr}"
    );
    assert_all_gone(&m);
    // Distinct prefixes, but the same URI prefix (none): the first taken URI names both.
    let prefixed = |p: &str| {
        let mut f = fixture.clone();
        f["prefix"] = json!(p);
        f["uriPrefix"] = json!("");
        f
    };
    let config = json!({"mcpServers": {"alpha": prefixed("a_"), "beta": prefixed("b_")}});
    std::fs::write(&*path, config.to_string()).unwrap();
    let out =
        Command::new(bin("mcpcore")).args(["gateway", "--config", &path.to_string_lossy()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("upstream \"beta\"")
            && stderr.contains("held by upstream \"alpha\"")
            && stderr.contains("URI"),
        "{stderr}"
    );
    assert_all_gone(&m);
    // With their default URI prefixes (alpha+, beta+) the two copies start side by side.
    let config = json!({"mcpServers": {"alpha": {"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"],
        "env": {"MCPCORE_GATEWAY_TEST": m}}, "beta": {"command": bin("mcpcore"),
        "args": ["conformance-server", "--stdio"], "env": {"MCPCORE_GATEWAY_TEST": m}}}});
    std::fs::write(&*path, config.to_string()).unwrap();
    let out = Command::new(bin("mcpcore"))
        .args(["call", "beta__echo", r#"{"text": "b"}"#, "--", &bin("mcpcore"), "gateway", "--config"])
        .arg(&*path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_all_gone(&m);
    // `skip` starts: the second entry's names are left out.
    let config = json!({"mcpServers": {"alpha": fixture, "beta": fixture}, "collision": "skip"});
    std::fs::write(&*path, config.to_string()).unwrap();
    let out = Command::new(bin("mcpcore"))
        .args(["tools", "--", &bin("mcpcore"), "gateway", "--config", &path.to_string_lossy()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"echo") && names.iter().all(|n| !n.contains("alpha") && !n.contains("beta")),
        "{names:?}"
    );
    assert_all_gone(&m);
}

#[test]
fn bad_configs_are_clear_errors() {
    let m = marker();
    let cases = [
        (json!({"mcpServers": {"broken": {"args": ["x"]}}}), "mcpServers.broken: needs \"command\""),
        (json!({"mcpServers": {"gone": {"command": "/nonexistent/server"}}}), "upstream \"gone\""),
    ];
    for (config, wanted) in cases {
        let path = write_config(&config, &m);
        let out = Command::new(bin("mcpcore"))
            .args(["gateway", "--config", &path.to_string_lossy()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(wanted), "{config}: {stderr}");
    }
    let out =
        Command::new(bin("mcpcore")).args(["gateway", "--config", "/nonexistent/mcp.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/mcp.json"));
    let out = Command::new(bin("mcpcore")).args(["gateway", "--help"]).output().unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("\"collision\""));
}

#[test]
fn a_2024_11_05_sse_upstream_is_served() {
    let script = workspace().join("tests/interop/ts/everything.mjs");
    let mut child = Command::new("node")
        .args([script.to_string_lossy().as_ref(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("node everything.mjs");
    let line = first_line(&mut child);
    let _sse = Killed(child);
    let url =
        line.strip_prefix("READY ").unwrap_or_else(|| panic!("everything.mjs said {line:?}")).to_owned();
    let m = marker();
    let config = json!({"mcpServers": {"old": {"url": url, "type": "sse", "include": ["echo", "get-sum"]}}});
    let path = write_config(&config, &m);
    let gateway = [bin("mcpcore"), "gateway".into(), "--config".into(), path.to_string_lossy().into_owned()];
    let out = Command::new(bin("mcpcore")).arg("tools").arg("--").args(&gateway).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["old__echo", "old__get-sum"]);
    let out = Command::new(bin("mcpcore"))
        .args(["call", "old__echo", r#"{"message": "over sse"}"#, "--"])
        .args(&gateway)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["content"][0]["text"], "Echo: over sse", "{result}");
}

#[test]
fn a_dead_upstream_is_a_tool_error_naming_it_then_restarted_and_the_rest_keeps_serving() {
    let m = marker();
    let env = json!({ "MCPCORE_GATEWAY_TEST": m });
    let fixture = |prefix: &str| {
        json!({"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "env": env, "prefix": prefix,
               "include": ["echo"]})
    };
    // Two copies of one server under distinct prefixes (URIs too: doomed+, fine+).
    let config =
        json!({"mcpServers": {"doomed": fixture("doomed."), "fine": fixture("fine.")}, "collision": "skip"});
    let path = write_config(&config, &m);
    let (mut gateway, endpoint) = gateway_http(&path, &[]);
    let pids = marked(&m);
    assert_eq!(pids.len(), 2);
    // Kill one of the two (which entry it serves is seen from which tool fails).
    // SAFETY: kill(2) on a process of this test's own making (found by its marker).
    assert_eq!(unsafe { libc::kill(pids[0] as i32, libc::SIGKILL) }, 0);
    let call = |tool: &str| {
        Command::new(bin("mcpcore")).args(["call", tool, r#"{"text": "hi"}"#, &endpoint]).output().unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    let (dead, failed) = loop {
        let (a, b) = (call("doomed.echo"), call("fine.echo"));
        match (a.status.code(), b.status.code()) {
            (Some(2), Some(0)) => break ("doomed", a),
            (Some(0), Some(2)) => break ("fine", b),
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            codes => panic!("one upstream's tool should fail, the other's answer: {codes:?}"),
        }
    };
    let result: Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("{dead:?}")), "the error names the upstream: {text}");
    // Listing still works, and the entries of the dead one are still listed (unavailable).
    let out = Command::new(bin("mcpcore")).args(["tools", &endpoint]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        listed["tools"].as_array().unwrap().iter().any(|t| t["name"] == format!("{dead}.echo")),
        "{listed}"
    );
    // The gateway starts it again (after a backoff): its tool answers, from a new process.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = call(&format!("{dead}.echo"));
        if out.status.code() == Some(0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{dead} was not restarted: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let now = marked(&m);
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(!now.contains(&pids[0]), "the killed process is gone and a new one serves: {now:?}");
    signal(&gateway, libc::SIGTERM);
    assert_eq!(gateway.wait().unwrap().code(), Some(143));
    assert_all_gone(&m);
}

/// The `Gateway` type in host code: pinned upstream revisions, a local tool beside the
/// upstreams' ones, a call through the registry, and `shutdown` ending the stdio children.
#[tokio::test]
async fn the_gateway_type_pins_upstreams_and_takes_local_tools() {
    use mcpcore::gateway::{Gateway, GatewayConfig};
    use mcpcore::protocol::{CallToolResult, ProtocolVersion, Tool};
    use mcpcore::registry::{Arguments, Registration, ToolContext};
    let fixture = |extra: Value| {
        let mut e = json!({"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "include": ["echo"]});
        e.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        e
    };
    let config = GatewayConfig::from_value(json!({"mcpServers": {
        "old": fixture(json!({"protocolVersion": "2025-06-18"})),
        "new": fixture(json!({"lineage": "modern", "prefix": "n_"})),
    }, "collision": "skip"}))
    .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    assert_eq!(gateway.upstreams(), ["new", "old"]);
    // Up as soon as `start` returns (this runtime has one thread: the supervisors it spawned
    // have not run yet).
    for name in ["new", "old"] {
        assert_eq!(gateway.status(name).unwrap().state, mcpcore::gateway::UpstreamState::Up, "{name}");
    }
    let (old, new) = (gateway.client("old").unwrap(), gateway.client("new").unwrap());
    assert_eq!(old.protocol_version(), ProtocolVersion::V2025_06_18);
    assert_eq!(new.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(gateway.registrations("new").unwrap().tools, [Registration::Registered("n_echo".into())]);
    let local = Tool::new("local_time", "A host tool beside the upstreams.", json!({"type": "object"}));
    gateway
        .tools()
        .register(local, |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("noon")) })
        .unwrap();
    assert_eq!(gateway.tools().names(), ["local_time", "n_echo", "old__echo"]);
    let r = gateway
        .tools()
        .call("old__echo", json!({"text": "via 2025-06-18"}), ToolContext::local())
        .await
        .unwrap();
    assert_eq!(r.first_text(), Some("via 2025-06-18"));
    let pids = [old.server_pid().unwrap(), new.server_pid().unwrap()];
    gateway.shutdown().await;
    assert!(gateway.upstreams().is_empty());
    assert_eq!(gateway.tools().names(), ["local_time"], "the upstreams' tools are gone, the host's stays");
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next());
        assert!(matches!(state, None | Some("Z" | "X")), "upstream {pid} still runs after shutdown: {stat}");
    }
}

/// An upstream's `list_changed` is followed under its prefix and filter, on both lineages.
#[tokio::test]
async fn list_changes_are_followed_under_the_prefix_and_filter() {
    use mcpcore::gateway::{Gateway, GatewayConfig};
    use mcpcore::registry::ToolContext;
    for lineage in ["legacy", "modern"] {
        let config = GatewayConfig::from_value(json!({"mcpServers": {"up": {
            "command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "lineage": lineage,
            "prefix": "p_", "include": ["test_trigger_tool_change", "test_dynamic_*"]
        }}}))
        .unwrap();
        let gateway = Gateway::start(&config).await.unwrap();
        let tools = gateway.tools().clone();
        assert_eq!(tools.names(), ["p_test_trigger_tool_change"]);
        let wait_for = |want: Vec<&'static str>| {
            let tools = tools.clone();
            async move {
                let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
                while tools.names() != want {
                    assert!(
                        tokio::time::Instant::now() < deadline,
                        "{lineage}: {:?}, not {want:?}",
                        tools.names()
                    );
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        tools.call("p_test_trigger_tool_change", json!({}), ToolContext::local()).await.unwrap();
        wait_for(vec!["p_test_dynamic_tool", "p_test_trigger_tool_change"]).await;
        let r = tools.call("p_test_dynamic_tool", json!({}), ToolContext::local()).await.unwrap();
        assert_eq!(r.first_text(), Some("dynamic"));
        tools.call("p_test_trigger_tool_change", json!({}), ToolContext::local()).await.unwrap();
        wait_for(vec!["p_test_trigger_tool_change"]).await;
        gateway.shutdown().await;
    }
}

/// A lazy upstream: the gateway serves at once, keeps trying to reach the upstream (with
/// backoff), and once it is reachable mounts it and tells its clients that the tool list changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lazy_upstream_is_connected_in_the_background_and_announced() {
    use mcpcore::client::{Client, ClientOptions, ServerEvent};
    use mcpcore::gateway::{Gateway, GatewayConfig, UpstreamState};
    use mcpcore::http::client::HttpOptions;
    use mcpcore::http::server::HttpServerConfig;
    use mcpcore::protocol::Lineage;
    // A free port for the upstream, which is not listening yet.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let config = GatewayConfig::from_value(json!({"mcpServers": {
        "late": {"url": url, "type": "http", "start": "lazy", "include": ["echo"]},
        "conf": {"command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "include": ["echo"]}
    }, "collision": "skip"}))
    .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    assert_eq!(
        gateway.tools().names(),
        ["conf__echo"],
        "the eager upstream is mounted, the lazy one not yet"
    );
    assert_eq!(gateway.status("late").unwrap().state, UpstreamState::Starting);
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let options = ClientOptions { lineage: Some(Lineage::Legacy), ..ClientOptions::default() };
    let http = HttpOptions { standalone_stream: true, ..HttpOptions::default() };
    let client = Client::connect_http(&serving.url(), http, options).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    client.on_notification(move |e| {
        let _ = tx.send(e);
    });
    // It failed to connect meanwhile (nothing listens), and says why.
    let failed = mcpcore_tests::http::eventually(Duration::from_secs(10), || {
        gateway.status("late").unwrap().last_error.is_some()
    })
    .await;
    assert!(failed, "{:?}", gateway.status("late"));
    // Now the upstream comes up on that port.
    let upstream = mcpcore_tests::http::serve_registry_at(
        &format!("127.0.0.1:{port}"),
        mcpcore_tests::http::fixture_registry(),
        &[],
        HttpServerConfig::default(),
    )
    .await;
    let changed = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(e) = rx.recv().await {
            if e == ServerEvent::ToolsListChanged {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    assert!(changed, "the client heard tools/list_changed");
    // The status turns Up before the mount announces the tools, so it reads Up already.
    assert_eq!(gateway.status("late").unwrap().state, UpstreamState::Up);
    let r = client.call_tool("late__echo", json!({"text": "late but here"})).await.unwrap();
    assert_eq!(r.first_text(), Some("late but here"));
    client.close().await;
    serving.shutdown().await.unwrap();
    gateway.shutdown().await;
    upstream.shutdown().await.unwrap();
}

/// A 2026-07-28 client's `subscriptions/listen` hears a legacy stdio upstream's
/// `tools/list_changed` (the gateway follows the upstream's session notifications).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_hears_a_legacy_stdio_upstreams_list_changes() {
    use mcpcore::client::{Client, ClientOptions, ServerEvent};
    use mcpcore::gateway::{Gateway, GatewayConfig};
    use mcpcore::http::client::HttpOptions;
    use mcpcore::protocol::subscriptions::SubscriptionFilter;
    use mcpcore::protocol::Lineage;
    let config = GatewayConfig::from_value(json!({"mcpServers": {"up": {
        "command": bin("mcpcore"), "args": ["conformance-server", "--stdio"], "lineage": "legacy",
        "include": ["test_trigger_tool_change", "test_dynamic_*"]
    }}}))
    .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    assert_eq!(gateway.client("up").unwrap().lineage(), Lineage::Legacy);
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let options = ClientOptions { lineage: Some(Lineage::Modern), cache: false, ..ClientOptions::default() };
    let client = Client::connect_http(&serving.url(), HttpOptions::default(), options).await.unwrap();
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() };
    let mut sub = client.listen(filter).await.unwrap();
    client.call_tool("up__test_trigger_tool_change", json!({})).await.unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(15), async {
        while let Some(e) = sub.next().await {
            if e == ServerEvent::ToolsListChanged {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    assert!(heard, "the listen stream heard tools/list_changed");
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"up__test_dynamic_tool".to_owned()), "{names:?}");
    client.close().await;
    serving.shutdown().await.unwrap();
    gateway.shutdown().await;
}
