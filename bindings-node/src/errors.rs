//! mcpcore errors as JS errors. napi can only throw an `Error` with a message, so the message is
//! `MCPCORE_ERROR ` followed by a JSON object `{kind, code, message, data, httpStatus}`; the JS
//! wrapper (`lib/errors.js`) decodes it into the matching `McpError` subclass.
//!
//! The other direction is explicit too: the wrapper never lets a JS tool throw across the
//! boundary; it resolves to an envelope (see `handler`), so no JS exception has to be decoded here.

use mcpcore::Error;
use serde_json::json;

/// The prefix that marks an encoded mcpcore error in `Error.message`.
pub(crate) const PREFIX: &str = "MCPCORE_ERROR ";

/// Converts an mcpcore error into a JS `Error` the wrapper can decode.
pub(crate) fn to_js(e: Error) -> napi::Error {
    let mut encoded = json!({
        "kind": e.kind().as_str(),
        "code": e.code().0,
        "message": e.message(),
        "data": e.data(),
        "httpStatus": e.http_status(),
    });
    if let Some(a) = e.auth_error() {
        encoded["error"] = json!(a.error);
        encoded["errorDescription"] = json!(a.description);
        encoded["errorUri"] = json!(a.uri);
        encoded["challenge"] = json!(a.challenge);
    }
    napi::Error::from_reason(format!("{PREFIX}{encoded}"))
}
