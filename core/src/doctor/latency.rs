//! Round trips timed on the newest connection: `ping` (2026-07-28 removed it, basic/lifecycle:
//! `server/discover` is its stateless check) and `tools/list`. A local server (stdio, loopback,
//! a Unix socket) should answer a ping in well under 50 ms; `tools/list` costing many pings
//! means the catalogue is built on every request.

use super::{DoctorOptions, Finding, Status, Subject};
use crate::client::Client;
use serde_json::json;
use std::time::{Duration, Instant};

/// The check's name in the report.
pub(super) const CHECK: &str = "latency";

/// A local ping slower than this is worth a warning.
const LOCAL_PING: Duration = Duration::from_millis(50);
/// A remote one.
const REMOTE_PING: Duration = Duration::from_millis(500);

/// Times `n` sequential calls of `method`; `None` if one failed.
async fn time(client: &Client, method: &str, n: usize) -> Result<Vec<Duration>, String> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        client.request(method, json!({})).await.map_err(|e| format!("{method}: {}", e.message()))?;
        out.push(start.elapsed());
    }
    out.sort();
    Ok(out)
}

/// The `q` quantile of sorted `d`.
fn quantile(d: &[Duration], q: f64) -> Duration {
    d.get(((d.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn is_local(subject: &Subject) -> bool {
    match subject {
        Subject::Stdio(_) => true,
        Subject::Http { url, .. } => {
            url.starts_with("unix:")
                || url.starts_with("http+unix:")
                || reqwest::Url::parse(url).is_ok_and(|u| super::is_loopback(&u))
        }
    }
}

/// Times ping and (when `listed`) `tools/list` on `client`.
pub(super) async fn measure(
    client: &Client,
    subject: &Subject,
    options: &DoctorOptions,
    listed: bool,
) -> Finding {
    let method = if client.protocol_version().is_modern() { "server/discover" } else { "ping" };
    let pings = match time(client, method, options.pings.max(1)).await {
        Ok(p) => p,
        Err(e) => {
            return Finding::new(CHECK, Status::Fail, format!("{e} failed")).remedy(
                "answer ping at any time (basic/utilities/ping): clients use it to tell a live server",
            )
        }
    };
    let ping = quantile(&pings, 0.5);
    let mut details = vec![format!(
        "{method}: p50 {}, p95 {}, max {} ({} calls)",
        ms(ping),
        ms(quantile(&pings, 0.95)),
        ms(*pings.last().unwrap_or(&Duration::ZERO)),
        pings.len()
    )];
    let mut list = None;
    if listed && options.lists > 0 {
        match time(client, "tools/list", options.lists).await {
            Ok(l) => {
                let p50 = quantile(&l, 0.5);
                details.push(format!(
                    "tools/list: p50 {}, p95 {} ({} calls)",
                    ms(p50),
                    ms(quantile(&l, 0.95)),
                    l.len()
                ));
                list = Some(p50);
            }
            Err(e) => details.push(format!("{e} failed")),
        }
    }
    let local = is_local(subject);
    let limit = if local { LOCAL_PING } else { REMOTE_PING };
    let summary = format!(
        "{method} p50 {}{}",
        ms(ping),
        list.map(|l| format!(", tools/list p50 {}", ms(l))).unwrap_or_default()
    );
    if ping > limit {
        return Finding::new(CHECK, Status::Warn, summary).details(details).remedy(format!(
            "a {} server should answer {method} within {}: look for blocking work on the thread that reads \
             requests (a synchronous call in an async handler), or a proxy buffering responses",
            if local { "local" } else { "remote" },
            ms(limit)
        ));
    }
    if let Some(l) = list {
        if l > (ping * 4).max(ping + Duration::from_millis(50)) {
            return Finding::new(CHECK, Status::Warn, summary).details(details).remedy(
                "tools/list costs many round trips' time: build the tool list once (or cache it until it \
                 changes) instead of on every request, and page a long list",
            );
        }
    }
    Finding::new(CHECK, Status::Ok, summary).details(details)
}
