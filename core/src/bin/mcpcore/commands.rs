//! The client subcommands: `tools`, `call`, `resources`, `read`, `prompts`, `get`, `ping`.
//! Each connects (negotiating the lineage), does its one job, prints JSON or text, and closes
//! the connection (a stdio server is stopped). Ctrl-C or SIGTERM cancels the request in flight
//! (`notifications/cancelled`) and stops the server in order; see `signals`.

use crate::connect::Conn;
use crate::output;
use clap::Args;
use mcpcore::client::{CallOptions, Client};
use mcpcore::Error;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// A subcommand that only needs the server.
#[derive(Args)]
pub(crate) struct ListArgs {
    /// The server's URL (http:// or https://), or give a stdio server after `--`.
    #[arg(value_name = "URL")]
    pub(crate) url: Option<String>,
    #[command(flatten)]
    pub(crate) conn: Conn,
}

/// `call`.
#[derive(Args)]
pub(crate) struct CallArgs {
    /// The tool's name.
    tool: String,
    /// The arguments: one JSON object, or key=value pairs typed by the tool's schema
    /// (key:=JSON for a raw value; repeat an array's key); the server's URL may come last.
    #[arg(value_name = "ARGS")]
    args: Vec<String>,
    #[command(flatten)]
    conn: Conn,
}

/// `read`.
#[derive(Args)]
pub(crate) struct ReadArgs {
    /// The resource's URI.
    uri: String,
    /// The server's URL, or give a stdio server after `--`.
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    conn: Conn,
}

/// `get`.
#[derive(Args)]
pub(crate) struct GetArgs {
    /// The prompt's name.
    prompt: String,
    /// Its arguments as key=value pairs; the server's URL may come last.
    #[arg(value_name = "KEY=VALUE")]
    args: Vec<String>,
    #[command(flatten)]
    conn: Conn,
}

/// Which listing.
#[derive(Clone, Copy)]
pub(crate) enum Listing {
    Tools,
    Resources,
    Prompts,
    Ping,
}

/// Takes the URL out of positional arguments (the first http://, https:// or Unix socket one).
pub(crate) fn split_url(mut args: Vec<String>) -> (Vec<String>, Option<String>) {
    match args.iter().position(|a| crate::connect::is_endpoint(a)) {
        Some(i) => {
            let url = args.remove(i);
            (args, Some(url))
        }
        None => (args, None),
    }
}

/// The outcome of a job: what to print and the exit code.
pub(crate) struct Done {
    pub(crate) json: Value,
    pub(crate) text: String,
    pub(crate) code: u8,
}

impl Done {
    /// A job that printed its own output as it went (a stream): nothing more to print.
    pub(crate) fn printed() -> Done {
        Done { json: Value::Null, text: String::new(), code: 0 }
    }
}

/// Connects, runs `job`, prints its outcome, closes; signals and errors as the module says.
pub(crate) async fn session<F, Fut>(conn: Conn, url: Option<String>, job: F) -> ExitCode
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = Result<Done, Error>>,
{
    let connection = match conn.resolve(url) {
        Ok(c) => c,
        Err(e) => {
            crate::usage_error(&e);
            return ExitCode::from(1);
        }
    };
    let json = connection.json;
    match run(connection, job).await {
        Ok((done, _)) if json => {
            if !done.json.is_null() {
                output::json(&done.json);
            }
            ExitCode::from(done.code)
        }
        Ok((done, _)) => {
            output::human(&done.text);
            ExitCode::from(done.code)
        }
        Err(Stop::Signal(code)) => code,
        Err(Stop::Failed(e)) => {
            crate::report(&e);
            ExitCode::from(1)
        }
    }
}

enum Stop {
    Signal(ExitCode),
    Failed(Error),
}

async fn run<F, Fut>(connection: crate::connect::Connection, job: F) -> Result<(Done, ()), Stop>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = Result<Done, Error>>,
{
    // Caught from here on: a signal while connecting drops the connection (killing the server's
    // group), one during the call cancels it and shuts the server down in order.
    let mut signals = crate::signals::Signals::catch().map_err(|e| Stop::Failed(e.into()))?;
    let client = tokio::select! {
        c = connection.connect() => c.map_err(Stop::Failed)?,
        code = signals.next() => return Err(Stop::Signal(code)),
    };
    let outcome = tokio::select! {
        r = job(client.clone()) => r,
        code = signals.next() => {
            // The job's future is gone (its request got notifications/cancelled); stop the server.
            tokio::select! {
                () = client.close() => {}
                _ = signals.next() => {}
            }
            return Err(Stop::Signal(code));
        }
    };
    client.close().await;
    outcome.map(|d| (d, ())).map_err(Stop::Failed)
}

pub(crate) fn server_info(client: &Client) -> (Value, String) {
    let n = client.negotiated();
    let info = serde_json::to_value(&n.server_info).unwrap_or(Value::Null);
    (info, n.version.to_string())
}

fn to_value(v: &impl serde::Serialize) -> Value {
    serde_json::to_value(v).expect("serializable")
}

