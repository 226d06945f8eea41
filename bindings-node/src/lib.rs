//! `mcpcore-node`: the napi-rs module behind the `mcpcore` npm package. It only converts and
//! registers: JSON crosses the boundary as strings (the JS wrapper in `lib/` turns them into
//! objects), JS functions become tools, resource readers, prompt renderers and completers
//! through weak thread-safe functions and the core's host bridge (which decides what a return
//! value becomes on the wire), and every error becomes a JS `Error` whose message carries its
//! kind, JSON-RPC code and data (see `errors`). All protocol logic is in the `mcpcore` crate.

mod auth;
mod client;
mod client_events;
mod errors;
mod events;
mod gateway;
mod handler;
mod local;
mod logs;
mod middleware;
mod mount;
mod registry;
mod resources;
mod server;
mod server_auth;
mod settle;
mod skills;
mod stdio;
mod stdout_feed;

pub use client::{Client, Task};
pub use handler::ToolCall;
pub use logs::{flush_log_handler, set_log_handler};
pub use mount::{Exchange, Mount, MountResponse};
pub use registry::Registry;
pub use resources::{Prompts, Resources};
pub use server::{HttpServing, Server};
pub use stdio::StdioConnection;

/// The engine's runtime: one worker thread unless `TOKIO_WORKER_THREADS` says otherwise. Every
/// handler runs on the JS thread anyway; with napi-rs's default (a worker per core) a call's
/// tasks were handed between workers, about 4 thread wake-ups (futex) a call: one worker serves
/// W1 21% (sequential) and 13% (8 in flight) faster, W6 11 µs less, and HTTP with 16 in flight
/// the same (bench/NOTES.md, "The Node binding on one worker").
#[napi_derive::module_init]
fn init() {
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        runtime.worker_threads(1);
    }
    // `build` only fails when threads cannot be made; napi-rs's default runtime then fails the
    // same way, loudly. (An unreadable `TOKIO_WORKER_THREADS` panics here, as it would there.)
    // Once the last Node environment is torn down napi-rs makes its own default runtime again.
    if let Ok(rt) = runtime.enable_all().build() {
        napi::bindgen_prelude::create_custom_tokio_runtime(rt);
    }
}

/// The version of the native module (the crate version).
#[napi_derive::napi]
pub fn native_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The result (JSON) a handler of `kind` (`tool`, `resource`, `prompt`, `completer`) answers
/// with when it resolves to `reply` (what the wrapper makes of its return value: the envelope
/// JSON, or `[text]`): the core's rules, as every handler applies them. `uri` and `mimeType`
/// describe a resource read.
#[napi_derive::napi(
    ts_args_type = "kind: string, reply: string | [string], uri?: string | undefined | null, mimeType?: string | undefined | null"
)]
pub fn host_result(
    kind: String,
    reply: handler::Reply,
    uri: Option<String>,
    mime_type: Option<String>,
) -> napi::Result<String> {
    use mcpcore::host::{results, HostReply};
    let HostReply::Value(v) = handler::reply_from(reply) else {
        return Err(errors::to_js(mcpcore::Error::invalid_input("the envelope carries no value")));
    };
    let invalid = |e: String| errors::to_js(mcpcore::Error::invalid_input(e));
    match kind.as_str() {
        "tool" => Ok(to_json(&results::tool_result(v, false))),
        "resource" => results::resource_contents(v, uri.as_deref().unwrap_or(""), mime_type.as_deref())
            .map(|c| to_json(&c))
            .map_err(invalid),
        "prompt" => results::prompt_result(v).map(|c| to_json(&c)).map_err(invalid),
        "completer" => results::completion(v).map(|c| to_json(&c)).map_err(invalid),
        other => Err(invalid(format!("unknown handler kind {other:?}"))),
    }
}

/// How an answer ends its operation by the OpenTelemetry conventions for MCP
/// (`mcpcore::semconv::host_outcome`), as JSON: `error_type`, `status_code`, `description`.
#[napi_derive::napi]
pub fn telemetry_outcome(is_error: bool, code: Option<i32>, message: Option<String>) -> String {
    let error = code.map(|c| (c, message.as_deref().unwrap_or("")));
    serde_json::to_string(&mcpcore::semconv::host_outcome(is_error, error)).expect("serializable")
}

