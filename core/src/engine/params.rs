//! Reading a request's params into their type, with the `-32602` owed when they do not fit.

use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::protocol::CallToolRequestParams;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The request's params as `T` (what it reads is copied out of the request's map).
pub(super) fn parse_params<T: serde::de::DeserializeOwned>(req: &Request) -> Result<T, ErrorData> {
    let parsed = match &req.params {
        Some(params) => T::deserialize(params),
        None => T::deserialize(&Map::new()),
    };
    parsed.map_err(|e| invalid(req, e))
}

/// `tools/call`'s params. Its `arguments` and `_meta` (a modern request's is the biggest member)
/// are moved out of the request rather than copied as [`parse_params`] would copy them; the
/// rest stays for the MRTR members' readers. The errors are [`parse_params`]'s.
pub(super) fn call_params(req: &mut Request) -> Result<CallToolRequestParams, ErrorData> {
    let (arguments, meta) = match req.params.as_mut() {
        Some(p) => (p.remove("arguments"), p.remove("_meta")),
        None => (None, None),
    };
    let object = |v: Value| Option::<Map<String, Value>>::deserialize(v).map_err(|e| invalid(req, e));
    // In the order the whole read met them (`_meta` sorts first), so the same error is named.
    let meta = meta.map(object).transpose()?;
    let arguments = arguments.map(object).transpose()?;
    let mut params: CallToolRequestParams = parse_params(req)?;
    params.arguments = arguments.flatten();
    params.meta = meta.flatten();
    Ok(params)
}

/// `-32602` naming the method and what did not fit.
fn invalid(req: &Request, e: serde_json::Error) -> ErrorData {
    ErrorData::invalid_params(format!("Invalid params for {}: {e}", req.method))
}