/// `tools`, `resources`, `prompts`, `ping`.
pub(crate) async fn list(what: Listing, a: ListArgs) -> ExitCode {
    session(a.conn, a.url, |client| async move {
        let (info, version) = server_info(&client);
        let head = output::header(&info, &version);
        Ok(match what {
            Listing::Tools => {
                let tools: Vec<Value> = client.list_tools().await?.iter().map(to_value).collect();
                let text = format!("{head}{} tools\n{}", tools.len(), output::tools(&tools));
                Done { json: json!({"protocolVersion": version, "serverInfo": info, "tools": tools}), text, code: 0 }
            }
            Listing::Resources => {
                let resources: Vec<Value> = client.list_resources().await?.iter().map(to_value).collect();
                let templates: Vec<Value> =
                    client.list_resource_templates().await?.iter().map(to_value).collect();
                let text = format!("{head}{}", output::resources(&resources, &templates));
                let json = json!({"protocolVersion": version, "serverInfo": info, "resources": resources,
                    "resourceTemplates": templates});
                Done { json, text, code: 0 }
            }
            Listing::Prompts => {
                let prompts: Vec<Value> = client.list_prompts().await?.iter().map(to_value).collect();
                let text = format!("{head}{}", output::prompts(&prompts));
                Done { json: json!({"protocolVersion": version, "serverInfo": info, "prompts": prompts}), text, code: 0 }
            }
            Listing::Ping => {
                // 2026-07-28 removed `ping` (basic/lifecycle): a `server/discover` round trip is
                // its stateless check; the initialize-based revisions answer `ping`.
                let method = if client.lineage() == mcpcore::protocol::Lineage::Modern { "server/discover" } else { "ping" };
                let start = std::time::Instant::now();
                client.request(method, json!({})).await?;
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let text = format!("{head}ok: {method} answered in {ms:.1} ms\n");
                let json = json!({"ok": true, "method": method, "ms": ms, "protocolVersion": version, "serverInfo": info});
                Done { json, text, code: 0 }
            }
        })
    })
    .await
}

/// `call TOOL [ARGS...]`: a progress bar on stderr while the tool reports progress; exit code 2
/// when the result is an error (`isError`).
pub(crate) async fn call(a: CallArgs) -> ExitCode {
    let (items, url) = split_url(a.args);
    if !crate::args::are_pairs(&items) {
        if let Err(e) = crate::args::arguments(&items, None) {
            crate::report(&Error::invalid_input(e));
            return ExitCode::from(1);
        }
    }
    let tool = a.tool;
    session(a.conn, url, |client| async move {
        // The tool's entry: its schema reads key=value arguments, and it says whether the tool
        // runs only as a task. A server that cannot list its tools is still called.
        let listed = match client.list_tools().await {
            Ok(tools) => tools.into_iter().find(|t| t.name == tool),
            Err(_) if !crate::args::are_pairs(&items) => None,
            Err(e) => return Err(e),
        };
        let schema =
            listed.as_ref().filter(|_| crate::args::are_pairs(&items)).map(|t| to_value(&t.input_schema));
        let arguments = crate::args::arguments(&items, schema.as_ref()).map_err(Error::invalid_input)?;
        let result = if listed.as_ref().is_some_and(crate::task_call::required) {
            crate::task_call::run(&client, &tool, arguments).await
        } else {
            let bar = Progress::default();
            let options = CallOptions {
                on_progress: Some(std::sync::Arc::new(bar.callback())),
                ..CallOptions::default()
            };
            let result = client.call_tool_with(&tool, arguments, &options).await;
            bar.finish();
            result
        };
        let result = to_value(&result?);
        let code = if result["isError"] == Value::Bool(true) { 2 } else { 0 };
        Ok(Done { text: output::call_result(&result), json: result, code })
    })
    .await
}

/// `read URI`.
pub(crate) async fn read(a: ReadArgs) -> ExitCode {
    let uri = a.uri;
    session(a.conn, a.url, |client| async move {
        let r = to_value(&client.read_resource(&uri).await?);
        let contents = r["contents"].as_array().cloned().unwrap_or_default();
        Ok(Done { text: output::contents(&contents), json: r, code: 0 })
    })
    .await
}

/// `get PROMPT [KEY=VALUE...]`.
pub(crate) async fn get(a: GetArgs) -> ExitCode {
    let (items, url) = split_url(a.args);
    let mut arguments = BTreeMap::new();
    for item in &items {
        let Some((k, v)) = item.split_once('=') else {
            crate::report(&Error::invalid_input(format!("{item:?} is not key=value")));
            return ExitCode::from(1);
        };
        arguments.insert(k.to_owned(), v.to_owned());
    }
    let prompt = a.prompt;
    session(a.conn, url, |client| async move {
        let args = (!arguments.is_empty()).then_some(arguments);
        let r = to_value(&client.get_prompt(&prompt, args).await?);
        Ok(Done { text: output::prompt_messages(&r), json: r, code: 0 })
    })
    .await
}

/// A progress bar on stderr, made on the first notification (none for a call that reports
/// nothing, or when stderr is not a terminal: indicatif draws nothing there).
#[derive(Clone, Default)]
struct Progress {
    bar: Arc<Mutex<Option<indicatif::ProgressBar>>>,
}

impl Progress {
    fn callback(
        &self,
    ) -> impl Fn(mcpcore::protocol::notifications::ProgressNotificationParams) + Send + Sync + 'static {
        let bar = self.bar.clone();
        move |p| {
            let mut slot = bar.lock().expect("lock");
            let b = slot.get_or_insert_with(|| {
                let b =
                    indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
                b.set_style(
                    indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                b
            });
            if let Some(total) = p.total.filter(|t| t.is_finite() && *t >= 0.0) {
                b.set_length(total as u64);
            }
            if p.progress.is_finite() && p.progress >= 0.0 {
                b.set_position(p.progress as u64);
            }
            if let Some(m) = p.message {
                b.set_message(m);
            }
        }
    }

    fn finish(&self) {
        if let Some(b) = self.bar.lock().expect("lock").take() {
            b.finish_and_clear();
        }
    }
}
