//! The client side of stdio: spawn the server as a child process and talk over its stdin/stdout.
//!
//! The child is killed when the [`ChildProcess`] handle is dropped or closed (no orphans). When
//! it dies, the channel's last event says how: exit code or signal, plus its last stderr lines.

use super::{framing, Channel, TransportEvent};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncBufReadExt;
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot, watch};

const STDERR_LINES_KEPT: usize = 20;

/// What to spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Copy the child's stderr to ours (it is always kept for error messages too).
    pub inherit_stderr: bool,
}

impl StdioCommand {
    /// `program` with `args`.
    pub fn new<I, S>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        StdioCommand {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            inherit_stderr: false,
        }
    }
    /// Adds an environment variable.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }
}

/// A running child server. Dropping it kills the process.
#[derive(Debug)]
pub struct ChildProcess {
    pid: Option<u32>,
    shutdown: Mutex<Option<oneshot::Sender<Duration>>>,
    exited: watch::Receiver<Option<String>>,
}

impl ChildProcess {
    /// The OS process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }
    /// Asks the child to stop: its stdin is already closed by the caller dropping the
    /// channel's sender; after `grace` it is killed. Waits until it is gone.
    pub async fn close(&self, grace: Duration) {
        if let Some(tx) = self.shutdown.lock().expect("lock").take() {
            let _ = tx.send(grace);
        }
        let mut exited = self.exited.clone();
        let _ = exited.wait_for(Option::is_some).await;
    }
    /// How the child ended, once it has.
    pub fn exit_reason(&self) -> Option<String> {
        self.exited.borrow().clone()
    }
}

fn describe(status: std::io::Result<ExitStatus>, stderr: &Mutex<VecDeque<String>>) -> String {
    let how = match status {
        Ok(s) => match (s.code(), exit_signal(&s)) {
            (Some(c), _) => format!("server exited with code {c}"),
            (None, Some(sig)) => format!("server was killed by signal {sig}"),
            (None, None) => "server exited".to_owned(),
        },
        Err(e) => format!("server process could not be waited for: {e}"),
    };
    let lines = stderr.lock().expect("lock");
    if lines.is_empty() {
        how
    } else {
        format!("{how}; last stderr lines:\n{}", lines.iter().cloned().collect::<Vec<_>>().join("\n"))
    }
}

#[cfg(unix)]
fn exit_signal(s: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(s)
}

#[cfg(not(unix))]
fn exit_signal(_: &ExitStatus) -> Option<i32> {
    None
}

/// Spawns `cmd` and connects a [`Channel`] to its stdin/stdout.
pub fn spawn(cmd: &StdioCommand, max_frame: usize) -> std::io::Result<(Channel, Arc<ChildProcess>)> {
    let mut c = Command::new(&cmd.program);
    c.args(&cmd.args)
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(dir) = &cmd.cwd {
        c.current_dir(dir);
    }
    let mut child = c
        .spawn()
        .map_err(|e| std::io::Error::new(e.kind(), format!("could not start {:?}: {e}", cmd.program)))?;
    let pid = child.id();
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");

    let stderr_lines = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_LINES_KEPT)));
    let stderr_done = {
        let lines = stderr_lines.clone();
        let inherit = cmd.inherit_stderr;
        tokio::spawn(async move {
            let mut r = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = r.next_line().await {
                if inherit {
                    eprintln!("{line}");
                }
                let mut l = lines.lock().expect("lock");
                if l.len() == STDERR_LINES_KEPT {
                    l.pop_front();
                }
                l.push_back(line);
            }
        })
    };

    let (exit_tx, exit_rx) = watch::channel(None::<String>);
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<Duration>();
    {
        let lines = stderr_lines.clone();
        tokio::spawn(async move {
            let status = tokio::select! {
                s = child.wait() => s,
                grace = shutdown_rx => {
                    // Closed by the host (grace given) or dropped (kill at once).
                    let grace = grace.unwrap_or(Duration::ZERO);
                    match tokio::time::timeout(grace, child.wait()).await {
                        Ok(s) => s,
                        Err(_) => {
                            let _ = child.start_kill();
                            child.wait().await
                        }
                    }
                }
            };
            // Give the stderr reader a moment to collect the last lines.
            let _ = tokio::time::timeout(Duration::from_millis(200), stderr_done).await;
            let _ = exit_tx.send(Some(describe(status, &lines)));
        });
    }

    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let mut exited = exit_rx.clone();
    tokio::spawn(async move {
        let reader = tokio::io::BufReader::with_capacity(64 * 1024, stdout);
        let _ = framing::pump_reader(reader, &in_tx, max_frame).await;
        // stdout closed: report why once the process is gone (bounded wait).
        let reason =
            match tokio::time::timeout(Duration::from_secs(5), exited.wait_for(Option::is_some)).await {
                Ok(Ok(r)) => r.clone().unwrap_or_default(),
                _ => "server closed its stdout".to_owned(),
            };
        let _ = in_tx.send(TransportEvent::Closed(reason));
    });
    let flushed = tokio::spawn(async move {
        let _ = framing::pump_writer(stdin, out_rx).await;
    });
    let process = Arc::new(ChildProcess { pid, shutdown: Mutex::new(Some(shutdown_tx)), exited: exit_rx });
    Ok((Channel { tx: out_tx, rx: in_rx, flushed: Some(flushed) }, process))
}
