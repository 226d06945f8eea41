//! `mcpcore_uniffi`: the Kotlin and Swift binding of mcpcore, built with uniffi proc-macros (no
//! UDL). It only converts and registers: JSON crosses the boundary as text, foreign objects
//! implementing [`ToolHandler`], [`ResourceReader`] and [`PromptRenderer`] become tools,
//! resource readers and prompt renderers through the core's host bridge (`mcpcore::host`: the
//! one rule set for what a host value becomes on the wire), a [`ClientInput`] answers a
//! server's requests for elicitation, sampling and roots, and every error becomes an [`McpError`] carrying its
//! JSON-RPC code and data. All protocol logic is in the `mcpcore` crate.
//!
//! | Rust here | Kotlin (package `mcpcore`) | Swift (module `Mcpcore`) |
//! |---|---|---|
//! | [`Registry`], [`Server`], [`HttpServing`], [`Client`] | classes (`AutoCloseable`) | classes |
//! | [`Resources`], [`Prompts`] (served by a [`Server`]) | classes | classes |
//! | [`ToolHandler`], [`ResourceReader`], [`PromptRenderer`], [`ClientInput`], [`LogListener`], [`NotificationListener`], [`OAuthHandler`], [`OAuthTokenStore`] | interfaces (`suspend fun`) | protocols (`async`) |
//! | [`Task`] (`Client.callToolAsTask`) | class | class |
//! | [`OAuth`] (`ConnectOptions.auth`), [`ServerAuth`] (`serveHttp(auth = ...)`) | class | class |
//! | [`TokenVerifier`] (a protected server's host check) | interface (`suspend fun`) | protocol (`async`) |
//! | [`McpError`] | `McpException` (sealed) | `McpError` (`Error`) |
//!
//! Every exported future runs in the context of one process-wide tokio runtime ([`rt`]), and is
//! dropped when the Kotlin coroutine or Swift task awaiting it is cancelled: cancelling a
//! `callTool` sends `notifications/cancelled` to the server.

// `McpError` is the flat enum the foreign languages see (a sealed exception class, a Swift
// error): its `Auth` variant carries the whole OAuth error by value, so `Result<_, McpError>`
// is large; boxing it would change the generated API for nothing measurable.
#![allow(clippy::result_large_err)]

uniffi::setup_scaffolding!("mcpcore");

mod apps;
mod auth;
mod catalog;
mod client;
mod client_catalog;
mod client_session;
mod errors;
mod events;
mod gateway;
mod handler;
mod host;
mod input;
mod middleware;
mod receiver;
mod registry;
mod results;
mod rt;
mod server;
mod server_auth;
mod skills;

pub use apps::{apps_meta, AppView};
pub use auth::{OAuth, OAuthGrant, OAuthHandler, OAuthOptions, OAuthTokenStore};
pub use catalog::{
    prompt_messages, HostValue, PromptArgument, PromptMessage, PromptRenderer, Prompts, ResourceReader,
    Resources,
};
pub use client::{
    CallOptions, Client, ConnectOptions, HttpTransport, Lineage, LogListener, ProgressListener, Subscription,
};
pub use client_catalog::{Completion, Prompt, PromptResult, Resource, ResourceContents, ResourceTemplate};
pub use client_session::{
    NotificationListener, PromptsPage, ResourceTemplatesPage, ResourcesPage, ServerNotification, Task,
    TaskInfo, ToolsPage,
};
pub use errors::McpError;
pub use events::{DeliveryMode, EventOccurrence, EventStream, Events, PollResult, StreamItem, WebhookGrant};
pub use gateway::{Gateway, UpstreamState, UpstreamStatus};
pub use handler::{ToolCall, ToolHandler};
pub use host::{bytes_result, error_kinds, host_result, raise_example, tool_result_json, value_result};
pub use input::{ClientInput, ElicitAction, ElicitAnswer, ElicitRequest, InputKinds, Root};
pub use middleware::{
    telemetry_outcome, SessionEnded, TelemetryAttribute, TelemetryOperation, TelemetryOutcome,
};
pub use receiver::{ReceivedDelivery, WebhookReceiver};
pub use registry::{CollisionPolicy, Registration, Registry};
pub use results::{
    error_result, page, pending_approval_result, refusal_result, structured_result, text_result, Content,
    ServerInfo, Tool, ToolResult,
};
pub use server::{HttpServing, Server};
pub use server_auth::{AuthIdentity, AuthSettings, ServerAuth, TokenRefused, TokenVerifier};
pub use skills::{Skill, SkillFile, Skills, SkillsSupport};

/// Parses JSON handed over by the host; `what` names it in the error.
pub(crate) fn parse_json(what: &str, text: &str) -> Result<serde_json::Value, McpError> {
    serde_json::from_str(text)
        .map_err(|e| McpError::from(mcpcore::Error::invalid_input(format!("{what} is not valid JSON: {e}"))))
}

/// The version of this library (the workspace version).
#[uniffi::export]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
mod tests;
