//! How a stdio client starts and stops its server so that no process outlives the client.
//!
//! - **One process group per server.** The child is the leader of a new process group, so a
//!   server behind `sh -c`, `npx` or `uvx` is stopped with everything it started, and a
//!   terminal's Ctrl-C reaches the client (which shuts the server down in order) rather than
//!   the server directly.
//! - **Parent-death signal (Linux).** The child is started with `PR_SET_PDEATHSIG = SIGKILL`, so
//!   it dies with the client even when the client is killed with `SIGKILL`. The kernel sends it
//!   when the *thread* that forked the child ends, not the process, so every child is forked
//!   from one dedicated thread that lives as long as the process (a runtime's worker or
//!   blocking-pool thread may end while the child runs).
//! - **Group watchdog (Unix).** The parent-death signal reaches the direct child only. Beside
//!   each server runs a tiny `/bin/sh` in the same group that waits on a pipe only the client
//!   holds: when the client is gone, however it died, the pipe reads end of file and the
//!   watchdog kills the whole group. While it lives, it also keeps the group id from being
//!   reused, so signalling the group can never reach a stranger.
//!
//! Shutdown follows 2025-11-25 basic/lifecycle ("Shutdown", stdio): close the server's stdin,
//! wait, `SIGTERM`, wait, `SIGKILL`; here each signal goes to the whole group.

use std::io;
use tokio::process::{Child, ChildStdin, Command};

/// A server's process group, and the watchdog that kills it if the client dies.
#[derive(Debug)]
pub(crate) struct Group {
    #[cfg(unix)]
    pgid: Option<libc::pid_t>,
    /// Dropping it wakes the watchdog, which kills the group (itself included).
    #[cfg(unix)]
    watchdog: Option<ChildStdin>,
}

impl Group {
    /// Sends `SIGTERM` to every process of the group.
    pub(crate) fn terminate(&self) {
        #[cfg(unix)]
        self.signal(libc::SIGTERM);
    }

    /// Sends `SIGKILL` to every process of the group (the watchdog too).
    pub(crate) fn kill(&mut self) {
        #[cfg(unix)]
        {
            self.signal(libc::SIGKILL);
            self.watchdog = None;
        }
    }

    #[cfg(unix)]
    fn signal(&self, sig: libc::c_int) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The thread every child is forked from (see the module docs): started once per process (again
/// in a forked child, which has no threads but the forking one), never ends.
fn spawner() -> std::sync::mpsc::Sender<Job> {
    static SPAWNER: std::sync::Mutex<Option<(u32, std::sync::mpsc::Sender<Job>)>> =
        std::sync::Mutex::new(None);
    let mut slot = SPAWNER.lock().unwrap_or_else(|p| p.into_inner());
    let pid = std::process::id();
    if let Some((owner, tx)) = slot.as_ref() {
        if *owner == pid {
            return tx.clone();
        }
    }
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("mcpcore-spawner".into())
        .spawn(move || {
            // A sender lives in the static, so this loop ends only with the process.
            while let Ok(job) = rx.recv() {
                job();
            }
        })
        .expect("start the mcpcore-spawner thread");
    *slot = Some((pid, tx.clone()));
    tx
}

/// Runs `f` on the spawner thread, inside the caller's runtime (tokio registers the child with
/// it), and returns its result.
fn on_spawner<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> io::Result<T> {
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let job: Job = Box::new(move || {
        let _entered = handle.enter();
        let _ = tx.send(f());
    });
    spawner().send(job).map_err(|_| io::Error::other("the mcpcore-spawner thread is gone"))?;
    rx.recv().map_err(|_| io::Error::other("the mcpcore-spawner thread dropped a spawn"))
}

/// Starts `cmd` as the leader of a new process group, with the parent-death signal (Linux) and
/// a group watchdog (Unix, when `/bin/sh` exists).
pub(crate) fn spawn(mut cmd: Command) -> io::Result<(Child, Group)> {
    #[cfg(unix)]
    {
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        set_parent_death_signal(&mut cmd);
    }
    on_spawner(move || {
        let child = cmd.spawn()?;
        #[cfg(unix)]
        let group = {
            let pgid = child.id().and_then(|p| libc::pid_t::try_from(p).ok());
            Group { pgid, watchdog: pgid.and_then(watchdog) }
        };
        #[cfg(not(unix))]
        let group = Group {};
        Ok((child, group))
    })?
}

#[cfg(target_os = "linux")]
fn set_parent_death_signal(cmd: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (prctl, getppid); the error it may return is built without allocating.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            // The client died between fork and prctl: the signal will never come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Starts the watchdog of group `pgid` (see the module docs); `None` if it cannot run.
#[cfg(unix)]
fn watchdog(pgid: libc::pid_t) -> Option<ChildStdin> {
    use std::process::Stdio;
    const SH: &str = "/bin/sh";
    // Ignores the signals sent to the group, waits for end of file, then kills the group.
    const SCRIPT: &str = "trap '' HUP INT TERM QUIT; read _; kill -9 -\"$1\"";
    let mut child = Command::new(SH)
        .args(["-c", SCRIPT, "mcpcore-watchdog"])
        .arg(pgid.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(pgid)
        .kill_on_drop(false)
        .spawn()
        .ok()?;
    // Dropping the child handle leaves tokio to reap the watchdog when it exits.
    child.stdin.take()
}
