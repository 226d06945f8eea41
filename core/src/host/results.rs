//! The one rule set turning what a host function returned ([`HostValue`]) into each MCP result
//! kind. Every binding hands its host's return value here, so equal values give equal bytes on
//! the wire in every language; `tests/vectors/host-results/` holds the cases every binding's
//! test suite runs.
//!
//! **Tool results** ([`tool_result`]):
//! 1. the tool's output is *wrapped* (its `outputSchema` is `{"result": …}`, set by a binding
//!    for a host function whose return type is not an object): `structuredContent` is
//!    `{"result": value}` and the text block holds the value (a string as itself, anything
//!    else as compact JSON);
//! 2. `null` → no content;
//! 3. a string → one text block;
//! 4. bytes → one embedded resource `mcpcore://bytes` with the blob (`application/octet-stream`);
//! 5. an object that *is* a `CallToolResult` (a `content` array of content blocks, and no keys
//!    but `content`, `structuredContent`, `isError`, `_meta`) → that result, unchanged;
//! 6. an object that is a content block (`type` one of `text`, `image`, `audio`, `resource`,
//!    `resource_link`, and the block's fields) → that one block;
//! 7. a list holding at least one content block or bytes → one block per item (content blocks as
//!    they are, strings as text, bytes as embedded blobs, anything else as its JSON text;
//!    `null` items are skipped);
//! 8. any other object → `structuredContent` is the object and one text block holds its JSON;
//! 9. anything else (numbers, booleans, other lists) → one text block of its JSON.
//!
//! JSON text is compact, keys sorted, non-ASCII unescaped.
//!
//! **Resource contents** ([`resource_contents`], for a read of `uri` whose declared MIME type is
//! `mime`): a list → one contents per item; a string → text; bytes → a base64 blob (both with
//! `mime` when declared); a text content block → its text; an embedded resource block → its
//! resource; an object with `text` or `blob` → those contents (`uri` and `mimeType` filled in
//! when missing); anything else → its JSON as text, `application/json` unless `mime` says
//! otherwise.
//!
//! **Prompt results** ([`prompt_result`]): an object with a `messages` list → that result, each
//! message normalized; a list → its items as the messages; anything else → one message. A
//! message is a string (the user's text), a `{role, content}` object (a string content becomes a
//! text block) or a content block (sent as the user's).
//!
//! **Completions** ([`completion`]): a list → its items as the values (non-strings as their
//! JSON); an object with `values` → that completion. At most 100 values are sent (`total` and
//! `hasMore` then say how many there were).

use crate::protocol::completion::Completion;
use crate::protocol::prompts::GetPromptResult;
use crate::protocol::resources::ResourceContents;
use crate::protocol::{CallToolResult, ContentBlock};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The URI of the embedded resource a returned `bytes` value becomes.
pub const BYTES_URI: &str = "mcpcore://bytes";

/// What a host function returned, converted by its binding: JSON, or bytes (which JSON has not),
/// or a list holding bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum HostValue {
    /// A JSON-shaped value (dicts, lists, strings, numbers, booleans, null; a binding converts
    /// its own types: dataclasses, enums, dates…).
    Json(Value),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A list some of whose items are bytes.
    List(Vec<HostValue>),
}

impl From<Value> for HostValue {
    fn from(v: Value) -> Self {
        HostValue::Json(v)
    }
}

impl HostValue {
    /// The value as JSON, bytes as base64 text.
    pub fn into_json(self) -> Value {
        match self {
            HostValue::Json(v) => v,
            HostValue::Bytes(b) => Value::String(STANDARD.encode(b)),
            HostValue::List(items) => Value::Array(items.into_iter().map(HostValue::into_json).collect()),
        }
    }

    /// A value written as JSON in which `{"$bytes": "<base64>"}` (the whole value, or an item
    /// of a top-level list) stands for bytes: how a binding whose host values reach Rust as JSON
    /// text passes bytes (Node, Kotlin, Swift), and how `tests/vectors/host-results` writes them.
    pub fn from_marked_json(v: Value) -> HostValue {
        fn marker(v: &Value) -> Option<Vec<u8>> {
            let m = v.as_object().filter(|m| m.len() == 1)?;
            STANDARD.decode(m.get("$bytes")?.as_str()?).ok()
        }
        if let Some(b) = marker(&v) {
            return HostValue::Bytes(b);
        }
        match v {
            Value::Array(items) if items.iter().any(|i| marker(i).is_some()) => {
                HostValue::List(items.into_iter().map(HostValue::from_marked_json).collect())
            }
            other => HostValue::Json(other),
        }
    }

