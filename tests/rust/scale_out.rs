//! Scale-out (issue 16): three `mcpcore conformance-server --store redis://…` instances behind
//! nginx round-robin with no affinity, driven by the official Python SDK client (`mcp==2.3.0`,
//! `tests/interop/python/sdk_scale_client.py`).
//!
//! - legacy (2025-11-25 Streamable HTTP): one session, 30 calls, its POSTs spread over every
//!   instance (nginx's access log says which served what); one instance killed mid-run, the
//!   session goes on on the others;
//! - modern (2026-07-28): MRTR rounds whose retry lands on another instance than the first
//!   call (the shared `MCPCORE_STATE_KEY` opens the other's `requestState`);
//! - Redis stopped: a legacy request gets 503 with a JSON-RPC `-32603` error, a modern
//!   stateless call still works; Redis started again on the same port: a new legacy session
//!   works, with no restart of the servers, including what crosses instances through Redis
//!   pub/sub: elicitation answers POSTed to another instance than the waiting call, and
//!   resource updates produced on an instance without the session's GET stream.
//!
//! Needs `redis-server` and `nginx` (Debian packages; `scripts/test.sh` installs them). Without
//! them the test is skipped with a message, except in CI (`CI` set), where it fails.

use mcpcore_tests::bin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const STATE_KEY: &str = "4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21";

/// A child process killed (and reaped) when dropped.
struct Kid(Child);

impl Kid {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    /// SIGTERM, then SIGKILL after 5 s: nginx's master stops its worker first (a SIGKILLed
    /// master would leave the worker running).
    fn stop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            // SAFETY: signalling our own child, which has not been reaped yet.
            unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.kill();
    }
}

/// nginx, stopped with SIGTERM when dropped.
struct Nginx(Kid);

impl Drop for Nginx {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Drop for Kid {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen on 127.0.0.1:{port} within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn start_redis(redis: &Path, port: u16, dir: &Path) -> Kid {
    let child = Command::new(redis)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn redis-server");
    let kid = Kid(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let mut pong = [0u8; 7];
            if s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut pong).is_ok() && &pong == b"+PONG\r\n" {
                return kid;
            }
        }
        assert!(Instant::now() < deadline, "redis-server did not answer PING on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start_instance(port: u16, redis_port: u16, public: &str) -> Kid {
    let mut child = Command::new(bin("mcpcore"))
        .args(["conformance-server", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--store", &format!("redis://127.0.0.1:{redis_port}/0"), "--allowed-host", public])
        .env("MCPCORE_STATE_KEY", STATE_KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn mcpcore conformance-server");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("listening on"), "conformance-server printed {line:?} (built without `redis`?)");
    // Drained, so a later line never meets a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Kid(child)
}

fn start_nginx(nginx: &Path, dir: &Path, port: u16, upstreams: &[u16]) -> Nginx {
    let servers: String = upstreams
        .iter()
        .map(|p| format!("    server 127.0.0.1:{p} max_fails=1 fail_timeout=60s;\n"))
        .collect();
    let d = dir.display();
    let conf = format!(
        "worker_processes 1;
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 256; }}
http {{
  log_format mcp '$http_mcp_session_id|$http_mcp_method|$request_method|$status|$upstream_addr';
  access_log {d}/access.log mcp;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  upstream mcp {{
{servers}  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 120s;
    }}
  }}
}}
"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = Command::new(nginx)
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&path)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn nginx");
    let nginx = Nginx(Kid(child));
    wait_for_port(port, "nginx");
    nginx
}

/// One line of nginx's access log.
#[derive(Debug, Clone)]
struct Logged {
    session: String,
    method: String,
    http_method: String,
    status: String,
    upstream: String,
}

fn access_log(dir: &Path) -> Vec<Logged> {
    let text = std::fs::read_to_string(dir.join("access.log")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            let [session, method, http_method, status, upstream] = f[..] else { return None };
            let dash = |s: &str| if s == "-" { String::new() } else { s.to_owned() };
            Some(Logged {
                session: dash(session),
                method: dash(method),
                http_method: http_method.to_owned(),
                status: status.to_owned(),
                // After a failed try nginx lists every upstream it tried: the last one answered.
                upstream: upstream.rsplit(", ").next().unwrap_or("").to_owned(),
            })
        })
        .collect()
}

