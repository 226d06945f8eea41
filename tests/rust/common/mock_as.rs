//! The authorization-code server of the OAuth interop tests (tests/interop/oauth/mock_as.mjs:
//! PKCE, `aud` = the requested `resource`, the scope asked at /authorize), as a child process,
//! and the events it reports (oauth_interop.rs, auth_sdk_flow.rs).

use crate::auth_echo::interop;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The authorization server (tests/interop/oauth/mock_as.mjs) and the events it reports.
pub struct MockAs {
    child: Child,
    /// Its issuer URL (`READY <issuer>` on its stdout).
    pub issuer: String,
    events: Arc<Mutex<Vec<Value>>>,
}

impl MockAs {
    /// Starts it with `args` (mock_as.mjs's options), once it said it is ready.
    pub fn start(args: &[&str]) -> MockAs {
        let mut child = Command::new("node")
            .arg(interop("oauth/mock_as.mjs"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs tests/interop/oauth/mock_as.mjs (npm ci there first)");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let issuer =
            line.trim().strip_prefix("READY ").unwrap_or_else(|| panic!("mock AS said {line:?}")).to_owned();
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Some(e) = line.strip_prefix("EVENT ").and_then(|j| serde_json::from_str(j).ok()) {
                    sink.lock().unwrap().push(e);
                }
            }
        });
        MockAs { child, issuer, events }
    }

    /// The events of `kind` it reported so far.
    pub fn events(&self, kind: &str) -> Vec<Value> {
        // The reader thread may trail the HTTP response by a moment.
        std::thread::sleep(Duration::from_millis(100));
        self.events.lock().unwrap().iter().filter(|e| e["event"] == kind).cloned().collect()
    }
}

impl Drop for MockAs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
