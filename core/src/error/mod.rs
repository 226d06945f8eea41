//! Errors: the wire error object ([`ErrorData`]) and the engine error ([`Error`]).
//!
//! Every failure a host can see carries a JSON-RPC [`ErrorCode`] and optional `data`, so the
//! bindings can map it into their own exception types without losing anything.

mod auth;
pub use auth::AuthError;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// A JSON-RPC error code, with the codes MCP uses as named constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// Legacy (≤ 2025-11-25) resource not found.
    pub const RESOURCE_NOT_FOUND_LEGACY: ErrorCode = ErrorCode(-32002);
    /// 2026-07-28: an HTTP header does not match the body.
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// 2026-07-28: the request needs a client capability that was not declared.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
    /// mcpcore client-side: a request timed out (never sent on the wire).
    pub const REQUEST_TIMEOUT: ErrorCode = ErrorCode(-32001);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorData {
    /// The error code.
    pub code: ErrorCode,
    /// A short human-readable description.
    pub message: String,
    /// Additional structured information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorData {
    /// An error with a code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorData { code, message: message.into(), data: None }
    }
    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// `-32700`.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }
    /// `-32600`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }
    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    /// `-32602`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }
    /// `-32603`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }
    /// `-32603` for a request refused because a limit of the server was reached (`limit`, e.g.
    /// `"in_flight"`, at `max`): `data` is `{"limit": limit, "max": max, "retryAfter": 1}`
    /// (seconds), and HTTP answers it with 429 and `Retry-After` where a status is owed. The
    /// client may retry once the limit has room again.
    pub fn over_limit(limit: &str, max: usize, message: impl Into<String>) -> Self {
        Self::internal(message).with_data(serde_json::json!({"limit": limit, "max": max, "retryAfter": 1}))
    }
    /// The limit named by an [`ErrorData::over_limit`] error.
    pub fn limit_reached(&self) -> Option<&str> {
        if self.code != ErrorCode::INTERNAL_ERROR {
            return None;
        }
        self.data.as_ref()?.get("limit")?.as_str()
    }
}

impl fmt::Display for ErrorData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for ErrorData {}

/// What kind of failure an [`Error`] is; stable across releases, matched by the bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The peer answered with a JSON-RPC error (see [`Error::code`] and [`Error::data`]).
    Rpc,
    /// The request did not complete in time.
    Timeout,
    /// The request was cancelled by the caller.
    Cancelled,
    /// The connection closed (e.g. the server process exited) before an answer arrived.
    Closed,
    /// The peer broke the protocol (unparseable or unexpected message, no mutual version…).
    Protocol,
    /// Spawning or talking to the transport failed at the OS level.
    Io,
    /// The host supplied something invalid (bad tool name, collision under the `error` policy…).
    InvalidInput,
    /// A tool handler failed; the server turns this into an `isError: true` result.
    Tool,
    /// An HTTP server answered with an error status and no JSON-RPC error (see
    /// [`Error::http_status`]).
    Http,
    /// A 2026-07-28 handler needs client input it does not have yet (see [`crate::context::input`]);
    /// the server answers with an `InputRequiredResult`. Propagate it unchanged.
    InputRequired,
    /// A resource the client asked for does not exist: the server answered `resources/read` with
    /// `-32602` (2026-07-28) or `-32002` (legacy); [`Error::code`] and [`Error::data`] keep its
    /// error.
    ResourceNotFound,
    /// Authorization failed (OAuth 2.1, HTTP only): a refused token request, a rejected
    /// authorization response, a resource server that keeps answering 401/403 (see
    /// [`Error::auth_error`] for the OAuth `error`, its description and the HTTP status).
    Auth,
}

impl ErrorKind {
    /// Every kind, in a fixed order (the bindings' mapping tests enumerate it).
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Rpc,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::Closed,
        ErrorKind::Protocol,
        ErrorKind::Io,
        ErrorKind::InvalidInput,
        ErrorKind::Tool,
        ErrorKind::Http,
        ErrorKind::InputRequired,
        ErrorKind::ResourceNotFound,
        ErrorKind::Auth,
    ];

    /// The stable name every binding maps to its own error class (`rpc`, `timeout`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
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
            ErrorKind::ResourceNotFound => "resource_not_found",
            ErrorKind::Auth => "auth",
        }
    }

    /// A representative error of this kind (code and data as the kind usually carries them),
    /// for the bindings' mapping tests.
    pub fn example(self) -> Error {
        let data = serde_json::json!({"kind": self.as_str()});
        match self {
            ErrorKind::Rpc => Error::rpc(ErrorData::new(ErrorCode(-32099), "rpc example").with_data(data)),
            ErrorKind::ResourceNotFound => Error::resource_not_found(
                ErrorData::new(ErrorCode::RESOURCE_NOT_FOUND_LEGACY, "Resource not found: x://1")
                    .with_data(data),
            ),
            ErrorKind::Http => Error::http_rpc(
                401,
                "http example",
                ErrorData::new(ErrorCode::INVALID_REQUEST, "Unauthorized").with_data(data),
            ),
            ErrorKind::Auth => Error::auth(AuthError {
                error: "invalid_grant".into(),
                description: Some("auth example".into()),
                uri: Some("https://as.example/errors#invalid_grant".into()),
                status: Some(400),
                challenge: None,
            }),
            kind => Error::new(kind, format!("{} example", kind.as_str())),
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ErrorKind {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        ErrorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown error kind {s:?}"))
    }
}

/// The one error type of the mcpcore API.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    rpc: Option<ErrorData>,
    status: Option<u16>,
    auth: Option<std::sync::Arc<AuthError>>,
}

