//! A raw JSON-RPC client for wire-level tests of one server, over stdio or HTTP, legacy or
//! modern: it sends requests, answers the server's own requests with a test-supplied function,
//! collects notifications, and validates every message the server emits against the schema of
//! the revision spoken.

use crate::http::{modern_headers, sse_events, Raw, IO_TIMEOUT};
use crate::schema::validate_message;
use mcpcore::ProtocolVersion;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// How to reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `mcpcore conformance-server --stdio` as a child process.
    Stdio,
    /// `mcpcore conformance-server --listen 127.0.0.1:0` over Streamable HTTP.
    Http,
}

enum Link {
    Stdio { _child: Child, stdin: ChildStdin, lines: Lines<BufReader<ChildStdout>> },
    Http { _child: Child, raw: Raw, session: Option<String> },
}

/// One connection to the conformance fixture.
pub struct Wire {
    link: Link,
    /// The revision spoken.
    pub version: ProtocolVersion,
    /// `clientCapabilities` sent (modern: on every request; legacy: in `initialize`).
    pub capabilities: Value,
    next_id: i64,
    /// Notifications received, in order.
    pub notes: Vec<Value>,
}

/// Answers a server→client request (its `method` and `params`) with a result.
pub type Answer<'a> = &'a (dyn Fn(&str, &Value) -> Value + Sync);

fn no_requests(method: &str, _: &Value) -> Value {
    panic!("the server sent an unexpected request {method}")
}

async fn spawn(args: &[&str]) -> Child {
    tokio::process::Command::new(crate::bin("mcpcore"))
        .arg("conformance-server")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn mcpcore conformance-server")
}

impl Wire {
    /// Connects at `version` (a legacy one runs the `initialize` handshake) declaring
    /// `capabilities`.
    pub async fn open(via: Via, version: ProtocolVersion, capabilities: Value) -> Wire {
        let link = match via {
            Via::Stdio => {
                let mut child = spawn(&["--stdio"]).await;
                let stdin = child.stdin.take().expect("stdin");
                let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
                Link::Stdio { _child: child, stdin, lines }
            }
            Via::Http => {
                let mut child = spawn(&["--listen", "127.0.0.1:0"]).await;
                let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
                let line = tokio::time::timeout(IO_TIMEOUT, lines.next_line()).await.expect("start in time");
                let line = line.expect("read").expect("a first line");
                let url = line.strip_prefix("listening on ").expect("listening on URL").to_owned();
                Link::Http { _child: child, raw: Raw::new(&url), session: None }
            }
        };
        let mut wire = Wire { link, version, capabilities, next_id: 0, notes: Vec::new() };
        if !version.is_modern() {
            let caps = wire.capabilities.clone();
            let init = json!({"protocolVersion": version.as_str(), "capabilities": caps,
                "clientInfo": {"name": "wire", "version": "0"}});
            let r = wire.call("initialize", init).await;
            assert_eq!(r["result"]["protocolVersion"], version.as_str(), "{r}");
            wire.notify("notifications/initialized", json!({})).await;
        }
        wire
    }

    /// The raw HTTP client and session id (HTTP only).
    pub fn http(&self) -> Option<(&Raw, Option<&str>)> {
        match &self.link {
            Link::Http { raw, session, .. } => Some((raw, session.as_deref())),
            Link::Stdio { .. } => None,
        }
    }

