//! HTTP transports: Streamable HTTP (both lineages on one endpoint) and the 2024-11-05 HTTP+SSE
//! transport, server and client (spec 2026-07-28 basic/transports/streamable-http; 2025-11-25 and 2024-11-05 basic/transports).
//!
//! | piece | module |
//! |---|---|
//! | SSE event codec (sans-IO) | [`sse`] |
//! | modern header derivation and validation, `=?base64?…?=` values (sans-IO) | [`headers`] |
//! | the server: one endpoint, both lineages, sessions, 2024-11-05 SSE | [`server`] |
//! | the client transport: JSON and SSE responses, sessions, 2024-11-05 fallback | [`client`] |
//! | HTTPS: rustls for every client and the server | [`crate::tls`] |

pub mod client;
pub mod headers;
pub mod server;
pub mod sse;
/// HTTPS for the clients and the server (the crate's [`tls`](crate::tls) module).
pub use crate::tls;

/// `application/json`.
pub const JSON: &str = "application/json";
/// `text/event-stream`.
pub const EVENT_STREAM: &str = "text/event-stream";