impl Error {
    /// An HTTP error status without a JSON-RPC error body.
    pub fn http(status: u16, message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Http, message: message.into(), rpc: None, status: Some(status), auth: None }
    }
    /// An HTTP error status whose body carried a JSON-RPC error without a usable id: the kind
    /// stays [`ErrorKind::Http`], and [`Error::code`] and [`Error::data`] come from the body.
    pub fn http_rpc(status: u16, message: impl Into<String>, data: ErrorData) -> Self {
        Error {
            kind: ErrorKind::Http,
            message: message.into(),
            rpc: Some(data),
            status: Some(status),
            auth: None,
        }
    }
    /// The HTTP status of an [`ErrorKind::Http`] error, or of the response that carried an
    /// [`ErrorKind::Auth`] error.
    pub fn http_status(&self) -> Option<u16> {
        self.status
    }
    /// An [`ErrorKind::Auth`] error.
    pub fn auth(e: AuthError) -> Self {
        Error {
            kind: ErrorKind::Auth,
            message: e.to_string(),
            rpc: None,
            status: e.status,
            auth: Some(std::sync::Arc::new(e)),
        }
    }
    /// What an [`ErrorKind::Auth`] error holds: the OAuth `error`, `error_description`,
    /// `error_uri` and HTTP status.
    pub fn auth_error(&self) -> Option<&AuthError> {
        self.auth.as_deref()
    }
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), rpc: None, status: None, auth: None }
    }
    /// An error carrying a JSON-RPC error object received from (or meant for) the peer.
    pub fn rpc(data: ErrorData) -> Self {
        Error {
            kind: ErrorKind::Rpc,
            message: data.message.clone(),
            rpc: Some(data),
            status: None,
            auth: None,
        }
    }
    /// A [`ErrorKind::ResourceNotFound`] error carrying the server's error object.
    pub fn resource_not_found(data: ErrorData) -> Self {
        Error {
            kind: ErrorKind::ResourceNotFound,
            message: data.message.clone(),
            rpc: Some(data),
            status: None,
            auth: None,
        }
    }
    /// True for [`ErrorKind::ResourceNotFound`].
    pub fn is_resource_not_found(&self) -> bool {
        self.kind == ErrorKind::ResourceNotFound
    }
    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The JSON-RPC code: the peer's for [`ErrorKind::Rpc`], a fixed mcpcore code otherwise.
    pub fn code(&self) -> ErrorCode {
        match (&self.rpc, self.kind) {
            (Some(d), _) => d.code,
            (None, ErrorKind::Timeout) => ErrorCode::REQUEST_TIMEOUT,
            (None, ErrorKind::InvalidInput) => ErrorCode::INVALID_PARAMS,
            (None, _) => ErrorCode::INTERNAL_ERROR,
        }
    }
    /// The JSON-RPC `data` of a peer error.
    pub fn data(&self) -> Option<&Value> {
        self.rpc.as_ref().and_then(|d| d.data.as_ref())
    }
    /// The whole JSON-RPC error object, when there is one.
    pub fn rpc_error(&self) -> Option<&ErrorData> {
        self.rpc.as_ref()
    }
    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// True for [`ErrorKind::Timeout`].
    pub fn is_timeout(&self) -> bool {
        self.kind == ErrorKind::Timeout
    }
    /// True for [`ErrorKind::Closed`].
    pub fn is_closed(&self) -> bool {
        self.kind == ErrorKind::Closed
    }
    /// Shorthand constructors.
    pub fn protocol(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Protocol, message)
    }
    /// An [`ErrorKind::Closed`] error.
    pub fn closed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Closed, message)
    }
    /// An [`ErrorKind::Tool`] error: a tool's own failure, reported to the model as `isError`.
    pub fn tool(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Tool, message)
    }
    /// An [`ErrorKind::Cancelled`] error.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Cancelled, message)
    }
    /// An [`ErrorKind::Timeout`] error.
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Timeout, message)
    }
    /// A message over a size limit ([`ErrorKind::Protocol`]): code `-32600` with data
    /// `{"size": bytes, "limit": bytes}`, e.g. a reply larger than the client's frame bound.
    pub fn too_large(message: impl Into<String>, size: usize, limit: usize) -> Self {
        let message = message.into();
        let data = ErrorData::invalid_request(message.clone())
            .with_data(serde_json::json!({ "size": size, "limit": limit }));
        Error { kind: ErrorKind::Protocol, message, rpc: Some(data), status: None, auth: None }
    }
    /// An [`ErrorKind::InvalidInput`] error.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
    /// Tool arguments that fail validation ([`ErrorKind::InvalidInput`] carrying the `-32602`
    /// error `data`, with the failing fields): a handler that decodes its own arguments returns
    /// it, and the server answers it as the revision says (a tool execution error from
    /// 2025-11-25 on, `-32602` before; see `ProtocolVersion::tool_input_errors_are_results`).
    pub fn invalid_arguments(data: ErrorData) -> Self {
        Error {
            kind: ErrorKind::InvalidInput,
            message: data.message.clone(),
            rpc: Some(data),
            status: None,
            auth: None,
        }
    }
    /// True for an [`Error::invalid_arguments`] error.
    pub fn is_invalid_arguments(&self) -> bool {
        self.kind == ErrorKind::InvalidInput && self.rpc.is_some()
    }
}

impl From<ErrorData> for Error {
    fn from(d: ErrorData) -> Self {
        Error::rpc(d)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, e.to_string())
    }
}

/// The result type of the mcpcore API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_stable_names_that_parse_back() {
        for kind in ErrorKind::ALL {
            assert_eq!(kind.as_str().parse::<ErrorKind>(), Ok(kind));
            assert_eq!(kind.example().kind(), kind);
        }
        assert!("nope".parse::<ErrorKind>().is_err());
    }
}
