//! Test tap: `tap LOGFILE -- CMD ARGS…` runs CMD as a stdio server, passing our stdin/stdout
//! through unchanged and appending every line to LOGFILE as `> json` (client→server) or
//! `< json` (server→client), so tests can validate what both sides emitted.

use std::io::Write;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log =
        Arc::new(Mutex::new(std::fs::OpenOptions::new().create(true).append(true).open(&args[0]).unwrap()));
    assert_eq!(args[1], "--");
    let mut child = tokio::process::Command::new(&args[2])
        .args(&args[3..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut child_in = child.stdin.take().unwrap();
    let child_out = child.stdout.take().unwrap();
    let log_in = log.clone();
    let up = tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            writeln!(log_in.lock().unwrap(), "> {line}").unwrap();
            if child_in.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(child_out).lines();
    let mut out = tokio::io::stdout();
    while let Ok(Some(line)) = lines.next_line().await {
        writeln!(log.lock().unwrap(), "< {line}").unwrap();
        out.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        out.flush().await.unwrap();
    }
    up.abort();
    let status = child.wait().await.unwrap();
    std::process::exit(status.code().unwrap_or(1));
}
