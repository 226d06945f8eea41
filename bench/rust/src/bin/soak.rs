//! A long soak (issue 50): mixed load on loopback for N minutes, one sample a minute of each
//! server process's RSS and open file descriptors and of each load's p99 latency and failures.
//!
//! ```text
//! soak [--minutes N] [--rate CALLS_A_SECOND_PER_LOAD] > soak.jsonl
//! ```
//! Next to it (or in `MCPCORE_SOAK_BIN`) it needs `mcpcore` (with the `cli` feature) and
//! `echo_server`. It starts `mcpcore conformance-server --listen` (HTTP, both lineages),
//! `mcpcore gateway --listen` with one stdio `echo_server` upstream, and an `echo_server` on
//! stdio of its own, and runs six loads at once, each a bounded loop at `--rate` calls a second
//! (default 20):
//!
//! - `modern`: stateless 2026-07-28 `tools/call greet` to the conformance server;
//! - `legacy`: one 2025-11-25 session calling `greet`;
//! - `list_changes`: a 2025-11-25 session calling `test_trigger_tool_change` (a tools list change
//!   its session is told of);
//! - `task`: `slow_compute` (20 ms) as a task, awaited to its result (2026-07-28);
//! - `stdio`: `echo` to the stdio `echo_server`;
//! - `gateway`: `echo` through the gateway over HTTP (2026-07-28).
//!
//! Each minute it prints one JSON line: for each process `rss_kib` and `fds`, for each load
//! `calls`, `failed`, `p50_us`, `p99_us`. A last line sums up: the RSS slope of each process over
//! the last 40 minutes (KiB a minute, least squares) and the failures. Only loopback; every loop
//! is bounded by the duration. `bench/soak.sh` runs it and draws the plot.

use mcpcore::client::{Client, ClientOptions, TaskOptions};
use mcpcore::protocol::ProtocolVersion;
use mcpcore::transport::child::StdioCommand;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn option(args: &[String], flag: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where `mcpcore` and `echo_server` are.
fn bin_dir() -> PathBuf {
    match std::env::var_os("MCPCORE_SOAK_BIN") {
        Some(d) => PathBuf::from(d),
        None => std::env::current_exe().expect("own path").parent().expect("dir").to_path_buf(),
    }
}

/// A server process, killed when dropped.
struct Proc {
    name: &'static str,
    child: Child,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `program args`, waits for its `listening on URL` line; (the process, the URL).
fn start(name: &'static str, program: PathBuf, args: &[String]) -> (Proc, String) {
    let mut child = Command::new(&program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    out.read_line(&mut line).expect("a first line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{name} printed {line:?}"))
        .to_owned();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (Proc { name, child }, url)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// (VmRSS KiB, open fds) of `pid`.
fn sample(pid: u32) -> (u64, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    (rss, fds)
}

/// The pid of this process's child named `name` (`/proc/PID/stat`: `pid (comm) state ppid …`).
fn child_named(name: &str) -> Option<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (head, rest) = stat.rsplit_once(')')?;
        let comm = head.split_once('(')?.1;
        let ppid: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
        (ppid == me && name.starts_with(comm)).then_some(pid)
    })
}

/// One load's record of the current minute.
#[derive(Default)]
struct Minute {
    latencies_us: Vec<u64>,
    failed: u64,
}

type Book = Arc<Mutex<Minute>>;

