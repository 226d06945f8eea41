//! `Client`: connect over stdio or HTTP, list and call tools, cancel calls.

use crate::{bad_option, errors, millis, parse_json, to_json};
use mcpcore::client::{CallOptions, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::ProtocolVersion;
use napi::bindgen_prelude::{FnArgs, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::oneshot;

/// Options of `Client.connectStdio` (every field optional).
#[napi(object)]
#[derive(Default)]
pub struct StdioConnectOptions {
    /// Extra environment variables for the child.
    pub env: Option<HashMap<String, String>>,
    /// The child's working directory.
    pub cwd: Option<String>,
    /// Copy the child's stderr to ours.
    pub inherit_stderr: Option<bool>,
    /// Pin one revision, e.g. `2025-11-25`.
    pub protocol_version: Option<String>,
    /// Pin one lineage: `modern` or `legacy`.
    pub lineage: Option<String>,
    /// The default per-request timeout in ms (60000).
    pub timeout_ms: Option<f64>,
}

/// Options of `Client.connectHttp` (every field optional).
#[napi(object)]
#[derive(Default)]
pub struct HttpConnectOptions {
    /// Extra headers sent on every request.
    pub headers: Option<HashMap<String, String>>,
    /// Sent as `Authorization: Bearer …`.
    pub bearer_token: Option<String>,
    /// `auto` (default: Streamable HTTP, falling back to 2024-11-05 SSE), `streamable` or `sse`.
    pub transport: Option<String>,
    /// Pin one revision.
    pub protocol_version: Option<String>,
    /// Pin one lineage: `modern` or `legacy`.
    pub lineage: Option<String>,
    /// The default per-request timeout in ms (60000).
    pub timeout_ms: Option<f64>,
    /// HTTPS: a PEM file of extra trusted CAs (added to the platform's roots).
    pub ca_file: Option<String>,
    /// HTTPS: a PEM client certificate, for servers that require one (with `clientKey`).
    pub client_cert: Option<String>,
    /// HTTPS: the PEM key of `clientCert`.
    pub client_key: Option<String>,
}

/// `progress(progress, total, message)`, called for each progress notification of a call.
type ProgressArgs = FnArgs<(f64, Option<f64>, Option<String>)>;
type LogArgs = FnArgs<(String, Option<String>, String)>;
type LogCallback = ThreadsafeFunction<LogArgs, Unknown<'static>, LogArgs, Status, false, true>;
type ProgressCallback = ThreadsafeFunction<ProgressArgs, Unknown<'static>, ProgressArgs, Status, false, true>;

fn options(
    protocol_version: Option<String>,
    lineage: Option<String>,
    timeout_ms: Option<f64>,
) -> napi::Result<ClientOptions> {
    let mut o = ClientOptions::default();
    o.info.name = "mcpcore-node".into();
    if let Some(v) = protocol_version {
        o.version = Some(v.parse::<ProtocolVersion>().map_err(errors::to_js)?);
    }
    o.lineage = match lineage.as_deref() {
        None => None,
        Some("modern") => Some(Lineage::Modern),
        Some("legacy") => Some(Lineage::Legacy),
        Some(other) => return Err(bad_option("lineage", "'modern' or 'legacy'", other)),
    };
    if let Some(t) = millis(timeout_ms)? {
        o.request_timeout = t;
    }
    Ok(o)
}

/// A connected client.
#[napi]
pub struct Client {
    inner: Mutex<Option<mcpcore::client::Client>>,
    /// Calls that can be cancelled, by the id the wrapper gave them.
    cancels: Mutex<HashMap<u32, Cancel>>,
}

/// A cancellable call: running (cancel by sending), or cancelled before its body ran.
enum Cancel {
    Running(oneshot::Sender<()>),
    Early,
}

impl Client {
    fn wrap(c: mcpcore::client::Client) -> Client {
        Client { inner: Mutex::new(Some(c)), cancels: Mutex::default() }
    }

    /// The live connection, or a closed-connection error.
    pub(crate) fn inner(&self) -> napi::Result<mcpcore::client::Client> {
        self.inner
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| errors::to_js(mcpcore::Error::closed("the client was closed")))
    }
}

#[napi]
impl Client {
    /// Spawns `command` with `args` and connects over its stdio.
    #[napi(factory)]
    pub async fn connect_stdio(
        command: String,
        args: Vec<String>,
        options: Option<StdioConnectOptions>,
    ) -> napi::Result<Client> {
        let o = options.unwrap_or_default();
        let opts = self::options(o.protocol_version, o.lineage, o.timeout_ms)?;
        let mut cmd = StdioCommand::new(command, args);
        cmd.env = o.env.unwrap_or_default().into_iter().collect();
        cmd.cwd = o.cwd.map(Into::into);
        cmd.inherit_stderr = o.inherit_stderr.unwrap_or(false);
        let c = mcpcore::client::Client::connect_stdio(cmd, opts).await.map_err(errors::to_js)?;
        Ok(Client::wrap(c))
    }

    /// Connects to an HTTP endpoint (Streamable HTTP, falling back to 2024-11-05 SSE).
    #[napi(factory)]
    pub async fn connect_http(url: String, options: Option<HttpConnectOptions>) -> napi::Result<Client> {
        connect_http_with(url, options, None).await
    }

    /// The negotiated revision, e.g. "2026-07-28".
    #[napi(getter)]
    pub fn protocol_version(&self) -> napi::Result<String> {
        Ok(self.inner()?.protocol_version().as_str().to_owned())
    }

    /// "modern" or "legacy".
    #[napi(getter)]
    pub fn lineage(&self) -> napi::Result<String> {
        Ok(match self.inner()?.lineage() {
            Lineage::Modern => "modern",
            Lineage::Legacy => "legacy",
        }
        .to_owned())
    }

    /// The server's implementation info as JSON, or null.
    #[napi(getter)]
    pub fn server_info(&self) -> napi::Result<Option<String>> {
        Ok(self.inner()?.server_info().map(|i| to_json(&i)))
    }

    /// The server's instructions, or null.
    #[napi(getter)]
    pub fn instructions(&self) -> napi::Result<Option<String>> {
        Ok(self.inner()?.negotiated().instructions)
    }

    /// Resolves to the server's tools as a JSON array (every page).
    #[napi]
    pub async fn list_tools(&self) -> napi::Result<String> {
        let c = self.inner()?;
        c.list_tools().await.map(|t| to_json(&t)).map_err(errors::to_js)
    }

    /// Calls a tool; resolves to the CallToolResult JSON. `cancel(callId)` abandons it and sends
    /// `notifications/cancelled` to the server.
    #[napi(
        ts_args_type = "name: string, argumentsJson: string, timeoutMs?: number | undefined | null, callId?: number | undefined | null, progress?: ((progress: number, total: number | null | undefined, message: string | null | undefined) => void) | undefined | null, logLevel?: string | undefined | null"
    )]
    pub async fn call_tool(
        &self,
        name: String,
        arguments_json: String,
        timeout_ms: Option<f64>,
        call_id: Option<u32>,
        progress: Option<ProgressCallback>,
        log_level: Option<String>,
    ) -> napi::Result<String> {
        // Register first: `cancel` may already have been called (it runs synchronously, while
        // this body runs later on the runtime).
        let cancelled = match call_id {
            None => None,
            Some(id) => {
                let mut cancels = self.cancels.lock().expect("lock");
                if let Some(Cancel::Early) = cancels.remove(&id) {
                    let e = mcpcore::Error::cancelled(format!("the call to {name} was cancelled"));
                    return Err(errors::to_js(e));
                }
                let (tx, rx) = oneshot::channel();
                cancels.insert(id, Cancel::Running(tx));
                Some(rx)
            }
        };
        let outcome = async {
            let c = self.inner()?;
            let args = parse_json("arguments", &arguments_json)?;
            let log_level = match log_level.as_deref() {
                None => None,
                Some(l) => Some(LoggingLevel::parse(l).ok_or_else(|| {
                    errors::to_js(mcpcore::Error::invalid_input(format!("unknown log level {l:?}")))
                })?),
            };
            let mut opts = CallOptions { timeout: millis(timeout_ms)?, log_level, ..Default::default() };
            if let Some(cb) = progress {
                opts.on_progress = Some(Box::new(move |p| {
                    let args = FnArgs::from((p.progress, p.total, p.message));
                    cb.call(args, ThreadsafeFunctionCallMode::NonBlocking);
                }));
            }
            let call = c.call_tool_with(&name, args, &opts);
            let outcome = match cancelled {
                None => call.await,
                Some(rx) => tokio::select! {
                    r = call => r,
                    Ok(()) = rx => Err(mcpcore::Error::cancelled(format!("the call to {name} was cancelled"))),
                },
            };
            outcome.map(|r| to_json(&r)).map_err(errors::to_js)
        }
        .await;
        if let Some(id) = call_id {
            self.cancels.lock().expect("lock").remove(&id);
        }
        outcome
    }

    /// Calls `handler(level, logger, dataJson)` for every `notifications/message` the server sends;
    /// the last handler set wins.
    #[napi(
        ts_args_type = "handler: (level: string, logger: string | null | undefined, dataJson: string) => void"
    )]
    pub fn on_log(&self, handler: LogCallback) -> napi::Result<()> {
        self.inner()?.on_log(move |m| {
            let args = FnArgs::from((m.level.as_str().to_owned(), m.logger, m.data.to_string()));
            handler.call(args, ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(())
    }

    /// Cancels the call started with `callId`; a call not started yet is cancelled when it starts.
    /// The wrapper calls it only while the call is pending.
    #[napi]
    pub fn cancel(&self, call_id: u32) {
        let mut cancels = self.cancels.lock().expect("lock");
        match cancels.remove(&call_id) {
            Some(Cancel::Running(tx)) => {
                let _ = tx.send(());
            }
            _ => {
                cancels.insert(call_id, Cancel::Early);
            }
        }
    }

    /// Sends any request; resolves to the result JSON.
    #[napi]
    pub async fn request(&self, method: String, params_json: String) -> napi::Result<String> {
        let c = self.inner()?;
        let params = parse_json("params", &params_json)?;
        c.request(&method, params).await.map(|r| r.to_string()).map_err(errors::to_js)
    }

    /// Closes the connection (a spawned server is stopped); later calls fail as closed.
    #[napi]
    pub async fn close(&self) {
        let c = self.inner.lock().expect("lock").take();
        if let Some(c) = c {
            c.close().await;
        }
    }
}

/// `Client.connectHttp`, with or without an OAuth client.
pub(crate) async fn connect_http_with(
    url: String,
    options: Option<HttpConnectOptions>,
    auth: Option<mcpcore::auth::client::OAuth>,
) -> napi::Result<Client> {
    let o = options.unwrap_or_default();
    let opts = self::options(o.protocol_version, o.lineage, o.timeout_ms)?;
    let transport = match o.transport.as_deref().unwrap_or("auto") {
        "auto" => HttpTransport::Auto,
        "streamable" => HttpTransport::Streamable,
        "sse" => HttpTransport::Sse,
        other => return Err(bad_option("transport", "'auto', 'streamable' or 'sse'", other)),
    };
    fn path(p: &Option<String>) -> Option<&std::path::Path> {
        p.as_deref().map(std::path::Path::new)
    }
    let tls = mcpcore::http::tls::TlsOptions::from_files(
        path(&o.ca_file),
        path(&o.client_cert),
        path(&o.client_key),
    )
    .map_err(errors::to_js)?;
    let http = HttpOptions {
        headers: o.headers.unwrap_or_default().into_iter().collect(),
        bearer_token: o.bearer_token,
        transport,
        auth,
        tls,
        ..Default::default()
    };
    let c = mcpcore::client::Client::connect_http(&url, http, opts).await.map_err(errors::to_js)?;
    Ok(Client::wrap(c))
}
