//! `echo_server --http --auth-*` as a child process, for the resource-server tests
//! (tests/rust/auth_server.rs, auth_sdk_flow.rs).

use crate::bin;
use crate::issuer::Issuer;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A file of tests/interop.
pub fn interop(path: &str) -> String {
    let ws = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    ws.join("tests/interop").join(path).to_string_lossy().into_owned()
}

/// `echo_server --http 127.0.0.1:0 --auth-*`, killed on drop.
pub struct EchoServer {
    child: Child,
    /// The server's MCP endpoint (also the tokens' audience).
    pub url: String,
}

impl EchoServer {
    /// Verifying the tokens of `issuer`.
    pub fn start(issuer: &Issuer) -> EchoServer {
        EchoServer::with(&issuer.jwks(), &issuer.url)
    }

    /// Verifying tokens of `issuer` signed by the keys at `jwks`.
    pub fn with(jwks: &str, issuer: &str) -> EchoServer {
        // The audience is the server's own URL, known only once bound: reserve a port first.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let mut child = Command::new(bin("echo_server"))
            .args(["--http", &format!("127.0.0.1:{port}")])
            .args(["--auth-jwks", jwks, "--auth-issuer", issuer, "--auth-audience", &url])
            .stdout(Stdio::piped())
            .spawn()
            .expect("echo_server runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), format!("listening on {url}"));
        EchoServer { child, url }
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
