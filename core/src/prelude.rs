//! What a server or client needs, in one `use mcpcore::prelude::*;`.
//!
//! Servers: [`Server`] and its [`ServerBuilder`], the [`tool`] macro (feature `macros`),
//! typed tools ([`ToolDef`], [`Json`]), the [`RequestContext`] handlers receive, results
//! ([`CallToolResult`], [`ContentBlock`]), prompts ([`Prompt`], [`GetPromptResult`],
//! [`PromptArguments`]), elicitation forms ([`ElicitForm`], [`ElicitAction`]) and the registries.
//! Clients: [`Client`], [`ClientOptions`], [`StdioCommand`], [`HttpOptions`].
//! Both: [`Error`], [`ErrorKind`], [`Result`].

pub use crate::builder::ServerBuilder;
pub use crate::client::{Client, ClientOptions};
pub use crate::context::{Arguments, RequestContext};
pub use crate::engine::ServerConfig;
pub use crate::error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
pub use crate::http::client::HttpOptions;
pub use crate::http::server::HttpServerConfig;
pub use crate::prompts::{PromptArguments, PromptRegistry};
pub use crate::protocol::elicitation::{ElicitAction, ElicitForm, ElicitResult};
pub use crate::protocol::prompts::{GetPromptResult, Prompt, PromptMessage};
pub use crate::protocol::{CallToolResult, ContentBlock, Role, Tool, ToolAnnotations};
pub use crate::registry::ToolRegistry;
pub use crate::resources::ResourceRegistry;
pub use crate::server::Server;
pub use crate::tasks::TaskPolicy;
#[cfg(feature = "macros")]
pub use crate::tool;
pub use crate::transport::child::StdioCommand;
pub use crate::typed::{IntoCallToolResult, IntoToolDef, Json, ToolDef};
