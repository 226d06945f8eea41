//! Authorization (OAuth 2.1, HTTP transports only; 2025-03-26 … 2026-07-28
//! `basic/authorization`). stdio servers take credentials from the environment instead, as the
//! spec says.
//!
//! | piece | module |
//! |---|---|
//! | `WWW-Authenticate` challenges (sans-IO) | [`challenge`] |
//! | PRM and authorization server metadata, well-known URLs, identity checks (sans-IO) | [`metadata`] |
//! | the typed failure carried by [`crate::Error`] | [`AuthError`] |
//! | the OAuth client of the HTTP transports | [`client`] |
//! | the resource server: token verifiers, the PRM, the per-identity catalogue | [`server`] |

pub mod challenge;
pub mod client;
pub mod metadata;
pub mod server;

pub use crate::error::AuthError;
