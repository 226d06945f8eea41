//! `Client`: connect over stdio or HTTP (with the host's input callbacks); tools, resources,
//! prompts, completion, tasks (`Task`), notifications, roots; cancel calls. JSON crosses as text.

use crate::handler::{Callback, JsCallback};
use crate::{bad_option, errors, millis, parse_json, to_json};
use mcpcore::client::{CallOptions, ClientOptions, HostInput, Negotiated, NotificationKinds, TaskOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::completion::{CompleteArgument, CompleteContext, CompletionReference};
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::ProtocolVersion;
use napi::bindgen_prelude::Buffer;
use napi::bindgen_prelude::PromiseRaw;
use napi::bindgen_prelude::{FnArgs, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Options of `Client.connectStdio` (every field optional).
#[napi(object, object_to_js = false)]
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
    /// Bounds the whole connect, and is the default per-request timeout, in ms (60000).
    pub timeout_ms: Option<f64>,
    /// How long the 2026-07-28 probe waits before assuming a legacy server, in ms (5000).
    pub probe_timeout_ms: Option<f64>,
    /// Answers to the server's requests for input (the wrapper's envelope callbacks).
    pub input: Option<InputCallbacks>,
    /// Reads the child's stdout on the JS thread (the wrapper's `lib/stdout-feed.js`); without
    /// it a runtime thread reads it.
    #[napi(ts_type = "(feed: StdoutFeed) => void")]
    pub attach: Option<crate::stdout_feed::AttachFn>,
}

/// The host's answers to a server's requests for input: envelope callbacks (see `handler`)
/// called with the request params; only those given are declared as capabilities.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct InputCallbacks {
    /// Answers `elicitation/create`.
    #[napi(
        ts_type = "(paramsJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub elicitation: Option<Callback>,
    /// Declare URL-mode elicitation too (default true).
    pub elicitation_url: Option<bool>,
    /// Answers `sampling/createMessage`.
    #[napi(
        ts_type = "(paramsJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub sampling: Option<Callback>,
    /// Answers `roots/list` (the host calls `rootsChanged()` when its answer changes).
    #[napi(
        ts_type = "(paramsJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub roots: Option<Callback>,
    /// Roots the client keeps and answers with itself (a JSON list of `{uri, name}`).
    pub roots_json: Option<String>,
}

impl InputCallbacks {
    fn apply(self, o: &mut ClientOptions) -> napi::Result<()> {
        let mut input = HostInput::new();
        if let Some(cb) = self.elicitation {
            input = input.elicitation(JsCallback::threadsafe(cb), self.elicitation_url.unwrap_or(true));
        }
        if let Some(cb) = self.sampling {
            input = input.sampling(JsCallback::threadsafe(cb));
        }
        if let Some(cb) = self.roots {
            input = input.roots(JsCallback::threadsafe(cb));
        }
        if !input.is_empty() {
            o.input = Some(std::sync::Arc::new(input));
        }
        if let Some(r) = self.roots_json {
            o.roots = Some(serde_json::from_str(&r).map_err(|e| {
                errors::to_js(mcpcore::Error::invalid_input(format!("roots are not valid: {e}")))
            })?);
        }
        Ok(())
    }
}

/// Options of `Client.connectHttp` (every field optional).
#[napi(object, object_to_js = false)]
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
    /// Bounds the whole connect, and is the default per-request timeout, in ms (60000).
    pub timeout_ms: Option<f64>,
    /// HTTPS: a PEM file of extra trusted CAs (added to the platform's roots).
    pub ca_file: Option<String>,
    /// HTTPS: a PEM client certificate, for servers that require one (with `clientKey`).
    pub client_cert: Option<String>,
    /// HTTPS: the PEM key of `clientCert`.
    pub client_key: Option<String>,
    /// How long the 2026-07-28 probe waits before assuming a legacy server, in ms (5000).
    pub probe_timeout_ms: Option<f64>,
    /// Answers to the server's requests for input (the wrapper's envelope callbacks).
    pub input: Option<InputCallbacks>,
}

