//! Types shared by every spec area: `_meta`, `resultType`, cache hints, pagination, icons.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A `_meta` object.
pub type Meta = Map<String, Value>;

/// The `resultType` of a modern result. Unknown strings are kept (extensions may add values).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// `"complete"`: the final result.
    Complete,
    /// `"input_required"`: an MRTR interim result.
    InputRequired,
    /// `"task"`: a Tasks-extension task handle.
    Task,
    /// Any other value.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match String::deserialize(d)?.as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            other => ResultType::Other(other.to_owned()),
        })
    }
}

/// Who may share a cached result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Shareable across users and intermediaries.
    Public,
    /// Only within the same authorization context.
    Private,
}

/// The caching hints of one result (`ttlMs`, `cacheScope`; 2026-07-28
/// server/utilities/caching), as a server sets them or a gateway merges those of its upstreams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh (`None`: no opinion).
    pub ttl_ms: Option<u64>,
    /// Who may share it (`None`: no opinion).
    pub scope: Option<CacheScope>,
}

impl CacheHint {
    /// The hint of a result built from this one and `other`: the shorter freshness, and
    /// private when either is private.
    pub fn merge(self, other: CacheHint) -> CacheHint {
        let ttl_ms = match (self.ttl_ms, other.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let scope = match (self.scope, other.scope) {
            (Some(CacheScope::Private), _) | (_, Some(CacheScope::Private)) => Some(CacheScope::Private),
            (a, b) => a.or(b),
        };
        CacheHint { ttl_ms, scope }
    }
}

/// Params of a paginated list request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// The opaque cursor from a previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An icon for display (`Implementation`, `Tool`, `Prompt`, `Resource`…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// Content annotations (`audience`, `priority`, `lastModified`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// `"user"` and/or `"assistant"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<String>>,
    /// 0 (least) to 1 (most important).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The sender or recipient of a message (`Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
}

/// A result with no content (`EmptyResult`): the answer to `ping`, `logging/setLevel`,
/// `resources/subscribe`… (legacy) and to requests of extensions (modern).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// `resultType` (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
