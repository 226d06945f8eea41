//! Typed `data` of MCP-specific JSON-RPC errors (the code constants live in
//! [`crate::ErrorCode`]; `-32022`'s data is [`super::lifecycle::UnsupportedVersionData`]).

use super::capabilities::ClientCapabilities;
use super::elicitation::ElicitRequestURLParams;
use serde::{Deserialize, Serialize};

/// `data` of a missing-required-client-capability error (`-32021`, 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needs (an object, e.g. `{"elicitation":{}}`).
    pub required_capabilities: ClientCapabilities,
}

/// `data` of a URL-elicitation-required error (`-32042`, 2025-11-25 only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations the client must complete before retrying.
    pub elicitations: Vec<ElicitRequestURLParams>,
}
