//! The records that cross the boundary: [`Tool`] (a listed tool), [`ToolResult`] (what a tool
//! returns and a call gives back), [`Content`] and [`ServerInfo`], with their conversions and the
//! result constructors [`text_result`], [`structured_result`] and [`error_result`].

use crate::{parse_json, McpError};
use mcpcore::protocol::content::ImageContent;
use mcpcore::protocol::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A tool as listed by a server or a registry. Schemas are JSON text.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Tool {
    /// The unique name.
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// Description for the model.
    pub description: Option<String>,
    /// JSON Schema of the arguments, as JSON text.
    pub input_schema: String,
    /// JSON Schema of `structuredContent`, as JSON text.
    pub output_schema: Option<String>,
    /// The whole descriptor as JSON text (annotations, icons, `_meta`…).
    pub json: String,
}

impl From<&mcpcore::protocol::Tool> for Tool {
    fn from(t: &mcpcore::protocol::Tool) -> Self {
        Tool {
            name: t.name.clone(),
            title: t.title.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.to_string(),
            output_schema: t.output_schema.as_ref().map(Value::to_string),
            json: serde_json::to_string(t).expect("protocol values serialize"),
        }
    }
}

/// One content block of a result.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum Content {
    /// `{"type":"text"}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type":"image"}`: base64 data.
    Image {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type.
        mime_type: String,
    },
    /// `{"type":"audio"}`: base64 data.
    Audio {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type.
        mime_type: String,
    },
    /// Any other block (`resource_link`, `resource`), as its JSON text.
    Other {
        /// The block as JSON text.
        json: String,
    },
}

/// The result of a tool call: what a [`crate::ToolHandler`] returns and what
/// `callTool` gives back.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ToolResult {
    /// The content blocks.
    #[uniffi(default)]
    pub content: Vec<Content>,
    /// `structuredContent` as JSON text.
    #[uniffi(default = None)]
    pub structured_content: Option<String>,
    /// True when the tool failed (`isError`): the content says why.
    #[uniffi(default = false)]
    pub is_error: bool,
}

fn media(data: &str, mime_type: &str) -> ImageContent {
    ImageContent { data: data.to_owned(), mime_type: mime_type.to_owned(), annotations: None, meta: None }
}

/// The core's content block of `c` (an `Other` block must be one, as JSON).
pub(crate) fn content_block(c: &Content) -> Result<ContentBlock, McpError> {
    Ok(match c {
        Content::Text { text } => ContentBlock::text(text.clone()),
        Content::Image { data, mime_type } => ContentBlock::Image(media(data, mime_type)),
        Content::Audio { data, mime_type } => ContentBlock::Audio(media(data, mime_type)),
        Content::Other { json } => serde_json::from_value(parse_json("a content block", json)?)
            .map_err(|e| McpError::invalid(format!("not a content block: {e}")))?,
    })
}

/// `c` as its wire JSON.
pub(crate) fn content_json(c: &Content) -> Result<Value, McpError> {
    Ok(serde_json::to_value(content_block(c)?).expect("protocol values serialize"))
}

impl From<&ContentBlock> for Content {
    fn from(c: &ContentBlock) -> Self {
        match c {
            ContentBlock::Text(t) => Content::Text { text: t.text.clone() },
            ContentBlock::Image(i) => Content::Image { data: i.data.clone(), mime_type: i.mime_type.clone() },
            ContentBlock::Audio(a) => Content::Audio { data: a.data.clone(), mime_type: a.mime_type.clone() },
            other => {
                Content::Other { json: serde_json::to_string(other).expect("protocol values serialize") }
            }
        }
    }
}

impl ToolResult {
    /// Converts to the core result; `structured_content` and `Other` blocks must be JSON.
    pub(crate) fn into_core(self) -> Result<CallToolResult, McpError> {
        let content = self.content.iter().map(content_block).collect::<Result<Vec<_>, _>>()?;
        let structured_content = match &self.structured_content {
            Some(s) => Some(parse_json("structuredContent", s)?),
            None => None,
        };
        Ok(CallToolResult {
            content,
            structured_content,
            is_error: self.is_error.then_some(true),
            ..Default::default()
        })
    }

    /// The text of the first text block (a Rust-side helper; Kotlin and Swift read `content`).
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(|c| match c {
            Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
    }
}

impl From<&CallToolResult> for ToolResult {
    fn from(r: &CallToolResult) -> Self {
        let content = r.content.iter().map(Content::from).collect();
        ToolResult {
            content,
            structured_content: r.structured_content.as_ref().map(Value::to_string),
            is_error: r.is_error(),
        }
    }
}

/// Who the server is (`serverInfo`).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ServerInfo {
    /// The implementation name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Display title.
    pub title: Option<String>,
}

/// A successful result with one text block.
#[uniffi::export]
pub fn text_result(text: String) -> ToolResult {
    ToolResult::from(&CallToolResult::text(text))
}

/// A structured result: `structuredContent` (JSON text) plus the same JSON as a text block, as
/// a tool with an `outputSchema` returns. Fails with `InvalidInput` when `json` is not JSON.
#[uniffi::export]
pub fn structured_result(json: String) -> Result<ToolResult, McpError> {
    Ok(ToolResult::from(&CallToolResult::structured(parse_json("structured content", &json)?)))
}

/// A tool-execution error (`isError: true`) the model can read and act on.
#[uniffi::export]
pub fn error_result(message: String) -> ToolResult {
    ToolResult::from(&CallToolResult::error(message))
}

/// A refusal that says its cause and remedy: `isError: true`, `message` as text for the model,
/// `structuredContent` `{"reason", "remedy", …details}` for the host (`details_json`: an object,
/// `{}` for none). `reason` is a stable code (`scope_not_granted`, `module_off`,
/// `record_read_only`…), `remedy` what would make the call succeed.
#[uniffi::export(default(details_json = "{}"))]
pub fn refusal_result(
    reason: String,
    remedy: String,
    message: String,
    details_json: String,
) -> Result<ToolResult, McpError> {
    Ok(ToolResult::from(&CallToolResult::refusal_from_host(reason, remedy, message, &details_json)?))
}

/// An action accepted but waiting for someone's approval: not an error; `message` as text for
/// the model, `structuredContent` `{"status": "pending_approval", …details}` (`details_json`: an
/// object, `{}` for none).
#[uniffi::export(default(details_json = "{}"))]
pub fn pending_approval_result(message: String, details_json: String) -> Result<ToolResult, McpError> {
    Ok(ToolResult::from(&CallToolResult::pending_approval_from_host(message, &details_json)?))
}

/// One page of `items_json` (a JSON list) for a tool that lists records
/// (`mcpcore::registry::paging`): `{"items": [...], "nextCursor"?}` as JSON text; `limit` absent
/// is `default_limit`, above `cap` is `cap`. A forged cursor or a `limit` below 1 throws `Rpc`
/// -32602 (which reaches the caller as that error).
#[uniffi::export(default(limit = None, cursor = None, default_limit = 20, cap = 200))]
pub fn page(
    items_json: String,
    limit: Option<i64>,
    cursor: Option<String>,
    default_limit: u32,
    cap: u32,
) -> Result<String, McpError> {
    let items = match parse_json("items", &items_json)? {
        serde_json::Value::Array(v) => v,
        _ => return Err(McpError::invalid("items must be a JSON list")),
    };
    let paging = mcpcore::registry::paging::Paging::new(default_limit as usize, cap as usize)?;
    Ok(paging.page(&items, limit, cursor.as_deref())?.to_string())
}