/// `progress(progress, total, message)`, called for each progress notification of a call.
type ProgressArgs = FnArgs<(f64, Option<f64>, Option<String>)>;
type LogArgs = FnArgs<(String, Option<String>, String)>;
type LogCallback = ThreadsafeFunction<LogArgs, Unknown<'static>, LogArgs, Status, false, true>;
type NotificationArgs = FnArgs<(String, String)>;
type NotificationCallback =
    ThreadsafeFunction<NotificationArgs, Unknown<'static>, NotificationArgs, Status, false, true>;
type ProgressCallback = ThreadsafeFunction<ProgressArgs, Unknown<'static>, ProgressArgs, Status, false, true>;

fn options(
    protocol_version: Option<String>,
    lineage: Option<String>,
    timeout_ms: Option<f64>,
    probe_timeout_ms: Option<f64>,
    input: Option<InputCallbacks>,
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
    if let Some(t) = millis(probe_timeout_ms)? {
        o.probe_timeout = t;
    }
    if let Some(i) = input {
        i.apply(&mut o)?;
    }
    Ok(o)
}

/// A connected client.
#[napi]
pub struct Client {
    inner: Mutex<Option<mcpcore::client::Client>>,
    /// What negotiation settled, kept after `close` so it stays readable.
    last: Mutex<Option<Negotiated>>,
    /// Calls that can be cancelled, by the id the wrapper gave them.
    cancels: Arc<Mutex<HashMap<u32, Cancel>>>,
    /// A log handler is set (`on_log`): calls then settle after the log messages sent before
    /// their result (see `call_tool`).
    logs: std::sync::atomic::AtomicBool,
}

/// A cancellable call: running (cancel by sending), or cancelled before its body ran.
enum Cancel {
    Running(oneshot::Sender<()>),
    Early,
}