/// The SDK client script, running.
struct Sdk {
    kid: Kid,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Sdk {
    fn start(url: &str, args: &[&str]) -> Sdk {
        let script = workspace().join("tests/interop/python/sdk_scale_client.py");
        let mut child = Command::new(python())
            .arg(script)
            .args(["--url", url])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python with mcp==2.3.0 (see tests/interop/python/requirements.txt)");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Sdk { kid: Kid(child), stdin, stdout }
    }

    fn line(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the SDK client ended without output (its error is on stderr above)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn resume(&mut self) {
        writeln!(self.stdin.as_mut().unwrap()).unwrap();
    }

    fn finish(mut self) -> Value {
        let out = self.line();
        let status = self.kid.0.wait().unwrap();
        assert!(status.success(), "the SDK client failed: {status}");
        out
    }
}

fn run_sdk(url: &str, args: &[&str]) -> Value {
    Sdk::start(url, args).finish()
}

fn echoes(n: usize) -> Value {
    json!((1..=n).map(|i| format!("call {i}")).collect::<Vec<_>>())
}

/// A raw POST through the proxy: (status, JSON body, session id).
async fn post(url: &str, body: Value, session: Option<&str>) -> (u16, Value, Option<String>) {
    let mut req = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .timeout(Duration::from_secs(10))
        .body(body.to_string());
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let resp = req.send().await.expect("the proxy answers");
    let status = resp.status().as_u16();
    let sid = resp.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), sid)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

fn upstreams_of<'a>(lines: impl Iterator<Item = &'a Logged>) -> std::collections::BTreeSet<String> {
    lines.filter(|l| l.status.starts_with('2')).map(|l| l.upstream.clone()).collect()
}

