//! MCP protocol types, split by spec area, for every supported revision.
//!
//! Hand-written serde structs. Field names follow the 2026-07-28 schema; fields that exist only
//! in some revisions are optional. Proof of fidelity lives in the tests: every official
//! 2026-07-28 example round-trips, and every message mcpcore emits validates against the
//! `schema.json` of the negotiated revision.

pub mod apps;
pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod elicitation;
mod elicitation_form;
pub mod errors;
pub mod events;
pub mod lifecycle;
pub mod logging;
pub mod messages;
pub mod meta;
pub mod mrtr;
pub mod notifications;
mod number;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod skills;
pub mod subscriptions;
pub mod tags;
pub mod tasks;
pub mod tasks_ext;
pub mod tools;
pub mod version;

pub use capabilities::{ClientCapabilities, ServerCapabilities};
pub use common::{CacheHint, CacheScope, EmptyResult, Meta, ResultType, Role};
pub use content::ContentBlock;
pub use lifecycle::{DiscoverResult, Implementation, InitializeRequestParams, InitializeResult};
pub use messages::{NotificationType, RequestType};
pub use mrtr::{InputRequest, InputRequiredResult, InputResponse, ResultOrInputRequired};
pub use tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations};
pub use version::{Lineage, ProtocolVersion};
