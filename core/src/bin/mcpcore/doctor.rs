//! `mcpcore doctor URL | -- CMD`: why a server misbehaves (revisions and transports,
//! capabilities, tool schemas, TLS and authorization metadata, DNS-rebinding protection,
//! latency), each finding with its remedy. The checks are `mcpcore::doctor`'s; this prints
//! them. Exit 0 when nothing failed (warnings included), 1 when a check failed.

use crate::connect::Conn;
use crate::output;
use clap::Args;
use mcpcore::doctor::{diagnose, DoctorOptions, Report, Status};
use std::fmt::Write;
use std::process::ExitCode;
use std::time::Duration;

/// `doctor`.
#[derive(Args)]
pub(crate) struct DoctorArgs {
    /// The server's URL (http://, https://, unix:PATH), or give a stdio server after `--`.
    #[arg(value_name = "URL")]
    url: Option<String>,
    /// Round trips timed for the latency check (ping, and half as many tools/list).
    #[arg(long, value_name = "N", default_value_t = 20)]
    rounds: usize,
    #[command(flatten)]
    conn: Conn,
}

/// Runs `mcpcore doctor`.
pub(crate) async fn main(a: DoctorArgs) -> ExitCode {
    let json = a.conn.wants_json();
    let connection = match a.conn.resolve(a.url) {
        Ok(c) => c,
        Err(e) => {
            crate::usage_error(&e);
            return ExitCode::from(1);
        }
    };
    let (subject, client) = connection.into_doctor();
    let options = DoctorOptions {
        probe_timeout: client.request_timeout.min(Duration::from_secs(15)),
        client,
        pings: a.rounds.max(1),
        lists: a.rounds.div_ceil(2),
    };
    let mut signals = match crate::signals::Signals::catch() {
        Ok(s) => s,
        Err(e) => {
            crate::report(&e.into());
            return ExitCode::from(1);
        }
    };
    let report = tokio::select! {
        r = diagnose(&subject, &options) => r,
        code = signals.next() => return code,
    };
    if json {
        output::json(&serde_json::to_value(&report).expect("serializable"));
    } else {
        output::human(&text(&report));
    }
    ExitCode::from(u8::from(report.failed()))
}

/// The report for people: a line a finding, its evidence and remedy indented below it.
fn text(report: &Report) -> String {
    let mut out = format!("mcpcore doctor: {}\n", report.target);
    if let Some(info) = &report.server_info {
        let name = info.get("name").and_then(|v| v.as_str()).unwrap_or("?");
        let version = info.get("version").and_then(|v| v.as_str()).unwrap_or("");
        let _ = writeln!(out, "server: {name} {version}");
    }
    for f in &report.findings {
        let mark = match f.status {
            Status::Ok => "ok  ",
            Status::Info => "info",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        };
        let _ = writeln!(out, "\n[{mark}] {}: {}", f.check, f.summary);
        for d in &f.details {
            let _ = writeln!(out, "       {d}");
        }
        if let Some(r) = &f.remedy {
            let _ = writeln!(out, "       remedy: {r}");
        }
    }
    let _ = writeln!(
        out,
        "\n{} ok, {} warnings, {} failed, {} skipped",
        report.count(Status::Ok),
        report.count(Status::Warn),
        report.count(Status::Fail),
        report.count(Status::Skip)
    );
    out
}
