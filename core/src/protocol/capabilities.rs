//! Client and server capabilities (both lineages; fields of other revisions are optional).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Log messages (deprecated on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// Argument completion (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// 2025-11-25 legacy tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    /// Events, the design sketch's top-level key that ChatGPT reads (SEP-3415 §Backward
    /// compatibility: not part of the extension, which lives under `extensions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Map<String, Value>>,
    /// Extensions (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// `{listChanged?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// Whether list-changed notifications are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `{subscribe?, listChanged?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Whether resource subscriptions are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether list-changed notifications are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// What a client offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
    /// Sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Map<String, Value>>,
    /// Elicitation (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Map<String, Value>>,
    /// 2025-11-25 legacy tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    /// Extensions (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}
