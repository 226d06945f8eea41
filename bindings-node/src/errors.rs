//! mcpcore errors as JS errors. napi can only throw an `Error` with a message, so the message is
//! `MCPCORE_ERROR ` followed by a JSON object `{kind, code, message, data, httpStatus}`; the JS
//! wrapper (`lib/errors.js`) decodes it into the matching `McpError` subclass.
//!
//! The other direction is explicit too: the wrapper never lets a JS tool throw across the
//! boundary; it resolves to an envelope (see `handler`), so no JS exception has to be decoded here.

use mcpcore::{Error, ErrorKind};
use serde_json::json;

/// The prefix that marks an encoded mcpcore error in `Error.message`.
pub(crate) const PREFIX: &str = "MCPCORE_ERROR ";

/// The stable kind name the wrapper maps to an error class.
fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Rpc => "rpc",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Cancelled => "cancelled",
        ErrorKind::Closed => "closed",
        ErrorKind::Protocol => "protocol",
        ErrorKind::Io => "transport",
        ErrorKind::InvalidInput => "invalid_input",
        ErrorKind::Tool => "tool",
        ErrorKind::Http => "http",
        ErrorKind::InputRequired => "input_required",
        ErrorKind::Auth => "auth",
        _ => "rpc",
    }
}

/// Converts an mcpcore error into a JS `Error` the wrapper can decode.
pub(crate) fn to_js(e: Error) -> napi::Error {
    let mut encoded = json!({
        "kind": kind_name(e.kind()),
        "code": e.code().0,
        "message": e.message(),
        "data": e.data(),
        "httpStatus": e.http_status(),
    });
    if let Some(a) = e.auth_error() {
        encoded["error"] = json!(a.error);
        encoded["errorDescription"] = json!(a.description);
        encoded["errorUri"] = json!(a.uri);
    }
    napi::Error::from_reason(format!("{PREFIX}{encoded}"))
}
