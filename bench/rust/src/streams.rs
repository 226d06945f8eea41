//! W10 (many streams) for mcpcore_driver: N notification streams held open on one server, the
//! server's RSS per stream, and the time for one `notifications/tools/list_changed` to reach all.
//!
//! ```text
//! mcpcore_driver streams URL modern|legacy N SERVER_PID
//! ```
//! `modern`: N `subscriptions/listen` POSTs (2026-07-28, `toolsListChanged`), each established
//! when its `notifications/subscriptions/acknowledged` arrives. `legacy`: N sessions (2025-11-25
//! `initialize` + `notifications/initialized`), each with its GET stream open (established when the
//! 200 arrives). Then the tool `touch` is called (statelessly, or on one more session) and the
//! clock runs until every stream has carried `notifications/tools/list_changed`; a stream that has
//! not within 60 s fails the workload. One TCP connection per stream, raw HTTP/1.1 (hyper), so the
//! client is the same for every server. The RSS is read from /proc/SERVER_PID (and its children).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};

type Res<T> = Result<T, String>;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const ACCEPT: &str = "application/json, text/event-stream";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {},
           "io.modelcontextprotocol/clientInfo": {"name": "bench-streams", "version": "1"}})
}

async fn send(addr: &str, req: Request<Full<Bytes>>) -> Res<Response<Incoming>> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| format!("connect {addr}: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let (mut sender, conn) = http1::handshake(TokioIo::new(tcp)).await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    sender.send_request(req).await.map_err(|e| format!("request: {e}"))
}

fn post(path: &str, host: &str, body: &Value, headers: &[(&str, &str)]) -> Res<Request<Full<Bytes>>> {
    let mut b = Request::post(path)
        .header("host", host)
        .header("content-type", "application/json")
        .header("accept", ACCEPT);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(Full::new(Bytes::from(body.to_string()))).map_err(|e| e.to_string())
}

/// Reads `body` until its text (all frames so far) contains `needle`; keeps what follows.
async fn read_until(body: &mut Incoming, seen: &mut String, needle: &str) -> Res<()> {
    while !seen.contains(needle) {
        match body.frame().await {
            Some(Ok(f)) => {
                if let Some(d) = f.data_ref() {
                    seen.push_str(&String::from_utf8_lossy(d));
                }
            }
            Some(Err(e)) => return Err(format!("stream: {e}")),
            None => return Err(format!("stream ended before {needle:?}: {}", &seen[..seen.len().min(300)])),
        }
    }
    Ok(())
}

struct Target {
    addr: String,
    path: String,
}

/// A 2025-11-25 session: its id (if the server minted one).
async fn initialize(t: &Target) -> Res<Option<String>> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench-streams", "version": "1"}}});
    let resp = send(&t.addr, post(&t.path, &t.addr, &init, &[])?).await?;
    if resp.status() != 200 {
        return Err(format!("initialize: HTTP {}", resp.status()));
    }
    let sid = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let mut body = resp.into_body();
    read_until(&mut body, &mut String::new(), "\"result\"").await?;
    let mut h = vec![("mcp-protocol-version", LEGACY)];
    if let Some(s) = &sid {
        h.push(("mcp-session-id", s.as_str()));
    }
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let resp = send(&t.addr, post(&t.path, &t.addr, &note, &h)?).await?;
    if !resp.status().is_success() {
        return Err(format!("notifications/initialized: HTTP {}", resp.status()));
    }
    Ok(sid)
}

/// Opens one stream; returns its body once established (and what was read of it).
async fn open(t: &Target, modern: bool, id: usize) -> Res<(Incoming, String)> {
    let mut seen = String::new();
    if modern {
        let listen = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": true}, "_meta": meta()}});
        let h = [("mcp-protocol-version", MODERN), ("mcp-method", "subscriptions/listen")];
        let resp = send(&t.addr, post(&t.path, &t.addr, &listen, &h)?).await?;
        if resp.status() != 200 {
            return Err(format!("subscriptions/listen: HTTP {}", resp.status()));
        }
        let mut body = resp.into_body();
        read_until(&mut body, &mut seen, "notifications/subscriptions/acknowledged").await?;
        return Ok((body, seen));
    }
    let sid = initialize(t).await?.ok_or("the server minted no Mcp-Session-Id: no GET stream")?;
    let get = Request::get(&t.path)
        .header("host", &t.addr)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", LEGACY)
        .header("mcp-session-id", &sid)
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    let resp = send(&t.addr, get).await?;
    if resp.status() != 200 {
        return Err(format!("GET stream: HTTP {}", resp.status()));
    }
    Ok((resp.into_body(), seen))
}

