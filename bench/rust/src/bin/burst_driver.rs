//! The client of the memory-after-bursts measurement (`bench/memory/run.sh`): floods a
//! `burst_server` with N concurrent slow 2026-07-28 `tools/call`s (one connection each, raw
//! HTTP/1.1 on loopback), several times, and reports the server's resident memory (VmRSS from
//! /proc) before, at the peak of each flood and 3 s after it, as one JSON line, with the calls
//! `refused` (connection refused or reset before the request went out: the accept backlog
//! overflowed) and `failed` (any other answer than the 200 echo).
//!
//! ```text
//! burst_driver PID URL [--calls 10000] [--floods 3] [--ms 2000] [--bytes 1024]
//! ```
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How one call ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Outcome {
    Ok,
    /// The connection was refused or reset before the request went out (accept backlog).
    Connect,
    /// An answer other than a 200 echo (e.g. 503 past the connection cap), or none in time.
    Answer,
}

async fn call(addr: String, request: std::sync::Arc<Vec<u8>>) -> Outcome {
    let Ok(mut sock) = TcpStream::connect(&addr).await else { return Outcome::Connect };
    if sock.write_all(&request).await.is_err() {
        return Outcome::Connect;
    }
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(120), sock.read_to_end(&mut answer)).await;
    match read {
        Ok(Ok(_)) if answer.starts_with(b"HTTP/1.1 200") && !answer.windows(7).any(|w| w == b"isError") => {
            Outcome::Ok
        }
        Ok(Err(_)) if answer.is_empty() => Outcome::Connect,
        _ => Outcome::Answer,
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pid: u32 = args[0].parse().expect("PID");
    let url = &args[1];
    let addr = url.trim_start_matches("http://").split('/').next().expect("host:port").to_owned();
    let (calls, floods) = (arg(&args, "--calls", 10_000), arg(&args, "--floods", 3));
    let (ms, bytes) = (arg(&args, "--ms", 2000), arg(&args, "--bytes", 1024));
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": ms, "bytes": bytes},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = std::sync::Arc::new(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n\
             Mcp-Name: slow\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    );
    let before = rss_kib(pid, "VmRSS:");
    let mut after = Vec::new();
    let mut peaks = Vec::new();
    let (mut refused, mut failed) = (0u64, 0u64);
    for _ in 0..floods {
        let started = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..calls {
            set.spawn(call(addr.clone(), request.clone()));
        }
        let mut peak = 0;
        let mut sampler = tokio::time::interval(Duration::from_millis(100));
        loop {
            tokio::select! {
                done = set.join_next() => match done {
                    Some(Ok(Outcome::Ok)) => {}
                    Some(Ok(Outcome::Connect)) => refused += 1,
                    Some(_) => failed += 1,
                    None => break,
                },
                _ = sampler.tick() => peak = peak.max(rss_kib(pid, "VmRSS:")),
            }
        }
        peaks.push(peak.max(rss_kib(pid, "VmRSS:")));
        let _ = started;
        tokio::time::sleep(Duration::from_secs(3)).await;
        after.push(rss_kib(pid, "VmRSS:"));
    }
    println!(
        "{}",
        serde_json::json!({"calls": calls, "floods": floods, "ms": ms, "bytes": bytes, "refused": refused, "failed": failed,
            "rss_before_kib": before, "rss_peak_kib": peaks, "rss_after_kib": after,
            "hwm_kib": rss_kib(pid, "VmHWM:")})
    );
}
