//! The stdio client against faulty servers and faulty endings (issue 21, "stdio client"): an
//! oversized reply, a huge or non-UTF-8 stderr, a grandchild holding stdout, and the `mcpcore`
//! CLI killed by SIGINT, SIGTERM or SIGKILL, with the server behind `sh -c`. Every process a test
//! starts carries a marker in its environment, so "no process outlives the client" is checked
//! over the whole tree, grandchildren included.

use mcpcore::client::{CallOptions, ClientOptions};
use mcpcore::ErrorKind;
use mcpcore_tests::{bin, connect};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A marker unique to this run and `tag`, for the environment of a process tree.
fn marker(tag: &str) -> String {
    use std::hash::BuildHasher;
    let random = std::collections::hash_map::RandomState::new().hash_one(tag);
    format!("{tag}-{}-{random:x}", std::process::id())
}

/// Live (not zombie) processes whose environment holds `MCPCORE_TEST_MARK=<mark>`.
fn marked(mark: &str) -> Vec<(u32, String)> {
    let needle = format!("MCPCORE_TEST_MARK={mark}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        if !env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next());
        if state == Some("Z") {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
    }
    found
}

/// Waits up to `limit` for `ok`; true if it held in time.
fn wait_until(limit: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    ok()
}

#[tokio::test]
async fn an_oversized_reply_is_a_size_error_not_a_timeout() {
    let options = ClientOptions { max_frame: 1 << 20, ..Default::default() };
    let client = connect("faulty_server", &[], options).await;
    let opts = CallOptions { timeout: Some(Duration::from_secs(20)), ..Default::default() };
    let started = Instant::now();
    let err = client.call_tool_with("big", json!({"bytes": 2 << 20}), &opts).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}: {err}", started.elapsed());
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert_eq!(err.code(), mcpcore::ErrorCode::INVALID_REQUEST);
    assert_eq!(err.data().unwrap()["limit"], 1 << 20);
    assert!(err.message().contains("over this client's limit of 1048576 bytes"), "{}", err.message());
    // The connection goes on.
    let r = client.call_tool("echo", json!({"text": "after"})).await.unwrap();
    assert_eq!(r.first_text(), Some("after"));
    client.close().await;
}

#[tokio::test]
async fn bytes_that_are_not_utf8_on_stderr_do_not_stop_the_server() {
    let client = connect("faulty_server", &[], ClientOptions::default()).await;
    let r = client.call_tool("stderr", json!({"binary": true})).await.unwrap();
    assert_eq!(r.first_text(), Some("written"));
    // Before, the client stopped reading here and closed the pipe: the next write failed.
    tokio::time::sleep(Duration::from_millis(200)).await;
    for _ in 0..3 {
        let r = client.call_tool("stderr", json!({"bytes": 10})).await.unwrap();
        assert_eq!(r.first_text(), Some("written"), "{r:?}");
    }
    let err = client.call_tool("exit", json!({"code": 5})).await.unwrap_err();
    let message = err.message();
    assert!(message.contains("server exited with code 5"), "{message}");
    assert!(message.contains("\u{fffd}\u{fffd} not utf-8 \u{fffd}("), "the line is kept lossily: {message}");
    assert!(message.contains("xxxxxxxxxx"), "{message}");
}

