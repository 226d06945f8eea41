//! [`Client`]: connect over stdio or HTTP with automatic lineage negotiation, list and call
//! tools (resources and prompts: `client_catalog.rs`); [`Subscription`] is the handle of a log listener.

use crate::errors::McpError;
use crate::results::{ServerInfo, Tool, ToolResult};
use crate::{parse_json, rt};
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::transport::child::StdioCommand;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The two lineages of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Lineage {
    /// The stateless revision 2026-07-28 (`server/discover`, per-request `_meta`).
    Modern,
    /// The `initialize`-based revisions 2024-11-05 … 2025-11-25.
    Legacy,
}

impl From<mcpcore::Lineage> for Lineage {
    fn from(l: mcpcore::Lineage) -> Self {
        match l {
            mcpcore::Lineage::Modern => Lineage::Modern,
            _ => Lineage::Legacy,
        }
    }
}

/// Which HTTP transport a client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum HttpTransport {
    /// Streamable HTTP, falling back to the 2024-11-05 HTTP+SSE transport (the default).
    Auto,
    /// Streamable HTTP only.
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport only (the URL is its SSE endpoint).
    Sse,
}

/// How a client connects. Every field has a default: `ConnectOptions()` negotiates the newest
/// revision both sides speak.
#[derive(Clone, Default, uniffi::Record)]
pub struct ConnectOptions {
    /// Use only this lineage.
    #[uniffi(default = None)]
    pub lineage: Option<Lineage>,
    /// Use exactly this revision (e.g. `2025-11-25`).
    #[uniffi(default = None)]
    pub protocol_version: Option<String>,
    /// Bounds the whole connect, and is the per-request timeout (default 60 s).
    #[uniffi(default = None)]
    pub timeout: Option<Duration>,
    /// The `clientInfo` name (default `mcpcore-uniffi`).
    #[uniffi(default = None)]
    pub client_name: Option<String>,
    /// stdio: extra environment variables of the spawned server.
    #[uniffi(default)]
    pub env: HashMap<String, String>,
    /// stdio: the working directory of the spawned server.
    #[uniffi(default = None)]
    pub cwd: Option<String>,
    /// HTTP: extra headers sent on every request.
    #[uniffi(default)]
    pub headers: HashMap<String, String>,
    /// HTTP: sent as `Authorization: Bearer …`.
    #[uniffi(default = None)]
    pub bearer_token: Option<String>,
    /// HTTP: the transport (default `Auto`).
    #[uniffi(default = None)]
    pub transport: Option<HttpTransport>,
    /// HTTP: authorize with OAuth 2.1 when the server answers 401 (see [`crate::OAuth`]).
    #[uniffi(default = None)]
    pub auth: Option<Arc<crate::auth::OAuth>>,
    /// Answers the server's requests for input (elicitation, sampling, roots) on both lineages;
    /// only the kinds it names are declared as capabilities. `None`: none are declared.
    #[uniffi(default = None)]
    pub input: Option<Arc<dyn crate::input::ClientInput>>,
    /// HTTPS: a PEM file of extra trusted CAs (added to the platform's roots).
    #[uniffi(default = None)]
    pub ca_file: Option<String>,
    /// HTTPS: a PEM client certificate for servers that require one (with `client_key`).
    #[uniffi(default = None)]
    pub client_cert: Option<String>,
    /// HTTPS: the PEM key of `client_cert`.
    #[uniffi(default = None)]
    pub client_key: Option<String>,
    /// How long the 2026-07-28 probe waits before assuming a legacy server (default 5 s).
    #[uniffi(default = None)]
    pub probe_timeout: Option<Duration>,
    /// Roots the client answers `roots/list` with itself (declared as the `roots` capability);
    /// [`Client::set_roots`] changes them. They answer instead of `input`'s `list_roots`.
    #[uniffi(default = None)]
    pub roots: Option<Vec<crate::input::Root>>,
}

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("lineage", &self.lineage)
            .field("protocol_version", &self.protocol_version)
            .field("timeout", &self.timeout)
            .field("client_name", &self.client_name)
            .field("transport", &self.transport)
            .field("input", &self.input.as_ref().map(|i| i.kinds()))
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    fn client_options(&self) -> Result<mcpcore::client::ClientOptions, McpError> {
        let mut o = mcpcore::client::ClientOptions::default();
        o.info.name = self.client_name.clone().unwrap_or_else(|| "mcpcore-uniffi".into());
        if let Some(v) = &self.protocol_version {
            o.version = Some(v.parse::<mcpcore::ProtocolVersion>()?);
        }
        o.lineage = self.lineage.map(|l| match l {
            Lineage::Modern => mcpcore::Lineage::Modern,
            Lineage::Legacy => mcpcore::Lineage::Legacy,
        });
        if let Some(t) = positive(self.timeout)? {
            o.request_timeout = t;
        }
        if let Some(i) = &self.input {
            o.input = Some(crate::input::ForeignInput::new(i.clone()));
        }
        if let Some(t) = positive(self.probe_timeout)? {
            o.probe_timeout = t;
        }
        o.roots = self.roots.as_ref().map(|r| r.iter().map(crate::input::Root::to_core).collect());
        Ok(o)
    }
}

