//! A fleet for the scale-out tests: `redis-server`, several server instances and `nginx`
//! round-robin in front of them with no affinity, all on loopback ports picked here, all
//! stopped when dropped; nginx's access log (which instance served what) and the connections
//! open at each instance (`/proc/net/tcp`), and the official SDK client scripts that drive them.
//!
//! Needs `redis-server` and `nginx` (Debian packages; `scripts/test.sh` installs them):
//! [`tools`] is `None` without them, and in CI (`CI` set) that is a failure.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The `requestState` key every instance shares (`MCPCORE_STATE_KEY`).
pub const STATE_KEY: &str = "4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21";

/// A child process killed (and reaped) when dropped.
pub struct Kid(pub Child);

impl Kid {
    /// SIGKILL and reap.
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    /// SIGTERM, then SIGKILL after 5 s: nginx's master stops its worker first (a SIGKILLed
    /// master would leave the worker running).
    pub fn stop(&mut self) {
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

impl Drop for Kid {
    fn drop(&mut self) {
        self.kill();
    }
}

/// nginx, stopped with SIGTERM when dropped.
pub struct Nginx(pub Kid);

impl Drop for Nginx {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// A scratch directory removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new directory named after `what` and this process.
    pub fn new(what: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcpcore-{what}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

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

/// `redis-server` and `nginx`, or `None` with a message (a panic in CI, where they must be).
pub fn tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (find("redis-server"), find("nginx")) {
        (Some(r), Some(n)) => Some((r, n)),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but redis-server or nginx is missing: scripts/test.sh installs them (apt-get)"
            );
            eprintln!(
                "SKIPPED {test}: redis-server or nginx is not installed (apt-get install redis-server nginx)"
            );
            None
        }
    }
}

/// `redis-server`, or `None` with a message (a panic in CI).
pub fn redis_tool(test: &str) -> Option<PathBuf> {
    let found = find("redis-server");
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI is set but redis-server is missing");
        eprintln!("SKIPPED {test}: redis-server is not installed");
    }
    found
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits (10 s at most) until something listens on `port`.
pub fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen on 127.0.0.1:{port} within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The Python with the official SDK (`MCPCORE_PYTHON`, else the workspace's `.venv`).
pub fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

/// A `redis-server` on `port` (no persistence), once it answers PING.
pub fn start_redis(redis: &Path, port: u16, dir: &Path) -> Kid {
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

/// One inline command to Redis on `port`; its reply line.
pub fn redis_cmd(port: u16, cmd: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(format!("{cmd}\r\n").as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    line.trim_end().to_owned()
}

/// Spawns `cmd` (stdout piped) and waits for its `listening on …` line; its stdout is drained
/// afterwards, so a later line never meets a closed pipe. `what` names it in the failure.
pub fn spawn_listening(mut cmd: Command, what: &str) -> Kid {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("listening on"), "{what} printed {line:?}");
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Kid(child)
}

/// `mcpcore conformance-server` on `port`, sharing the Redis on `redis_port`, with `public` as
/// its allowed host; once it listens.
pub fn start_instance(port: u16, redis_port: u16, public: &str) -> Kid {
    let mut cmd = Command::new(crate::bin("mcpcore"));
    cmd.args(["conformance-server", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--store", &format!("redis://127.0.0.1:{redis_port}/0"), "--allowed-host", public])
        .env("MCPCORE_STATE_KEY", STATE_KEY);
    spawn_listening(cmd, "conformance-server (built without `redis`?)")
}

/// The Rust `echo_server` on `port` with its store in the Redis on `redis_port`, `public` as
/// its allowed host, and the options `extra`; once it listens.
pub fn start_echo(port: u16, redis_port: u16, public: &str, extra: &[String]) -> Kid {
    let mut cmd = Command::new(crate::bin("echo_server"));
    cmd.args(["--http", &format!("127.0.0.1:{port}")])
        .args(["--store", &format!("redis://127.0.0.1:{redis_port}/0"), "--allowed-host", public])
        .args(extra)
        .env("MCPCORE_STATE_KEY", STATE_KEY);
    spawn_listening(cmd, "echo_server")
}

/// nginx on `port`, round-robin over `upstreams` (a failed one is left alone for 60 s), its
/// access log in `dir` (see [`access_log`]).
pub fn start_nginx(nginx: &Path, dir: &Path, port: u16, upstreams: &[u16]) -> Nginx {
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
  log_format mcp '$http_mcp_session_id|$http_mcp_method|$request_method|$status|$upstream_addr|$http_last_event_id|$msec|$request_time';
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

/// Redis, `n` conformance-server instances and nginx in front of them.
pub struct Fleet {
    /// The instances, in the order of [`Fleet::ports`]; kill one with `instances[i].kill()`.
    pub instances: Vec<Kid>,
    /// The instances' ports.
    pub ports: Vec<u16>,
    /// Redis (kill it to see the servers without it).
    pub redis: Kid,
    /// Redis's port.
    pub redis_port: u16,
    /// The URL of the endpoint through nginx.
    pub url: String,
    /// The scratch directory (nginx's logs, Redis's files).
    pub dir: PathBuf,
    _nginx: Nginx,
    _scratch: Scratch,
}

impl Fleet {
    /// Starts the fleet, or `None` without redis-server or nginx (see [`tools`]).
    pub fn start(test: &str, n: usize) -> Option<Fleet> {
        Fleet::start_with(test, n, start_instance)
    }

    /// A fleet of `n` Rust `echo_server`s with the options `extra` (see [`start_echo`]).
    pub fn start_echo(test: &str, n: usize, extra: &[&str]) -> Option<Fleet> {
        let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
        Fleet::start_with(test, n, |port, redis, public| start_echo(port, redis, public, &extra))
    }

    /// A fleet whose instances `start(port, redis_port, public_host)` starts.
    pub fn start_with(test: &str, n: usize, start: impl Fn(u16, u16, &str) -> Kid) -> Option<Fleet> {
        let (redis, nginx) = tools(test)?;
        let scratch = Scratch::new(test);
        let dir = scratch.0.clone();
        let redis_port = free_port();
        let redis_kid = start_redis(&redis, redis_port, &dir);
        let lb = free_port();
        let public = format!("127.0.0.1:{lb}");
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let instances = ports.iter().map(|p| start(*p, redis_port, &public)).collect();
        let nginx = start_nginx(&nginx, &dir, lb, &ports);
        Some(Fleet {
            instances,
            ports,
            redis: redis_kid,
            redis_port,
            url: format!("http://{public}/mcp"),
            dir,
            _nginx: nginx,
            _scratch: scratch,
        })
    }

    /// `host:port` of instance `i`, as nginx's log names it.
    pub fn upstream(&self, i: usize) -> String {
        format!("127.0.0.1:{}", self.ports[i])
    }

    /// nginx's access log so far.
    pub fn log(&self) -> Vec<Logged> {
        access_log(&self.dir)
    }
}

/// One line of nginx's access log.
#[derive(Debug, Clone)]
pub struct Logged {
    /// `Mcp-Session-Id`.
    pub session: String,
    /// `Mcp-Method` (2026-07-28 clients send it).
    pub method: String,
    /// GET, POST, DELETE.
    pub http_method: String,
    /// The HTTP status.
    pub status: String,
    /// The instance that answered.
    pub upstream: String,
    /// `Last-Event-ID`.
    pub last_event_id: String,
    /// When nginx began reading the request, in ms since the epoch (lines are written when
    /// requests end).
    pub started_ms: i64,
    /// When it ended, in ms since the epoch.
    pub ended_ms: i64,
}

/// nginx's access log in `dir` (written when a request ends).
pub fn access_log(dir: &Path) -> Vec<Logged> {
    let text = std::fs::read_to_string(dir.join("access.log")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            let [session, method, http_method, status, upstream, last, msec, took] = f[..] else {
                return None;
            };
            let dash = |s: &str| if s == "-" { String::new() } else { s.to_owned() };
            let ms = |s: &str| (s.parse::<f64>().unwrap_or(0.0) * 1000.0).round() as i64;
            Some(Logged {
                session: dash(session),
                method: dash(method),
                http_method: http_method.to_owned(),
                status: status.to_owned(),
                // After a failed try nginx lists every upstream it tried: the last one answered.
                upstream: upstream.rsplit(", ").next().unwrap_or("").to_owned(),
                last_event_id: dash(last),
                started_ms: ms(msec) - ms(took),
                ended_ms: ms(msec),
            })
        })
        .collect()
}

/// The instances that answered `lines` with a 2xx.
pub fn upstreams_of<'a>(lines: impl Iterator<Item = &'a Logged>) -> std::collections::BTreeSet<String> {
    lines.filter(|l| l.status.starts_with('2')).map(|l| l.upstream.clone()).collect()
}

/// How many TCP connections are established at each of `ports` (accepted by the server
/// listening there: requests in flight and open streams, nginx keeping no idle upstream
/// connection), from `/proc/net/tcp`.
pub fn established(ports: &[u16]) -> Vec<usize> {
    let mut counts = vec![0; ports.len()];
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else { continue };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state)) = (f.get(1), f.get(3)) else { continue };
            let port = local.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
            if *state == "01" {
                if let Some(i) = ports.iter().position(|p| Some(*p) == port) {
                    counts[i] += 1;
                }
            }
        }
    }
    counts
}

