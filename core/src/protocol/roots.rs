//! Roots: `roots/list` (a server→client request on legacy revisions, an MRTR input request on
//! 2026-07-28, where it is deprecated).

use super::common::Meta;
use super::tags::ListRootsMethod;
use crate::jsonrpc::RequestId;
use serde::{Deserialize, Serialize};

/// A root the client exposes (`Root`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Root {
    /// A root with a URI and an optional name.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root { uri: uri.into(), name, meta: None }
    }
}

/// Params of `roots/list` (only `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequestParams {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `roots/list` as an MRTR input request: `{method, params?}` (`ListRootsRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequest {
    /// Always `"roots/list"`.
    pub method: ListRootsMethod,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<ListRootsRequestParams>,
    /// Not in the 2026-07-28 `ListRootsRequest`, but the official example carries one (a
    /// leftover of the legacy JSON-RPC form); kept so such input round-trips. Leave it `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
}

/// Result of `roots/list` (`ListRootsResult`; no `resultType`, also on 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// `_meta` (legacy: `ListRootsResult` extends `Result`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