/// One page of `itemsJson` (a list) for a list tool's `limit` and `cursor`
/// (`mcpcore::registry::paging`), as JSON `{"items": [...], "nextCursor"?}`.
#[napi_derive::napi]
pub fn page_of(
    items_json: String,
    limit: Option<i64>,
    cursor: Option<String>,
    default_limit: u32,
    cap: u32,
) -> napi::Result<String> {
    let items = match parse_json("items", &items_json)? {
        serde_json::Value::Array(v) => v,
        _ => return Err(errors::to_js(mcpcore::Error::invalid_input("items must be a list"))),
    };
    let paging = mcpcore::registry::paging::Paging::new(default_limit as usize, cap as usize)
        .map_err(errors::to_js)?;
    paging.page(&items, limit, cursor.as_deref()).map(|v| v.to_string()).map_err(errors::to_js)
}

/// A pending-approval result (`CallToolResult::pending_approval`) as JSON: `message` as text,
/// `structuredContent` `{status: "pending_approval", …details}` (`detailsJson`: an object).
#[napi_derive::napi]
pub fn pending_approval_result(message: String, details_json: String) -> napi::Result<String> {
    let r = mcpcore::protocol::CallToolResult::pending_approval_from_host(message, &details_json)
        .map_err(errors::to_js)?;
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// A refusal result (`CallToolResult::refusal`) as JSON: `isError`, `message` as text,
/// `structuredContent` `{reason, remedy, …details}` (`detailsJson`: an object).
#[napi_derive::napi]
pub fn refusal_result(
    reason: String,
    remedy: String,
    message: String,
    details_json: String,
) -> napi::Result<String> {
    let r = mcpcore::protocol::CallToolResult::refusal_from_host(reason, remedy, message, &details_json)
        .map_err(errors::to_js)?;
    Ok(serde_json::to_string(&r).expect("results serialize"))
}

/// `schema` (JSON text) with its `$ref`s to non-recursive `$defs` inlined (the core's
/// `mcpcore::registry::inline_refs`), as JSON text.
#[napi_derive::napi]
pub fn inline_refs(schema: String) -> napi::Result<String> {
    Ok(to_json(&mcpcore::registry::inline_refs(&parse_json("schema", &schema)?)))
}

/// The engine's error kinds (`mcpcore::ErrorKind::as_str`), for the error mapping test.
#[napi_derive::napi]
pub fn error_kinds() -> Vec<String> {
    mcpcore::ErrorKind::ALL.iter().map(|k| k.as_str().to_owned()).collect()
}

/// Throws the engine's example error of `kind`, as every binding maps it.
#[napi_derive::napi]
pub fn raise_example(kind: String) -> napi::Result<()> {
    let kind: mcpcore::ErrorKind =
        kind.parse().map_err(|e: String| errors::to_js(mcpcore::Error::invalid_input(e)))?;
    Err(errors::to_js(kind.example()))
}

/// Parses JSON handed over by the wrapper.
pub(crate) fn parse_json(what: &str, text: &str) -> napi::Result<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| errors::to_js(mcpcore::Error::invalid_input(format!("{what} is not valid JSON: {e}"))))
}

/// Serializes for the wrapper.
pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("protocol values serialize")
}

/// Milliseconds → a positive duration.
pub(crate) fn millis(timeout_ms: Option<f64>) -> napi::Result<Option<std::time::Duration>> {
    match timeout_ms {
        None => Ok(None),
        Some(ms) if ms.is_finite() && ms > 0.0 => Ok(Some(std::time::Duration::from_secs_f64(ms / 1000.0))),
        Some(ms) => {
            Err(errors::to_js(mcpcore::Error::invalid_input(format!("timeoutMs must be positive, not {ms}"))))
        }
    }
}

/// An invalid-input error for a bad option value.
pub(crate) fn bad_option(what: &str, allowed: &str, got: &str) -> napi::Error {
    errors::to_js(mcpcore::Error::invalid_input(format!("{what} must be {allowed}, not {got:?}")))
}