    /// The items of a list (a JSON array or a [`HostValue::List`]).
    fn into_items(self) -> Result<Vec<HostValue>, HostValue> {
        match self {
            HostValue::List(items) => Ok(items),
            HostValue::Json(Value::Array(items)) => Ok(items.into_iter().map(HostValue::Json).collect()),
            other => Err(other),
        }
    }
}

/// Compact JSON with sorted keys.
pub fn json_text(v: &Value) -> String {
    v.to_string()
}

const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];
const RESULT_KEYS: [&str; 4] = ["content", "structuredContent", "isError", "_meta"];

/// The content block `v` is, if it is one.
fn as_block(v: &Value) -> Option<ContentBlock> {
    let kind = v.get("type")?.as_str()?;
    if !CONTENT_TYPES.contains(&kind) {
        return None;
    }
    ContentBlock::deserialize(v).ok()
}

/// The `CallToolResult` `v` is, if it is one.
fn as_result(v: &Value) -> Option<CallToolResult> {
    let obj = v.as_object()?;
    let content = obj.get("content")?.as_array()?;
    if !obj.keys().all(|k| RESULT_KEYS.contains(&k.as_str()))
        || !content.iter().all(|c| as_block(c).is_some())
    {
        return None;
    }
    CallToolResult::deserialize(v).ok()
}

fn bytes_block(b: &[u8]) -> ContentBlock {
    let block = json!({"type": "resource", "resource":
        {"uri": BYTES_URI, "mimeType": "application/octet-stream", "blob": STANDARD.encode(b)}});
    ContentBlock::deserialize(&block).expect("an embedded resource block")
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => json_text(other),
    }
}

/// The `CallToolResult` of a tool that returned `value` (see the module docs); `wrapped` when
/// the tool's output schema wraps its value as `{"result": …}`.
pub fn tool_result(value: HostValue, wrapped: bool) -> CallToolResult {
    if wrapped {
        let data = value.into_json();
        let mut r = CallToolResult::text(text_of(&data));
        r.structured_content = Some(json!({ "result": data }));
        return r;
    }
    let value = match value.into_items() {
        Ok(items) => return list_result(items),
        Err(v) => v,
    };
    match value {
        HostValue::Bytes(b) => CallToolResult { content: vec![bytes_block(&b)], ..Default::default() },
        HostValue::List(_) => unreachable!("lists are handled above"),
        HostValue::Json(Value::Null) => CallToolResult::default(),
        HostValue::Json(Value::String(s)) => CallToolResult::text(s),
        HostValue::Json(v) => {
            if let Some(r) = as_result(&v) {
                return r;
            }
            if let Some(block) = as_block(&v) {
                return CallToolResult { content: vec![block], ..Default::default() };
            }
            let mut r = CallToolResult::text(json_text(&v));
            if v.is_object() {
                r.structured_content = Some(v);
            }
            r
        }
    }
}

fn list_result(items: Vec<HostValue>) -> CallToolResult {
    let blocky = items.iter().any(|i| match i {
        HostValue::Bytes(_) => true,
        HostValue::Json(v) => as_block(v).is_some(),
        HostValue::List(_) => false,
    });
    if !blocky {
        let v = HostValue::List(items).into_json();
        return CallToolResult::text(json_text(&v));
    }
    let content = items
        .into_iter()
        .filter_map(|item| match item {
            HostValue::Json(Value::Null) => None,
            HostValue::Json(Value::String(s)) => Some(ContentBlock::text(s)),
            HostValue::Json(v) => Some(as_block(&v).unwrap_or_else(|| ContentBlock::text(json_text(&v)))),
            HostValue::Bytes(b) => Some(bytes_block(&b)),
            other @ HostValue::List(_) => Some(ContentBlock::text(json_text(&other.into_json()))),
        })
        .collect();
    CallToolResult { content, ..Default::default() }
}

