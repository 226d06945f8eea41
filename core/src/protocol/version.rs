//! Protocol revisions and the two lineages they belong to.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The two lineages of MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lineage {
    /// `initialize`-based, session-scoped (2024-11-05 … 2025-11-25).
    Legacy,
    /// Stateless, per-request `_meta` (2026-07-28 and later).
    Modern,
}

/// A protocol revision this crate implements. Ordered oldest to newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05 (HTTP+SSE era).
    V2024_11_05,
    /// 2025-03-26 (Streamable HTTP, batches).
    V2025_03_26,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-11-25 (last legacy revision).
    V2025_11_25,
    /// 2026-07-28 (first modern revision).
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, newest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2026_07_28,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2024_11_05,
    ];
    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest legacy revision.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The wire string, e.g. `"2026-07-28"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }
    /// Parses a wire string; `None` for a revision this crate does not know.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
    /// The lineage of this revision.
    pub const fn lineage(self) -> Lineage {
        match self {
            ProtocolVersion::V2026_07_28 => Lineage::Modern,
            _ => Lineage::Legacy,
        }
    }
    /// True for the modern lineage.
    pub const fn is_modern(self) -> bool {
        matches!(self.lineage(), Lineage::Modern)
    }
    /// JSON-RPC batches are part of this revision (2025-03-26 only).
    pub const fn allows_batch(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }
    /// Results carry `resultType` in this revision.
    pub const fn has_result_type(self) -> bool {
        self.is_modern()
    }
    /// Arguments that fail a tool's `inputSchema` are a tool execution error (a result with
    /// `isError: true` the model can read) rather than a `-32602` protocol error: from
    /// 2025-11-25 on (SEP-1303; spec 2025-11-25 and 2026-07-28 server/tools, "Error Handling":
    /// "Input validation errors" are tool execution errors). Up to 2025-06-18 the same page
    /// lists "Invalid arguments" among the protocol errors.
    pub const fn tool_input_errors_are_results(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }
    /// Resource-not-found error code of this revision.
    pub const fn resource_not_found_code(self) -> crate::ErrorCode {
        if self.is_modern() {
            crate::ErrorCode::INVALID_PARAMS
        } else {
            crate::ErrorCode::RESOURCE_NOT_FOUND_LEGACY
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProtocolVersion {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| {
            crate::Error::invalid_input(format!(
                "unknown protocol version {s:?} (known: {})",
                Self::ALL.map(|v| v.as_str()).join(", ")
            ))
        })
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown protocol version {s}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn order_and_lineage() {
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2026_07_28);
        assert_eq!(ProtocolVersion::parse("2025-03-26"), Some(ProtocolVersion::V2025_03_26));
        assert_eq!(ProtocolVersion::parse("1900-01-01"), None);
        assert!(ProtocolVersion::LATEST.is_modern());
        assert!(!ProtocolVersion::LATEST_LEGACY.is_modern());
        assert!(ProtocolVersion::V2025_03_26.allows_batch());
    }
}
