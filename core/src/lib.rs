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
//! | rules | [`state`], [`tasks`], [`session`], [`changes`] | sealed `requestState`, task and session records and stores; time and entropy passed in |
//! | context | [`context`] | what a handler sees: [`context::RequestContext`] |
//! | catalogs | [`registry`], [`resources`], [`prompts`], [`completion`] | host handlers by name |
//! | engine | [`engine`] | every protocol rule and the request lifecycle ([`engine::ServerConnection`]) |
//! | runtime | [`runtime`], [`host`] | clock, entropy, spawning, the one driver loop; the host-callback bridge of the bindings |
//! | shells | [`transport`], [`http`], [`client`], [`server`], [`remote`] | move bytes |
//!
//! Everything above the runtime is pure: no clock reads, sleeps, spawns or OS entropy (CI
//! checks it with clippy's `disallowed-methods`, and the import order with a script).
#![warn(missing_docs)]

pub mod changes;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod client;
pub mod completion;
pub mod context;
pub mod engine;
pub mod error;
pub mod future;
#[allow(clippy::disallowed_methods)] // runtime layer: bridges host event loops
pub mod host;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod http;
pub mod jsonrpc;
pub mod prompts;
pub mod protocol;
pub mod registry;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod remote;
pub mod resources;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod runtime;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod server;
pub mod session;
pub mod state;
pub mod tasks;
#[allow(clippy::disallowed_methods)] // a runtime or shell module
pub mod transport;

pub use error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
pub use protocol::{Lineage, ProtocolVersion};

/// The README's Rust example, compiled as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