    /// A request body with a fresh id (modern: `_meta` added).
    pub fn body(&mut self, method: &str, mut params: Value) -> Value {
        self.next_id += 1;
        if self.version.is_modern() {
            let meta = params["_meta"].as_object().cloned().unwrap_or_default();
            let mut m = json!({
                "io.modelcontextprotocol/protocolVersion": self.version.as_str(),
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "wire", "version": "0"},
            });
            for (k, v) in meta {
                m[k] = v;
            }
            params["_meta"] = m;
        }
        json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(&body).await;
    }

    /// Sends a message without waiting for anything (stdio: e.g. a `subscriptions/listen`).
    pub async fn send_only(&mut self, body: &Value) {
        assert!(matches!(self.link, Link::Stdio { .. }), "send_only is for stdio");
        self.send_raw(body).await;
    }

    async fn send_raw(&mut self, body: &Value) -> Option<reqwest::Response> {
        match &mut self.link {
            Link::Stdio { stdin, .. } => {
                stdin.write_all(format!("{body}\n").as_bytes()).await.expect("write");
                stdin.flush().await.expect("flush");
                None
            }
            Link::Http { raw, session, .. } => {
                let mut rb = raw.post(body.to_string());
                if self.version.is_modern() {
                    for (k, v) in modern_headers(body) {
                        rb = rb.header(k, v);
                    }
                } else {
                    rb = rb.header("mcp-protocol-version", self.version.as_str());
                    if let Some(s) = session {
                        rb = rb.header("mcp-session-id", s.as_str());
                    }
                }
                let resp =
                    tokio::time::timeout(IO_TIMEOUT, rb.send()).await.expect("answer in time").expect("send");
                if let Some(sid) = resp.headers().get("mcp-session-id") {
                    *session = Some(sid.to_str().expect("ascii").to_owned());
                }
                Some(resp)
            }
        }
    }

    /// Sends `method` and returns the response; the server must not ask anything back.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.call_answering(method, params, &no_requests).await
    }

    /// Sends `method`, answering the server's requests with `answer`, and returns the
    /// response (every emitted message is schema-checked).
    pub async fn call_answering(&mut self, method: &str, params: Value, answer: Answer<'_>) -> Value {
        let body = self.body(method, params);
        self.exchange(body, answer).await.0
    }

    /// Sends a prepared request body; returns the response and, on HTTP, the status.
    pub async fn exchange(&mut self, body: Value, answer: Answer<'_>) -> (Value, u16) {
        let id = body["id"].clone();
        let method = body["method"].as_str().unwrap_or_default().to_owned();
        let resp = self.send_raw(&body).await;
        let mut status = 200;
        let mut pending = String::new();
        let mut stream = match resp {
            Some(r) => {
                status = r.status().as_u16();
                let sse = r
                    .headers()
                    .get("content-type")
                    .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
                if !sse {
                    let text = tokio::time::timeout(IO_TIMEOUT, r.text())
                        .await
                        .expect("body in time")
                        .expect("body");
                    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
                    self.check(&v, &method);
                    return (v, status);
                }
                Some(r)
            }
            None => None,
        };
        let deadline = tokio::time::Instant::now() + IO_TIMEOUT;
        loop {
            let messages: Vec<Value> = match (&mut self.link, &mut stream) {
                (Link::Stdio { lines, .. }, _) => {
                    let line = tokio::time::timeout_at(deadline, lines.next_line())
                        .await
                        .expect("a message in time");
                    let line = line.expect("read").expect("the server closed stdout");
                    vec![serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))]
                }
                (Link::Http { .. }, Some(r)) => {
                    let chunk = tokio::time::timeout_at(deadline, r.chunk()).await.expect("a chunk in time");
                    let chunk =
                        chunk.expect("read").unwrap_or_else(|| panic!("the stream ended early: {pending:?}"));
                    pending.push_str(&String::from_utf8_lossy(&chunk));
                    let Some(cut) = pending.rfind("\n\n") else { continue };
                    let complete: String = pending.drain(..cut + 2).collect();
                    sse_events(&complete).iter().filter_map(|e| serde_json::from_str(&e.data).ok()).collect()
                }
                (Link::Http { .. }, None) => unreachable!("HTTP always answers"),
            };
            for m in messages {
                if m.get("method").is_some() && m.get("id").is_some() {
                    self.check(&m, "");
                    let (m_method, params) = (m["method"].as_str().unwrap_or_default(), &m["params"]);
                    let result = answer(m_method, params);
                    let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
                    if let Some(r) = self.send_raw(&reply).await {
                        assert_eq!(r.status().as_u16(), 202, "posting the answer to {m_method}");
                    }
                } else if m.get("method").is_some() {
                    self.check(&m, "");
                    self.notes.push(m);
                } else if m["id"] == id {
                    self.check(&m, &method);
                    return (m, status);
                } else {
                    panic!("an answer to another request: {m}");
                }
            }
        }
    }

    /// Waits (bounded) for a notification of `method`; returns it.
    pub async fn next_note(&mut self, method: &str) -> Value {
        let deadline = tokio::time::Instant::now() + IO_TIMEOUT;
        loop {
            if let Some(i) = self.notes.iter().position(|n| n["method"] == method) {
                return self.notes.remove(i);
            }
            let Link::Stdio { lines, .. } = &mut self.link else { panic!("next_note reads stdio only") };
            let line = tokio::time::timeout_at(deadline, lines.next_line()).await;
            let line = line.unwrap_or_else(|_| panic!("no {method} in time; got {:?}", self.notes));
            let line = line.expect("read").expect("the server closed stdout");
            let m: Value = serde_json::from_str(&line).expect("JSON");
            self.check(&m, "");
            self.notes.push(m);
        }
    }

    fn check(&self, m: &Value, method: &str) {
        let method = (!method.is_empty()).then_some(method);
        if let Err(e) = validate_message(self.version, m, method) {
            panic!("{} emitted a message invalid against its schema: {e}\n{m}", self.version);
        }
    }
}