#[test]
fn three_instances_behind_nginx_share_sessions_and_state_and_survive_losses() {
    let (Some(redis), Some(nginx)) = (find("redis-server"), find("nginx")) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but redis-server or nginx is missing: scripts/test.sh installs them (apt-get)"
        );
        eprintln!(
            "SKIPPED scale_out: redis-server or nginx is not installed (apt-get install redis-server nginx)"
        );
        return;
    };
    let dir = std::env::temp_dir().join(format!("mcpcore-scale-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _scratch = Scratch(dir.clone());

    let redis_port = free_port();
    let mut redis_kid = start_redis(&redis, redis_port, &dir);
    let lb = free_port();
    let public = format!("127.0.0.1:{lb}");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let mut instances: Vec<Kid> = ports.iter().map(|p| start_instance(*p, redis_port, &public)).collect();
    let _nginx = start_nginx(&nginx, &dir, lb, &ports);
    let url = format!("http://{public}/mcp");

    // Legacy: one session, its POSTs on every instance; the second instance dies after call 10.
    let mut sdk = Sdk::start(&url, &["--mode", "legacy", "--calls", "30", "--pause-after", "10"]);
    assert_eq!(sdk.line(), json!({"paused": 10}));
    let before = access_log(&dir);
    let session =
        before.iter().find(|l| !l.session.is_empty()).map(|l| l.session.clone()).expect("a session id");
    let served = upstreams_of(before.iter().filter(|l| l.session == session && l.http_method == "POST"));
    assert_eq!(served.len(), 3, "the session's POSTs before the kill landed on {served:?}");
    instances[1].kill();
    sdk.resume();
    let out = sdk.finish();
    assert_eq!(out["protocolVersion"], "2025-11-25", "{out}");
    assert_eq!(out["echoes"], echoes(30));
    let after = access_log(&dir)[before.len()..].to_vec();
    let served = upstreams_of(after.iter().filter(|l| l.session == session && l.http_method == "POST"));
    let dead = format!("127.0.0.1:{}", ports[1]);
    assert_eq!(served.len(), 2, "after the kill the session's POSTs landed on {served:?}");
    assert!(!served.contains(&dead), "{served:?}");

    // Modern: every MRTR retry lands on the other live instance than its first call.
    let mark = access_log(&dir).len();
    let out = run_sdk(&url, &["--mode", "modern", "--calls", "2", "--mrtr", "3"]);
    assert_eq!(out["protocolVersion"], "2026-07-28", "{out}");
    assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]));
    let calls: Vec<Logged> =
        access_log(&dir)[mark..].iter().filter(|l| l.method == "tools/call").cloned().collect();
    assert_eq!(calls.len(), 2 + 3 * 2, "{calls:?}");
    for pair in calls[2..].chunks(2) {
        assert_ne!(pair[0].upstream, pair[1].upstream, "an MRTR retry on the same instance: {calls:?}");
    }

    // Redis stops: legacy requests get 503 with a JSON-RPC error; modern stateless calls work.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (status, _, sid) = rt.block_on(post(&url, initialize(), None));
    assert_eq!(status, 200);
    let sid = sid.expect("a session id");
    redis_kid.kill();
    let (status, body, _) = rt.block_on(post(&url, initialize(), None));
    assert_eq!((status, body["error"]["code"].as_i64()), (503, Some(-32603)), "{body}");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for _ in 0..2 {
        // Twice: both live instances answer alike.
        let (status, body, _) = rt.block_on(post(&url, ping.clone(), Some(&sid)));
        assert_eq!((status, body["error"]["code"].as_i64()), (503, Some(-32603)), "{body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("Redis"), "{body}");
    }
    let out = run_sdk(&url, &["--mode", "modern", "--calls", "4"]);
    assert_eq!(out["echoes"], echoes(4));

    // Redis is back (empty: no persistence): new legacy sessions work, on both instances.
    let _redis_again = start_redis(&redis, redis_port, &dir);
    let mark = access_log(&dir).len();
    let out = run_sdk(&url, &["--mode", "legacy", "--calls", "6", "--mrtr", "3", "--updates", "3"]);
    assert_eq!(out["echoes"], echoes(6));
    let served = upstreams_of(access_log(&dir)[mark..].iter().filter(|l| l.http_method == "POST"));
    assert_eq!(served.len(), 2, "{served:?}");
    // Cross-instance delivery: with two instances in turn, the SDK's answer to each
    // elicitation/create is POSTed to the other instance than the call waiting for it, and
    // every other resource update is triggered on the instance without the GET stream.
    assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]), "{out}");
    let watched = "test://watched-resource";
    assert_eq!(out["updates"], json!([watched, watched, watched]), "{out}");
    drop(instances);
}

