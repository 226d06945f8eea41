//! The shared bad-input vectors (`tests/vectors/bad-input/`) against the Rust server: the
//! example contract's `echo_server`, on stdio and on HTTP, as real child processes. The Python,
//! Node and Kotlin servers are driven through the same files by their own test suites.

mod raw;

use mcpcore_tests::bin;
use raw::RawPeer;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::PathBuf;

fn vectors(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors/bad-input").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The bytes of a `send` or `body` object (see the vectors' README).
fn bytes(body: &Value) -> Vec<u8> {
    if let Some(v) = body.get("json") {
        return v.to_string().into_bytes();
    }
    if let Some(t) = body.get("text").and_then(Value::as_str) {
        return t.as_bytes().to_vec();
    }
    if let Some(h) = body.get("hex").and_then(Value::as_str) {
        return (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect();
    }
    let parts = body["repeat"].as_array().expect("json, text, hex or repeat");
    parts
        .iter()
        .flat_map(|p| p[0].as_str().unwrap().repeat(p[1].as_u64().unwrap() as usize).into_bytes())
        .collect()
}

/// Checks a JSON-RPC response against an `expect` object.
fn check(what: &str, got: &Value, expect: &Value) {
    if let Some(code) = expect.get("code") {
        assert_eq!(&got["error"]["code"], code, "{what}: {got}");
    }
    if expect.get("result").is_some() {
        assert!(got.get("result").is_some(), "{what}: {got}");
    }
    if let Some(id) = expect.get("id") {
        assert_eq!(&got["id"], id, "{what}: {got}");
    }
}

fn alive_request() -> Value {
    json!({"jsonrpc": "2.0", "id": "alive", "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
}

#[test]
fn stdio_vectors() {
    let doc = vectors("stdio.json");
    for session in doc["sessions"].as_array().unwrap() {
        let name = session["name"].as_str().unwrap();
        let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
        for (i, step) in session["steps"].as_array().unwrap().iter().enumerate() {
            p.send_bytes(&bytes(&step["send"]));
            if !step["expect"].is_null() {
                check(&format!("{name}, step {i}"), &p.recv(), &step["expect"]);
            }
        }
        p.send(&alive_request());
        let r = p.recv();
        assert_eq!(r["id"], "alive", "{name}: the server answered something else: {r}");
        assert!(r["result"]["tools"].is_array(), "{name}: {r}");
    }
}

/// A raw HTTP/1.1 exchange on a fresh connection: the status and the (de-chunked) body.
fn exchange(addr: &str, method: &str, headers: &[(String, String)], body: Option<&[u8]>) -> (u16, Vec<u8>) {
    let mut req = format!("{method} /mcp HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("Connection: close\r\n\r\n");
    let mut sock = std::net::TcpStream::connect(addr).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    sock.write_all(req.as_bytes()).unwrap();
    // The server may answer (and close) before reading a body it refuses.
    let _ = sock.write_all(body.unwrap_or_default());
    let mut raw = Vec::new();
    let _ = sock.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, body)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&b[..i]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + size]);
        b = &b[i + 2 + size + 2..];
    }
    out
}

#[test]
fn http_vectors() {
    let mut server = std::process::Command::new(bin("echo_server"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line)
        .unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("the server prints its URL").to_owned();
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let doc = vectors("http.json");
    let mut failures = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let headers: Vec<(String, String)> = case["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h[0].as_str().unwrap().to_owned(), h[1].as_str().unwrap().to_owned()))
            .collect();
        let body = case.get("body").map(bytes);
        let (status, got) = exchange(&addr, case["method"].as_str().unwrap(), &headers, body.as_deref());
        let expect = &case["expect"];
        if expect["status"] != status {
            failures.push(format!(
                "{name}: status {status}, expected {}: {}",
                expect["status"],
                String::from_utf8_lossy(&got)
            ));
            continue;
        }
        if expect.get("empty").is_some() && !got.is_empty() {
            failures.push(format!("{name}: expected no body, got {}", String::from_utf8_lossy(&got)));
        }
        if expect.get("code").is_some() || expect.get("isError").is_some() {
            let Ok(v) = serde_json::from_slice::<Value>(&got) else {
                failures.push(format!("{name}: not JSON: {}", String::from_utf8_lossy(&got)));
                continue;
            };
            let matches = match expect.get("code") {
                Some(code) => *code == v["error"]["code"],
                None => v["result"]["isError"] == true,
            };
            if !matches || expect.get("id").is_some_and(|id| *id != v["id"]) {
                failures.push(format!("{name}: expected {expect}, got {v}"));
            }
        }
    }
    let alive = alive_request();
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()));
    let (status, got) = exchange(&addr, "POST", &headers, Some(alive.to_string().as_bytes()));
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        doc["cases"].as_array().unwrap().len(),
        failures.join("\n")
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&got));
}
