//! SIGINT and SIGTERM for `mcpcore tools|call`: the first one stops the work in order (the call
//! in flight gets `notifications/cancelled`, then the server's stdin is closed, then its process
//! group gets SIGTERM and SIGKILL, as `Client::close` does); a second one kills the server's
//! group at once.

use std::process::ExitCode;

/// The process's SIGINT and SIGTERM, taken from their default action (which would kill the
/// CLI and leave the server to its parent-death signal and watchdog).
pub(crate) struct Signals {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts catching SIGINT and SIGTERM.
    pub(crate) fn catch() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals { int: signal(SignalKind::interrupt())?, term: signal(SignalKind::terminate())? })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal, as the exit code a shell expects after it (128 + signal number).
    pub(crate) async fn next(&mut self) -> ExitCode {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => ExitCode::from(130),
                _ = self.term.recv() => ExitCode::from(143),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            ExitCode::from(130)
        }
    }
}
