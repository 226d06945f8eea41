//! The core's rules for host values and its error kinds, exported for Kotlin and Swift: a tool
//! may answer with any JSON value ([`value_result`]) or bytes ([`bytes_result`]) and gets the
//! result every other binding sends for the same value (`core/src/host/results.rs`; the cases
//! are `tests/vectors/host-results/`). [`host_result`], [`error_kinds`] and [`raise_example`]
//! let the Kotlin and Swift tests run those vectors and the error mapping of every kind.

use crate::results::ToolResult;
use crate::{parse_json, McpError};
use mcpcore::host::{results, HostValue};
use mcpcore::{Error, ErrorKind};

fn value_of(value_json: &str) -> Result<HostValue, McpError> {
    Ok(HostValue::from_marked_json(parse_json("the value", value_json)?))
}

fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("protocol values serialize")
}

/// The result of a tool that answers with the JSON value `value_json`, by the rules every
/// binding applies: `null` is no content, a string one text block, an object structured content
/// plus its JSON text, a `CallToolResult` itself; `{"$bytes": "<base64>"}` stands for bytes.
#[uniffi::export]
pub fn value_result(value_json: String) -> Result<ToolResult, McpError> {
    Ok(ToolResult::from(&results::tool_result(value_of(&value_json)?, false)))
}

/// The result of a tool that answers with `data`: one embedded binary resource block.
#[uniffi::export]
pub fn bytes_result(data: Vec<u8>) -> ToolResult {
    ToolResult::from(&results::tool_result(HostValue::Bytes(data), false))
}

/// The wire JSON of `result` (a `CallToolResult`).
#[uniffi::export]
pub fn tool_result_json(result: ToolResult) -> Result<String, McpError> {
    Ok(json(&result.into_core()?))
}

/// The result (JSON) a handler of `kind` (`tool`, `resource`, `prompt`, `completer`) answers
/// with when it returns `value_json`; `wrapped` is a tool whose declared output is not an
/// object (the value becomes `{"result": value}`), `uri` and `mime_type` describe a resource
/// read. `InvalidInput` when the value cannot be that result.
#[uniffi::export(default(uri = None, mime_type = None, wrapped = false))]
pub fn host_result(
    kind: String,
    value_json: String,
    uri: Option<String>,
    mime_type: Option<String>,
    wrapped: bool,
) -> Result<String, McpError> {
    let v = value_of(&value_json)?;
    let invalid = |e: String| McpError::from(Error::invalid_input(e));
    match kind.as_str() {
        "tool" => Ok(json(&results::tool_result(v, wrapped))),
        "resource" => results::resource_contents(v, uri.as_deref().unwrap_or(""), mime_type.as_deref())
            .map(|c| json(&c))
            .map_err(invalid),
        "prompt" => results::prompt_result(v).map(|p| json(&p)).map_err(invalid),
        "completer" => results::completion(v).map(|c| json(&c)).map_err(invalid),
        other => {
            Err(invalid(format!("unknown handler kind {other:?}; use tool, resource, prompt or completer")))
        }
    }
}

/// The engine's error kinds (`mcpcore::ErrorKind::as_str`: `rpc`, `timeout`, …).
#[uniffi::export]
pub fn error_kinds() -> Vec<String> {
    ErrorKind::ALL.iter().map(|k| k.as_str().to_owned()).collect()
}

/// Throws the engine's example error of `kind`, mapped as every error of that kind is.
#[uniffi::export]
pub fn raise_example(kind: String) -> Result<(), McpError> {
    let kind: ErrorKind = kind.parse().map_err(|e: String| McpError::from(Error::invalid_input(e)))?;
    Err(kind.example().into())
}
