//! `mcpcore doctor` (issue 49, docs/doctor.md) against real servers, healthy and with faults:
//! our `echo_server` over stdio, HTTP, HTTPS (its CA trusted or not) and behind OAuth
//! (tests/interop/oauth's authorization server); `@modelcontextprotocol/server-everything`
//! over Streamable HTTP, which serves requests of any Origin; the official Python SDK's servers
//! (HTTP, and stdio with `--faults`: broken tool definitions and a slow `tools/list`); fastmcp
//! over stdio. Each run is the CLI as a user runs it, its JSON report read back.

use mcpcore_tests::auth_echo::{interop, EchoServer};
use mcpcore_tests::issuer::Issuer;
use mcpcore_tests::{bin, spawn_listening, workspace};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Kills the child on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mcpcore doctor --json ARGS`: the report and the exit code.
fn doctor(args: &[&str]) -> (Value, i32) {
    let out = Command::new(bin("mcpcore"))
        .arg("doctor")
        .arg("--json")
        .args(["--rounds", "6"])
        .args(args)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (report, out.status.code().unwrap_or(-1))
}

/// The finding of `check`.
fn finding<'a>(report: &'a Value, check: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == check)
        .unwrap_or_else(|| panic!("no {check} in {report:#}"))
}

fn status(report: &Value, check: &str) -> String {
    finding(report, check)["status"].as_str().unwrap().to_owned()
}

fn details(report: &Value, check: &str) -> String {
    finding(report, check)["details"]
        .as_array()
        .map(|d| d.iter().map(|l| l.as_str().unwrap_or("")).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

/// A server that prints `READY URL` first.
fn ready(cmd: &mut Command) -> (Kid, String) {
    let mut child = cmd.stdout(Stdio::piped()).spawn().expect("spawn the server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("READY ").unwrap_or_else(|| panic!("said {line:?}")).to_owned();
    (Kid(child), url)
}

#[test]
fn our_echo_server_passes_every_check_over_stdio_and_http() {
    let (report, code) = doctor(&["--", &bin("echo_server")]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        finding(&report, "revisions")["summary"],
        "speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"
    );
    assert_eq!(status(&report, "tool schemas"), "ok");
    assert_eq!(status(&report, "latency"), "ok");
    assert_eq!(report["serverInfo"]["name"], "mcpcore-echo");

    let (child, url) = spawn_listening(Command::new(bin("echo_server")).args(["--http", "127.0.0.1:0"]));
    let _kid = Kid(child);
    let (report, code) = doctor(&[&url]);
    assert_eq!(code, 0, "{report:#}");
    assert!(finding(&report, "transports")["summary"].as_str().unwrap().contains("HTTP+SSE"), "{report:#}");
    assert_eq!(status(&report, "transport security"), "ok");
    assert_eq!(status(&report, "authorization"), "info");
    assert_eq!(status(&report, "dns rebinding"), "ok");
    let d = details(&report, "dns rebinding");
    assert!(d.contains("Origin: http://evil.example -> HTTP 403") && d.contains("Host: evil.example"), "{d}");
}

#[test]
fn a_server_that_serves_any_origin_fails_the_rebinding_check() {
    // server-everything's Streamable HTTP (Express, no Origin check), pinned in tests/interop/ts.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let js = workspace()
        .join("tests/interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(js.exists(), "{} is missing: run `npm ci` in tests/interop/ts", js.display());
    let _kid = Kid(Command::new("node")
        .arg(js)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap());
    mcpcore_tests::fleet::wait_for_port(port, "server-everything");
    let (report, code) = doctor(&[&format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(status(&report, "dns rebinding"), "fail");
    assert!(finding(&report, "dns rebinding")["remedy"].as_str().unwrap().contains("validate Origin"));
    // It speaks the initialize-based revisions only.
    assert_eq!(status(&report, "revisions"), "ok");
    assert!(!finding(&report, "revisions")["summary"].as_str().unwrap().contains("2026-07-28"), "{report:#}");
    assert_eq!(status(&report, "tool schemas"), "ok");
}

#[test]
fn the_python_sdk_and_fastmcp_servers_are_read_as_they_are() {
    let (_kid, url) =
        ready(Command::new(python()).arg(interop("python/sdk_http_server.py")).args(["--port", "0"]));
    let (report, code) = doctor(&[&url]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(status(&report, "dns rebinding"), "ok", "{report:#}");
    // The SDK has no HTTP+SSE endpoint at /mcp.
    assert!(finding(&report, "transports")["summary"].as_str().unwrap().contains("does not answer"));

    let (report, code) = doctor(&["--", &python(), &interop("python/fastmcp_server.py")]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(status(&report, "tool schemas"), "ok");
    assert!(finding(&report, "capabilities")["summary"].as_str().unwrap().contains("tools"));
}

#[test]
fn broken_tool_definitions_and_a_slow_list_are_named_with_their_remedies() {
    let (report, code) = doctor(&["--", &python(), &interop("python/sdk_server.py"), "--faults"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(status(&report, "tool schemas"), "fail");
    let d = details(&report, "tool schemas");
    for needle in [
        "tool \"has space\": the name has characters outside",
        "tool \"echo\": the name is listed twice",
        "tool \"typo\": inputSchema is not valid JSON Schema",
        "tool \"remote\": inputSchema refers to \"https://example.com/x.json\"",
    ] {
        assert!(d.contains(needle), "{needle:?} not in {d}");
    }
    // tools/list sleeps 300 ms: many pings' worth.
    assert_eq!(status(&report, "latency"), "warn", "{report:#}");
    assert!(finding(&report, "latency")["remedy"].as_str().unwrap().contains("build the tool list once"));
}

#[test]
fn https_is_verified_and_an_unknown_ca_is_named() {
    let pki = mcpcore_tests::tls::TestPki::new();
    let (child, url) = spawn_listening(Command::new(bin("echo_server")).args([
        "--http",
        "127.0.0.1:0",
        "--tls-cert",
        &pki.file("server.pem"),
        "--tls-key",
        &pki.file("server.key"),
    ]));
    let _kid = Kid(child);
    let (report, code) = doctor(&[&url]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(status(&report, "transport security"), "fail");
    assert!(finding(&report, "transport security")["remedy"].as_str().unwrap().contains("--ca-cert"));
    assert_eq!(status(&report, "revisions"), "fail");

    let (report, code) = doctor(&[&url, "--ca-cert", &pki.file("ca.pem")]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        finding(&report, "transport security")["summary"],
        "HTTPS, the certificate chain and name verified"
    );
    assert_eq!(status(&report, "dns rebinding"), "ok");
}

#[test]
fn an_oauth_protected_server_has_its_metadata_checked() {
    let issuer = Issuer::start();
    let server = EchoServer::start(&issuer);
    // Without credentials: nothing connects, and the remedy says how to pass them; the
    // metadata is checked all the same.
    let (report, code) = doctor(&[&server.url]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(status(&report, "revisions"), "fail");
    assert!(finding(&report, "revisions")["remedy"].as_str().unwrap().contains("--bearer"), "{report:#}");
    let auth = finding(&report, "authorization");
    assert!(matches!(auth["status"].as_str(), Some("ok" | "warn")), "{report:#}");
    assert!(auth["summary"].as_str().unwrap().contains(&issuer.url), "{report:#}");
    let d = details(&report, "authorization");
    assert!(d.contains("HTTP 401") && d.contains("/.well-known/oauth-protected-resource"), "{d}");

    // With a token: every check runs.
    let token = issuer.token(&server.url, "mcp:tools", serde_json::json!({}));
    let (report, code) = doctor(&[&server.url, "--bearer", &token]);
    assert_eq!(status(&report, "revisions"), "ok", "{report:#}");
    assert_eq!(status(&report, "tool schemas"), "ok", "{report:#}");
    assert_eq!(status(&report, "dns rebinding"), "ok", "{report:#}");
    assert_eq!(code, 0, "{report:#}");

    // A server whose metadata names another resource than the URL it is reached at.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (child, url) = spawn_listening(
        Command::new(bin("echo_server")).args(["--http", &format!("127.0.0.1:{port}")]).args([
            "--auth-jwks",
            &issuer.jwks(),
            "--auth-issuer",
            &issuer.url,
            "--auth-audience",
            "https://elsewhere.example/mcp",
        ]),
    );
    let _kid = Kid(child);
    let (report, _) = doctor(&[&url]);
    assert_eq!(status(&report, "authorization"), "fail", "{report:#}");
    assert!(
        finding(&report, "authorization")["remedy"].as_str().unwrap().contains("\"resource\""),
        "{report:#}"
    );
}