/// Waits (20 s at most) until `ready` holds for the connections at `ports`; returns them.
pub fn wait_for_connections(ports: &[u16], what: &str, ready: impl Fn(&[usize]) -> bool) -> Vec<usize> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = established(ports);
        if ready(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "never {what}: connections at the instances are {now:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An SDK client script, running: one JSON line per report on stdout, a line on stdin to go on.
pub struct Script {
    kid: Kid,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Script {
    /// `program script --url url args…`.
    pub fn start(program: &str, script: &Path, url: &str, args: &[&str]) -> Script {
        let mut child = Command::new(program)
            .arg(script)
            .args(["--url", url])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{program} {}: {e}", script.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Script { kid: Kid(child), stdin, stdout }
    }

    /// `tests/interop/python/sdk_scale_client.py` on the official Python SDK.
    pub fn python(url: &str, args: &[&str]) -> Script {
        Script::start(&python(), &workspace().join("tests/interop/python/sdk_scale_client.py"), url, args)
    }

    /// `tests/interop/ts/sdk_scale_client.mjs` on the official TypeScript SDK.
    pub fn node(url: &str, args: &[&str]) -> Script {
        Script::start("node", &workspace().join("tests/interop/ts/sdk_scale_client.mjs"), url, args)
    }

    /// The next report.
    pub fn line(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the SDK client ended without output (its error is on stderr above)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Lets the script go on.
    pub fn resume(&mut self) {
        writeln!(self.stdin.as_mut().unwrap()).unwrap();
    }

    /// The last report; the script must succeed.
    pub fn finish(mut self) -> Value {
        let out = self.line();
        let status = self.kid.0.wait().unwrap();
        assert!(status.success(), "the SDK client failed: {status}");
        out
    }
}
