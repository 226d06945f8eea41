//! `mcpcore._native`: the pyo3 module behind the `mcpcore` Python package. It only converts and
//! registers: handler inputs and return values cross as Python objects (converted here,
//! `values`), other JSON as strings (the Python facade turns them into objects), Python
//! callables become tools, resource readers, prompt renderers and completers through the core's
//! host bridge (which decides what a return value becomes on the wire), and every error becomes
//! an exception of `mcpcore.errors` with its JSON-RPC code and data. All protocol logic is in
//! the `mcpcore` crate.

mod auth;
mod awaitable;
mod client;
mod client_events;
mod client_input;
mod errors;
mod events;
mod gateway;
mod gil;
mod handler;
mod middleware;
mod mount;
mod parked;
mod prompts;
mod registry;
mod resources;
mod server;
mod server_auth;
mod skills;
mod task;
mod values;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The runtime's threads keep a Python thread state (see `gil`): completing an awaited
    // mcpcore coroutine (pyo3-async-runtimes) enters Python from them on every call.
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all().on_thread_start(gil::keep_thread_state);
    pyo3_async_runtimes::tokio::init(runtime);
    // The engine's log records (its `tracing` events, e.g. the HTTP request log at DEBUG) go to
    // Python's logging, loggers named after their targets ("mcpcore.http"); levels are cached
    // until `mcpcore.refresh_logging()`, so a disabled logger costs no GIL.
    if let Ok(handle) = pyo3_log::Logger::new(m.py(), pyo3_log::Caching::LoggersAndLevels)?.install() {
        let _ = LOG_RESET.set(handle);
    }
    m.add_class::<registry::Registry>()?;
    m.add_class::<registry::ToolSearch>()?;
    m.add_class::<server::Server>()?;
    m.add_class::<server::HttpServing>()?;
    m.add_class::<mount::Mount>()?;
    m.add_class::<mount::MountResponse>()?;
    m.add_class::<gateway::Gateway>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<client_input::ClientInput>()?;
    m.add_class::<task::Task>()?;
    m.add_class::<auth::OAuth>()?;
    m.add_class::<server_auth::ServerAuth>()?;
    m.add_class::<handler::ToolCall>()?;
    m.add_class::<resources::Resources>()?;
    m.add_class::<prompts::Prompts>()?;
    m.add_class::<skills::Skills>()?;
    m.add_class::<events::Events>()?;
    m.add_class::<events::WebhookReceiver>()?;
    m.add_class::<client_events::ClientEvents>()?;
    m.add_class::<client_events::Poller>()?;
    m.add_class::<client_events::EventStream>()?;
    m.add_class::<middleware::Middleware>()?;
    m.add_function(wrap_pyfunction!(gil::engine_work_in_python, m)?)?;
    m.add_function(wrap_pyfunction!(tool_result, m)?)?;
    m.add_function(wrap_pyfunction!(refusal, m)?)?;
    m.add_function(wrap_pyfunction!(pending_approval, m)?)?;
    m.add_function(wrap_pyfunction!(page, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry_outcome, m)?)?;
    m.add_function(wrap_pyfunction!(resource_contents, m)?)?;
    m.add_function(wrap_pyfunction!(prompt_result, m)?)?;
    m.add_function(wrap_pyfunction!(completion, m)?)?;
    m.add_function(wrap_pyfunction!(inline_refs, m)?)?;
    m.add_function(wrap_pyfunction!(reset_logging, m)?)?;
    m.add_function(wrap_pyfunction!(error_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(raise_example, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

static LOG_RESET: std::sync::OnceLock<pyo3_log::ResetHandle> = std::sync::OnceLock::new();

/// Forgets the cached Python loggers and levels (after the host changed them).
#[pyfunction]
fn reset_logging() {
    if let Some(h) = LOG_RESET.get() {
        h.reset();
    }
}

/// Parses JSON handed over by the facade.
pub(crate) fn parse_json(what: &str, text: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(format!("{what} is not valid JSON: {e}"))))
}

/// Parses JSON handed over by the facade as a protocol value `T`.
pub(crate) fn parse_as<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> PyResult<T> {
    serde_json::from_str(text)
        .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(format!("{what} is not valid: {e}"))))
}

/// Serializes for the facade.
pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("protocol values serialize")
}

fn invalid(e: String) -> PyErr {
    errors::to_py(mcpcore::Error::invalid_input(e))
}

