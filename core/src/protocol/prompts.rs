//! Prompts: descriptors, `prompts/list` and `prompts/get`.

use super::common::{CacheScope, Icon, Meta, ResultType, Role};
use super::content::ContentBlock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A prompt descriptor (`Prompt`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// The unique name.
    pub name: String,
    /// Display title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the prompt accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An argument of a prompt (`PromptArgument`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// The argument name.
    pub name: String,
    /// Display title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// Result of `prompts/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// `resultType` (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The prompts of this page.
    pub prompts: Vec<Prompt>,
    /// Cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds (modern only; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (modern only; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt name.
    pub name: String,
    /// Argument values (strings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// MRTR: answers to the server's input requests (modern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Map<String, Value>>,
    /// MRTR: the server's opaque state, echoed (modern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl GetPromptRequestParams {
    /// Params getting prompt `name`, with nothing else set.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptRequestParams {
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }
}

/// Result of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// `resultType` (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Description of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One message of a prompt (`PromptMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// The content (text, image, audio, resource link or embedded resource).
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A text message.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        PromptMessage { role, content: ContentBlock::text(text) }
    }
}

impl PromptMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::text(Role::User, text)
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::text(Role::Assistant, text)
    }
}

/// Builders: `Prompt::new("summarize").description("…").argument("topic", "What to summarize", true)`.
impl Prompt {
    /// A prompt named `name`, without description or arguments yet.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), title: None, description: None, arguments: None, icons: None, meta: None }
    }

    /// Sets the display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an argument; a `required` one is checked before the handler runs (`-32602`).
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let description = Some(description.into()).filter(|d| !d.is_empty());
        let argument =
            PromptArgument { name: name.into(), title: None, description, required: Some(required) };
        self.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }
}

/// Builders: `GetPromptResult::user_text("…")`, then `.assistant("…")`, `.user("…")`.
impl GetPromptResult {
    /// A result of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { messages, ..Default::default() }
    }

    /// A result of one user text message.
    pub fn user_text(text: impl Into<String>) -> Self {
        GetPromptResult::new(vec![PromptMessage::user(text)])
    }

    /// Appends a user text message.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::user(text));
        self
    }

    /// Appends an assistant text message.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::assistant(text));
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}
