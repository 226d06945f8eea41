//! `Client`: connect over stdio or HTTP; tools, resources, prompts, completion, tasks (the
//! handle: `task.rs`); notifications; roots. Results cross as JSON text.

use crate::client_input::ClientInput;
use crate::values::seconds;
use crate::{errors, parse_as, parse_json, to_json};
use mcpcore::client::{CallOptions, ClientOptions, Negotiated, NotificationKinds, TaskOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::completion::{CompleteArgument, CompleteContext, CompletionReference};
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::ProtocolVersion;
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::sync::Mutex;

fn invalid(message: String) -> PyErr {
    errors::to_py(mcpcore::Error::invalid_input(message))
}

/// A connected client (see `mcpcore.Client`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Client {
    inner: Mutex<Option<mcpcore::client::Client>>,
    /// What negotiation settled, kept after `close` so it stays readable.
    last: Mutex<Option<Negotiated>>,
}

impl Client {
    fn wrap(c: mcpcore::client::Client) -> Client {
        Client { inner: Mutex::new(Some(c)), last: Mutex::new(None) }
    }

    /// The live connection, or `ConnectionClosed`.
    pub(crate) fn inner(&self) -> PyResult<mcpcore::client::Client> {
        self.inner
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| errors::to_py(mcpcore::Error::closed("the client was closed")))
    }

    /// What negotiation settled, live or as it was at `close`.
    fn negotiated(&self) -> PyResult<Negotiated> {
        if let Some(c) = self.inner.lock().expect("lock").as_ref() {
            return Ok(c.negotiated());
        }
        self.last
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| errors::to_py(mcpcore::Error::closed("the client was closed before it connected")))
    }
}

impl Drop for Client {
    /// Dropping the last handle of a connection stops it, which needs the runtime (Python may
    /// drop this object on any thread, outside it).
    fn drop(&mut self) {
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        if let Ok(mut c) = self.inner.lock() {
            c.take();
        }
    }
}

pub(crate) fn level(level: Option<&str>) -> PyResult<Option<LoggingLevel>> {
    match level {
        None => Ok(None),
        Some(l) => LoggingLevel::parse(l)
            .map(Some)
            .ok_or_else(|| errors::to_py(mcpcore::Error::invalid_input(format!("unknown log level {l:?}")))),
    }
}

fn options(
    py: Python<'_>,
    protocol_version: Option<&str>,
    lineage: Option<&str>,
    timeout: Option<f64>,
    probe_timeout: Option<f64>,
    input: Option<&ClientInput>,
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
    if let Some(t) = seconds(probe_timeout)? {
        o.probe_timeout = t;
    }
    if let Some(i) = input {
        i.apply(py, &mut o);
    }
    Ok(o)
}

