//! The official SDKs' OAuth clients through the whole flow against our resource server: the
//! Python SDK's `OAuthClientProvider` (`mcp==2.3.0`) and the TypeScript SDK's
//! (`@modelcontextprotocol/client` 2.4.0) against `echo_server --auth-*`, in front of the
//! authorization-code server `tests/interop/oauth/mock_as.mjs`.
//!
//! The test command runs `npm ci` in tests/interop/oauth and tests/interop/ts and creates
//! `.venv`; a missing peer fails the test.

use mcpcore_tests::auth_echo::{interop, EchoServer};
use mcpcore_tests::fleet::python;
use mcpcore_tests::mock_as::MockAs;
use serde_json::{json, Value};
use std::process::{Command, Stdio};

/// Runs an official SDK's OAuth client (`program script`) against `echo_server --auth-*` in
/// front of the authorization-code server: 401 -> our PRM -> the AS metadata -> authorization
/// code + PKCE + resource -> the calls. The PRM advertises mcp:add, so the SDK asks for it and
/// sees add.
fn sdk_oauth_flow(program: &str, script: &str) {
    let auth = MockAs::start(&[]);
    let server = EchoServer::with(&format!("{}/jwks", auth.issuer), &auth.issuer);
    let out = Command::new(program)
        .arg(interop(script))
        .args(["--client-id", "sdk-client", &server.url])
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs (scripts/test.sh installs the peers): {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warn") && !stderr.contains("Warn"), "{stderr}");
    let mut got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["add"]["sum"].as_f64(), Some(5.0), "{got}"); // JS prints 5, Python 5.0
    got["add"]["sum"] = json!(5.0);
    assert_eq!(got, json!({"tools": ["add", "echo"], "echo": "hi", "add": {"sum": 5.0}, "scope": "mcp:add"}));
}

#[test]
fn the_official_python_sdk_oauth_client_runs_the_whole_flow_against_echo_server() {
    sdk_oauth_flow(&python(), "python/sdk_oauth_client.py");
}

#[test]
fn the_official_typescript_sdk_oauth_client_runs_the_whole_flow_against_echo_server() {
    sdk_oauth_flow("node", "ts/sdk_oauth_client.mjs");
}
