//! A stdio client's child stdout read on the asyncio loop's thread (`loop.add_reader`), its
//! frames dispatched there (`mcpcore::transport::host_read`): a call's answer completes the
//! call, and resolves its asyncio future, where it is read, with no runtime thread woken to read
//! the pipe and no hand-off back (issue 47 step 2). Loops without `add_reader` (Windows'
//! proactor), and Windows itself, keep the core's reader task.

use crate::parked::feeding;
use mcpcore::transport::host_read::HostRead;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// The loop's reader callback for one child's stdout.
#[pyclass(module = "mcpcore._native", frozen)]
pub(crate) struct StdoutReader {
    read: Arc<HostRead>,
    #[cfg(unix)]
    file: Mutex<Option<std::fs::File>>,
    event_loop: Py<PyAny>,
}

#[pymethods]
impl StdoutReader {
    /// Reads what the pipe holds (non-blocking), dispatches it, and resolves the futures of
    /// the calls it answered; at end of file, stops watching and closes the connection.
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        #[cfg(unix)]
        {
            use std::io::Read as _;
            let runtime = pyo3_async_runtimes::tokio::get_runtime().handle().clone();
            let mut buf = vec![0u8; 64 * 1024];
            let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
            let Some(file) = guard.as_mut() else { return Ok(()) };
            // Bounded: a peer writing without pause still lets the loop run other callbacks.
            for _ in 0..16 {
                match file.read(&mut buf) {
                    Ok(0) => {
                        self.stop(py, &mut guard)?;
                        py.detach(|| feeding(&runtime, || self.read.end()));
                        break;
                    }
                    Ok(n) => {
                        let chunk = &buf[..n];
                        // Without the GIL: the client's own threads may need it meanwhile.
                        py.detach(|| feeding(&runtime, || self.read.push(chunk)));
                        if n < buf.len() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        self.stop(py, &mut guard)?;
                        py.detach(|| feeding(&runtime, || self.read.end()));
                        break;
                    }
                }
            }
            drop(guard);
            crate::awaitable::drain_now(py, self.event_loop.bind(py))?;
        }
        Ok(())
    }
}

impl StdoutReader {
    /// Stops watching the descriptor and closes it.
    #[cfg(unix)]
    fn stop(&self, py: Python<'_>, file: &mut Option<std::fs::File>) -> PyResult<()> {
        use std::os::fd::AsRawFd as _;
        if let Some(f) = file.take() {
            self.event_loop.bind(py).call_method1("remove_reader", (f.as_raw_fd(),))?;
        }
        Ok(())
    }
}

/// The spawner `Client::connect_stdio_with` calls: each child's stdout is watched by
/// `event_loop` (from the runtime thread that spawned it, through `call_soon_threadsafe`).
#[cfg(unix)]
pub(crate) fn spawner(event_loop: Py<PyAny>) -> mcpcore::client::Spawn {
    Arc::new(move |cmd, max_frame| {
        let (channel, process, read) = mcpcore::transport::child::spawn_host_read(cmd, max_frame)?;
        let fd = read.take_fd().ok_or_else(|| std::io::Error::other("the server's stdout was taken"))?;
        crate::gil::attach(|py| -> PyResult<()> {
            use std::os::fd::AsRawFd as _;
            let file = std::fs::File::from(fd);
            let raw = file.as_raw_fd();
            let loop_ = event_loop.bind(py);
            let reader =
                StdoutReader { read, file: Mutex::new(Some(file)), event_loop: event_loop.clone_ref(py) };
            let add = loop_.getattr("add_reader")?;
            loop_.call_method1("call_soon_threadsafe", (add, raw, reader))?;
            Ok(())
        })
        .map_err(|e| {
            std::io::Error::other(format!("the asyncio loop cannot watch the server's stdout: {e}"))
        })?;
        Ok((channel, process))
    })
}
