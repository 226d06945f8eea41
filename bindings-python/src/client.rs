//! `Client`: connect over stdio or HTTP, list and call tools.

use crate::registry::seconds;
use crate::{errors, parse_json, to_json};
use mcpcore::client::{CallOptions, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::ProtocolVersion;
use pyo3::prelude::*;
use std::sync::Mutex;

/// A connected client (see `mcpcore.Client`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Client {
    inner: Mutex<Option<mcpcore::client::Client>>,
}

impl Client {
    /// The live connection, or `ConnectionClosed`.
    pub(crate) fn inner(&self) -> PyResult<mcpcore::client::Client> {
        self.inner
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| errors::to_py(mcpcore::Error::closed("the client was closed")))
    }
}

fn options(
    protocol_version: Option<&str>,
    lineage: Option<&str>,
    timeout: Option<f64>,
) -> PyResult<ClientOptions> {
    let mut o = ClientOptions::default();
    o.info.name = "mcpcore-python".into();
    if let Some(v) = protocol_version {
        o.version = Some(v.parse::<ProtocolVersion>().map_err(errors::to_py)?);
    }
    o.lineage = match lineage {
        None => None,
        Some("modern") => Some(Lineage::Modern),
        Some("legacy") => Some(Lineage::Legacy),
        Some(other) => {
            return Err(errors::to_py(mcpcore::Error::invalid_input(format!(
                "lineage must be 'modern' or 'legacy', not {other:?}"
            ))))
        }
    };
    if let Some(t) = seconds(timeout)? {
        o.request_timeout = t;
    }
    Ok(o)
}

#[pymethods]
impl Client {
    /// Spawns `command` and connects over its stdio.
    #[staticmethod]
    #[pyo3(signature = (command, args, env=None, cwd=None, protocol_version=None, lineage=None, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn connect_stdio<'py>(
        py: Python<'py>,
        command: String,
        args: Vec<String>,
        env: Option<Vec<(String, String)>>,
        cwd: Option<String>,
        protocol_version: Option<&str>,
        lineage: Option<&str>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = options(protocol_version, lineage, timeout)?;
        let mut cmd = StdioCommand::new(command, args);
        cmd.env = env.unwrap_or_default();
        cmd.cwd = cwd.map(Into::into);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let c = mcpcore::client::Client::connect_stdio(cmd, opts).await.map_err(errors::to_py)?;
            Ok(Client { inner: Mutex::new(Some(c)) })
        })
    }

    /// Connects to an HTTP endpoint (Streamable HTTP, falling back to 2024-11-05 SSE).
    #[staticmethod]
    #[pyo3(signature = (url, headers=None, bearer_token=None, transport="auto", protocol_version=None,
                        lineage=None, timeout=None, auth=None, ca_file=None, client_cert=None, client_key=None))]
    #[allow(clippy::too_many_arguments)]
    fn connect_http<'py>(
        py: Python<'py>,
        url: String,
        headers: Option<Vec<(String, String)>>,
        bearer_token: Option<String>,
        transport: &str,
        protocol_version: Option<&str>,
        lineage: Option<&str>,
        timeout: Option<f64>,
        auth: Option<PyRef<'py, crate::auth::OAuth>>,
        ca_file: Option<std::path::PathBuf>,
        client_cert: Option<std::path::PathBuf>,
        client_key: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = options(protocol_version, lineage, timeout)?;
        let tls = mcpcore::http::tls::TlsOptions::from_files(
            ca_file.as_deref(),
            client_cert.as_deref(),
            client_key.as_deref(),
        )
        .map_err(errors::to_py)?;
        let transport = match transport {
            "auto" => HttpTransport::Auto,
            "streamable" => HttpTransport::Streamable,
            "sse" => HttpTransport::Sse,
            other => {
                return Err(errors::to_py(mcpcore::Error::invalid_input(format!(
                    "transport must be 'auto', 'streamable' or 'sse', not {other:?}"
                ))))
            }
        };
        if let Some(a) = &auth {
            a.bind_loop(py);
        }
        let http = HttpOptions {
            headers: headers.unwrap_or_default(),
            bearer_token,
            transport,
            auth: auth.map(|a| a.inner.clone()),
            tls,
            ..Default::default()
        };
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let c = mcpcore::client::Client::connect_http(&url, http, opts).await.map_err(errors::to_py)?;
            Ok(Client { inner: Mutex::new(Some(c)) })
        })
    }

    /// The negotiated revision, e.g. "2026-07-28".
    #[getter]
    fn protocol_version(&self) -> PyResult<&'static str> {
        Ok(self.inner()?.protocol_version().as_str())
    }

    /// "modern" or "legacy".
    #[getter]
    fn lineage(&self) -> PyResult<&'static str> {
        Ok(match self.inner()?.lineage() {
            Lineage::Modern => "modern",
            Lineage::Legacy => "legacy",
        })
    }

    /// The server's implementation info as JSON, or None.
    #[getter]
    fn server_info(&self) -> PyResult<Option<String>> {
        Ok(self.inner()?.server_info().map(|i| to_json(&i)))
    }

    /// The server's instructions, or None.
    #[getter]
    fn instructions(&self) -> PyResult<Option<String>> {
        Ok(self.inner()?.negotiated().instructions)
    }

    /// Resolves to the server's tools as a JSON array (every page).
    fn list_tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            c.list_tools().await.map(|t| to_json(&t)).map_err(errors::to_py)
        })
    }

    /// Calls a tool; resolves to the CallToolResult JSON. Cancelling the awaiting task sends
    /// the cancellation to the server. `progress(progress, total, message)` receives progress.
    #[pyo3(signature = (name, arguments, timeout=None, progress=None, log_level=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        timeout: Option<f64>,
        progress: Option<Py<PyAny>>,
        log_level: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let args = parse_json("arguments", arguments)?;
        let log_level = match log_level {
            None => None,
            Some(l) => Some(LoggingLevel::parse(l).ok_or_else(|| {
                errors::to_py(mcpcore::Error::invalid_input(format!("unknown log level {l:?}")))
            })?),
        };
        let mut opts = CallOptions { timeout: seconds(timeout)?, log_level, ..Default::default() };
        if let Some(cb) = progress {
            opts.on_progress = Some(Box::new(move |p| {
                crate::gil::attach(|py| {
                    if let Err(e) = cb.call1(py, (p.progress, p.total, p.message)) {
                        e.print(py);
                    }
                })
            }));
        }
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            c.call_tool_with(&name, args, &opts).await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// Calls `handler(level, logger, data_json)` for every `notifications/message` the server
    /// sends; the last handler set wins.
    fn on_log(&self, handler: Py<PyAny>) -> PyResult<()> {
        self.inner()?.on_log(move |m| {
            crate::gil::attach(|py| {
                let data = m.data.to_string();
                if let Err(e) = handler.call1(py, (m.level.as_str(), m.logger, data)) {
                    e.print(py);
                }
            })
        });
        Ok(())
    }

    /// Sends any request; resolves to the result JSON.
    fn request<'py>(&self, py: Python<'py>, method: String, params: &str) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let params = parse_json("params", params)?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            c.request(&method, params).await.map(|r| r.to_string()).map_err(errors::to_py)
        })
    }

    /// Closes the connection (a spawned server is stopped); later calls raise ConnectionClosed.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner.lock().expect("lock").take();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            if let Some(c) = c {
                c.close().await;
            }
            Ok(())
        })
    }
}
