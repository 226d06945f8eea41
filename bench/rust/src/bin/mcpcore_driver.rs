//! The client side of the benchmark for mcpcore in Rust (and for the raw stdio ceiling).
//!
//! ```text
//! mcpcore_driver stdio     N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
//! mcpcore_driver raw-stdio N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
//! mcpcore_driver http URL VERSION N CONC [PAYLOAD_BYTES PAYLOAD_N]
//! mcpcore_driver catalogue URL VERSION ROUNDS TOOLS RESOURCES     # W9 (catalogue.rs)
//! mcpcore_driver register N                                       # W9 registration cost
//! mcpcore_driver streams URL modern|legacy N SERVER_PID           # W10 (streams.rs)
//! ```
//! Prints one JSON line in the driver format of bench/README.md; exits non-zero on any failure
//! (a wrong echo included). Bounded: every mode gives up after 10 minutes. Frames up to 64 MiB
//! are accepted (W11 sends 16 MiB payloads).
#![allow(clippy::print_stdout)]

#[path = "../catalogue.rs"]
mod catalogue;
#[path = "../streams.rs"]
mod streams;

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::ProtocolVersion;
use mcpcore::transport::child::StdioCommand;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, String>;

fn options(version: &str) -> Res<ClientOptions> {
    let v = ProtocolVersion::parse(version).ok_or_else(|| format!("unknown version {version}"))?;
    Ok(ClientOptions {
        version: Some(v),
        lineage: Some(v.lineage()),
        max_frame: 64 << 20,
        ..ClientOptions::default()
    })
}

async fn call(client: &Client, text: &str) -> Res<()> {
    let r =
        client.call_tool("echo", json!({ "text": text })).await.map_err(|e| format!("call failed: {e}"))?;
    if r.is_error() || r.first_text() != Some(text) {
        return Err(format!("bad echo result: {r:?}"));
    }
    Ok(())
}

fn stats(mut lat: Vec<f64>, secs: f64, inflight: Option<usize>) -> Value {
    lat.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0.0);
    let mut v = json!({"n": lat.len(), "secs": secs, "p50_us": pick(0.5), "p99_us": pick(0.99)});
    if let Some(c) = inflight {
        v["inflight"] = json!(c);
    }
    v
}

async fn seq(client: &Client, n: usize) -> Res<Value> {
    let mut lat = Vec::with_capacity(n);
    let t0 = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        call(client, "x").await?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok(stats(lat, t0.elapsed().as_secs_f64(), None))
}

async fn conc(client: &Client, n: usize, inflight: usize) -> Res<Value> {
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..inflight {
        let client = client.clone();
        let count = n / inflight + usize::from(w < n % inflight);
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(count);
            for _ in 0..count {
                let t = Instant::now();
                call(&client, "x").await?;
                lat.push(t.elapsed().as_secs_f64() * 1e6);
            }
            Ok::<_, String>(lat)
        }));
    }
    let mut all = Vec::with_capacity(n);
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())??);
    }
    Ok(stats(all, t0.elapsed().as_secs_f64(), Some(inflight)))
}

struct StdioArgs {
    n: usize,
    inflight: usize,
    pbytes: usize,
    pn: usize,
    starts: usize,
    version: String,
    cmd: Vec<String>,
}

fn stdio_args(a: &[String]) -> Res<StdioArgs> {
    let num =
        |i: usize| a.get(i).ok_or("missing argument")?.parse::<usize>().map_err(|e| format!("arg {i}: {e}"));
    let dash = a.iter().position(|x| x == "--").ok_or("missing -- CMD")?;
    Ok(StdioArgs {
        n: num(0)?,
        inflight: num(1)?,
        pbytes: num(2)?,
        pn: num(3)?,
        starts: num(4)?,
        version: a.get(5).cloned().ok_or("missing VERSION")?,
        cmd: a[dash + 1..].to_vec(),
    })
}

async fn connect_stdio(a: &StdioArgs) -> Res<Client> {
    let cmd = StdioCommand::new(a.cmd[0].clone(), a.cmd[1..].iter().cloned());
    Client::connect_stdio(cmd, options(&a.version)?).await.map_err(|e| format!("connect: {e}"))
}

async fn drive_stdio(a: StdioArgs) -> Res<Value> {
    let mut startup = Vec::new();
    for _ in 0..a.starts {
        let t = Instant::now();
        let c = connect_stdio(&a).await?;
        call(&c, "hello").await?;
        startup.push(t.elapsed().as_secs_f64() * 1e3);
        c.close().await;
    }
    let c = connect_stdio(&a).await?;
    for _ in 0..20 {
        call(&c, "warm-up").await?;
    }
    let s = seq(&c, a.n).await?;
    let cc = conc(&c, a.n, a.inflight).await?;
    let big = "x".repeat(a.pbytes);
    let t = Instant::now();
    for _ in 0..a.pn {
        call(&c, &big).await?;
    }
    let payload = json!({"bytes": a.pbytes, "n": a.pn, "secs": t.elapsed().as_secs_f64()});
    let protocol = c.protocol_version().as_str();
    c.close().await;
    Ok(json!({"protocol": protocol, "startup_ms": startup, "seq": s, "conc": cc, "payload": payload}))
}