/// Runs `call` at `rate` a second until `until`, recording each call's latency or failure.
async fn load<F, Fut>(book: Book, rate: u64, until: Instant, mut call: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = mcpcore::Result<()>>,
{
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / rate.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    while Instant::now() < until {
        tick.tick().await;
        let started = Instant::now();
        let ok = matches!(tokio::time::timeout(Duration::from_secs(10), call()).await, Ok(Ok(())));
        let mut m = book.lock().expect("lock");
        if ok {
            m.latencies_us.push(started.elapsed().as_micros() as u64);
        } else {
            m.failed += 1;
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Least-squares slope of `ys` over their index (per step).
fn slope(ys: &[f64]) -> f64 {
    let n = ys.len() as f64;
    if ys.len() < 2 {
        return 0.0;
    }
    let mx = (n - 1.0) / 2.0;
    let my = ys.iter().sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, y) in ys.iter().enumerate() {
        num += (i as f64 - mx) * (y - my);
        den += (i as f64 - mx).powi(2);
    }
    num / den
}

async fn connect(url: &str, version: ProtocolVersion) -> Client {
    let options = ClientOptions { version: Some(version), ..ClientOptions::default() };
    Client::connect_http(url, Default::default(), options).await.expect("connects")
}

fn ok_of(r: mcpcore::Result<mcpcore::protocol::CallToolResult>) -> mcpcore::Result<()> {
    match r {
        Ok(r) if r.is_error != Some(true) => Ok(()),
        Ok(r) => Err(mcpcore::Error::tool(format!("tool error: {r:?}"))),
        Err(e) => Err(e),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let minutes = option(&args, "--minutes", 60);
    let rate = option(&args, "--rate", 20);
    let dir = bin_dir();
    let (cli, echo) = (dir.join("mcpcore"), dir.join("echo_server"));

    let port = free_port();
    let (conformance, curl) = start(
        "conformance_server",
        cli.clone(),
        &["conformance-server".into(), "--listen".into(), format!("127.0.0.1:{port}")],
    );
    let config = std::env::temp_dir().join(format!("mcpcore-soak-{}.json", std::process::id()));
    let upstream = json!({"mcpServers": {"echo": {"command": echo.display().to_string(), "prefix": ""}}});
    std::fs::write(&config, upstream.to_string()).expect("write the gateway config");
    let gport = free_port();
    let (gateway, gurl) = start(
        "gateway",
        cli.clone(),
        &[
            "gateway".into(),
            "--config".into(),
            config.display().to_string(),
            "--listen".into(),
            format!("127.0.0.1:{gport}"),
        ],
    );
    let stdio = Client::connect_stdio(
        StdioCommand::new(echo.display().to_string(), Vec::<String>::new()),
        ClientOptions::default(),
    )
    .await
    .expect("echo_server on stdio");
    let stdio_pid = child_named("echo_server");

    let modern = connect(&curl, ProtocolVersion::V2026_07_28).await;
    let legacy = connect(&curl, ProtocolVersion::V2025_11_25).await;
    let lister = connect(&curl, ProtocolVersion::V2025_11_25).await;
    let tasker = connect(&curl, ProtocolVersion::V2026_07_28).await;
    let through = connect(&gurl, ProtocolVersion::V2026_07_28).await;

    let names = ["modern", "legacy", "list_changes", "task", "stdio", "gateway"];
    let books: Vec<Book> = names.iter().map(|_| Book::default()).collect();
    let until = Instant::now() + Duration::from_secs(minutes * 60);
    let greet = json!({"name": "soak"});
    let mut loads = tokio::task::JoinSet::new();
    {
        let (c, a) = (modern.clone(), greet.clone());
        loads.spawn(load(books[0].clone(), rate, until, move || {
            let (c, a) = (c.clone(), a.clone());
            async move { ok_of(c.call_tool("greet", a).await) }
        }));
        let (c, a) = (legacy.clone(), greet.clone());
        loads.spawn(load(books[1].clone(), rate, until, move || {
            let (c, a) = (c.clone(), a.clone());
            async move { ok_of(c.call_tool("greet", a).await) }
        }));
        let c = lister.clone();
        loads.spawn(load(books[2].clone(), rate, until, move || {
            let c = c.clone();
            async move { ok_of(c.call_tool("test_trigger_tool_change", json!({})).await) }
        }));
        let c = tasker.clone();
        loads.spawn(load(books[3].clone(), rate, until, move || {
            let c = c.clone();
            async move {
                let task = c
                    .call_tool_as_task("slow_compute", json!({"seconds": 0.02}), TaskOptions::default())
                    .await?;
                ok_of(task.result().await)
            }
        }));
        let c = stdio.clone();
        loads.spawn(load(books[4].clone(), rate, until, move || {
            let c = c.clone();
            async move { ok_of(c.call_tool("echo", json!({"text": "soak"})).await) }
        }));
        let c = through.clone();
        loads.spawn(load(books[5].clone(), rate, until, move || {
            let c = c.clone();
            async move { ok_of(c.call_tool("echo", json!({"text": "soak"})).await) }
        }));
    }

    let procs: Vec<(&str, u32)> = vec![
        (conformance.name, conformance.child.id()),
        ("gateway_process", gateway.child.id()),
        ("stdio_echo", stdio_pid.expect("the stdio echo_server is a child of this process")),
    ];
    let mut rss: Vec<Vec<f64>> = procs.iter().map(|_| Vec::new()).collect();
    let mut failed_total = 0u64;
    let mut calls_total = 0u64;
    let started = Instant::now();
    for minute in 1..=minutes {
        let next = started + Duration::from_secs(minute * 60);
        tokio::time::sleep_until(next.into()).await;
        let mut line = json!({"minute": minute});
        for (i, (name, pid)) in procs.iter().enumerate() {
            let (kib, fds) = sample(*pid);
            rss[i].push(kib as f64);
            line[*name] = json!({"rss_kib": kib, "fds": fds});
        }
        for (name, book) in names.iter().zip(&books) {
            let m = std::mem::take(&mut *book.lock().expect("lock"));
            let mut lat = m.latencies_us;
            lat.sort_unstable();
            calls_total += lat.len() as u64 + m.failed;
            failed_total += m.failed;
            line[*name] = json!({"calls": lat.len() as u64 + m.failed, "failed": m.failed,
                "p50_us": percentile(&lat, 0.5), "p99_us": percentile(&lat, 0.99)});
        }
        println!("{line}");
    }
    while loads.join_next().await.is_some() {}
    let window = 40.min(minutes as usize);
    let mut summary = json!({"summary": true, "minutes": minutes, "rate_per_load": rate,
        "calls": calls_total, "failed": failed_total, "slope_window_minutes": window});
    for (i, (name, _)) in procs.iter().enumerate() {
        let tail = &rss[i][rss[i].len().saturating_sub(window)..];
        summary[format!("{name}_rss_slope_kib_per_min")] = json!((slope(tail) * 100.0).round() / 100.0);
        summary[format!("{name}_rss_first_last_kib")] = json!([rss[i].first(), rss[i].last()]);
    }
    println!("{summary}");
    for c in [modern, legacy, lister, tasker, through, stdio] {
        c.close().await;
    }
    let _ = std::fs::remove_file(&config);
}
