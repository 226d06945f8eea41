//! MCP protocol types, split by spec area, for every supported revision.
//!
//! Hand-written serde structs. Field names follow the 2026-07-28 schema; fields that exist only
//! in some revisions are optional. Proof of fidelity lives in the tests: every official
//! 2026-07-28 example round-trips, and every message mcpcore emits validates against the
//! `schema.json` of the negotiated revision.

pub mod capabilities;
pub mod common;
pub mod content;
pub mod lifecycle;
pub mod meta;
pub mod notifications;
pub mod resources;
pub mod tools;
pub mod version;

pub use capabilities::{ClientCapabilities, ServerCapabilities};
pub use common::{CacheScope, Meta, ResultType};
pub use content::ContentBlock;
pub use lifecycle::{DiscoverResult, Implementation, InitializeRequestParams, InitializeResult};
pub use tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations};
pub use version::{Lineage, ProtocolVersion};