#[pymethods]
impl Client {
    /// Spawns `command` and connects over its stdio. `command` alone may be a whole command
    /// line (split like a shell would, no expansion).
    #[staticmethod]
    #[pyo3(signature = (command, args, env=None, cwd=None, protocol_version=None, lineage=None, timeout=None,
                        probe_timeout=None, input=None))]
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
        probe_timeout: Option<f64>,
        input: Option<PyRef<'py, ClientInput>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = options(py, protocol_version, lineage, timeout, probe_timeout, input.as_deref())?;
        let mut cmd = StdioCommand::program_or_line(&command, args).map_err(errors::to_py)?;
        cmd.env = env.unwrap_or_default();
        cmd.cwd = cwd.map(Into::into);
        // The child's stdout stays with the runtime's reader task: a client outlives the asyncio
        // loop it was made on (`asyncio.run` twice), which a reader on that loop would not.
        crate::awaitable::future_into_py(py, async move {
            let c = mcpcore::client::Client::connect_stdio(cmd, opts).await.map_err(errors::to_py)?;
            Ok(Client::wrap(c))
        })
    }

    /// Connects to an HTTP endpoint (Streamable HTTP, falling back to 2024-11-05 SSE).
    #[staticmethod]
    #[pyo3(signature = (url, headers=None, bearer_token=None, transport="auto", protocol_version=None,
                        lineage=None, timeout=None, auth=None, ca_file=None, client_cert=None, client_key=None,
                        probe_timeout=None, input=None))]
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
        probe_timeout: Option<f64>,
        input: Option<PyRef<'py, ClientInput>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = options(py, protocol_version, lineage, timeout, probe_timeout, input.as_deref())?;
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
        crate::awaitable::future_into_py(py, async move {
            let c = mcpcore::client::Client::connect_http(&url, http, opts).await.map_err(errors::to_py)?;
            Ok(Client::wrap(c))
        })
    }

    /// The Server Card of the endpoint `url` (`GET <url>/server-card`), as JSON, fetched before
    /// connecting.
    #[staticmethod]
    #[pyo3(signature = (url, headers=None, bearer_token=None, ca_file=None))]
    fn server_card<'py>(
        py: Python<'py>,
        url: String,
        headers: Option<Vec<(String, String)>>,
        bearer_token: Option<String>,
        ca_file: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tls = mcpcore::http::tls::TlsOptions::from_files(ca_file.as_deref(), None, None)
            .map_err(errors::to_py)?;
        let http =
            HttpOptions { headers: headers.unwrap_or_default(), bearer_token, tls, ..Default::default() };
        crate::awaitable::future_into_py(py, async move {
            let card = mcpcore::client::server_card(&url, &http).await.map_err(errors::to_py)?;
            Ok(card.to_string())
        })
    }

    /// The negotiated revision, e.g. "2026-07-28" (still readable after `close`).
    #[getter]
    fn protocol_version(&self) -> PyResult<&'static str> {
        Ok(self.negotiated()?.version.as_str())
    }

    /// "modern" or "legacy".
    #[getter]
    fn lineage(&self) -> PyResult<&'static str> {
        Ok(match self.negotiated()?.version.lineage() {
            Lineage::Modern => "modern",
            Lineage::Legacy => "legacy",
        })
    }

    /// The server's implementation info as JSON, or None.
    #[getter]
    fn server_info(&self) -> PyResult<Option<String>> {
        Ok(self.negotiated()?.server_info.map(|i| to_json(&i)))
    }

    /// The server's capabilities as JSON.
    #[getter]
    fn server_capabilities(&self) -> PyResult<String> {
        Ok(to_json(&self.negotiated()?.capabilities))
    }

    /// The server's instructions, or None.
    #[getter]
    fn instructions(&self) -> PyResult<Option<String>> {
        Ok(self.negotiated()?.instructions)
    }

    /// Resolves to the server's tools as a JSON array (every page).
    fn list_tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.list_tools().await.map(|t| to_json(&t)).map_err(errors::to_py)
        })
    }

    /// Calls a tool with `arguments` (a dict, converted to JSON here); resolves to the
    /// CallToolResult as a dict. Cancelling the awaiting task sends the cancellation to the
    /// server. `progress(progress, total, message)` receives progress.
    #[pyo3(signature = (name, arguments, timeout=None, progress=None, log_level=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &Bound<'py, PyAny>,
        timeout: Option<f64>,
        progress: Option<Py<PyAny>>,
        log_level: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let args = crate::values::json_value(arguments)?;
        let mut opts =
            CallOptions { timeout: seconds(timeout)?, log_level: level(log_level)?, ..Default::default() };
        if let Some(cb) = progress {
            opts.on_progress = Some(std::sync::Arc::new(move |p| {
                crate::gil::attach(|py| {
                    if let Err(e) = cb.call1(py, (p.progress, p.total, p.message)) {
                        e.print(py);
                    }
                })
            }));
        }
        crate::awaitable::spawn_here(
            py,
            async move { c.call_tool_with(&name, args, &opts).await },
            |py, out| match out {
                Ok(r) => {
                    crate::values::to_py(py, &serde_json::to_value(&r).map_err(|e| invalid(e.to_string()))?)
                        .map(Bound::unbind)
                }
                Err(e) => Err(errors::to_py(e)),
            },
        )
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

    /// Calls `handler(method, params_json)` for every change notification of the server that
    /// answers no request, of the `methods` wanted (`None`: all); the last handler set wins.
    /// On legacy Streamable HTTP the GET stream they travel on is open; on 2026-07-28 a listen
    /// stream asking for these methods (and the subscribed resources).
    #[pyo3(signature = (handler, methods=None))]
    fn on_notification(&self, handler: Py<PyAny>, methods: Option<Vec<String>>) -> PyResult<()> {
        let kinds = match &methods {
            Some(m) => NotificationKinds::from_methods(m.iter().map(String::as_str)),
            None => NotificationKinds::ALL,
        };
        self.inner()?.on_notifications(kinds, move |e| {
            crate::gil::attach(|py| {
                if let Err(err) = handler.call1(py, (e.method().to_owned(), e.params().to_string())) {
                    err.print(py);
                }
            })
        });
        Ok(())
    }

    /// Replaces the roots the client answers with (JSON list of `{uri, name}`) and tells a
    /// legacy server (`notifications/roots/list_changed`).
    fn set_roots(&self, roots: &str) -> PyResult<()> {
        let roots = parse_as("roots", roots)?;
        self.inner()?.set_roots(roots).map_err(errors::to_py)
    }

    /// Tells a legacy server the roots changed (for roots answered by a callback).
    fn roots_changed(&self) -> PyResult<()> {
        self.inner()?.roots_changed().map_err(errors::to_py)
    }

    /// Resolves when the server answered a ping (`server/discover` on 2026-07-28).
    fn ping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move { c.ping().await.map_err(errors::to_py) })
    }

    /// Asks for log messages at `level` and above (`logging/setLevel`, or every later
    /// 2026-07-28 request's `_meta`).
    fn set_log_level<'py>(&self, py: Python<'py>, level: &str) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let level = self::level(Some(level))?.expect("given");
        crate::awaitable::future_into_py(
            py,
            async move { c.set_log_level(level).await.map_err(errors::to_py) },
        )
    }

    // -- resources, prompts, completion, tasks -------------------------------------------

    /// One page of `tools/list`, `resources/list`, `resources/templates/list` or
    /// `prompts/list` after `cursor` (served from the cache while fresh); resolves to the
    /// result JSON (with `nextCursor` unless it is the last).
    #[pyo3(signature = (method, cursor=None))]
    fn list_page<'py>(
        &self,
        py: Python<'py>,
        method: String,
        cursor: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        if !matches!(
            method.as_str(),
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list"
        ) {
            return Err(invalid(format!("{method} is not a paginated list")));
        }
        crate::awaitable::future_into_py(py, async move {
            let page = match method.as_str() {
                "tools/list" => c.list_tools_page(cursor).await.map(|p| to_json(&p)),
                "resources/list" => c.list_resources_page(cursor).await.map(|p| to_json(&p)),
                "resources/templates/list" => {
                    c.list_resource_templates_page(cursor).await.map(|p| to_json(&p))
                }
                _ => c.list_prompts_page(cursor).await.map(|p| to_json(&p)),
            };
            page.map_err(errors::to_py)
        })
    }

    /// Reads a resource; resolves to the ReadResourceResult JSON. A missing resource raises
    /// `ResourceNotFound` on both lineages.
    fn read_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.read_resource(&uri).await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// True when the server declared MCP Apps (`io.modelcontextprotocol/ui`).
    fn offers_apps(&self) -> PyResult<bool> {
        Ok(self.inner()?.offers_apps())
    }

    /// Reads the app at `uri`; resolves to JSON `{uri, html, meta}` (`meta`: its `_meta.ui`).
    fn read_app<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            let app = c.read_app(&uri).await.map_err(errors::to_py)?;
            Ok(serde_json::json!({ "uri": app.uri, "html": app.html, "meta": app.meta }).to_string())
        })
    }

    /// The server's Skills extension settings as JSON (`{"directoryRead": bool}`), or None
    /// when it did not declare the extension.
    fn skills_support(&self) -> PyResult<Option<String>> {
        let c = self.inner()?;
        Ok(c.skills_support().map(|s| serde_json::json!({ "directoryRead": s.directory_read }).to_string()))
    }

    /// One page of `skills/list` after `cursor`; resolves to the result JSON.
    #[pyo3(signature = (cursor=None))]
    fn list_skills_page<'py>(&self, py: Python<'py>, cursor: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.list_skills_page(cursor).await.map(|p| to_json(&p)).map_err(errors::to_py)
        })
    }

    /// `skills/get`; resolves to the entry JSON.
    fn get_skill<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.get_skill(&uri).await.map(|s| to_json(&s)).map_err(errors::to_py)
        })
    }

    /// Loads the skill of `entry` (JSON): resolves to its SKILL.md text once verified.
    fn load_skill<'py>(&self, py: Python<'py>, entry: &str) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let entry: mcpcore::protocol::skills::Skill = crate::parse_as("skill entry", entry)?;
        crate::awaitable::future_into_py(py, async move { c.load_skill(&entry).await.map_err(errors::to_py) })
    }

    /// Reads the file `uri` of the skill of `entry` (JSON): resolves to its bytes once verified.
    fn read_skill_file<'py>(&self, py: Python<'py>, entry: &str, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let entry: mcpcore::protocol::skills::Skill = crate::parse_as("skill entry", entry)?;
        crate::awaitable::future_into_py(py, async move {
            let bytes = c.read_skill_file(&entry, &uri).await.map_err(errors::to_py)?;
            Ok(crate::gil::attach(|py| pyo3::types::PyBytes::new(py, &bytes).unbind()))
        })
    }

    /// `resources/directory/read` of `uri`, every page; resolves to a JSON array of resources.
    fn read_directory<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.read_directory(&uri).await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// 2026-07-28: resolves once the server acknowledged the client's listen stream as wanted
    /// now, to the JSON of the filter it agreed to (`None` when no stream is needed, and on
    /// legacy sessions).
    fn notifications_ready<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            let acked = c.notifications_ready().await.map_err(errors::to_py)?;
            Ok(acked.map(|f| to_json(&f)))
        })
    }

    /// Updates of `uri` reach `on_notification` (legacy `resources/subscribe`; a listen filter
    /// on 2026-07-28).
    fn subscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.subscribe_resource(&uri).await.map_err(errors::to_py)
        })
    }

    /// Stops `subscribe`.
    fn unsubscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        crate::awaitable::future_into_py(py, async move {
            c.unsubscribe_resource(&uri).await.map_err(errors::to_py)
        })
    }

    /// Gets a prompt (`arguments`: JSON object of strings); resolves to the GetPromptResult JSON.
    #[pyo3(signature = (name, arguments=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let arguments: Option<BTreeMap<String, String>> =
            arguments.map(|a| parse_as("prompt arguments (strings)", a)).transpose()?;
        crate::awaitable::future_into_py(py, async move {
            c.get_prompt(&name, arguments).await.map(|r| to_json(&r)).map_err(errors::to_py)
        })
    }

    /// `completion/complete` for `reference` (JSON `{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`); resolves to the CompleteResult JSON.
    #[pyo3(signature = (reference, argument, value, context=None))]
    fn complete<'py>(
        &self,
        py: Python<'py>,
        reference: &str,
        argument: String,
        value: String,
        context: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let reference: CompletionReference = parse_as("the completion reference", reference)?;
        let context = match context {
            Some(ctx) => Some(CompleteContext { arguments: Some(parse_as("the completion context", ctx)?) }),
            None => None,
        };
        crate::awaitable::future_into_py(py, async move {
            c.complete(reference, CompleteArgument { name: argument, value }, context)
                .await
                .map(|r| to_json(&r))
                .map_err(errors::to_py)
        })
    }

    /// Calls a tool as a task; resolves to its [`Task`]. `ttl` and `wait` are seconds.
    #[pyo3(signature = (name, arguments, ttl=None, wait=None))]
    fn call_tool_task<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: &str,
        ttl: Option<f64>,
        wait: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let args = parse_json("arguments", arguments)?;
        let options = TaskOptions { ttl: seconds(ttl)?, wait: seconds(wait)? };
        crate::awaitable::future_into_py(py, async move {
            let handle = c.call_tool_as_task(&name, args, options).await.map_err(errors::to_py)?;
            Ok(crate::task::Task { inner: Some(std::sync::Arc::new(handle)) })
        })
    }

    /// Sends any request; resolves to the result JSON.
    fn request<'py>(&self, py: Python<'py>, method: String, params: &str) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner()?;
        let params = parse_json("params", params)?;
        crate::awaitable::future_into_py(py, async move {
            c.request(&method, params).await.map(|r| r.to_string()).map_err(errors::to_py)
        })
    }

    /// Closes the connection (a spawned server is stopped); later calls raise ConnectionClosed,
    /// what negotiation settled stays readable.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner.lock().expect("lock").take();
        if let Some(c) = &c {
            *self.last.lock().expect("lock") = Some(c.negotiated());
        }
        crate::awaitable::future_into_py(py, async move {
            if let Some(c) = c {
                c.close().await;
            }
            Ok(())
        })
    }
}
