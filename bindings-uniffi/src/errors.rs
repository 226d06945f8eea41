//! [`McpError`]: every mcpcore error as one uniffi error enum, a Kotlin `McpException` subclass
//! or a Swift `McpError` case per [`mcpcore::ErrorKind`], each carrying the JSON-RPC `code`, a
//! `reason` (the message) and the JSON-RPC `data` as JSON text.

use mcpcore::{Error, ErrorCode, ErrorData, ErrorKind};

/// An mcpcore failure. Every variant carries `code` (the JSON-RPC error code: the peer's for
/// [`McpError::Rpc`], a fixed mcpcore code otherwise), `reason` (a human-readable message) and
/// `data` (the JSON-RPC `data` member as JSON text, when there is one).
///
/// A tool that throws [`McpError::Rpc`] sends that JSON-RPC error to its caller; any other
/// exception thrown by a tool becomes a result with `isError: true`.
#[derive(Debug, Clone, PartialEq, thiserror::Error, uniffi::Error)]
pub enum McpError {
    /// The peer answered with a JSON-RPC error (or a tool wants to send one).
    #[error("{reason} (code {code})")]
    Rpc {
        /// The JSON-RPC error code.
        code: i32,
        /// The error message.
        reason: String,
        /// The JSON-RPC `data` as JSON text.
        data: Option<String>,
    },
    /// The request did not complete in time (code -32001).
    #[error("{reason}")]
    Timeout {
        /// -32001.
        code: i32,
        /// What timed out.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// The request was cancelled.
    #[error("{reason}")]
    Cancelled {
        /// -32603.
        code: i32,
        /// Why.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// The connection closed (e.g. the server process exited) before an answer arrived.
    #[error("{reason}")]
    Closed {
        /// -32603.
        code: i32,
        /// Why.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// The peer broke the protocol (unparseable message, no mutual version…).
    #[error("{reason}")]
    Protocol {
        /// -32603.
        code: i32,
        /// What went wrong.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// Spawning or talking to the transport failed at the OS level.
    #[error("{reason}")]
    Transport {
        /// -32603.
        code: i32,
        /// The OS error.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// The host supplied something invalid (bad JSON, tool name, collision…) (code -32602).
    #[error("{reason}")]
    InvalidInput {
        /// -32602.
        code: i32,
        /// What is invalid.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// A tool failed (a server turns this into an `isError: true` result).
    #[error("{reason}")]
    Tool {
        /// -32603.
        code: i32,
        /// The failure.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// An HTTP server answered with an error status.
    #[error("{reason} (HTTP {status})")]
    Http {
        /// The JSON-RPC code of the body, or -32603.
        code: i32,
        /// The message.
        reason: String,
        /// The JSON-RPC `data` of the body, as JSON text.
        data: Option<String>,
        /// The HTTP status.
        status: u16,
    },
    /// A 2026-07-28 handler needs client input it does not have yet. A tool throws it (or lets
    /// it propagate) to end the round; the server answers with an `InputRequiredResult`.
    #[error("{reason}")]
    InputRequired {
        /// -32603.
        code: i32,
        /// What is missing.
        reason: String,
        /// Always `None`.
        data: Option<String>,
    },
    /// The resource asked for does not exist (`-32002` on legacy revisions, `-32602` on
    /// 2026-07-28); `data` names its `uri`.
    #[error("{reason} (code {code})")]
    ResourceNotFound {
        /// The JSON-RPC error code.
        code: i32,
        /// The error message.
        reason: String,
        /// The JSON-RPC `data` as JSON text.
        data: Option<String>,
    },
    /// Authorization failed (OAuth 2.1 over HTTP).
    #[error("{reason}")]
    Auth {
        /// -32603.
        code: i32,
        /// The message.
        reason: String,
        /// Always `None`.
        data: Option<String>,
        /// The OAuth `error` code (`invalid_grant`, `insufficient_scope`, `access_denied`…) or
        /// mcpcore's refusal (`resource_mismatch`, `issuer_mismatch`, `retry_limit`…).
        error: String,
        /// The `error_description`.
        error_description: Option<String>,
        /// The `error_uri`.
        error_uri: Option<String>,
        /// The HTTP status of the response that carried it (0: none).
        status: u16,
        /// The server's `WWW-Authenticate` challenge of a 401 or 403, as received (a client
        /// without OAuth: `error` is then `unauthorized`).
        challenge: Option<String>,
    },
}

#[uniffi::export]
impl McpError {
    /// The JSON-RPC code, whatever the variant (Kotlin `e.code()`, Swift `e.code()`).
    pub fn code(&self) -> i32 {
        match self {
            McpError::Rpc { code, .. }
            | McpError::Timeout { code, .. }
            | McpError::Cancelled { code, .. }
            | McpError::Closed { code, .. }
            | McpError::Protocol { code, .. }
            | McpError::Transport { code, .. }
            | McpError::InvalidInput { code, .. }
            | McpError::Tool { code, .. }
            | McpError::Http { code, .. }
            | McpError::InputRequired { code, .. }
            | McpError::ResourceNotFound { code, .. }
            | McpError::Auth { code, .. } => *code,
        }
    }

    /// The JSON-RPC `data` as JSON text, whatever the variant (`None` when there is none).
    pub fn data(&self) -> Option<String> {
        match self {
            McpError::Rpc { data, .. }
            | McpError::Timeout { data, .. }
            | McpError::Cancelled { data, .. }
            | McpError::Closed { data, .. }
            | McpError::Protocol { data, .. }
            | McpError::Transport { data, .. }
            | McpError::InvalidInput { data, .. }
            | McpError::Tool { data, .. }
            | McpError::Http { data, .. }
            | McpError::InputRequired { data, .. }
            | McpError::ResourceNotFound { data, .. }
            | McpError::Auth { data, .. } => data.clone(),
        }
    }
}

impl McpError {
    /// The message.
    pub fn reason(&self) -> &str {
        match self {
            McpError::Rpc { reason, .. }
            | McpError::Timeout { reason, .. }
            | McpError::Cancelled { reason, .. }
            | McpError::Closed { reason, .. }
            | McpError::Protocol { reason, .. }
            | McpError::Transport { reason, .. }
            | McpError::InvalidInput { reason, .. }
            | McpError::Tool { reason, .. }
            | McpError::Http { reason, .. }
            | McpError::InputRequired { reason, .. }
            | McpError::ResourceNotFound { reason, .. }
            | McpError::Auth { reason, .. } => reason,
        }
    }

    /// An [`McpError::InvalidInput`].
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        Error::invalid_input(reason).into()
    }
}

impl From<Error> for McpError {
    fn from(e: Error) -> Self {
        let code = e.code().0;
        let reason = e.message().to_owned();
        let data = e.data().map(|d| d.to_string());
        match e.kind() {
            ErrorKind::Rpc => McpError::Rpc { code, reason, data },
            ErrorKind::Timeout => McpError::Timeout { code, reason, data },
            ErrorKind::Cancelled => McpError::Cancelled { code, reason, data },
            ErrorKind::Closed => McpError::Closed { code, reason, data },
            ErrorKind::Protocol => McpError::Protocol { code, reason, data },
            ErrorKind::Io => McpError::Transport { code, reason, data },
            ErrorKind::InvalidInput => McpError::InvalidInput { code, reason, data },
            ErrorKind::Tool => McpError::Tool { code, reason, data },
            ErrorKind::Http => McpError::Http { code, reason, data, status: e.http_status().unwrap_or(0) },
            ErrorKind::InputRequired => McpError::InputRequired { code, reason, data },
            ErrorKind::ResourceNotFound => McpError::ResourceNotFound { code, reason, data },
            ErrorKind::Auth => {
                let a = e.auth_error();
                McpError::Auth {
                    code,
                    reason,
                    data,
                    error: a.map(|a| a.error.clone()).unwrap_or_default(),
                    error_description: a.and_then(|a| a.description.clone()),
                    error_uri: a.and_then(|a| a.uri.clone()),
                    status: e.http_status().unwrap_or(0),
                    challenge: a.and_then(|a| a.challenge.clone()),
                }
            }
            _ => McpError::Rpc { code, reason, data },
        }
    }
}

/// The JSON-RPC error `code`/`reason` with `data` (JSON text; kept only when it parses).
pub(crate) fn error_data(code: i32, reason: String, data: Option<&str>) -> ErrorData {
    let d = ErrorData::new(ErrorCode(code), reason);
    match data.and_then(|t| serde_json::from_str(t).ok()) {
        Some(v) => d.with_data(v),
        None => d,
    }
}

/// An exception the foreign code did not declare (a Kotlin `RuntimeException`, a Swift error of
/// another type) arrives as a tool failure carrying its description.
impl From<uniffi::UnexpectedUniFFICallbackError> for McpError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        Error::tool(e.reason).into()
    }
}