#[test]
#[allow(clippy::zombie_processes)] // reaped by wait4, which also reports its peak memory
fn a_200_mb_stderr_line_takes_no_memory() {
    let mut child = Command::new(bin("mcpcore"))
        .args(["call", "stderr", r#"{"bytes": 209715200}"#, "--", &bin("faulty_server")])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain wait4 on our own child; both out-pointers are valid for the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "status {status}: {out}");
    assert!(out.contains("written"), "{out}");
    // ru_maxrss is in KiB: the client and the server it waited for.
    let peak_mb = usage.ru_maxrss / 1024;
    assert!(peak_mb < 100, "the client peaked at {peak_mb} MB reading one 200 MB stderr line");
}

#[tokio::test]
async fn a_grandchild_holding_stdout_does_not_hide_the_server_exit() {
    let mark = marker("grandchild");
    // sh starts a background process that inherits stdout, then becomes the server.
    let script = format!("sleep 3600 & exec {}", bin("fixture_server"));
    let cmd =
        mcpcore::transport::child::StdioCommand::new("sh", ["-c", &script]).env("MCPCORE_TEST_MARK", &mark);
    let client = mcpcore::client::Client::connect_stdio(cmd, ClientOptions::default()).await.unwrap();
    // The background `sh` may not have become `sleep` yet on a busy machine.
    let started = |m: &[(u32, String)]| m.iter().any(|(_, c)| c.starts_with("sleep"));
    assert!(wait_until(Duration::from_secs(3), || started(&marked(&mark))), "{:?}", marked(&mark));
    let opts = CallOptions { timeout: Some(Duration::from_secs(20)), ..Default::default() };
    let started = Instant::now();
    let err = client.call_tool_with("exit", json!({"code": 4}), &opts).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}: {err}", started.elapsed());
    assert_eq!(err.kind(), ErrorKind::Closed, "{err}");
    assert!(err.message().contains("server exited with code 4"), "{}", err.message());
    // The background process went with the server's group.
    assert!(wait_until(Duration::from_secs(3), || marked(&mark).is_empty()), "left: {:?}", marked(&mark));
    drop(client);
}

/// Runs `mcpcore call slow` with the server behind `tap` and `sh -c`, with a background
/// process in the server's tree; sends `signal` to the CLI once the call is in flight.
/// Returns the CLI's exit code (None when killed by a signal) and the tap's log.
fn interrupt_cli(signal: libc::c_int) -> (Option<i32>, String) {
    /// Removes the test's directory, also when an assertion fails.
    struct TempDir(std::path::PathBuf);
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let mark = marker("cli");
    let dir = TempDir(std::env::temp_dir().join(format!("mcpcore-robust-{mark}")));
    std::fs::create_dir_all(&dir.0).unwrap();
    let log = dir.0.join("wire.log");
    let script = format!("sleep 3600 & {} ; true", bin("fixture_server"));
    let mut cli = Command::new(bin("mcpcore"))
        .args([
            "call",
            "slow",
            r#"{"ms": 60000}"#,
            "--",
            &bin("tap"),
            log.to_str().unwrap(),
            "--",
            "sh",
            "-c",
        ])
        .arg(&script)
        .env("MCPCORE_TEST_MARK", &mark)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let in_flight = || std::fs::read_to_string(&log).unwrap_or_default().contains("\"tools/call\"");
    assert!(wait_until(Duration::from_secs(20), in_flight), "the call never started");
    let tree = marked(&mark);
    assert!(tree.len() >= 5, "cli, tap, sh, sleep, fixture_server: {tree:?}");
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(cli.id() as libc::pid_t, signal) };
    let mut code = None;
    let exited = wait_until(Duration::from_secs(10), || match cli.try_wait().unwrap() {
        Some(s) => {
            code = s.code();
            true
        }
        None => false,
    });
    assert!(exited, "the CLI did not exit after signal {signal}");
    let gone = wait_until(Duration::from_secs(5), || marked(&mark).is_empty());
    let left = marked(&mark);
    for (pid, _) in &left {
        // SAFETY: cleaning up our own leftovers before failing.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
    }
    assert!(gone, "processes outlived the CLI after signal {signal}: {left:?}");
    let wire = std::fs::read_to_string(&log).unwrap_or_default();
    (code, wire)
}

#[test]
fn sigint_cancels_the_call_and_stops_the_whole_server_tree() {
    let (code, wire) = interrupt_cli(libc::SIGINT);
    assert_eq!(code, Some(130));
    assert!(wire.contains("notifications/cancelled"), "the call was not cancelled: {wire}");
}

#[test]
fn sigterm_cancels_the_call_and_stops_the_whole_server_tree() {
    let (code, wire) = interrupt_cli(libc::SIGTERM);
    assert_eq!(code, Some(143));
    assert!(wire.contains("notifications/cancelled"), "the call was not cancelled: {wire}");
}

#[test]
fn sigkill_of_the_cli_takes_the_whole_server_tree_down() {
    let (code, _) = interrupt_cli(libc::SIGKILL);
    assert_eq!(code, None, "killed by the signal");
}

/// The tokio worker threads of process `pid`.
fn runtime_workers(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .flatten()
        .filter(|t| {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            comm.starts_with("tokio-rt-worker") || comm.starts_with("tokio-runtime-w")
        })
        .count()
}

