//! Tools: descriptors, `tools/list` and `tools/call`.

use super::common::{CacheScope, Icon, Meta, ResultType};
use super::content::ContentBlock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool descriptor (`Tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The unique name.
    pub name: String,
    /// Display title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments (`type: "object"`).
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// 2025-11-25 only: task support (`{"taskSupport": …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Hints about a tool's behaviour; untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// May perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Result of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// `resultType` (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// Cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool name.
    pub name: String,
    /// The arguments object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// MRTR: answers to the server's input requests (modern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Map<String, Value>>,
    /// MRTR: the server's opaque state, echoed (modern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// 2025-11-25 legacy tasks: task augmentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// Request `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// `resultType` (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content (conforms to the tool's `outputSchema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool failed (the model can read the message and self-correct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![ContentBlock::text(text)], ..Default::default() }
    }
    /// A structured result: `structuredContent` plus the same JSON as a text block.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }
    /// A tool-execution error (`isError: true`) carrying `message`.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..Default::default()
        }
    }
    /// A refusal that says its cause and its remedy (issue 35, "refusals with a cause and a
    /// remedy"): `isError: true`, `message` as text for the model, and `structuredContent`
    /// `{"reason", "remedy", …details}` for the host (`reason` a stable code such as
    /// `scope_not_granted`, `profile`, `module_off`, `record_read_only`; `remedy` what would
    /// make the call succeed). Not a JSON-RPC error: the model reads it and can act on it.
    pub fn refusal(
        reason: impl Into<String>,
        remedy: impl Into<String>,
        message: impl Into<String>,
        details: Map<String, Value>,
    ) -> Self {
        let mut structured = details;
        structured.insert("reason".into(), Value::String(reason.into()));
        structured.insert("remedy".into(), Value::String(remedy.into()));
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            structured_content: Some(Value::Object(structured)),
            is_error: Some(true),
            ..Default::default()
        }
    }
    /// An action accepted but waiting for someone's approval (issue 35, "a result can say
    /// `pending_approval`"): not an error; `message` as text for the model (what waits, and
    /// for whom), and `structuredContent` `{"status": "pending_approval", …details}` (an
    /// approval id, who must approve, where to follow it).
    pub fn pending_approval(message: impl Into<String>, details: Map<String, Value>) -> Self {
        let mut structured = details;
        structured.insert("status".into(), Value::String("pending_approval".into()));
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            structured_content: Some(Value::Object(structured)),
            is_error: Some(false),
            ..Default::default()
        }
    }
    /// [`CallToolResult::refusal`] as a binding's host asks for it: `details_json` is a JSON
    /// object (`{}` for none); anything else is
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput), the same in every binding.
    pub fn refusal_from_host(
        reason: impl Into<String>,
        remedy: impl Into<String>,
        message: impl Into<String>,
        details_json: &str,
    ) -> crate::Result<Self> {
        Ok(CallToolResult::refusal(reason, remedy, message, details_object(details_json)?))
    }
    /// [`CallToolResult::pending_approval`] as a binding's host asks for it (`details_json` as
    /// in [`CallToolResult::refusal_from_host`]).
    pub fn pending_approval_from_host(message: impl Into<String>, details_json: &str) -> crate::Result<Self> {
        Ok(CallToolResult::pending_approval(message, details_object(details_json)?))
    }
    /// True when `isError` is set.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
    /// The text of the first text block.
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(ContentBlock::as_text)
    }
}

impl Tool {
    /// A tool with a name, a description and an input schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            icons: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            meta: None,
        }
    }
    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }
    /// Sets the display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// The `details` of a refusal or a pending approval, from a host's JSON text: an object.
fn details_object(json: &str) -> crate::Result<Map<String, Value>> {
    match serde_json::from_str(json) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(crate::Error::invalid_input("details must be a JSON object")),
        Err(e) => Err(crate::Error::invalid_input(format!("details are not JSON: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host's details: an object joins reason and remedy; anything else is InvalidInput.
    #[test]
    fn host_details_are_a_json_object() {
        let r =
            CallToolResult::refusal_from_host("module_off", "turn it on", "Refused", r#"{"module": "x"}"#)
                .unwrap();
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"module": "x", "reason": "module_off", "remedy": "turn it on"}))
        );
        let p = CallToolResult::pending_approval_from_host("waits", "{}").unwrap();
        assert_eq!(p.structured_content, Some(serde_json::json!({"status": "pending_approval"})));
        for bad in ["[1]", "not json"] {
            let e = CallToolResult::refusal_from_host("r", "m", "t", bad).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn a_refusal_carries_its_reason_and_remedy() {
        let mut details = Map::new();
        details.insert("scope".into(), Value::String("mcp:write".into()));
        let r =
            CallToolResult::refusal("scope_not_granted", "ask for mcp:write", "You may not write.", details);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"content": [{"type": "text", "text": "You may not write."}], "isError": true,
                "structuredContent": {"reason": "scope_not_granted", "remedy": "ask for mcp:write", "scope": "mcp:write"}})
        );
    }
}