async fn drive_http(a: &[String]) -> Res<Value> {
    let (url, version, n, inflight, pbytes, pn) = match a {
        [u, v, n, c] => (u, v, n, c, "0", "0"),
        [u, v, n, c, pb, pn] => (u, v, n, c, pb.as_str(), pn.as_str()),
        _ => return Err("usage: http URL VERSION N CONC [PAYLOAD_BYTES PAYLOAD_N]".into()),
    };
    let n: usize = n.parse().map_err(|e| format!("N: {e}"))?;
    let inflight: usize = inflight.parse().map_err(|e| format!("CONC: {e}"))?;
    let pbytes: usize = pbytes.parse().map_err(|e| format!("PAYLOAD_BYTES: {e}"))?;
    let pn: usize = pn.parse().map_err(|e| format!("PAYLOAD_N: {e}"))?;
    let c = Client::connect_http(url, HttpOptions::default(), options(version)?)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    for _ in 0..20 {
        call(&c, "warm-up").await?;
    }
    let s = seq(&c, n).await?;
    let cc = conc(&c, n, inflight).await?;
    let big = "x".repeat(pbytes);
    let t = Instant::now();
    for _ in 0..pn {
        call(&c, &big).await?;
    }
    let payload = json!({"bytes": pbytes, "n": pn, "secs": t.elapsed().as_secs_f64()});
    let protocol = c.protocol_version().as_str();
    c.close().await;
    Ok(json!({"protocol": protocol, "seq": s, "conc": cc, "payload": payload}))
}

/// The raw stdio ceiling's client: serde_json lines over pipes, a window of CONC requests.
struct Raw {
    child: std::process::Child,
    out: std::process::ChildStdin,
    inp: BufReader<std::process::ChildStdout>,
    line: String,
    next: u64,
}

impl Raw {
    fn spawn(cmd: &[String]) -> Res<Raw> {
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn: {e}"))?;
        let out = child.stdin.take().ok_or("no stdin")?;
        let inp = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Raw { child, out, inp, line: String::new(), next: 0 })
    }
    fn send(&mut self, text: &str) -> Res<()> {
        self.next += 1;
        let req = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}});
        let mut buf = serde_json::to_vec(&req).map_err(|e| e.to_string())?;
        buf.push(b'\n');
        self.out.write_all(&buf).map_err(|e| e.to_string())
    }
    fn recv(&mut self, text: &str) -> Res<u64> {
        self.line.clear();
        self.inp.read_line(&mut self.line).map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_str(&self.line).map_err(|e| format!("bad reply: {e}"))?;
        if v["result"]["content"][0]["text"].as_str() != Some(text) {
            return Err(format!("bad echo reply: {}", &self.line[..self.line.len().min(200)]));
        }
        v["id"].as_u64().ok_or_else(|| "reply without id".into())
    }
    fn call(&mut self, text: &str) -> Res<()> {
        self.send(text)?;
        self.recv(text).map(drop)
    }
    fn close(mut self) {
        drop(self.out);
        let _ = self.child.wait();
    }
}

fn drive_raw(a: StdioArgs) -> Res<Value> {
    let mut startup = Vec::new();
    for _ in 0..a.starts {
        let t = Instant::now();
        let mut r = Raw::spawn(&a.cmd)?;
        r.call("hello")?;
        startup.push(t.elapsed().as_secs_f64() * 1e3);
        r.close();
    }
    let mut r = Raw::spawn(&a.cmd)?;
    for _ in 0..20 {
        r.call("warm-up")?;
    }
    let mut lat = Vec::with_capacity(a.n);
    let t0 = Instant::now();
    for _ in 0..a.n {
        let t = Instant::now();
        r.call("x")?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let s = stats(lat, t0.elapsed().as_secs_f64(), None);
    // CONC in flight: keep a window of requests outstanding, one new request per reply.
    let mut sent_at = std::collections::HashMap::new();
    let mut lat = Vec::with_capacity(a.n);
    let t0 = Instant::now();
    let (mut sent, mut done) = (0, 0);
    while done < a.n {
        while sent < a.n && sent - done < a.inflight {
            r.send("x")?;
            sent_at.insert(r.next, Instant::now());
            sent += 1;
        }
        r.out.flush().map_err(|e| e.to_string())?;
        let id = r.recv("x")?;
        let t = sent_at.remove(&id).ok_or("unknown id")?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        done += 1;
    }
    let cc = stats(lat, t0.elapsed().as_secs_f64(), Some(a.inflight));
    let big = "x".repeat(a.pbytes);
    let t = Instant::now();
    for _ in 0..a.pn {
        r.call(&big)?;
    }
    let payload = json!({"bytes": a.pbytes, "n": a.pn, "secs": t.elapsed().as_secs_f64()});
    r.close();
    Ok(
        json!({"protocol": "none (raw JSON-RPC lines)", "startup_ms": startup, "seq": s, "conc": cc, "payload": payload}),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default().to_vec();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let out = match args.first().map(String::as_str) {
        Some("raw-stdio") => stdio_args(&rest).and_then(drive_raw),
        Some("register") => catalogue::register(&rest),
        Some(mode @ ("stdio" | "http" | "catalogue" | "streams")) => rt.block_on(async {
            let work = async {
                match mode {
                    "stdio" => drive_stdio(stdio_args(&rest)?).await,
                    "catalogue" => catalogue::drive(&rest, options(rest.get(1).map_or("", String::as_str))?).await,
                    "streams" => streams::drive(&rest).await,
                    _ => drive_http(&rest).await,
                }
            };
            tokio::time::timeout(Duration::from_secs(600), work).await.map_err(|_| "timed out".to_string())?
        }),
        _ => Err("usage: mcpcore_driver stdio|raw-stdio N CONC PBYTES PN STARTS VERSION -- CMD | http URL VERSION N CONC [PBYTES PN] | catalogue URL VERSION ROUNDS TOOLS RESOURCES | register N | streams URL MODE N PID".into()),
    };
    match out {
        Ok(v) => println!("{v}"),
        Err(e) => {
            eprintln!("mcpcore_driver: {e}");
            std::process::exit(1);
        }
    }
}