#[test]
fn the_echo_server_serves_http_on_a_multi_thread_runtime_and_stdio_on_one_thread() {
    // Over HTTP, a runtime with one thread runs every connection's handlers on it: one
    // blocking handler would stall them all, so the example shows the production setup. On
    // stdio (one client, one pipe) it keeps every message on the current thread.
    let mut http = Command::new(bin("echo_server"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let ok = wait_until(Duration::from_secs(5), || runtime_workers(http.id()) >= 2);
    let n = runtime_workers(http.id());
    let _ = http.kill();
    let _ = http.wait();
    assert!(ok, "echo_server --http has {n} runtime worker thread(s)");

    let mut stdio =
        Command::new(bin("echo_server")).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    let stdin = stdio.stdin.as_mut().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).unwrap();
    BufReader::new(stdio.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let n = runtime_workers(stdio.id());
    let _ = stdio.kill();
    let _ = stdio.wait();
    assert!(line.contains(r#""id":1"#), "echo_server answers on stdio: {line}");
    assert_eq!(n, 0, "echo_server on stdio runs on the current thread");
}

/// `ChildProcess::close` after stdin is closed (2025-11-25 basic/lifecycle, stdio shutdown):
/// `sh -c script` spawned, stdin closed, closed with `grace`; how it ended and how long it took.
async fn close_after_stdin(script: &str, grace: Duration) -> (String, Duration) {
    let cmd = mcpcore::transport::child::StdioCommand::new("sh", vec!["-c".to_owned(), script.to_owned()]);
    let (channel, child) = mcpcore::transport::child::spawn(&cmd, 1 << 20).unwrap();
    // Give the shell time to install its traps.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mcpcore::transport::Channel { tx, rx, flushed, .. } = channel;
    drop(tx);
    if let Some(f) = flushed {
        let _ = f.await;
    }
    let started = Instant::now();
    child.close(grace).await;
    drop(rx);
    (child.exit_reason().unwrap_or_default(), started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_stdio_child_closes_stdin_then_terms_then_kills() {
    let grace = Duration::from_millis(500);
    // A server that ends when its stdin closes: no signal.
    let (how, took) = close_after_stdin("cat > /dev/null; exit 3", grace).await;
    assert!(how.starts_with("server exited with code 3"), "{how}");
    assert!(took < grace, "{took:?}");
    // One that ignores the end of its stdin but stops on SIGTERM: after one grace period.
    let (how, took) = close_after_stdin("trap 'exit 7' TERM; while :; do sleep 0.05; done", grace).await;
    assert!(how.starts_with("server exited with code 7"), "{how}");
    assert!(took >= grace && took < grace * 2 + Duration::from_millis(900), "{took:?}");
    // One that ignores SIGTERM too: SIGKILL after a second grace period.
    let (how, took) = close_after_stdin("trap '' TERM; while :; do sleep 0.05; done", grace).await;
    assert!(how.starts_with("server was killed by signal 9"), "{how}");
    assert!(took >= grace * 2 && took < grace * 2 + Duration::from_secs(2), "{took:?}");
}

/// `Client::close` closes the child's stdin though the client itself lives on: a server that
/// ends at the end of its input exits by itself within the 2-s grace, and is not terminated
/// by the signal after it (2025-11-25 basic/lifecycle, stdio shutdown: "the client
/// SHOULD initiate shutdown by first closing the input stream to the child process"). Both
/// lineages, whose clients write stdin from the calling thread.
#[tokio::test]
async fn a_closed_client_lets_its_child_exit_by_itself() {
    for version in ["2025-11-25", "2026-07-28"] {
        let script = format!("{}; exit 3", bin("echo_server"));
        let cmd = mcpcore::transport::child::StdioCommand::new("sh", ["-c", &script]);
        let opts = ClientOptions { version: Some(version.parse().unwrap()), ..ClientOptions::default() };
        let client = mcpcore::client::Client::connect_stdio(cmd, opts).await.unwrap();
        client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        client.close().await;
        let how = client.closed().await;
        assert!(how.contains("server exited with code 3"), "{version}: {how}");
    }
}

/// CPU time (user + system) of process `pid`, from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which may hold spaces) start at state (field 3).
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap(); // utime, stime
                                                                                    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// `MCPCORE_STDIO_SPIN_US` (transport::spin): a server that spins before each read still
/// answers every request, in order, and once its client goes quiet it stops spinning (an idle
/// connection costs no CPU; without the spin's end it would burn its vCPU the whole time).
#[test]
fn a_spinning_stdio_server_answers_and_idles_without_cpu() {
    let mut server = Command::new(bin("echo_server"))
        .env("MCPCORE_STDIO_SPIN_US", "2000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = server.id();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    for id in 1..=200 {
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains(&format!(r#""id":{id}"#)), "answer {id}: {line}");
    }
    // Quiet: the last spin (at most 2 ms) ends, then nothing runs.
    std::thread::sleep(Duration::from_millis(100));
    let before = cpu_time(pid);
    std::thread::sleep(Duration::from_millis(1000));
    let used = cpu_time(pid) - before;
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":"after","method":"ping"}}"#).unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    drop(stdin);
    let _ = server.wait();
    assert!(line.contains(r#""id":"after""#), "answer after the pause: {line}");
    assert!(used < Duration::from_millis(100), "the idle server used {used:?} of CPU in 1 s");
}
