//! Logging: `notifications/message` and legacy `logging/setLevel` (deprecated on 2026-07-28,
//! where the level is chosen per request with `_meta["io.modelcontextprotocol/logLevel"]`).

use super::common::Meta;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Severity of a log message (RFC 5424), ordered from `Debug` (least) to `Emergency` (most).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// `"debug"`.
    Debug,
    /// `"info"`.
    Info,
    /// `"notice"`.
    Notice,
    /// `"warning"`.
    Warning,
    /// `"error"`.
    Error,
    /// `"critical"`.
    Critical,
    /// `"alert"`.
    Alert,
    /// `"emergency"`.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire string; `None` for an unknown level.
    pub fn parse(s: &str) -> Option<LoggingLevel> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl std::str::FromStr for LoggingLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        LoggingLevel::parse(s).ok_or_else(|| {
            format!("unknown log level {s:?}; use debug, info, notice, warning, error, critical, alert or emergency")
        })
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Params of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Name of the logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: any JSON.
    pub data: Value,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of legacy `logging/setLevel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The minimum level to send.
    pub level: LoggingLevel,
    /// Request `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_and_parse() {
        assert!(LoggingLevel::Debug < LoggingLevel::Emergency);
        assert!(LoggingLevel::Warning > LoggingLevel::Notice);
        for l in LoggingLevel::ALL {
            assert_eq!(LoggingLevel::parse(l.as_str()), Some(l));
            assert_eq!(serde_json::to_value(l).unwrap(), Value::from(l.as_str()));
        }
        assert_eq!(LoggingLevel::parse("verbose"), None);
    }
}
