//! The `mcpcore` CLI against real servers.

use mcpcore_tests::bin;
use serde_json::Value;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin("mcpcore")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn tools_lists_in_each_lineage() {
    let server = bin("echo_server");
    for (flags, version) in [
        (vec![], "2026-07-28"),
        (vec!["--lineage", "legacy"], "2025-11-25"),
        (vec!["--protocol-version", "2024-11-05"], "2024-11-05"),
    ] {
        let mut args = vec!["tools"];
        args.extend(flags);
        args.extend(["--", server.as_str()]);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["protocolVersion"], version);
        assert_eq!(v["tools"][0]["name"], "add");
        assert_eq!(v["tools"][1]["name"], "echo");
    }
}

#[test]
fn call_prints_the_result_and_signals_failures() {
    let server = bin("fixture_server");
    let (code, out, _) = run(&["call", "echo", r#"{"text":"cli"}"#, "--", &server]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["content"][0]["text"], "cli");
    let (code, out, _) = run(&["call", "fail", r#"{"text":"x"}"#, "--", &server]);
    assert_eq!(code, 2, "isError exits 2");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["isError"], true);
    let (code, _, err) = run(&["call", "nope", "{}", "--", &server]);
    assert_eq!(code, 1);
    assert!(err.contains("Unknown tool: nope") && err.contains("-32602"), "{err}");
    let (code, _, err) = run(&["call", "echo", "{bad", "--", &server]);
    assert_eq!(code, 1);
    assert!(err.contains("not valid JSON"), "{err}");
    let (code, _, err) = run(&["tools", "--", "/definitely/not/a/program"]);
    assert_eq!(code, 1);
    assert!(err.contains("could not start"), "{err}");
    let (code, _, err) = run(&["tools", "--protocol-version", "1999-01-01", "--", &server]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown protocol version"), "{err}");
}

/// `echo_server --http 127.0.0.1:0` as a child; killed on drop.
struct HttpEcho {
    child: std::process::Child,
    url: String,
}

impl HttpEcho {
    fn start() -> HttpEcho {
        use std::io::BufRead;
        let mut child = Command::new(bin("echo_server"))
            .args(["--http", "127.0.0.1:0"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the server prints its URL").to_owned();
        HttpEcho { child, url }
    }
}

impl Drop for HttpEcho {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn tools_and_call_over_http_in_each_transport() {
    let server = HttpEcho::start();
    for (flags, version) in [
        (vec![], "2026-07-28"),
        (vec!["--lineage", "legacy"], "2025-11-25"),
        (vec!["--protocol-version", "2025-03-26"], "2025-03-26"),
        (vec!["--transport", "sse"], "2024-11-05"),
    ] {
        let mut args = vec!["tools", server.url.as_str()];
        args.extend(flags);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["protocolVersion"], version);
        assert_eq!(v["tools"][1]["name"], "echo");
    }
    let (code, out, err) =
        run(&["call", "echo", r#"{"text":"over http"}"#, &server.url, "--header", "X-Test: 1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["content"][0]["text"], "over http");
}

#[test]
fn http_failures_name_the_cause() {
    // A port nobody listens on: bind, read the port, release it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (code, _, err) = run(&["tools", &format!("http://127.0.0.1:{port}/mcp"), "--timeout", "5"]);
    assert_eq!(code, 1);
    assert!(err.contains("127.0.0.1") && err.contains("failed"), "{err}");
    let (code, _, err) = run(&["tools", "ftp://127.0.0.1/mcp"]);
    assert_eq!(code, 1);
    assert!(err.contains("missing the server") || err.contains("scheme"), "{err}");
    let server = HttpEcho::start();
    let (code, _, err) = run(&["tools", &server.url, "--", "echo_server"]);
    assert_eq!(code, 1);
    assert!(err.contains("not both"), "{err}");
}

#[test]
fn oauth_options_are_checked() {
    let (code, _, err) = run(&["tools", "--oauth", "--", "true"]);
    assert_eq!(code, 1);
    assert!(err.contains("OAuth options need an HTTP server URL"), "{err}");
    let (code, _, err) = run(&["tools", "http://127.0.0.1:9/mcp", "--client-secret", "s"]);
    assert_eq!(code, 1);
    assert!(err.contains("--client-secret needs --client-id"), "{err}");
    let (code, _, err) = run(&["tools", "http://127.0.0.1:9/mcp", "--scope"]);
    assert_eq!(code, 1, "a usage mistake is exit 1 (2 means isError)");
    assert!(err.contains("a value is required for '--scope"), "{err}");
}

/// Runs the CLI with `input` on its stdin (a pipe, not a terminal).
fn run_with_input(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(bin("mcpcore"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn every_subcommand_has_help_and_completions_exist() {
    for sub in [
        "tools",
        "call",
        "resources",
        "read",
        "prompts",
        "get",
        "ping",
        "events",
        "serve",
        "gateway",
        "completions",
        "conformance-server",
        "conformance-client",
    ] {
        let (code, out, err) = run(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub}: {err}");
        assert!(out.contains(&format!("Usage: mcpcore {sub}")), "{sub}: {out}");
    }
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, out, _) = run(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(out.contains("mcpcore") && out.contains("conformance-server"), "{shell}");
    }
    let (code, out, _) = run(&["--version"]);
    assert_eq!((code, out.trim()), (0, concat!("mcpcore ", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn key_value_arguments_are_typed_by_the_tool_schema() {
    let server = bin("echo_server");
    let (code, out, err) = run(&["call", "add", "a=2", "b=40", "--json", "--", &server]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["structuredContent"]["sum"], 42.0);
    let (code, out, _) = run(&["call", "echo", "text=42", "--human", "--", &server]);
    assert_eq!((code, out.as_str()), (0, "42\n"), "a string property keeps 42 as text");
    let (code, _, err) = run(&["call", "add", "a=two", "b=1", "--", &server]);
    assert_eq!(code, 1);
    assert!(err.contains("a=two: not a valid number"), "{err}");
    let (code, out, _) = run(&["tools", "--human", "--", &server]);
    assert_eq!(code, 0);
    assert!(out.starts_with("mcpcore-echo 0.1.0 · protocol 2026-07-28\n2 tools\n"), "{out}");
    assert!(out.contains("    a: number  The first addend."), "{out}");
}

#[test]
fn resources_read_prompts_get_and_ping_in_both_lineages() {
    let mcpcore = bin("mcpcore");
    for lineage in ["modern", "legacy"] {
        let fixture = ["--lineage", lineage, "--", mcpcore.as_str(), "conformance-server", "--stdio"];
        let with = |args: &[&str]| run(&[args, &fixture[..]].concat());
        let (code, out, err) = with(&["resources", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(v["resources"].as_array().unwrap().iter().any(|r| r["uri"] == "test://static-text"), "{v}");
        assert!(!v["resourceTemplates"].as_array().unwrap().is_empty());
        let (code, out, _) = with(&["read", "test://static-text", "--human"]);
        assert_eq!((code, out.as_str()), (0, "This is the content of the static text resource.\n"));
        let (code, out, _) = with(&["prompts", "--human"]);
        assert_eq!(code, 0);
        assert!(
            out.contains(
                "test_prompt_with_arguments  A prompt with two required arguments\n    arg1  First argument"
            ),
            "{out}"
        );
        let (code, out, _) = with(&["get", "test_prompt_with_arguments", "arg1=a", "arg2=b", "--human"]);
        assert_eq!((code, out.as_str()), (0, "user: Prompt with arguments: arg1='a', arg2='b'\n"));
        let (code, out, _) = with(&["ping", "--json"]);
        assert_eq!(code, 0);
        let method = if lineage == "modern" { "server/discover" } else { "ping" };
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["method"], method);
        let (code, _, err) = with(&["read", "test://nothing-here"]);
        assert_eq!(code, 1);
        assert!(err.contains("JSON-RPC code"), "{err}");
    }
}

#[test]
fn sampling_and_elicitation_are_answered_on_the_terminal() {
    let mcpcore = bin("mcpcore");
    for lineage in ["modern", "legacy"] {
        let fixture =
            ["--interactive", "--lineage", lineage, "--", mcpcore.as_str(), "conformance-server", "--stdio"];
        let args = [&["call", "test_sampling", "prompt=What is 2+2?", "--human"][..], &fixture[..]].concat();
        let (code, out, err) = run_with_input(&args, "four\n");
        assert_eq!(code, 0, "{lineage}: {err}");
        assert_eq!(out, "LLM response: four\n", "{lineage}");
        assert!(err.contains("user: What is 2+2?"), "the question is shown: {err}");
        let args =
            [&["call", "test_elicitation", "message=Who are you?", "--json"][..], &fixture[..]].concat();
        let (code, out, err) = run_with_input(&args, "a\nalice\nalice@example.com\n");
        assert_eq!(code, 0, "{lineage}: {err}");
        let text =
            serde_json::from_str::<Value>(&out).unwrap()["content"][0]["text"].as_str().unwrap().to_owned();
        assert!(text.contains("accept") && text.contains("alice@example.com"), "{lineage}: {text}");
        assert!(err.contains("The server asks: Who are you?"), "{err}");
    }
    // Without --interactive (stdin is not a terminal) nothing is declared: the server is told so.
    let (code, out, _) = run_with_input(
        &[
            "call",
            "test_sampling",
            "prompt=x",
            "--json",
            "--lineage",
            "legacy",
            "--",
            &mcpcore,
            "conformance-server",
            "--stdio",
        ],
        "",
    );
    assert!(code != 0 || out.contains("isError"), "{out}");
}

#[test]
fn serve_makes_a_stdio_server_reachable_over_http_and_leaves_no_child() {
    let marker = format!("MCPCORE_SERVE_TEST={}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    let (mut serve, url) = mcpcore_tests::spawn_listening(
        Command::new(bin("mcpcore"))
            .args(["serve", "--listen", "127.0.0.1:0", "--", &bin("echo_server")])
            .env(key, value)
            .stderr(std::process::Stdio::null()),
    );
    for lineage in ["modern", "legacy"] {
        let (code, out, err) = run(&["call", "add", "a=1", "b=2", &url, "--lineage", lineage, "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["structuredContent"]["sum"], 3.0);
    }
    // The echo_server processes started by this serve (its environment carries the marker; the
    // transport's watchdog, which ends on its own once serve is gone, is not counted).
    let children = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| {
                let dir = e.ok()?.path();
                Some((std::fs::read(dir.join("environ")).ok()?, std::fs::read(dir.join("cmdline")).ok()?))
            })
            .filter(|(env, cmd)| {
                env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes())
                    && String::from_utf8_lossy(cmd).starts_with(&bin("echo_server"))
            })
            .count()
    };
    assert_eq!(children(), 1, "the echo_server serve started");
    unsafe { libc::kill(serve.id() as i32, libc::SIGTERM) };
    let status = serve.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert_eq!(children(), 0, "the upstream is stopped with serve");
    let (code, _, err) = run(&["serve"]);
    assert_eq!(code, 1);
    assert!(err.contains("give --config FILE or a server command"), "{err}");
}

#[test]
fn a_progress_bar_on_a_terminal_only() {
    let mcpcore = bin("mcpcore");
    let call =
        format!("{mcpcore} call test_tool_with_progress --human -- {mcpcore} conformance-server --stdio");
    if !std::path::Path::new("/usr/bin/script").exists() {
        eprintln!("skipped: no /usr/bin/script (util-linux) to give the CLI a terminal");
        return;
    }
    // `script` runs the CLI on a pseudo-terminal: the bar's first frame is drawn at once.
    let out = Command::new("/usr/bin/script").args(["-qec", &call, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(screen.contains(" 0/100") && screen.contains("Progress test completed"), "{screen}");
    // Piped, nothing is drawn: stderr stays clean for scripts.
    let (code, out, err) =
        run(&["call", "test_tool_with_progress", "--human", "--", &mcpcore, "conformance-server", "--stdio"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "Progress test completed\n", ""));
}

/// The status of a modern `tools/list` POSTed to 127.0.0.1:`port` with `Host: host`.
fn status_for_host(port: u16, host: &str) -> String {
    use std::io::{Read, Write};
    let body = mcpcore_tests::http::modern(1, "tools/list", serde_json::json!({}));
    let json = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        json.len()
    );
    for (k, v) in mcpcore_tests::http::modern_headers(&body) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    s.write_all(format!("{head}\r\n{json}").as_bytes()).unwrap();
    let mut got = String::new();
    let _ = s.read_to_string(&mut got);
    got.split(' ').nth(1).unwrap_or("").to_owned()
}

#[test]
fn serve_on_a_wildcard_bind_answers_ip_hosts_and_the_allowed_names_only() {
    for (extra, named) in [(vec![], "403"), (vec!["--allowed-host", "mcp.example.com"], "200")] {
        let mut args = vec!["serve", "--listen", "0.0.0.0:0"];
        args.extend(extra.iter().copied());
        let echo = bin("echo_server");
        args.extend(["--", echo.as_str()]);
        let (mut serve, url) = mcpcore_tests::spawn_listening(
            Command::new(bin("mcpcore")).args(&args).stderr(std::process::Stdio::null()),
        );
        let port: u16 = url.rsplit(':').next().unwrap().trim_end_matches("/mcp").parse().unwrap();
        assert_eq!(status_for_host(port, "evil.example"), "403", "{args:?}");
        assert_eq!(status_for_host(port, "mcp.example.com"), named, "{args:?}");
        let ip = if extra.is_empty() { "200" } else { "403" }; // the list replaces the default
        assert_eq!(status_for_host(port, &format!("127.0.0.1:{port}")), ip, "{args:?}");
        unsafe { libc::kill(serve.id() as i32, libc::SIGTERM) };
        serve.wait().unwrap();
    }
}

#[test]
fn timeout_bounds_the_whole_connect() {
    let start = std::time::Instant::now();
    let (code, _, err) = run(&["tools", "--timeout", "2", "--", "sh", "-c", "exec sleep 30"]);
    assert_ne!(code, 0);
    assert!(err.contains("timed out after 2.0 s"), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_millis(2900), "took {:?}", start.elapsed());
}

/// Issue 37: `mcpcore call` of a tool with `taskSupport: "required"` (server-everything's
/// `simulate-research-query`, which refuses a plain call with an `isError` result, not a JSON-RPC
/// error) failed with its "-32601 requires task augmentation" text when the arguments were JSON
/// (no `tools/list` read first). Now the call runs as a task and prints its result.
#[test]
fn call_runs_a_task_only_tool_as_a_task() {
    let entry = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.exists(), "{} is missing: run `npm ci` in tests/interop/ts", entry.display());
    let entry = entry.to_string_lossy().into_owned();
    for args in [&["{\"topic\": \"mcp\"}"][..], &["topic=mcp"][..]] {
        let mut argv = vec!["call", "simulate-research-query"];
        argv.extend(args);
        argv.extend(["--json", "--", "node", &entry, "stdio"]);
        let (code, out, err) = run(&argv);
        assert_eq!(code, 0, "{out}\n{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_ne!(v["isError"], true, "{out}");
        assert!(v["content"][0]["text"].as_str().unwrap_or("").contains("Research"), "{out}");
        assert_eq!(err, "", "piped, no status is drawn");
    }
    // On a terminal the task's status is shown while it runs, with the server's words.
    if std::path::Path::new("/usr/bin/script").exists() {
        let call =
            format!("{} call simulate-research-query topic=mcp --json -- node {entry} stdio", bin("mcpcore"));
        let out = Command::new("/usr/bin/script").args(["-qec", &call, "/dev/null"]).output().unwrap();
        let screen = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{screen}");
        assert!(screen.contains(": working — "), "the status and its message: {screen}");
    }
}

/// `mcpcore tools ... | head -1`: a reader that goes away ends the CLI quietly (exit 0), not
/// with a panic and a backtrace on stderr.
#[test]
fn a_closed_stdout_ends_the_cli_quietly() {
    let mut child = Command::new(bin("mcpcore"))
        .args(["tools", "--", &bin("echo_server")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader is gone before anything is written
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn events_are_listed_polled_and_streamed_from_the_command_line() {
    let server = bin("echo_server");
    let (code, out, err) = run(&["events", "list", "--", &server, "--events"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> =
        v["events"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echoed", "tick"]);
    // A stream prints one JSON line per item as it comes: active, then two ticks, then stops.
    let (code, out, err) =
        run(&["events", "stream", "tick", "--count", "2", "--json", "--", &server, "--events"]);
    assert_eq!(code, 0, "{err}");
    let items: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(items[0]["type"], "active", "{out}");
    let ticks: Vec<i64> =
        items.iter().filter(|i| i["type"] == "event").map(|i| i["data"]["n"].as_i64().unwrap()).collect();
    assert_eq!(ticks, [1, 2], "{out}");
    // A poll from now answers no occurrence and a cursor; a poll with --follow waits for them.
    let (code, out, _) = run(&["events", "poll", "tick", "--json", "--", &server, "--events"]);
    assert_eq!(code, 0);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert!(r["events"].as_array().unwrap().is_empty() && r["cursor"].is_string(), "{out}");
    let (code, out, err) =
        run(&["events", "poll", "tick", "--follow", "--count", "1", "--json", "--", &server, "--events"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().any(|l| !l["events"].as_array().unwrap().is_empty()), "{out}");
    // Errors keep their code: an unknown type, and arguments the type does not take.
    let (code, _, err) = run(&["events", "poll", "nope", "--", &server, "--events"]);
    assert_eq!(code, 1);
    assert!(err.contains("JSON-RPC code -32011"), "{err}");
    let (code, _, err) = run(&["events", "stream", "tick", "x=1", "--", &server, "--events"]);
    assert_eq!(code, 1);
    assert!(err.contains("-32602"), "{err}");
}