/// A refusal result (`CallToolResult::refusal`) as JSON: `isError`, `message` as text,
/// `structuredContent` `{reason, remedy, …details}` (`details`: a JSON object).
#[pyfunction]
fn refusal(reason: String, remedy: String, message: String, details: &str) -> PyResult<String> {
    let r = mcpcore::protocol::CallToolResult::refusal_from_host(reason, remedy, message, details)
        .map_err(errors::to_py)?;
    Ok(to_json(&r))
}

/// One page of `items` (a JSON list) for a list tool's `limit` and `cursor`
/// (`mcpcore::registry::paging`), as JSON text `{"items": [...], "nextCursor"?}`.
#[pyfunction]
#[pyo3(signature = (items, limit, cursor, default_limit, cap))]
fn page(
    items: &str,
    limit: Option<i64>,
    cursor: Option<&str>,
    default_limit: usize,
    cap: usize,
) -> PyResult<String> {
    let items = match parse_json("items", items)? {
        serde_json::Value::Array(v) => v,
        _ => return Err(invalid("items must be a list".into())),
    };
    let paging = mcpcore::registry::paging::Paging::new(default_limit, cap).map_err(errors::to_py)?;
    paging.page(&items, limit, cursor).map(|v| v.to_string()).map_err(errors::to_py)
}

/// A pending-approval result (`CallToolResult::pending_approval`) as JSON: `message` as text,
/// `structuredContent` `{status: "pending_approval", …details}` (`details`: a JSON object).
#[pyfunction]
fn pending_approval(message: String, details: &str) -> PyResult<String> {
    let r = mcpcore::protocol::CallToolResult::pending_approval_from_host(message, details)
        .map_err(errors::to_py)?;
    Ok(to_json(&r))
}

/// How an answer ends its operation by the OpenTelemetry conventions for MCP
/// (`mcpcore::semconv::host_outcome`), as JSON text: `error_type`, `status_code`, `description`.
#[pyfunction]
#[pyo3(signature = (is_error, code=None, message=None))]
fn telemetry_outcome(is_error: bool, code: Option<i32>, message: Option<&str>) -> String {
    let error = code.map(|c| (c, message.unwrap_or("")));
    to_json(&mcpcore::semconv::host_outcome(is_error, error))
}

/// The CallToolResult (JSON text) a tool returning `value` answers with (`wrapped`: its output
/// schema wraps the value as `{"result": …}`): the core's rules, as every tool applies them.
#[pyfunction]
#[pyo3(signature = (value, wrapped=false))]
fn tool_result(value: &Bound<'_, PyAny>, wrapped: bool) -> PyResult<String> {
    let v = values::host_value(value)?;
    Ok(to_json(&mcpcore::host::results::tool_result(v, wrapped)))
}

/// The `contents` (JSON text) of a read of `uri` (declared MIME type `mime`) returning `value`.
#[pyfunction]
#[pyo3(signature = (value, uri, mime=None))]
fn resource_contents(value: &Bound<'_, PyAny>, uri: &str, mime: Option<&str>) -> PyResult<String> {
    let v = values::host_value(value)?;
    mcpcore::host::results::resource_contents(v, uri, mime).map(|c| to_json(&c)).map_err(invalid)
}

/// The GetPromptResult (JSON text) of a prompt returning `value`.
#[pyfunction]
fn prompt_result(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let v = values::host_value(value)?;
    mcpcore::host::results::prompt_result(v).map(|c| to_json(&c)).map_err(invalid)
}

/// The Completion (JSON text) of a completer returning `value`.
#[pyfunction]
fn completion(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let v = values::host_value(value)?;
    mcpcore::host::results::completion(v).map(|c| to_json(&c)).map_err(invalid)
}

/// `schema` (JSON text) with its `$ref`s to non-recursive `$defs` inlined (the core's
/// `mcpcore::registry::inline_refs`), as JSON text.
#[pyfunction]
fn inline_refs(schema: &str) -> PyResult<String> {
    Ok(to_json(&mcpcore::registry::inline_refs(&parse_json("schema", schema)?)))
}

/// The engine's error kinds (`mcpcore::ErrorKind::as_str`), for the error mapping test.
#[pyfunction]
fn error_kinds() -> Vec<&'static str> {
    mcpcore::ErrorKind::ALL.iter().map(|k| k.as_str()).collect()
}

/// Raises the engine's example error of `kind`, as every binding maps it.
#[pyfunction]
fn raise_example(kind: &str) -> PyResult<()> {
    let kind: mcpcore::ErrorKind = kind.parse().map_err(invalid)?;
    Err(errors::to_py(kind.example()))
}
