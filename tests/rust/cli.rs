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
    assert_eq!(code, 1);
    assert!(err.contains("--scope needs a value"), "{err}");
}
