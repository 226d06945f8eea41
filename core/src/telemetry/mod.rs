//! OpenTelemetry for MCP, by the semantic conventions for MCP (status Development, in the
//! OpenTelemetry GenAI conventions, `docs/gen-ai/mcp.md`).
//!
//! [`conventions`] ([`crate::semconv`]) turns a request and its context into what the conventions ask for — the
//! span name `{mcp.method.name} {target}`, the attributes, the parent context carried in
//! `params._meta` (`traceparent`, `tracestate`, `baggage`, unprefixed as SEP-414 says) — and an
//! answer into its outcome (`error.type`, `rpc.response.status_code`, the span status). It is
//! pure, written once, and every language's provider reads from it.
//!
//! [`OtelMiddleware`] records them with the `opentelemetry` crate's global providers: a SERVER
//! span per request the server dispatches (parent: the context in `params._meta`) and the
//! histogram `mcp.server.operation.duration`; handlers run inside the span's context, so their
//! own spans nest under it. On the client side, [`client`] makes a CLIENT span per request and
//! injects its context into `params._meta`, and records `mcp.client.operation.duration`.
//! Nothing is recorded, and nothing is added to a request's path, unless telemetry is turned on
//! (`ServerBuilder::telemetry`, `ClientOptions::telemetry`).
//!
//! What the conventions leave open, answered the same way in every language:
//! - **Sessions on 2026-07-28.** A modern request belongs to no session (and records no
//!   `mcp.server.session.duration`, which legacy sessions record when they end): its span has no
//!   `mcp.session.id` (legacy sessions over HTTP carry their `Mcp-Session-Id`; stdio has no id).
//! - **MRTR rounds.** Each round of a 2026-07-28 request that asks for input is a request of its
//!   own and gets a span of its own; a client that keeps its CLIENT span open across the rounds
//!   (ours does not yet) makes them siblings under one parent.
//! - **The gateway.** A forwarded request's SERVER span is the parent of the CLIENT span of the
//!   upstream call, whose context travels on in the upstream request's `_meta`.

pub mod client;
#[cfg(feature = "otlp")]
mod otlp;
mod record;
mod server;
mod w3c;

pub use crate::semconv as conventions;
#[cfg(feature = "otlp")]
pub use otlp::Otlp;
pub use server::OtelMiddleware;