/// The contents of a read of `uri` (declared MIME type `mime`) that returned `value` (see the
/// module docs); `Err` names what cannot be a resource.
pub fn resource_contents(
    value: HostValue,
    uri: &str,
    mime: Option<&str>,
) -> Result<Vec<ResourceContents>, String> {
    let value = match value.into_items() {
        Ok(items) => {
            let mut out = Vec::new();
            for item in items {
                out.extend(resource_contents(item, uri, mime)?);
            }
            return Ok(out);
        }
        Err(v) => v,
    };
    let mut out = Map::new();
    out.insert("uri".into(), json!(uri));
    if let Some(m) = mime {
        out.insert("mimeType".into(), json!(m));
    }
    match value {
        HostValue::Bytes(b) => {
            out.insert("blob".into(), json!(STANDARD.encode(b)));
        }
        HostValue::List(_) => unreachable!("lists are handled above"),
        HostValue::Json(Value::String(s)) => {
            out.insert("text".into(), json!(s));
        }
        HostValue::Json(Value::Object(obj)) => match obj.get("type").and_then(Value::as_str) {
            Some("text") if obj.get("text").is_some_and(Value::is_string) => {
                out.insert("text".into(), obj["text"].clone());
            }
            Some("resource") if obj.get("resource").is_some_and(Value::is_object) => {
                return contents(obj["resource"].clone()).map(|c| vec![c]);
            }
            Some(kind) if CONTENT_TYPES.contains(&kind) => {
                return Err(format!("a resource cannot hold a {kind} content block: return text, bytes or an embedded resource"));
            }
            _ if obj.contains_key("text") || obj.contains_key("blob") => {
                out.extend(obj);
            }
            _ => {
                out.entry("mimeType").or_insert_with(|| json!("application/json"));
                out.insert("text".into(), json!(json_text(&Value::Object(obj))));
            }
        },
        HostValue::Json(other) => {
            out.entry("mimeType").or_insert_with(|| json!("application/json"));
            out.insert("text".into(), json!(json_text(&other)));
        }
    }
    contents(Value::Object(out)).map(|c| vec![c])
}

fn contents(v: Value) -> Result<ResourceContents, String> {
    ResourceContents::deserialize(&v)
        .map_err(|e| format!("not valid resource contents ({e}): {}", json_text(&v)))
}

fn message(item: Value) -> Result<Value, String> {
    match item {
        Value::String(s) => Ok(json!({"role": "user", "content": {"type": "text", "text": s}})),
        Value::Object(mut m) if m.contains_key("role") => {
            if let Some(Value::String(s)) = m.get("content") {
                let block = json!({"type": "text", "text": s});
                m.insert("content".into(), block);
            }
            Ok(Value::Object(m))
        }
        v if as_block(&v).is_some() => Ok(json!({"role": "user", "content": v})),
        other => Err(format!(
            "a prompt message must be a string, a {{role, content}} object or a content block, not {}",
            json_text(&other)
        )),
    }
}

/// The `GetPromptResult` of a prompt that returned `value` (see the module docs); `Err` names
/// what cannot be a prompt message.
pub fn prompt_result(value: HostValue) -> Result<GetPromptResult, String> {
    let value = value.into_json();
    let mut result = match value {
        Value::Object(m) if m.get("messages").is_some_and(Value::is_array) => m,
        Value::Array(items) => {
            let mut m = Map::new();
            m.insert("messages".into(), Value::Array(items));
            m
        }
        other => {
            let mut m = Map::new();
            m.insert("messages".into(), Value::Array(vec![other]));
            m
        }
    };
    let Some(Value::Array(items)) = result.remove("messages") else { unreachable!("built with messages") };
    let messages: Vec<Value> = items.into_iter().map(message).collect::<Result<_, _>>()?;
    result.insert("messages".into(), Value::Array(messages));
    let v = Value::Object(result);
    GetPromptResult::deserialize(&v)
        .map_err(|e| format!("not a valid prompt result ({e}): {}", json_text(&v)))
}

/// The completion of a completer that returned `value` (see the module docs), at most 100
/// values; `Err` when it is neither a list nor a completion.
pub fn completion(value: HostValue) -> Result<Completion, String> {
    let c = match value.into_json() {
        Value::Array(items) => {
            Completion { values: items.iter().map(text_of).collect(), ..Default::default() }
        }
        v @ Value::Object(_) if v.get("values").is_some_and(Value::is_array) => {
            Completion::deserialize(&v)
                .map_err(|e| format!("not a valid completion ({e}): {}", json_text(&v)))?
        }
        other => {
            return Err(format!(
                "a completer must return a list of strings or {{values, total, hasMore}}, not {}",
                json_text(&other)
            ))
        }
    };
    Ok(crate::completion::cap(c))
}
