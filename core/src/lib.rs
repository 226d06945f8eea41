//! # mcpcore
//!
//! One Rust engine for the Model Context Protocol (MCP). It speaks both lineages of the protocol
//! on the same endpoint — the stateless modern revision `2026-07-28` and the `initialize`-based
//! legacy revisions `2025-11-25`, `2025-06-18`, `2025-03-26`, `2024-11-05` — and is the engine
//! behind the Python, Node, Kotlin and Swift bindings.
//!
//! Layers (see ARCHITECTURE.md), each importing only the layers above it:
//!
//! | layer | modules | what |
//! |---|---|---|
//! | data | [`error`], [`future`], [`jsonrpc`], [`protocol`] | wire types, one parse, one error type |
//! | rules | [`state`], [`tasks`], [`session`], [`changes`], [`idempotency`], [`rates`] | sealed `requestState`, task and session records and stores; time and entropy passed in |
//! | context | [`context`] | what a handler sees: [`context::RequestContext`] |
//! | catalogs | [`registry`], [`resources`], [`prompts`], [`completion`], [`events`], [`middleware`], [`semconv`] | host handlers by name; event types and their occurrences |
//! | engine | [`engine`] | every protocol rule and the request lifecycle ([`engine::ServerConnection`]) |
//! | runtime | [`runtime`], [`host`] | clock, entropy, spawning, the one driver loop; the host-callback bridge of the bindings |
//! | shells | [`transport`], [`http`], [`client`], [`server`], [`remote`], [`gateway`], [`store`], [`tls`], [`telemetry`] | move bytes; stores on a database; HTTPS |
//! | api | [`prelude`], [`typed`], [`builder`] | the Rust API on top: typed tools, `#[tool]`, [`Server::builder`] |
//!
//! Everything above the runtime is pure: no clock reads, sleeps, spawns or OS entropy (CI
//! checks it with clippy's `disallowed-methods`, and the import order with a script).
//!
//! A server is one `use mcpcore::prelude::*;` away:
//!
//! ```no_run
//! use mcpcore::prelude::*;
//!
//! /// Adds two numbers.
//! #[tool(read_only)]
//! async fn add(/** The first addend. */ a: f64, /** The second addend. */ b: f64) -> String {
//!     (a + b).to_string()
//! }
//!
//! # async fn serve() -> mcpcore::Result<()> {
//! Server::builder("demo", "1.0").tool(add).build()?.serve_stdio().await
//! # }
//! ```
#![warn(missing_docs)]

// The `#[tool]` macro names this crate `::mcpcore`; so can code inside it (its tests).
#[allow(unused_extern_crates)]
extern crate self as mcpcore;

#[allow(clippy::disallowed_methods)] // a shell module: the OAuth client talks HTTP, listens on loopback
pub mod auth;
pub mod builder;
pub mod changes;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod client;
pub mod completion;
pub mod context;
#[allow(clippy::disallowed_methods)] // a shell module: times round trips
pub mod doctor;
pub mod engine;
pub mod error;
pub mod events;
pub mod future;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[allow(missing_docs, clippy::too_many_arguments)]
pub mod fuzzing;
#[allow(clippy::disallowed_methods)] // a shell module: starts upstreams, reads its config file
pub mod gateway;
#[allow(clippy::disallowed_methods)] // runtime layer: bridges host event loops
pub mod host;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod http;
pub mod idempotency;
pub mod jsonrpc;
pub mod middleware;
pub mod prelude;
pub mod prompts;
pub mod protocol;
pub mod rates;
pub mod registry;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod remote;
pub mod resources;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod runtime;
pub mod semconv;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod server;
pub mod session;
pub mod skills;
pub mod state;
#[allow(clippy::disallowed_methods)] // a shell module: talks to Redis
pub mod store;
pub mod tasks;
#[allow(clippy::disallowed_methods)] // a shell module: reads the clock for durations
pub mod telemetry;
pub mod tls;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod transport;
pub mod typed;

pub use builder::ServerBuilder;
pub use client::{Client, ClientOptions};
pub use context::RequestContext;
pub use engine::ServerConfig;
pub use error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
/// `#[tool]`: makes an MCP tool of an `async fn` with typed parameters (crate `mcpcore-macros`).
///
/// ```
/// use mcpcore::prelude::*;
///
/// /// Repeats a word.
/// #[tool(name = "repeat", title = "Repeat", read_only)]
/// async fn repeat_word(
///     /// The word.
///     word: String,
///     /// How often (default twice).
///     times: Option<u8>,
/// ) -> String {
///     word.repeat(times.unwrap_or(2).into())
/// }
///
/// let def = repeat_word();
/// assert_eq!(def.tool().name, "repeat");
/// assert_eq!(def.tool().description.as_deref(), Some("Repeats a word."));
/// assert_eq!(def.tool().input_schema["properties"]["word"]["description"], "The word.");
/// assert_eq!(def.tool().input_schema["required"], serde_json::json!(["word"]));
/// ToolRegistry::new().add(repeat_word)?;
/// # Ok::<(), mcpcore::Error>(())
/// ```
///
/// The full rules are in the `mcpcore-macros` crate docs: the generated function
/// `repeat_word() -> ToolDef`, the argument struct (serde + schemars), `RequestContext`
/// parameters, and the attribute's arguments (`name`, `title`, `description`, `read_only`,
/// `destructive`, `idempotent`, `open_world`, `task`, `crate`).
#[cfg(feature = "macros")]
pub use mcpcore_macros::tool;
pub use prompts::PromptRegistry;
pub use protocol::{CallToolResult, ContentBlock, Lineage, ProtocolVersion, Tool};
pub use registry::ToolRegistry;
pub use resources::ResourceRegistry;
/// schemars, the JSON Schema generator of typed tools: derive `JsonSchema` with the version
/// mcpcore uses.
pub use schemars;
pub use server::Server;
pub use typed::{IntoCallToolResult, IntoToolDef, Json, ToolDef};

/// The README's Rust example, compiled as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The Rust samples of the documentation site (`docs/`), run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/getting-started/rust.md")]
mod docs_getting_started_rust {}

/// The Rust samples of the documentation site: the Events extension.
#[cfg(doctest)]
#[doc = include_str!("../../docs/events.md")]
mod docs_events {}

/// The Rust samples of the documentation site: the Rust API in depth.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust-api.md")]
mod docs_rust_api {}
