//! The authorization server of the resource-server tests: tests/interop/oauth/issuer.mjs
//! (`oauth2-mock-server` from npm, pinned there), minting the exact tokens each test needs.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// The authorization server (tests/interop/oauth/issuer.mjs), one JSON command per line.
pub struct Issuer {
    child: Child,
    io: Mutex<(ChildStdin, BufReader<ChildStdout>)>,
    /// The issuer URL (`iss`), also where its metadata is served.
    pub url: String,
}

impl Issuer {
    /// Starts it (`npm ci` in tests/interop/oauth first).
    pub fn start() -> Issuer {
        let mut child = Command::new("node")
            .arg(super::workspace().join("tests/interop/oauth/issuer.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs tests/interop/oauth/issuer.mjs (npm ci there first)");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let url =
            line.trim().strip_prefix("READY ").unwrap_or_else(|| panic!("issuer said {line:?}")).to_owned();
        let stdin = child.stdin.take().unwrap();
        Issuer { child, io: Mutex::new((stdin, out)), url }
    }

    /// Sends one command, returns the answer (a refusal fails the test).
    pub fn ask(&self, command: Value) -> Value {
        let mut io = self.io.lock().unwrap();
        writeln!(io.0, "{command}").unwrap();
        let mut line = String::new();
        io.1.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("issuer answered {line:?}"));
        assert!(v.get("error").is_none(), "issuer refused {command}: {v}");
        v
    }

    /// A token: `aud` and `scope` as given, the rest overridable through `extra`.
    pub fn token(&self, aud: &str, scope: &str, extra: Value) -> String {
        let mut c = json!({"cmd": "token", "aud": aud, "scope": scope});
        c.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
        self.ask(c)["token"].as_str().unwrap().to_owned()
    }

    /// Adds a signing key; later tokens use it. Its `kid`.
    pub fn rotate(&self) -> String {
        self.ask(json!({"cmd": "rotate"}))["kid"].as_str().unwrap().to_owned()
    }

    /// Replaces the current signing key with a new one under the same `kid` (returned).
    pub fn rekey(&self) -> String {
        self.ask(json!({"cmd": "rekey"}))["kid"].as_str().unwrap().to_owned()
    }

    /// The JWKS URL.
    pub fn jwks(&self) -> String {
        format!("{}/jwks", self.url)
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
