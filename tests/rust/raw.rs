//! A raw stdio peer for wire-level tests: write bytes, read JSON lines. Shared by several test
//! crates, each of which uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A spawned server driven byte by byte.
pub(crate) struct RawPeer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl RawPeer {
    /// Spawns `program` with `args`.
    pub(crate) fn spawn(program: &str, args: &[&str]) -> RawPeer {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        RawPeer { child, stdin: Some(stdin), stdout }
    }
    /// Writes raw bytes followed by a newline.
    pub(crate) fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    /// Writes a JSON value as a line.
    pub(crate) fn send(&mut self, v: &serde_json::Value) {
        self.send_bytes(v.to_string().as_bytes());
    }
    /// Reads one line and parses it.
    pub(crate) fn recv(&mut self) -> serde_json::Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the server closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("server wrote non-JSON {line:?}: {e}"))
    }
    /// Closes the server's stdin (end of input).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }
    /// Waits up to `limit` for the process to exit; its exit code, if it did.
    pub(crate) fn wait_exit(&mut self, limit: std::time::Duration) -> Option<i32> {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }
}

impl Drop for RawPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
