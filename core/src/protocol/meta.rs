//! Reserved `_meta` keys of the modern lineage.

/// Request `_meta`: the protocol version of this request (required on 2026-07-28).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta`: the client's capabilities for this request (required on 2026-07-28).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Request `_meta`: the client implementation (display only).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Request `_meta`: opt-in log level for `notifications/message`.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta`: the server implementation.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification/result `_meta`: the id of the `subscriptions/listen` request.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// Request `_meta`: the progress token.
pub const PROGRESS_TOKEN: &str = "progressToken";
