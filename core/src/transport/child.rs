//! The client side of stdio: spawn the server as a child process and talk over its stdin/stdout.
//!
//! The child and everything it starts are killed when the [`ChildProcess`] handle is dropped or
//! closed, and when the client process dies, however it dies (see [`super::process`]). When
//! the child exits, the channel's last event says how, promptly, even if a process it started
//! still holds its stdout: exit code or signal, plus its last stderr lines.

use super::framing::{self, Side};
use super::host_read::STDOUT_LINGER;
#[cfg(unix)]
use super::host_read::{HostRead, InPlace};
use super::process::{self, Group};
use super::stderr::{self, StderrTail};
use super::{Channel, FrameTx, TransportEvent};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, watch};

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
    /// A command line split as a POSIX shell would split it (quotes and backslashes; no
    /// variables, globs or redirections): `"node server.js --name 'a b'"`. An empty line, or
    /// one with an unbalanced quote, is [`ErrorKind::InvalidInput`](crate::ErrorKind).
    pub fn parse(line: &str) -> crate::Result<Self> {
        let words = shlex::split(line).ok_or_else(|| {
            crate::Error::invalid_input(format!("cannot split the command line {line:?}: unbalanced quotes"))
        })?;
        let mut words = words.into_iter();
        let program = words
            .next()
            .ok_or_else(|| crate::Error::invalid_input("the command line is empty: nothing to spawn"))?;
        Ok(StdioCommand::new(program, words))
    }
    /// What bindings do with `connect_stdio(command, args)`: `command` alone, holding
    /// whitespace and naming no existing file, is a command line ([`StdioCommand::parse`]);
    /// anything else is a program with its arguments.
    pub fn program_or_line(command: &str, args: Vec<String>) -> crate::Result<Self> {
        let line = args.is_empty()
            && command.trim().contains(char::is_whitespace)
            && !std::path::Path::new(command).exists();
        if line {
            return StdioCommand::parse(command);
        }
        if command.is_empty() {
            return Err(crate::Error::invalid_input("the command is empty: nothing to spawn"));
        }
        Ok(StdioCommand::new(command, args))
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

/// After the server exited, how long the rest of its process group has between `SIGTERM` and
/// `SIGKILL`.
const GROUP_GRACE: Duration = Duration::from_millis(250);

/// A running child server. Dropping it kills the process and its process group.
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
    /// Stops the child in the order of 2025-11-25 basic/lifecycle (stdio shutdown): its stdin is
    /// already closed by the caller; after `grace` its process group gets `SIGTERM`, after
    /// another `grace` `SIGKILL`. Waits until the child is gone.
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

fn describe(status: std::io::Result<ExitStatus>, stderr: &StderrTail) -> String {
    let how = match status {
        Ok(s) => match (s.code(), exit_signal(&s)) {
            (Some(c), _) => format!("server exited with code {c}"),
            (None, Some(sig)) => format!("server was killed by signal {sig}"),
            (None, None) => "server exited".to_owned(),
        },
        Err(e) => format!("server process could not be waited for: {e}"),
    };
    let lines = stderr.lines();
    if lines.is_empty() {
        how
    } else {
        format!("{how}; last stderr lines:\n{}", lines.join("\n"))
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

/// Waits for the child; on a shutdown request, stops it (stdin is closed by then): `grace`,
/// `SIGTERM` to the group, `grace`, `SIGKILL`. A dropped request kills at once.
async fn supervise(
    child: &mut Child,
    group: &mut Group,
    shutdown: oneshot::Receiver<Duration>,
) -> std::io::Result<ExitStatus> {
    let grace = tokio::select! {
        s = child.wait() => return s,
        grace = shutdown => grace.unwrap_or(Duration::ZERO),
    };
    if let Ok(s) = tokio::time::timeout(grace, child.wait()).await {
        return s;
    }
    if !grace.is_zero() {
        group.terminate();
        if let Ok(s) = tokio::time::timeout(grace, child.wait()).await {
            return s;
        }
    }
    group.kill();
    let _ = child.start_kill();
    child.wait().await
}

/// Spawns `cmd` and connects a [`Channel`] to its stdin/stdout. The child leads its own process
/// group and cannot outlive the client (see [`super::process`]).
pub fn spawn(cmd: &StdioCommand, max_frame: usize) -> std::io::Result<(Channel, Arc<ChildProcess>)> {
    let started = start(cmd)?;
    let Started { stdout, exited, process, tx, flushed, .. } = started;
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    tokio::spawn(read_stdout(stdout, in_tx, max_frame, exited));
    Ok((Channel { tx, rx: in_rx, flushed: Some(flushed), in_place: None }, process))
}

/// [`spawn`], with the child's stdout left to the host to read ([`HostRead`]): its frames are
/// dispatched on the host's thread, in place, through the channel's [`InPlace`] slot.
#[cfg(unix)]
pub fn spawn_host_read(
    cmd: &StdioCommand,
    max_frame: usize,
) -> std::io::Result<(Channel, Arc<ChildProcess>, Arc<HostRead>)> {
    let Started { stdout, exited, process, tx, flushed } = start(cmd)?;
    let fd = stdout.into_owned_fd()?;
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let in_place = InPlace::default();
    let read = HostRead::new(fd, max_frame, in_place.clone(), in_tx, exited);
    Ok((Channel { tx, rx: in_rx, flushed: Some(flushed), in_place: Some(in_place) }, process, read))
}

/// A started child: its stdout still to be read, its stdin's writer, and its supervisor.
struct Started {
    stdout: tokio::process::ChildStdout,
    exited: watch::Receiver<Option<String>>,
    process: Arc<ChildProcess>,
    tx: FrameTx,
    flushed: tokio::task::JoinHandle<()>,
}

/// Spawns the child in its own process group, with its stderr drained and its exit supervised.
fn start(cmd: &StdioCommand) -> std::io::Result<Started> {
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
    let (mut child, mut group) = process::spawn(c)
        .map_err(|e| std::io::Error::new(e.kind(), format!("could not start {:?}: {e}", cmd.program)))?;
    let pid = child.id();
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");

    let tail = StderrTail::default();
    let stderr_done = tokio::spawn(stderr::drain(stderr, cmd.inherit_stderr, tail.clone()));

    let (exit_tx, exit_rx) = watch::channel(None::<String>);
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<Duration>();
    tokio::spawn(async move {
        let status = supervise(&mut child, &mut group, shutdown_rx).await;
        // The server is gone; what it started goes too (this also ends a grandchild's hold
        // on stdout and stderr, so the readers reach end of file).
        group.terminate();
        // Give the stderr reader a moment to collect the last lines.
        let _ = tokio::time::timeout(Duration::from_millis(200), stderr_done).await;
        let _ = exit_tx.send(Some(describe(status, &tail)));
        tokio::time::sleep(GROUP_GRACE).await;
        drop(group); // SIGKILL to the group, and the watchdog ends
    });
    let (tx, flushed) = writer(stdin);
    let process =
        Arc::new(ChildProcess { pid, shutdown: Mutex::new(Some(shutdown_tx)), exited: exit_rx.clone() });
    Ok(Started { stdout, exited: exit_rx, process, tx, flushed })
}

/// Reads the child's stdout on a runtime task until end of file (once the server process has
/// exited, only a little longer), then reports why the connection ended.
async fn read_stdout(
    stdout: tokio::process::ChildStdout,
    in_tx: mpsc::UnboundedSender<TransportEvent>,
    max_frame: usize,
    exited: watch::Receiver<Option<String>>,
) {
    // The optional spin before a read blocks (off unless MCPCORE_STDIO_SPIN_US; super::spin).
    #[cfg(unix)]
    let stdout = super::spin::SpinRead::new(stdout);
    let reader = tokio::io::BufReader::with_capacity(64 * 1024, stdout);
    let pump = framing::pump_frames(reader, &in_tx, max_frame, Side::Client);
    tokio::pin!(pump);
    let mut exited_early = exited.clone();
    tokio::select! {
        _ = &mut pump => {}
        _ = async {
            let _ = exited_early.wait_for(Option::is_some).await;
            tokio::time::sleep(STDOUT_LINGER).await;
        } => {}
    }
    // stdout closed: report why once the process is gone (bounded wait).
    let mut exited = exited;
    let reason = match tokio::time::timeout(Duration::from_secs(5), exited.wait_for(Option::is_some)).await {
        Ok(Ok(r)) => r.clone().unwrap_or_default(),
        _ => "server closed its stdout".to_owned(),
    };
    let _ = in_tx.send(TransportEvent::Closed(reason));
}

/// The child's stdin: on Unix written from the caller's thread when nothing waits
/// ([`super::direct`]; a request leaves without a writer task woken for it), elsewhere (or if
/// the pipe cannot be taken over) by a writer task.
fn writer(stdin: tokio::process::ChildStdin) -> (FrameTx, tokio::task::JoinHandle<()>) {
    #[cfg(unix)]
    {
        // `into_owned_fd` gives the descriptor up only on success; a pipe that will not
        // register has nothing to fall back to.
        match stdin.into_owned_fd().map(tokio::net::unix::pipe::Sender::from_owned_fd) {
            Ok(Ok(pipe)) => {
                let (direct, drain) = super::direct::DirectWriter::pipe(pipe, "the server's stdin");
                (FrameTx::direct(direct), tokio::spawn(drain))
            }
            Ok(Err(e)) | Err(e) => failed_writer(e),
        }
    }
    #[cfg(not(unix))]
    {
        let (tx, rx) = mpsc::unbounded_channel();
        let flushed = tokio::spawn(async move {
            let _ = framing::pump_writer(stdin, rx).await;
        });
        (tx.into(), flushed)
    }
}

/// A writer whose every send fails (the child's stdin could not be set up): the client fails
/// its first call with "the transport is closed" and the child's exit reason follows.
#[cfg(unix)]
fn failed_writer(e: std::io::Error) -> (FrameTx, tokio::task::JoinHandle<()>) {
    eprintln!("mcpcore: the server's stdin could not be set up: {e}");
    let (tx, rx) = mpsc::unbounded_channel();
    drop(rx);
    (tx.into(), tokio::spawn(async {}))
}

#[cfg(test)]
mod tests {
    use super::StdioCommand;

    #[test]
    fn command_lines_split_like_a_shell() {
        let c = StdioCommand::parse("node  server.js --name 'a b' \"c d\" e\\ f").unwrap();
        assert_eq!(c.program, "node");
        assert_eq!(c.args, ["server.js", "--name", "a b", "c d", "e f"]);
        assert!(StdioCommand::parse("node 'open").is_err());
        assert!(StdioCommand::parse("   ").is_err());
    }

    #[test]
    fn one_string_is_a_line_unless_it_names_a_file() {
        let c = StdioCommand::program_or_line("npx -y @scope/server", Vec::new()).unwrap();
        assert_eq!((c.program.as_str(), c.args.len()), ("npx", 2));
        // With arguments, or naming an existing file (spaces and all), it is the program.
        let c = StdioCommand::program_or_line("my server", vec!["x".into()]).unwrap();
        assert_eq!((c.program.as_str(), c.args.as_slice()), ("my server", &["x".to_owned()][..]));
        let dir = std::env::temp_dir().join(format!("mcpcore child {}", std::process::id()));
        std::fs::write(&dir, b"").unwrap();
        let path = dir.to_string_lossy().into_owned();
        assert_eq!(StdioCommand::program_or_line(&path, Vec::new()).unwrap().program, path);
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(StdioCommand::program_or_line("python3", Vec::new()).unwrap().program, "python3");
        assert!(StdioCommand::program_or_line("", Vec::new()).is_err());
    }
}