async fn touch(t: &Target, modern: bool) -> Res<()> {
    let mut params = json!({"name": "touch", "arguments": {}});
    let mut h: Vec<(&str, String)> = Vec::new();
    if modern {
        params["_meta"] = meta();
        h.extend([
            ("mcp-protocol-version", MODERN.into()),
            ("mcp-method", "tools/call".into()),
            ("mcp-name", "touch".into()),
        ]);
    } else {
        h.push(("mcp-protocol-version", LEGACY.into()));
        if let Some(sid) = initialize(t).await? {
            h.push(("mcp-session-id", sid));
        }
    }
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let hr: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let resp = send(&t.addr, post(&t.path, &t.addr, &call, &hr)?).await?;
    let status = resp.status();
    let mut seen = String::new();
    read_until(&mut resp.into_body(), &mut seen, "\"result\"").await?;
    if status != 200 || seen.replace(' ', "").contains("\"isError\":true") {
        return Err(format!("touch failed: HTTP {status} {}", &seen[..seen.len().min(300)]));
    }
    Ok(())
}

/// Resident set of `pid` and its children, MB.
pub(crate) fn rss_mb(pid: u32) -> f64 {
    let mut pids = vec![pid.to_string()];
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                pids.extend(c.split_whitespace().map(str::to_owned));
            }
        }
    }
    pids.iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok())
        .filter_map(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_owned))
        .filter_map(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<f64>().ok()))
        .sum::<f64>()
        / 1024.0
}

pub(crate) async fn drive(a: &[String]) -> Res<Value> {
    let [url, mode, n, pid] = a else { return Err("usage: streams URL modern|legacy N SERVER_PID".into()) };
    let modern = match mode.as_str() {
        "modern" => true,
        "legacy" => false,
        m => return Err(format!("mode {m}: modern or legacy")),
    };
    let n: usize = n.parse().map_err(|e| format!("N: {e}"))?;
    let pid: u32 = pid.parse().map_err(|e| format!("PID: {e}"))?;
    let rest = url.strip_prefix("http://").ok_or("URL must be http://HOST:PORT/PATH")?;
    let (addr, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let t = Arc::new(Target {
        addr: addr.to_owned(),
        path: if path.is_empty() { "/".into() } else { path.into() },
    });
    let rss_before = rss_mb(pid);
    let t_open = Instant::now();
    let gate = Arc::new(Semaphore::new(32)); // opening, not holding: a bounded burst of connects
    let (tx, mut rx) = mpsc::unbounded_channel::<Res<Instant>>();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<Res<()>>();
    for i in 0..n {
        let (t, gate, tx, ready_tx) = (t.clone(), gate.clone(), tx.clone(), ready_tx.clone());
        tokio::spawn(async move {
            let opened = {
                let _permit = gate.acquire().await;
                open(&t, modern, 1000 + i).await
            };
            let (mut body, mut seen) = match opened {
                Ok(s) => s,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            let got = read_until(&mut body, &mut seen, "notifications/tools/list_changed")
                .await
                .map(|()| Instant::now());
            let _ = tx.send(got);
            drop(body);
        });
    }
    drop((tx, ready_tx));
    for _ in 0..n {
        match tokio::time::timeout(Duration::from_secs(120), ready_rx.recv()).await {
            Ok(Some(Ok(()))) => {}
            Ok(Some(Err(e))) => return Err(format!("opening a stream: {e}")),
            Ok(None) => return Err("stream tasks ended early".into()),
            Err(_) => return Err("opening the streams timed out".into()),
        }
    }
    let open_secs = t_open.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_streams = rss_mb(pid);
    let t0 = Instant::now();
    touch(&t, modern).await?;
    let mut arrivals = Vec::with_capacity(n);
    while arrivals.len() < n {
        match tokio::time::timeout(Duration::from_secs(60), rx.recv()).await {
            Ok(Some(Ok(at))) => arrivals.push(at.duration_since(t0).as_secs_f64() * 1e3),
            Ok(Some(Err(e))) => return Err(format!("a stream failed before list_changed: {e}")),
            Ok(None) => return Err("stream tasks ended early".into()),
            Err(_) => {
                return Err(format!("{} of {n} streams got no list_changed within 60 s", n - arrivals.len()))
            }
        }
    }
    arrivals.sort_by(|a, b| a.total_cmp(b));
    Ok(
        json!({"mode": mode, "n": n, "open_secs": open_secs, "rss_before_mb": rss_before, "rss_streams_mb": rss_streams,
              "kb_per_stream": (rss_streams - rss_before) * 1024.0 / n.max(1) as f64,
              "fanout_p50_ms": arrivals[arrivals.len() / 2], "fanout_all_ms": arrivals[arrivals.len() - 1]}),
    )
}