/// One inline command to Redis; its reply line.
fn redis_cmd(port: u16, cmd: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(format!("{cmd}\r\n").as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    line.trim_end().to_owned()
}

#[test]
fn the_redis_store_keeps_records_under_namespaced_keys_with_the_idle_ttl() {
    use mcpcore::session::{SessionKind, SessionRecord, SessionStore};
    use mcpcore::store::redis::RedisSessionStore;
    let Some(redis) = find("redis-server") else {
        assert!(std::env::var_os("CI").is_none(), "CI is set but redis-server is missing");
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let dir = std::env::temp_dir().join(format!("mcpcore-redis-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _scratch = Scratch(dir.clone());
    let port = free_port();
    let mut server = start_redis(&redis, port, &dir);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        for bad in ["127.0.0.1:6379", "redis://", "http://127.0.0.1:6379", "redis://h:notaport"] {
            assert!(RedisSessionStore::new(bad, Duration::from_secs(60)).is_err(), "{bad:?} accepted");
        }
        let ttl = Duration::from_secs(600);
        let store = RedisSessionStore::new(&format!("redis://127.0.0.1:{port}/0"), ttl).unwrap();
        assert!(store.shared());
        let now = std::time::SystemTime::now();
        let record = SessionRecord::new(SessionKind::Streamable);
        assert!(store.create("abc", &record, now).await.unwrap());
        let pttl: i64 = redis_cmd(port, "PTTL mcpcore:session:abc")[1..].parse().unwrap();
        assert!(pttl > 590_000 && pttl <= 600_000, "{pttl}");
        assert_eq!(redis_cmd(port, "PEXPIRE mcpcore:session:abc 1000"), ":1");
        assert_eq!(store.load("abc", now).await.unwrap(), Some(record.clone()));
        let pttl: i64 = redis_cmd(port, "PTTL mcpcore:session:abc")[1..].parse().unwrap();
        assert!(pttl > 590_000, "load pushes the expiry out: {pttl}");
        assert_eq!(redis_cmd(port, "PEXPIRE mcpcore:session:abc 1000"), ":1");
        store.touch("abc", now).await.unwrap();
        let pttl: i64 = redis_cmd(port, "PTTL mcpcore:session:abc")[1..].parse().unwrap();
        assert!(pttl > 590_000, "touch pushes the expiry out: {pttl}");
        let mut changed = record.clone();
        changed.kind = SessionKind::Sse;
        store.store("abc", &changed, now).await.unwrap();
        assert_eq!(store.load("abc", now).await.unwrap(), Some(changed.clone()));
        assert!(store.delete("abc").await.unwrap());
        assert!(!store.delete("abc").await.unwrap());
        store.store("abc", &changed, now).await.unwrap();
        assert_eq!(store.load("abc", now).await.unwrap(), None, "a deleted session stays deleted");
        assert_eq!(redis_cmd(port, "SET mcpcore:session:bad {"), "+OK");
        let e = store.load("bad", now).await.unwrap_err();
        assert_eq!(e.code, mcpcore::ErrorCode::INTERNAL_ERROR);
        // Redis down: every call fails, quickly, with -32603 naming Redis.
        server.kill();
        let started = Instant::now();
        let e = store.load("abc", now).await.unwrap_err();
        assert_eq!(e.code, mcpcore::ErrorCode::INTERNAL_ERROR);
        assert!(e.message.contains("Redis at 127.0.0.1:"), "{e}");
        assert!(store.create("x", &record, now).await.is_err());
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        // Back up: the next call succeeds, with no new store.
        let mut again = start_redis(&redis, port, &dir);
        assert!(store.create("after", &record, now).await.unwrap());
        // Restarted between two calls: the first call on the dropped connection succeeds too.
        again.kill();
        let _again = start_redis(&redis, port, &dir);
        assert_eq!(store.load("after", now).await.unwrap(), None, "no persistence: a new, empty Redis");
        let prefixed = store.clone().with_prefix("other");
        assert_eq!(prefixed.key("after"), "other:session:after");
        assert_eq!(prefixed.load("after", now).await.unwrap(), None);
    });
}

/// Runs the workspace binary `name` with `args`, `MCPCORE_STATE_KEY` set to `key` only when
/// given; its exit code and stderr.
fn refused(name: &str, args: &[&str], key: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(bin(name));
    cmd.args(args).env_remove("MCPCORE_STATE_KEY").stdout(Stdio::null()).stderr(Stdio::piped());
    if let Some(k) = key {
        cmd.env("MCPCORE_STATE_KEY", k);
    }
    let out = cmd.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_store_without_a_shared_state_key_or_with_a_bad_url_is_refused_at_startup() {
    for (name, flag, code) in [("mcpcore", "--listen", 1), ("echo_server", "--http", 2)] {
        let base: Vec<&str> = if name == "mcpcore" {
            vec!["conformance-server", flag, "127.0.0.1:0"]
        } else {
            vec![flag, "127.0.0.1:0"]
        };
        let with =
            |extra: &[&'static str]| base.iter().copied().chain(extra.iter().copied()).collect::<Vec<_>>();
        let (status, err) = refused(name, &with(&["--store", "redis://127.0.0.1:1"]), None);
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("--store needs MCPCORE_STATE_KEY"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--store", "redis://127.0.0.1:1"]), Some("abcd"));
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("at least 32 bytes"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--store", "redis://"]), Some(STATE_KEY));
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("bad Redis URL"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--allowed-host", "http://x"]), None);
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("--allowed-host needs NAME[:PORT]"), "{name}: {err}");
    }
}
