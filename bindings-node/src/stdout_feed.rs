//! A stdio client's child stdout read by libuv on the JS thread (`lib/stdout-feed.js`), its
//! frames dispatched there (`mcpcore::transport::host_read`): a call's answer settles its
//! Promise where it is read, with no tokio worker woken to read the pipe and no thread-safe
//! function to come back (issue 47 step 2, bench/NOTES.md "A client reads its child's stdout on
//! the JS thread"). On Windows the core's own reader task stays.

use mcpcore::transport::host_read::HostRead;
use napi::bindgen_prelude::{Buffer, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use std::sync::Arc;

/// Hands a freshly spawned child's stdout to the JS thread (weak: the connect's own Promise keeps
/// the event loop alive meanwhile).
pub(crate) type AttachFn = ThreadsafeFunction<StdoutFeed, Unknown<'static>, StdoutFeed, Status, false, true>;

/// The stdout of a spawned server, for the JS thread to read: take the descriptor once, then
/// give every chunk to `push` and the end (or an error) to `end`.
#[napi]
pub struct StdoutFeed {
    read: Arc<HostRead>,
}

#[napi]
impl StdoutFeed {
    /// The descriptor of the child's stdout, once (the reader owns and closes it); -1 after.
    #[napi]
    pub fn take_fd(&self) -> i32 {
        #[cfg(unix)]
        {
            use std::os::fd::IntoRawFd;
            self.read.take_fd().map_or(-1, IntoRawFd::into_raw_fd)
        }
        #[cfg(not(unix))]
        {
            -1
        }
    }

    /// The next bytes read: the frames they complete are dispatched now, and the calls they
    /// answer settle before this returns.
    #[napi]
    pub fn push(&self, env: Env, chunk: Buffer) {
        crate::settle::feeding(&env, || self.read.push(&chunk));
    }

    /// The stream ended (end of file, or a read error): the connection closes with the
    /// process's exit reason.
    #[napi]
    pub fn end(&self, env: Env) {
        crate::settle::feeding(&env, || self.read.end());
    }
}

/// The spawner `Client::connect_stdio_with` calls: the child's stdout goes to `attach`.
#[cfg(unix)]
pub(crate) fn spawner(attach: Arc<AttachFn>) -> mcpcore::client::Spawn {
    Arc::new(move |cmd, max_frame| {
        let (channel, process, read) = mcpcore::transport::child::spawn_host_read(cmd, max_frame)?;
        let status = attach.call(StdoutFeed { read }, ThreadsafeFunctionCallMode::NonBlocking);
        if status != Status::Ok {
            return Err(std::io::Error::other(
                "the JS thread cannot take the server's stdout (is it closing?)",
            ));
        }
        Ok((channel, process))
    })
}
