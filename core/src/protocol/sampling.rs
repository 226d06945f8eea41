//! Sampling: `sampling/createMessage` (a server→client request on legacy revisions, an MRTR
//! input request on 2026-07-28, where it is deprecated).

use super::common::{Meta, Role};
use super::content::{ContentBlock, ImageContent, TextContent};
use super::tags::CreateMessageMethod;
use super::tools::Tool;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A message of a sampling conversation (`SamplingMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// One content block, or (2025-11-25+) several.
    pub content: SamplingMessageContent,
    /// `_meta` (2025-11-25+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A message with one text block.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        SamplingMessage {
            role,
            content: SamplingMessageContent::One(SamplingMessageContentBlock::text(text)),
            meta: None,
        }
    }
}

/// The `content` of a sampling message: a single block or an array of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContent {
    /// A single block (every revision).
    One(SamplingMessageContentBlock),
    /// An array of blocks (2025-11-25+).
    Many(Vec<SamplingMessageContentBlock>),
}

impl SamplingMessageContent {
    /// The blocks, whichever form was used.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingMessageContent::One(b) => std::slice::from_ref(b),
            SamplingMessageContent::Many(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for SamplingMessageContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let content = if v.is_array() {
            serde_json::from_value(v).map(SamplingMessageContent::Many)
        } else {
            serde_json::from_value(v).map(SamplingMessageContent::One)
        };
        content.map_err(serde::de::Error::custom)
    }
}

/// A content block of a sampling message (`SamplingMessageContentBlock`), tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingMessageContentBlock {
    /// `{"type":"text"}`.
    Text(TextContent),
    /// `{"type":"image"}`.
    Image(ImageContent),
    /// `{"type":"audio"}` (2025-03-26+).
    Audio(ImageContent),
    /// `{"type":"tool_use"}` (2025-11-25+): the model calls a tool.
    ToolUse(ToolUseContent),
    /// `{"type":"tool_result"}` (2025-11-25+): the result of a tool call.
    ToolResult(ToolResultContent),
}

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent { text: text.into(), annotations: None, meta: None })
    }
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingMessageContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// A tool call made by the model (`ToolUseContent` without its `type` tag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Unique id of this call, referenced by the matching [`ToolResultContent`].
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub input: Map<String, Value>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of a tool call (`ToolResultContent` without its `type` tag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the [`ToolUseContent`] answered.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include (the non-`none` values are deprecated on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub temperature: Option<f64>,
    /// Maximum number of tokens to sample.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may call (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools` (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// 2025-11-25 legacy tasks: task augmentation (`{"ttl"?: number}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// Request `_meta` (legacy JSON-RPC request only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageRequestParams {
    /// Params with `messages` and `maxTokens` only.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
        }
    }
}

/// `includeContext` of a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// `"none"`.
    None,
    /// `"thisServer"` (deprecated on 2026-07-28).
    ThisServer,
    /// `"allServers"` (deprecated on 2026-07-28).
    AllServers,
}

/// How the model may use tools (`ToolChoice`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode; `auto` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// The `mode` of a [`ToolChoice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call a tool.
    None,
}

/// `sampling/createMessage` as an MRTR input request: `{method, params}` (`CreateMessageRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageRequest {
    /// Always `"sampling/createMessage"`.
    pub method: CreateMessageMethod,
    /// The params.
    pub params: CreateMessageRequestParams,
}

impl CreateMessageRequest {
    /// Wraps params.
    pub fn new(params: CreateMessageRequestParams) -> Self {
        CreateMessageRequest { method: CreateMessageMethod, params }
    }
}

/// Result of `sampling/createMessage` (`CreateMessageResult`; no `resultType`, also on
/// 2026-07-28, where it travels inside `inputResponses`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally `assistant`).
    pub role: Role,
    /// The sampled content.
    pub content: SamplingMessageContent,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or another string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Model selection preferences (`ModelPreferences`); priorities are in `[0, 1]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much to prioritize low cost.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub cost_priority: Option<f64>,
    /// How much to prioritize speed.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub speed_priority: Option<f64>,
    /// How much to prioritize capability.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "super::number::opt_f64")]
    pub intelligence_priority: Option<f64>,
}

/// A model name hint (`ModelHint`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
