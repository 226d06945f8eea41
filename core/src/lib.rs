//! # mcpcore
//!
//! One Rust engine for the Model Context Protocol (MCP). It speaks both lineages of the protocol
//! on the same endpoint — the stateless modern revision `2026-07-28` and the `initialize`-based
//! legacy revisions `2025-11-25`, `2025-06-18`, `2025-03-26`, `2024-11-05` — and is the engine
//! behind the Python, Node, Kotlin and Swift bindings.
//!
//! Layers (see ARCHITECTURE.md): [`jsonrpc`] and [`protocol`] are pure data; [`engine`] holds
//! the protocol rules of both lineages as pure functions; [`registry`] holds tools; the async
//! shell is [`transport`], [`client`] and [`server`]; [`tasks`] is the 2026-07-28 Tasks extension;
//! [`auth`] is OAuth 2.1 (the client of the HTTP transports).
#![warn(missing_docs)]

pub mod auth;
pub mod changes;
pub mod client;
pub mod completion;
pub mod engine;
pub mod error;
pub mod http;
pub mod input;
pub mod jsonrpc;
pub mod prompts;
pub mod protocol;
pub mod registry;
pub mod remote;
pub mod resources;
pub mod server;
pub mod tasks;
pub mod transport;

pub use error::{Error, ErrorCode, ErrorData, ErrorKind, Result};
pub use protocol::{Lineage, ProtocolVersion};

/// The README's Rust example, compiled as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
