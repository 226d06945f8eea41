//! Shared helpers for the cross-cutting tests: locating built binaries, spawning clients.

#[cfg(unix)]
pub mod auth_echo;
pub mod chaos;
pub mod fleet;
pub mod hooks;
pub mod http;
pub mod issuer;
pub mod keycloak;
pub mod mock_as;
pub mod schema;
pub mod tls;
pub mod wire;

use mcpcore::client::{Client, ClientOptions};
use mcpcore::transport::child::StdioCommand;
use std::path::PathBuf;

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf()
}

/// The directory holding the workspace's built binaries (`target/debug`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("profile dir").to_path_buf()
}

/// The path of a workspace binary; panics with the command to build it when missing.
pub fn bin(name: &str) -> String {
    let p = bin_dir().join(name);
    assert!(p.exists(), "{} is missing: run `cargo build --workspace --bins` first", p.display());
    p.to_string_lossy().into_owned()
}

/// A command running the workspace binary `name` with `args`.
pub fn cmd(name: &str, args: &[&str]) -> StdioCommand {
    StdioCommand::new(bin(name), args.iter().map(|s| s.to_string()))
}

/// Connects to the workspace binary `name` with `args`.
pub async fn connect(name: &str, args: &[&str], options: ClientOptions) -> Client {
    Client::connect_stdio(cmd(name, args), options).await.expect("connect")
}

/// Sends `child` SIGINT (a graceful stop: servers flush their exporters) and waits until it
/// exits, at most `within`; `what` names it in the failure.
pub async fn interrupt_and_wait(child: &mut std::process::Child, within: std::time::Duration, what: &str) {
    // SAFETY: signalling our own child, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let deadline = std::time::Instant::now() + within;
    while child.try_wait().expect("the child's status").is_none() {
        assert!(std::time::Instant::now() < deadline, "{what} did not stop");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Spawns `cmd` (a server that prints `listening on URL` first: `mcpcore serve --listen`,
/// `echo_server --http`), its stdout piped, and waits for that line: the child and the URL.
pub fn spawn_listening(cmd: &mut std::process::Command) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().expect("spawn the server");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("its first line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("no URL line: {line:?}"))
        .to_owned();
    (child, url)
}