/// Per-call options.
#[derive(Debug, Clone, Default, uniffi::Record)]
pub struct CallOptions {
    /// Overrides the client's request timeout for this call.
    #[uniffi(default = None)]
    pub timeout: Option<Duration>,
    /// Modern lineage: ask for log messages at this level and above (`debug` … `emergency`)
    /// for this call; they reach the listener of [`Client::on_log`].
    #[uniffi(default = None)]
    pub log_level: Option<String>,
}

fn positive(t: Option<Duration>) -> Result<Option<Duration>, McpError> {
    match t {
        Some(d) if d.is_zero() => Err(McpError::invalid("timeout must be positive")),
        other => Ok(other),
    }
}

/// Receives the `notifications/message` a server sends.
#[uniffi::export(with_foreign)]
pub trait LogListener: Send + Sync {
    /// One log message: its level (`debug` … `emergency`), logger name, and data as JSON text.
    fn on_log(&self, level: String, logger: Option<String>, data: String);
}

/// Receives the progress of one call.
#[uniffi::export(with_foreign)]
pub trait ProgressListener: Send + Sync {
    /// One `notifications/progress`.
    fn on_progress(&self, progress: f64, total: Option<f64>, message: Option<String>);
}

/// The handle of a long-lived subscription: it stops when cancelled, closed or dropped.
#[derive(uniffi::Object)]
pub struct Subscription {
    stop: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

#[uniffi::export]
impl Subscription {
    /// Stops the subscription (also done on close / drop). Calling it again is harmless.
    pub fn cancel(&self) {
        let stop = self.stop.lock().expect("lock").take();
        if let Some(stop) = stop {
            stop();
        }
    }
}

impl Subscription {
    /// A subscription that runs `stop` once when it ends.
    pub(crate) fn new(stop: Box<dyn FnOnce() + Send>) -> Arc<Subscription> {
        Arc::new(Subscription { stop: Mutex::new(Some(stop)) })
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// A connected client. Closing it (Kotlin `close()`, the last Swift reference going away)
/// closes the connection and stops a spawned server; [`Client::disconnect`] does so and waits.
#[derive(uniffi::Object)]
pub struct Client {
    inner: Mutex<Option<mcpcore::client::Client>>,
    /// What negotiation settled, kept after `disconnect` so it stays readable.
    last: Mutex<Option<mcpcore::client::Negotiated>>,
    /// Counts notification listeners, so that cancelling one replaced since does nothing.
    pub(crate) listeners: std::sync::atomic::AtomicU64,
}

impl Client {
    /// The live connection, or [`McpError::Closed`].
    pub(crate) fn inner(&self) -> Result<mcpcore::client::Client, McpError> {
        self.inner
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| mcpcore::Error::closed("the client was disconnected").into())
    }

    fn wrap(c: mcpcore::client::Client) -> Arc<Client> {
        Arc::new(Client {
            inner: Mutex::new(Some(c)),
            last: Mutex::new(None),
            listeners: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// What negotiation settled, live or as it was at `disconnect`.
    pub(crate) fn negotiated(&self) -> Result<mcpcore::client::Negotiated, McpError> {
        if let Some(c) = self.inner.lock().expect("lock").as_ref() {
            return Ok(c.negotiated());
        }
        self.last
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| mcpcore::Error::closed("the client was disconnected before it connected").into())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _guard = rt::runtime().enter();
        self.inner.lock().map(|mut c| c.take()).ok();
    }
}

#[uniffi::export]
impl Client {
    /// Spawns `command` with `args` and connects over its stdio, negotiating the lineage
    /// (modern `server/discover` first, then legacy `initialize`).
    #[uniffi::constructor(default(options))]
    pub async fn connect_stdio(
        command: String,
        args: Vec<String>,
        options: ConnectOptions,
    ) -> Result<Arc<Client>, McpError> {
        let opts = options.client_options()?;
        let mut cmd = StdioCommand::program_or_line(&command, args)?;
        cmd.env = options.env.into_iter().collect();
        cmd.cwd = options.cwd.map(Into::into);
        rt::in_runtime(
            async move { Ok(Client::wrap(mcpcore::client::Client::connect_stdio(cmd, opts).await?)) },
        )
        .await
    }

    /// Connects to an HTTP or HTTPS endpoint (`https://…/mcp`), negotiating the lineage and the
    /// transport.
    #[uniffi::constructor(default(options))]
    pub async fn connect_http(url: String, options: ConnectOptions) -> Result<Arc<Client>, McpError> {
        let opts = options.client_options()?;
        let path = |p: &Option<String>| p.as_ref().map(std::path::PathBuf::from);
        let tls = mcpcore::tls::TlsOptions::from_files(
            path(&options.ca_file).as_deref(),
            path(&options.client_cert).as_deref(),
            path(&options.client_key).as_deref(),
        )?;
        let http = mcpcore::http::client::HttpOptions {
            tls,
            headers: options.headers.into_iter().collect(),
            bearer_token: options.bearer_token,
            transport: match options.transport.unwrap_or(HttpTransport::Auto) {
                HttpTransport::Auto => mcpcore::http::client::HttpTransport::Auto,
                HttpTransport::Streamable => mcpcore::http::client::HttpTransport::Streamable,
                HttpTransport::Sse => mcpcore::http::client::HttpTransport::Sse,
            },
            auth: options.auth.as_ref().map(|a| a.inner.clone()),
            ..Default::default()
        };
        rt::in_runtime(async move {
            Ok(Client::wrap(mcpcore::client::Client::connect_http(&url, http, opts).await?))
        })
        .await
    }

    /// The negotiated revision, e.g. `2026-07-28` (still readable after `disconnect`).
    pub fn protocol_version(&self) -> Result<String, McpError> {
        Ok(self.negotiated()?.version.as_str().to_owned())
    }

    /// The negotiated lineage.
    pub fn lineage(&self) -> Result<Lineage, McpError> {
        Ok(self.negotiated()?.version.lineage().into())
    }

    /// The server's `serverInfo`, when it sent one.
    pub fn server_info(&self) -> Result<Option<ServerInfo>, McpError> {
        Ok(self.negotiated()?.server_info.map(|i| ServerInfo {
            name: i.name,
            version: i.version,
            title: i.title,
        }))
    }

    /// The server's capabilities, as JSON text.
    pub fn server_capabilities(&self) -> Result<String, McpError> {
        Ok(serde_json::to_string(&self.negotiated()?.capabilities).expect("serializable"))
    }

    /// The server's instructions, when it sent any.
    pub fn instructions(&self) -> Result<Option<String>, McpError> {
        Ok(self.negotiated()?.instructions)
    }

    /// The OS process id of a spawned server.
    pub fn server_pid(&self) -> Result<Option<u32>, McpError> {
        Ok(self.inner()?.server_pid())
    }

    /// Every tool of the server (all pages).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.list_tools().await?.iter().map(Tool::from).collect()) }).await
    }

    /// Calls a tool with arguments as JSON text. Cancelling the awaiting coroutine or task
    /// sends `notifications/cancelled` to the server; past the timeout it throws `Timeout`.
    /// A tool failure is a result with `isError`, not an exception.
    #[uniffi::method(default(progress = None, options))]
    pub async fn call_tool(
        &self,
        name: String,
        arguments: String,
        options: CallOptions,
        progress: Option<Arc<dyn ProgressListener>>,
    ) -> Result<ToolResult, McpError> {
        let c = self.inner()?;
        let args = parse_json("arguments", &arguments)?;
        let log_level = match options.log_level.as_deref() {
            None => None,
            Some(l) => Some(
                LoggingLevel::parse(l)
                    .ok_or_else(|| McpError::invalid(format!("unknown log level {l:?}")))?,
            ),
        };
        let mut opts = mcpcore::client::CallOptions {
            timeout: positive(options.timeout)?,
            log_level,
            ..Default::default()
        };
        if let Some(p) = progress {
            opts.on_progress =
                Some(std::sync::Arc::new(move |n| p.on_progress(n.progress, n.total, n.message)));
        }
        rt::in_runtime(async move { Ok(ToolResult::from(&c.call_tool_with(&name, args, &opts).await?)) })
            .await
    }

    /// Sends any request (`params` as JSON text); returns the result as JSON text.
    pub async fn request(&self, method: String, params: String) -> Result<String, McpError> {
        let c = self.inner()?;
        let params = parse_json("params", &params)?;
        rt::in_runtime(async move { Ok(c.request(&method, params).await?.to_string()) }).await
    }

    /// Delivers every `notifications/message` of the server to `listener` until the returned
    /// subscription is cancelled, closed or dropped. A later listener replaces this one.
    pub fn on_log(&self, listener: Arc<dyn LogListener>) -> Result<Arc<Subscription>, McpError> {
        let c = self.inner()?;
        let slot: Arc<Mutex<Option<Arc<dyn LogListener>>>> = Arc::new(Mutex::new(Some(listener)));
        let reader = slot.clone();
        c.on_log(move |m| {
            let listener = reader.lock().expect("lock").clone();
            if let Some(l) = listener {
                l.on_log(m.level.as_str().to_owned(), m.logger, m.data.to_string());
            }
        });
        let stop: Box<dyn FnOnce() + Send> = Box::new(move || {
            slot.lock().expect("lock").take();
        });
        Ok(Arc::new(Subscription { stop: Mutex::new(Some(stop)) }))
    }

    /// Tells a legacy server that the roots changed (`notifications/roots/list_changed`, when the
    /// `ClientInput` declared `rootsListChanged`); nothing on 2026-07-28, which has no such
    /// notification.
    pub fn roots_changed(&self) -> Result<(), McpError> {
        Ok(self.inner()?.roots_changed()?)
    }

    /// Closes the connection and waits (a spawned server gets 2 s to exit, then is killed);
    /// later calls throw `Closed`.
    pub async fn disconnect(&self) {
        let c = self.inner.lock().expect("lock").take();
        if let Some(c) = c {
            *self.last.lock().expect("lock") = Some(c.negotiated());
            rt::in_runtime(async move { c.close().await }).await;
        }
    }
}

/// The Server Card of the endpoint `url` (`GET <url>/server-card`, SEP-2127) as JSON, read
/// before connecting (unverified); `options`' headers, bearer token and CA file apply. A
/// server without one: `McpException.Http` with status 404.
#[uniffi::export(default(options))]
pub(crate) async fn server_card(url: String, options: ConnectOptions) -> Result<String, McpError> {
    let tls = mcpcore::tls::TlsOptions::from_files(
        options.ca_file.as_deref().map(std::path::Path::new),
        None,
        None,
    )?;
    let http = mcpcore::http::client::HttpOptions {
        tls,
        headers: options.headers.into_iter().collect(),
        bearer_token: options.bearer_token,
        ..Default::default()
    };
    rt::in_runtime(async move { Ok(mcpcore::client::server_card(&url, &http).await?.to_string()) }).await
}