impl Client {
    fn wrap(c: mcpcore::client::Client) -> Client {
        Client {
            inner: Mutex::new(Some(c)),
            last: Mutex::new(None),
            cancels: Arc::default(),
            logs: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// What negotiation settled, live or as it was at `close`.
    fn negotiated(&self) -> napi::Result<Negotiated> {
        if let Some(c) = self.inner.lock().expect("lock").as_ref() {
            return Ok(c.negotiated());
        }
        self.last
            .lock()
            .expect("lock")
            .clone()
            .ok_or_else(|| errors::to_js(mcpcore::Error::closed("the client was closed before it connected")))
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
        let opts = self::options(o.protocol_version, o.lineage, o.timeout_ms, o.probe_timeout_ms, o.input)?;
        let mut cmd = StdioCommand::program_or_line(&command, args).map_err(errors::to_js)?;
        cmd.env = o.env.unwrap_or_default().into_iter().collect();
        cmd.cwd = o.cwd.map(Into::into);
        cmd.inherit_stderr = o.inherit_stderr.unwrap_or(false);
        let c = match o.attach {
            #[cfg(unix)]
            Some(attach) => {
                let spawn = crate::stdout_feed::spawner(Arc::new(attach));
                mcpcore::client::Client::connect_stdio_with(cmd, opts, spawn).await
            }
            _ => mcpcore::client::Client::connect_stdio(cmd, opts).await,
        }
        .map_err(errors::to_js)?;
        Ok(Client::wrap(c))
    }

    /// Connects to an HTTP endpoint (Streamable HTTP, falling back to 2024-11-05 SSE).
    #[napi(factory)]
    pub async fn connect_http(url: String, options: Option<HttpConnectOptions>) -> napi::Result<Client> {
        connect_http_with(url, options, None).await
    }

    /// The Server Card of the endpoint `url` (`GET <url>/server-card`), as JSON, fetched before
    /// connecting (`headers`, `bearerToken` and `caFile` of `options` apply).
    #[napi]
    pub async fn server_card(url: String, options: Option<HttpConnectOptions>) -> napi::Result<String> {
        let o = options.unwrap_or_default();
        let tls = mcpcore::http::tls::TlsOptions::from_files(
            o.ca_file.as_deref().map(std::path::Path::new),
            None,
            None,
        )
        .map_err(errors::to_js)?;
        let http = HttpOptions {
            headers: o.headers.unwrap_or_default().into_iter().collect(),
            bearer_token: o.bearer_token,
            tls,
            ..Default::default()
        };
        let card = mcpcore::client::server_card(&url, &http).await.map_err(errors::to_js)?;
        Ok(card.to_string())
    }

    /// The negotiated revision, e.g. "2026-07-28" (still readable after `close`).
    #[napi(getter)]
    pub fn protocol_version(&self) -> napi::Result<String> {
        Ok(self.negotiated()?.version.as_str().to_owned())
    }

    /// "modern" or "legacy".
    #[napi(getter)]
    pub fn lineage(&self) -> napi::Result<String> {
        Ok(match self.negotiated()?.version.lineage() {
            Lineage::Modern => "modern",
            Lineage::Legacy => "legacy",
        }
        .to_owned())
    }

    /// The server's implementation info as JSON, or null.
    #[napi(getter)]
    pub fn server_info(&self) -> napi::Result<Option<String>> {
        Ok(self.negotiated()?.server_info.map(|i| to_json(&i)))
    }

    /// The server's capabilities as JSON.
    #[napi(getter)]
    pub fn server_capabilities(&self) -> napi::Result<String> {
        Ok(to_json(&self.negotiated()?.capabilities))
    }

    /// The server's instructions, or null.
    #[napi(getter)]
    pub fn instructions(&self) -> napi::Result<Option<String>> {
        Ok(self.negotiated()?.instructions)
    }

    /// Resolves to the server's tools as a JSON array (every page).
    #[napi]
    pub async fn list_tools(&self) -> napi::Result<String> {
        let c = self.inner()?;
        c.list_tools().await.map(|t| to_json(&t)).map_err(errors::to_js)
    }

    /// Calls a tool; resolves to the CallToolResult JSON. `cancel(callId)` abandons it and sends
    /// `notifications/cancelled` to the server. The request is written from the JS thread; only
    /// the answer crosses from the engine's runtime.
    #[napi(
        ts_args_type = "name: string, argumentsJson: string, timeoutMs?: number | undefined | null, callId?: number | undefined | null, progress?: ((progress: number, total: number | null | undefined, message: string | null | undefined) => void) | undefined | null, logLevel?: string | undefined | null",
        ts_return_type = "Promise<string>"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn call_tool<'env>(
        &self,
        env: &'env Env,
        name: String,
        arguments_json: String,
        timeout_ms: Option<f64>,
        call_id: Option<u32>,
        progress: Option<ProgressCallback>,
        log_level: Option<String>,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let cancels = self.cancels.clone();
        let client = self.inner();
        // Progress and log messages reach JS through thread-safe functions of their own; libuv
        // runs the ones woken in one turn in the order they were made, so a call whose messages
        // a callback takes settles through a deferred made now (after those functions), not
        // through the thread's settle function (made earlier), or its Promise could resolve
        // before the messages sent ahead of its result were handed over.
        let logs = log_level.is_some() || self.logs.load(std::sync::atomic::Ordering::Relaxed);
        let has_progress = progress.is_some() || logs;
        let outcome = async move {
            // Registered at once: `cancel` runs synchronously on this thread, after this call.
            let cancelled = match call_id {
                None => None,
                Some(id) => {
                    let mut cancels = cancels.lock().expect("lock");
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
                let c = client?;
                let args = parse_json("arguments", &arguments_json)?;
                let log_level = match log_level.as_deref() {
                    None => None,
                    Some(l) => Some(LoggingLevel::parse(l).ok_or_else(|| {
                        errors::to_js(mcpcore::Error::invalid_input(format!("unknown log level {l:?}")))
                    })?),
                };
                let mut opts = CallOptions { timeout: millis(timeout_ms)?, log_level, ..Default::default() };
                if let Some(cb) = progress {
                    opts.on_progress = Some(std::sync::Arc::new(move |p| {
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
                cancels.lock().expect("lock").remove(&id);
            }
            outcome
        };
        crate::settle::start_here(env, outcome, has_progress)
    }

    /// Calls `handler(level, logger, dataJson)` for every `notifications/message` the server sends;
    /// the last handler set wins.
    #[napi(
        ts_args_type = "handler: (level: string, logger: string | null | undefined, dataJson: string) => void"
    )]
    pub fn on_log(&self, handler: LogCallback) -> napi::Result<()> {
        self.logs.store(true, std::sync::atomic::Ordering::Relaxed);
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

    /// Calls `handler(method, paramsJson)` for every change notification of the server that
    /// answers no request, of the `methods` wanted (`null`: all); the last handler set wins.
    /// On 2026-07-28 the client keeps a listen stream open asking for them (and the
    /// subscribed resources).
    #[napi(
        ts_args_type = "handler: (method: string, paramsJson: string) => void, methods?: Array<string> | undefined | null"
    )]
    pub fn on_notification(
        &self,
        handler: NotificationCallback,
        methods: Option<Vec<String>>,
    ) -> napi::Result<()> {
        let kinds = match &methods {
            Some(m) => NotificationKinds::from_methods(m.iter().map(String::as_str)),
            None => NotificationKinds::ALL,
        };
        self.inner()?.on_notifications(kinds, move |e| {
            let args = FnArgs::from((e.method().to_owned(), e.params().to_string()));
            handler.call(args, ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(())
    }

    /// Replaces the roots the client answers with (JSON list of `{uri, name}`) and tells a
    /// legacy server (`notifications/roots/list_changed`).
    #[napi]
    pub fn set_roots(&self, roots_json: String) -> napi::Result<()> {
        let roots = serde_json::from_str(&roots_json)
            .map_err(|e| errors::to_js(mcpcore::Error::invalid_input(format!("roots are not valid: {e}"))))?;
        self.inner()?.set_roots(roots).map_err(errors::to_js)
    }

    /// Tells a legacy server the roots changed (for roots answered by a callback).
    #[napi]
    pub fn roots_changed(&self) -> napi::Result<()> {
        self.inner()?.roots_changed().map_err(errors::to_js)
    }

    /// Resolves when the server answered a ping (`server/discover` on 2026-07-28).
    #[napi]
    pub async fn ping(&self) -> napi::Result<()> {
        self.inner()?.ping().await.map_err(errors::to_js)
    }

    /// Asks for log messages at `level` and above (`logging/setLevel`, or every later
    /// 2026-07-28 request's `_meta`).
    #[napi]
    pub async fn set_log_level(&self, level: String) -> napi::Result<()> {
        let level = LoggingLevel::parse(&level).ok_or_else(|| {
            errors::to_js(mcpcore::Error::invalid_input(format!("unknown log level {level:?}")))
        })?;
        self.inner()?.set_log_level(level).await.map_err(errors::to_js)
    }

    /// One page of `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list`
    /// after `cursor` (served from the cache while fresh); resolves to the result JSON.
    #[napi]
    pub async fn list_page(&self, method: String, cursor: Option<String>) -> napi::Result<String> {
        let c = self.inner()?;
        let page = match method.as_str() {
            "tools/list" => c.list_tools_page(cursor).await.map(|p| to_json(&p)),
            "resources/list" => c.list_resources_page(cursor).await.map(|p| to_json(&p)),
            "resources/templates/list" => c.list_resource_templates_page(cursor).await.map(|p| to_json(&p)),
            "prompts/list" => c.list_prompts_page(cursor).await.map(|p| to_json(&p)),
            other => return Err(bad_option("method", "a paginated list method", other)),
        };
        page.map_err(errors::to_js)
    }

    /// Reads a resource; resolves to the ReadResourceResult JSON (a missing resource rejects
    /// with `ResourceNotFound` on both lineages).
    #[napi]
    pub async fn read_resource(&self, uri: String) -> napi::Result<String> {
        self.inner()?.read_resource(&uri).await.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// True when the server declared MCP Apps (`io.modelcontextprotocol/ui`).
    #[napi]
    pub fn offers_apps(&self) -> napi::Result<bool> {
        Ok(self.inner()?.offers_apps())
    }

    /// Reads the app at `uri`; resolves to JSON `{uri, html, meta}` (`meta`: its `_meta.ui`).
    #[napi]
    pub async fn read_app(&self, uri: String) -> napi::Result<String> {
        let app = self.inner()?.read_app(&uri).await.map_err(errors::to_js)?;
        Ok(serde_json::json!({ "uri": app.uri, "html": app.html, "meta": app.meta }).to_string())
    }

    /// The server's Skills extension settings as JSON (`{"directoryRead": bool}`), or null
    /// when it did not declare the extension.
    #[napi]
    pub fn skills_support(&self) -> napi::Result<Option<String>> {
        let s = self.inner()?.skills_support();
        Ok(s.map(|s| serde_json::json!({ "directoryRead": s.directory_read }).to_string()))
    }

    /// One page of `skills/list` after `cursor`; resolves to the result JSON.
    #[napi]
    pub async fn list_skills_page(&self, cursor: Option<String>) -> napi::Result<String> {
        self.inner()?.list_skills_page(cursor).await.map(|p| to_json(&p)).map_err(errors::to_js)
    }

    /// `skills/get`; resolves to the entry JSON.
    #[napi]
    pub async fn get_skill(&self, uri: String) -> napi::Result<String> {
        self.inner()?.get_skill(&uri).await.map(|s| to_json(&s)).map_err(errors::to_js)
    }

    /// Loads the skill of `entryJson`: resolves to its SKILL.md text once verified.
    #[napi]
    pub async fn load_skill(&self, entry_json: String) -> napi::Result<String> {
        let entry = skill_entry(&entry_json)?;
        self.inner()?.load_skill(&entry).await.map_err(errors::to_js)
    }

    /// Reads the file `uri` of the skill of `entryJson`: resolves to its bytes once verified.
    #[napi]
    pub async fn read_skill_file(&self, entry_json: String, uri: String) -> napi::Result<Buffer> {
        let entry = skill_entry(&entry_json)?;
        let bytes = self.inner()?.read_skill_file(&entry, &uri).await.map_err(errors::to_js)?;
        Ok(Buffer::from(bytes))
    }

    /// `resources/directory/read` of `uri`, every page; resolves to a JSON array of resources.
    #[napi]
    pub async fn read_directory(&self, uri: String) -> napi::Result<String> {
        self.inner()?.read_directory(&uri).await.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// 2026-07-28: resolves once the server acknowledged the client's listen stream as wanted
    /// now, to the JSON of the filter it agreed to (`null` when no stream is needed, and on
    /// legacy sessions).
    #[napi]
    pub async fn notifications_ready(&self) -> napi::Result<Option<String>> {
        let acked = self.inner()?.notifications_ready().await.map_err(errors::to_js)?;
        Ok(acked.map(|f| to_json(&f)))
    }

    /// Updates of `uri` reach `onNotification` (legacy `resources/subscribe`; a listen filter
    /// on 2026-07-28).
    #[napi]
    pub async fn subscribe(&self, uri: String) -> napi::Result<()> {
        self.inner()?.subscribe_resource(&uri).await.map_err(errors::to_js)
    }

    /// Stops `subscribe`.
    #[napi]
    pub async fn unsubscribe(&self, uri: String) -> napi::Result<()> {
        self.inner()?.unsubscribe_resource(&uri).await.map_err(errors::to_js)
    }

    /// Gets a prompt (`argumentsJson`: an object of strings); resolves to the GetPromptResult JSON.
    #[napi]
    pub async fn get_prompt(&self, name: String, arguments_json: Option<String>) -> napi::Result<String> {
        let c = self.inner()?;
        let arguments: Option<BTreeMap<String, String>> = match arguments_json {
            Some(a) => Some(serde_json::from_str(&a).map_err(|e| {
                errors::to_js(mcpcore::Error::invalid_input(format!("prompt arguments must be strings: {e}")))
            })?),
            None => None,
        };
        c.get_prompt(&name, arguments).await.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// `completion/complete` for `referenceJson` (`{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`); resolves to the CompleteResult JSON.
    #[napi]
    pub async fn complete(
        &self,
        reference_json: String,
        argument: String,
        value: String,
        context_json: Option<String>,
    ) -> napi::Result<String> {
        let c = self.inner()?;
        let invalid = |what: &str, e: serde_json::Error| {
            errors::to_js(mcpcore::Error::invalid_input(format!("{what} is not valid: {e}")))
        };
        let reference: CompletionReference =
            serde_json::from_str(&reference_json).map_err(|e| invalid("the completion reference", e))?;
        let context = match context_json {
            Some(ctx) => Some(CompleteContext {
                arguments: Some(
                    serde_json::from_str(&ctx).map_err(|e| invalid("the completion context", e))?,
                ),
            }),
            None => None,
        };
        c.complete(reference, CompleteArgument { name: argument, value }, context)
            .await
            .map(|r| to_json(&r))
            .map_err(errors::to_js)
    }

    /// Calls a tool as a task; resolves to its `Task`.
    #[napi]
    pub async fn call_tool_task(
        &self,
        name: String,
        arguments_json: String,
        ttl_ms: Option<f64>,
        wait_ms: Option<f64>,
    ) -> napi::Result<Task> {
        let c = self.inner()?;
        let args = parse_json("arguments", &arguments_json)?;
        let options = TaskOptions { ttl: millis(ttl_ms)?, wait: millis(wait_ms)? };
        let handle = c.call_tool_as_task(&name, args, options).await.map_err(errors::to_js)?;
        Ok(Task { inner: std::sync::Arc::new(handle) })
    }

    /// Closes the connection (a spawned server is stopped); later calls fail as closed, what
    /// negotiation settled stays readable.
    #[napi]
    pub async fn close(&self) {
        let c = self.inner.lock().expect("lock").take();
        if let Some(c) = c {
            *self.last.lock().expect("lock") = Some(c.negotiated());
            c.close().await;
        }
    }
}

/// A task the server runs for a tool call (see `Task` in lib/mcpcore.d.ts).
#[napi]
pub struct Task {
    inner: std::sync::Arc<mcpcore::client::TaskHandle>,
}

#[napi]
impl Task {
    /// The task id; null when the server answered at once instead of creating a task.
    #[napi(getter)]
    pub fn id(&self) -> Option<String> {
        self.inner.id().map(str::to_owned)
    }

    /// Resolves to the task's state as JSON (`taskId`, `status`, `statusMessage`, …).
    #[napi]
    pub async fn status(&self) -> napi::Result<String> {
        let info = self.inner.status().await.map_err(errors::to_js)?;
        let ms = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64);
        Ok(to_json(&serde_json::json!({
            "taskId": info.task_id,
            "status": info.status,
            "statusMessage": info.status_message,
            "pollIntervalMs": ms(info.poll_interval),
            "ttlMs": ms(info.ttl),
        })))
    }

    /// Resolves to the tool's CallToolResult JSON once the task ends.
    #[napi]
    pub async fn result(&self) -> napi::Result<String> {
        self.inner.result().await.map(|r| to_json(&r)).map_err(errors::to_js)
    }

    /// Asks the server to cancel the task.
    #[napi]
    pub async fn cancel(&self) -> napi::Result<()> {
        self.inner.cancel().await.map_err(errors::to_js)
    }
}

/// `Client.connectHttp`, with or without an OAuth client.
pub(crate) async fn connect_http_with(
    url: String,
    options: Option<HttpConnectOptions>,
    auth: Option<mcpcore::auth::client::OAuth>,
) -> napi::Result<Client> {
    let o = options.unwrap_or_default();
    let opts = self::options(o.protocol_version, o.lineage, o.timeout_ms, o.probe_timeout_ms, o.input)?;
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

/// A skill entry handed over as JSON.
fn skill_entry(json: &str) -> napi::Result<mcpcore::protocol::skills::Skill> {
    serde_json::from_str(json)
        .map_err(|e| errors::to_js(mcpcore::Error::invalid_input(format!("invalid skill entry: {e}"))))
}
