//! Watching one upstream: a lazy one is connected in the background; one whose connection
//! ends (a stdio child that exited or was killed) is marked unavailable (its entries stay,
//! and a call to one is a tool error naming the upstream and why) and started again after a
//! backoff (250 ms, doubling up to 30 s; back to 250 ms once it stayed up a minute). When it
//! is back, its catalogue is listed again and the differences reach the gateway's clients as
//! list changes. A mount that fails for another reason than the connection (a name collision
//! under the `error` policy) is not retried.

use super::{connect, Inner, Upstream};
use crate::client::Client;
use crate::error::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

/// Where an upstream is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamState {
    /// Not connected yet.
    Starting,
    /// Connected and mounted.
    Up,
    /// Its connection ended; it is being started again.
    Restarting,
    /// Its connection ended and it is not started again (`"restart": false`), or mounting
    /// it failed for good (a name collision).
    Failed,
}

/// The state of one upstream, with how often it was restarted and its last failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamStatus {
    /// Where it is.
    pub state: UpstreamState,
    /// How many times it was connected again after its connection ended.
    pub restarts: u32,
    /// Why it last failed (its exit, a failed connection attempt).
    pub last_error: Option<String>,
}

impl UpstreamStatus {
    pub(crate) fn starting() -> Self {
        UpstreamStatus { state: UpstreamState::Starting, restarts: 0, last_error: None }
    }
}

/// The pause before connection attempt `n` (0-based) after a failure.
fn backoff(n: u32) -> Duration {
    Duration::from_millis(250u64.saturating_mul(1 << n.min(7))).min(Duration::from_secs(30))
}

/// How long an upstream must stay up for its backoff to start over.
const STABLE: Duration = Duration::from_secs(60);

/// Watches `upstream` until the gateway shuts down (which aborts this task). `client` is its
/// connection when it is already mounted (eager); `None` connects it first (lazy).
pub(crate) async fn watch(inner: Arc<Inner>, upstream: Upstream, mut client: Option<Client>) {
    let name = upstream.name.clone();
    let mut failures = 0u32;
    // Whether the connection ended and that restart is still to be counted (once per end,
    // however many attempts the mount takes).
    let mut uncounted = false;
    loop {
        let c = match client.take() {
            Some(c) => {
                mark_up(&inner, &name, &mut uncounted);
                c
            }
            None => match connect(&upstream).await {
                Ok(c) => {
                    // Up before the mount: mounting announces the upstream's entries to the
                    // gateway's clients (list_changed), and a client that hears of them and
                    // then asks for the status must read Up.
                    mark_up(&inner, &name, &mut uncounted);
                    match inner.mount(&upstream, c.clone()).await {
                        Ok(()) => c,
                        Err(e) if e.kind() == ErrorKind::InvalidInput => {
                            c.close().await;
                            inner.set_status(&name, |s| {
                                s.state = UpstreamState::Failed;
                                s.last_error = Some(e.message().to_owned());
                            });
                            return;
                        }
                        Err(e) => {
                            c.close().await;
                            // The restart was counted when it was marked Up.
                            inner.set_status(&name, |s| {
                                s.state = if s.restarts > 0 {
                                    UpstreamState::Restarting
                                } else {
                                    UpstreamState::Starting
                                };
                                s.last_error = Some(e.message().to_owned());
                            });
                            tokio::time::sleep(backoff(failures)).await;
                            failures += 1;
                            continue;
                        }
                    }
                }
                Err(e) => {
                    inner.set_status(&name, |s| s.last_error = Some(e.message().to_owned()));
                    tokio::time::sleep(backoff(failures)).await;
                    failures += 1;
                    continue;
                }
            },
        };
        let up_since = tokio::time::Instant::now();
        let why = c.closed().await;
        if up_since.elapsed() >= STABLE {
            failures = 0;
        }
        let again = upstream.restart;
        let note = if again { format!("{why}; restarting") } else { why.clone() };
        if let Some(old) = inner.remote.mark_unavailable(&name, &note) {
            old.close().await;
        }
        inner.set_status(&name, |s| {
            s.state = if again { UpstreamState::Restarting } else { UpstreamState::Failed };
            s.last_error = Some(why);
        });
        if !again {
            return;
        }
        uncounted = true;
        tokio::time::sleep(backoff(failures)).await;
        failures += 1;
    }
}

/// Marks `name` Up, counting a restart when one is `uncounted` (and clearing it).
fn mark_up(inner: &Inner, name: &str, uncounted: &mut bool) {
    let counted = std::mem::take(uncounted);
    inner.set_status(name, |s| {
        s.state = UpstreamState::Up;
        if counted {
            s.restarts += 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_thirty_seconds() {
        let ms: Vec<u128> = (0..10).map(|n| backoff(n).as_millis()).collect();
        assert_eq!(ms, [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    }
}
