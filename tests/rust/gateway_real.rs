//! Real upstreams behind one `mcpcore gateway`, driven by the official clients.
//!
//! Upstreams: `@modelcontextprotocol/server-everything` over stdio and in its 2024-11-05 SSE
//! mode (legacy), the official Python SDK server (`tests/interop/python/sdk_resources_server.py`,
//! `mcp==2.3.0`, which the gateway reaches on 2026-07-28), and a TypeScript SDK v1 server
//! (`tests/interop/ts/sdk_v1_server.mjs`, `@modelcontextprotocol/sdk` 1.32.2, legacy-only).
//! Clients: the official Python SDK client (`sdk_gateway_plan_client.py`) and TypeScript SDK v2
//! client (`sdk_gateway_client.mjs`), each in both lineages. Proves: every tool listed under its
//! prefix and called; a resource read and a prompt get from each stdio upstream; elicitation and
//! sampling relayed across lineages (legacy upstream to 2026-07-28 client and the reverse);
//! progress relayed; a killed upstream restarted (a new process answers), and no upstream left
//! behind when the gateway stops.
#![cfg(target_os = "linux")]

use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn path(rel: &str) -> String {
    let p = workspace().join(rel);
    assert!(
        p.exists(),
        "{} is missing (npm ci in tests/interop/ts; the venv of scripts/test.sh)",
        p.display()
    );
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

/// Spawns `cmd` and returns it with what follows `prefix` on the first stdout line (60 s).
fn spawn_announcing(cmd: &mut Command, prefix: &str) -> (Killed, String) {
    let mut child = Killed(cmd.stdout(Stdio::piped()).spawn().expect("spawn"));
    let stdout = child.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let line = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("a first line");
        if let Some(rest) = line.strip_prefix(prefix) {
            return (child, rest.trim().to_owned());
        }
    }
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

const TOOLS: [&str; 10] = [
    "everything__echo",
    "everything__get-sum",
    "everything__trigger-elicitation-request",
    "everything__trigger-long-running-operation",
    "old__echo",
    "py__ask_name",
    "py__sample",
    "ts__ask",
    "ts__echo",
    "ts__pid",
];

fn plan() -> Value {
    json!({
        "calls": [
            ["everything__echo", {"message": "to everything"}],
            ["everything__get-sum", {"a": 2, "b": 3}],
            ["everything__trigger-elicitation-request", {}],
            ["old__echo", {"message": "over sse"}],
            ["py__ask_name", {}],
            ["py__sample", {}],
            ["ts__echo", {"text": "to the v1 sdk"}],
            ["ts__pid", {}],
            ["ts__ask", {}]
        ],
        "progress": [["everything__trigger-long-running-operation", {"duration": 1, "steps": 2}]],
        "reads": ["everything+demo://resource/static/document/architecture.md", "py+text://greeting", "ts+v1://note"],
        "prompts": [["everything__simple-prompt", {}], ["py__greet", {"name": "Bo"}], ["ts__greet", {"name": "Bo"}]]
    })
}

/// Runs one official client with the plan; returns its report.
fn drive(client: &str, mode: &str, url: &str) -> Value {
    let plan = plan().to_string();
    let out = match client {
        "python" => Command::new(python())
            .args([&path("tests/interop/python/sdk_gateway_plan_client.py"), "--mode", mode, "--url", url])
            .args(["--plan", &plan])
            .output(),
        _ => Command::new("node")
            .args([&path("tests/interop/ts/sdk_gateway_client.mjs"), "--mode", mode, "--url", url])
            .args(["--plan", &plan])
            .output(),
    }
    .unwrap();
    assert!(out.status.success(), "{client} {mode}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(r: &Value, client: &str, mode: &str) {
    let case = format!("{client} {mode}");
    let version = if mode == "modern" { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(r["protocolVersion"], version, "{case}: {r}");
    let tools: Vec<&str> = r["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tools, TOOLS, "{case}: every tool, under its prefix, sorted");
    let calls = &r["calls"];
    for t in TOOLS {
        assert_eq!(calls[t]["isError"], false, "{case}: {t} was called and answered: {calls}");
    }
    let text = |t: &str| calls[t]["text"].as_str().unwrap_or_default().to_owned();
    assert_eq!(text("everything__echo"), "Echo: to everything", "{case}");
    assert!(text("everything__get-sum").contains('5'), "{case}: {}", text("everything__get-sum"));
    assert_eq!(text("old__echo"), "Echo: over sse", "{case}");
    assert_eq!(text("ts__echo"), "to the v1 sdk", "{case}");
    assert!(text("ts__pid").parse::<u32>().is_ok(), "{case}: {}", text("ts__pid"));
    // Elicitation and sampling relayed: from legacy upstreams (everything, the v1 SDK) and from
    // the 2026-07-28 Python SDK server, whatever the client's lineage.
    let who = if client == "python" { "Ann Python" } else { "Ann TypeScript" };
    assert_eq!(text("ts__ask"), format!("hello {who}"), "{case}");
    assert!(
        text("everything__trigger-elicitation-request").contains(who),
        "{case}: {}",
        text("everything__trigger-elicitation-request")
    );
    assert!(text("py__ask_name").starts_with(who), "{case}: {}", text("py__ask_name"));
    let model = if client == "python" { "the python model says hi" } else { "the typescript model says hi" };
    assert!(text("py__sample").contains(model), "{case}: {}", text("py__sample"));
    let asked: Vec<&str> = r["asked"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(asked.iter().filter(|a| a.starts_with("elicit: ")).count() >= 3, "{case}: {asked:?}");
    assert!(asked.iter().any(|a| a.starts_with("sample: ")), "{case}: {asked:?}");
    // Progress relayed from a legacy upstream.
    assert!(
        r["progress"]["everything__trigger-long-running-operation"].as_u64().unwrap() >= 1,
        "{case}: {r}"
    );
    // Reads and prompt gets of each stdio upstream.
    assert!(!r["reads"]["everything+demo://resource/static/document/architecture.md"]
        .as_str()
        .unwrap()
        .is_empty());
    assert_eq!(r["reads"]["py+text://greeting"], "Hello from the Python SDK", "{case}");
    assert_eq!(r["reads"]["ts+v1://note"], "a note from the v1 SDK", "{case}");
    assert!(r["gets"]["everything__simple-prompt"][0].is_string(), "{case}: {r}");
    assert!(r["gets"]["py__greet"][0].as_str().unwrap().contains("Bo"), "{case}: {r}");
    assert_eq!(r["gets"]["ts__greet"][0], "Please greet Bo.", "{case}");
}

#[test]
fn official_clients_through_a_gateway_of_official_servers_in_both_lineages() {
    let marker = format!("gw-real-{}", std::process::id());
    let env = json!({ "MCPCORE_GATEWAY_TEST": marker });
    let everything =
        path("tests/interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let (_sse, sse_url) = spawn_announcing(
        Command::new("node").args([
            &path("tests/interop/ts/everything.mjs"),
            "--transport",
            "sse",
            "--port",
            "0",
        ]),
        "READY ",
    );
    let config = json!({"mcpServers": {
        "everything": {"command": "node", "args": [everything, "stdio"], "env": env,
                       "include": ["echo", "get-sum", "trigger-elicitation-request", "trigger-long-running-operation"]},
        "old": {"url": sse_url, "type": "sse", "include": ["echo"]},
        "py": {"command": python(), "args": [path("tests/interop/python/sdk_resources_server.py")], "env": env,
               "include": ["ask_name", "sample"]},
        "ts": {"command": "node", "args": [path("tests/interop/ts/sdk_v1_server.mjs")], "env": env}
    }});
    let file = std::env::temp_dir().join(format!("mcpcore-{marker}.json"));
    std::fs::write(&file, config.to_string()).unwrap();
    let (mut gateway, url) = spawn_announcing(
        Command::new(bin("mcpcore")).args([
            "gateway",
            "--config",
            &file.to_string_lossy(),
            "--listen",
            "127.0.0.1:0",
        ]),
        "listening on ",
    );
    std::fs::remove_file(&file).unwrap();
    assert_eq!(marked(&marker).len(), 3, "three stdio upstreams");

    let mut ts_pid = 0;
    for client in ["python", "typescript"] {
        for mode in ["modern", "legacy"] {
            let r = drive(client, mode, &url);
            check(&r, client, mode);
            ts_pid = r["calls"]["ts__pid"]["text"].as_str().unwrap().parse().unwrap();
        }
    }

    // Kill the v1 SDK server: its tools are listed still, and a new process answers them soon.
    // SAFETY: kill(2) on a process this test's gateway started (its pid came from the tool).
    assert_eq!(unsafe { libc::kill(ts_pid as i32, libc::SIGKILL) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let restarted = loop {
        let out = Command::new(bin("mcpcore")).args(["call", "ts__pid", "{}", &url]).output().unwrap();
        let result: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        match text.parse::<u32>() {
            Ok(pid) if pid != ts_pid => break pid,
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            _ => panic!("the v1 SDK server was not restarted: {text}"),
        }
    };
    assert!(marked(&marker).contains(&restarted), "the new process is one of the gateway's upstreams");
    let r = drive("python", "legacy", &url);
    check(&r, "python", "legacy (after the restart)");

    // SIGTERM: an orderly stop, no upstream left.
    // SAFETY: kill(2) on the gateway this test started.
    assert_eq!(unsafe { libc::kill(gateway.0.id() as i32, libc::SIGTERM) }, 0);
    assert_eq!(gateway.0.wait().unwrap().code(), Some(143));
    let deadline = Instant::now() + Duration::from_secs(15);
    while !marked(&marker).is_empty() {
        assert!(Instant::now() < deadline, "upstreams left behind: {:?}", marked(&marker));
        std::thread::sleep(Duration::from_millis(100));
    }
}
