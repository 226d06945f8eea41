//! Shapes what the server emits to the revision it speaks: fields a revision does not define
//! are dropped, so every message validates against that revision's schema.

use crate::protocol::ProtocolVersion;
use serde_json::{Map, Value};

use ProtocolVersion::*;

fn drop_keys(obj: &mut Map<String, Value>, keys: &[&str]) {
    for k in keys {
        obj.remove(*k);
    }
}

/// An `Implementation` (`serverInfo`) for `version`.
pub(crate) fn implementation(mut v: Value, version: ProtocolVersion) -> Value {
    if let Value::Object(obj) = &mut v {
        if version < V2025_06_18 {
            drop_keys(obj, &["title"]);
        }
        if version < V2025_11_25 {
            drop_keys(obj, &["description", "websiteUrl", "icons"]);
        }
    }
    v
}

/// A `Tool` descriptor for `version`.
pub(crate) fn tool(mut v: Value, version: ProtocolVersion) -> Value {
    if let Value::Object(obj) = &mut v {
        if version < V2025_03_26 {
            drop_keys(obj, &["annotations"]);
        }
        if version < V2025_06_18 {
            drop_keys(obj, &["title", "outputSchema", "_meta"]);
        }
        if version < V2025_11_25 {
            drop_keys(obj, &["icons"]);
        }
        if version != V2025_11_25 {
            drop_keys(obj, &["execution"]);
        }
        // 2025-06-18 and 2025-11-25 restrict `outputSchema` to `type: "object"` at the root
        // (schema.json `Tool.outputSchema.type` is `const "object"`); 2026-07-28 allows any
        // JSON Schema (SEP-2106). An older caller sees the tool without it.
        if version < V2026_07_28
            && obj.get("outputSchema").is_some_and(|s| s.get("type") != Some(&Value::from("object")))
        {
            obj.remove("outputSchema");
        }
    }
    v
}

/// A content block for `version`: blocks the revision lacks become text that says what they were.
fn content_block(v: Value, version: ProtocolVersion) -> Value {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
    let unsupported = match kind {
        "audio" => version < V2025_03_26,
        "resource_link" => version < V2025_06_18,
        _ => false,
    };
    if !unsupported {
        return strip_new_content_fields(v, version);
    }
    let text = match kind {
        "resource_link" => format!("[resource link: {}]", v.get("uri").and_then(Value::as_str).unwrap_or("")),
        _ => format!("[{kind} content not representable in protocol {version}]"),
    };
    serde_json::json!({ "type": "text", "text": text })
}

fn strip_new_content_fields(mut v: Value, version: ProtocolVersion) -> Value {
    if version < V2025_06_18 {
        if let Value::Object(obj) = &mut v {
            drop_keys(obj, &["_meta"]);
            if let Some(Value::Object(ann)) = obj.get_mut("annotations") {
                drop_keys(ann, &["lastModified"]);
            }
        }
    }
    v
}

/// A `CallToolResult` for `version` (`resultType` is added by the caller on modern).
pub(crate) fn call_tool_result(mut v: Value, version: ProtocolVersion) -> Value {
    if let Value::Object(obj) = &mut v {
        obj.remove("resultType");
        // Before 2026-07-28 `structuredContent` is an object (schema.json
        // `CallToolResult.structuredContent`); a non-object one (SEP-2106) is dropped for those
        // callers, who read the same data in `content` (a tool returning structured content
        // SHOULD also return it serialized as text: 2025-11-25 server/tools "Structured Content").
        if version < V2025_06_18
            || (version < V2026_07_28 && obj.get("structuredContent").is_some_and(|c| !c.is_object()))
        {
            drop_keys(obj, &["structuredContent"]);
        }
        if let Some(Value::Array(blocks)) = obj.remove("content") {
            let blocks = blocks.into_iter().map(|b| content_block(b, version)).collect();
            obj.insert("content".into(), Value::Array(blocks));
        }
    }
    v
}

/// A `Resource`, `ResourceTemplate` or `Prompt` descriptor for `version`.
pub(crate) fn descriptor(mut v: Value, version: ProtocolVersion) -> Value {
    if let Value::Object(obj) = &mut v {
        if version < V2025_06_18 {
            drop_keys(obj, &["title", "_meta"]);
            if let Some(Value::Object(ann)) = obj.get_mut("annotations") {
                drop_keys(ann, &["lastModified"]);
            }
            if let Some(Value::Array(args)) = obj.get_mut("arguments") {
                for a in args.iter_mut().filter_map(Value::as_object_mut) {
                    drop_keys(a, &["title"]);
                }
            }
        }
        if version < V2025_11_25 {
            drop_keys(obj, &["icons"]);
        }
    }
    v
}

/// A `GetPromptResult` for `version` (`resultType` is added by the caller on modern).
pub(crate) fn prompt_result(mut v: Value, version: ProtocolVersion) -> Value {
    if let Value::Object(obj) = &mut v {
        obj.remove("resultType");
        if let Some(Value::Array(messages)) = obj.get_mut("messages") {
            for m in messages.iter_mut().filter_map(Value::as_object_mut) {
                if let Some(c) = m.remove("content") {
                    m.insert("content".into(), content_block(c, version));
                }
            }
        }
    }
    v
}

/// `{contents: [...]}` of `resources/read` for `version`.
pub(crate) fn resource_contents(v: &mut Value, version: ProtocolVersion) {
    if version >= V2025_06_18 {
        return;
    }
    if let Some(Value::Array(items)) = v.get_mut("contents") {
        for c in items.iter_mut().filter_map(Value::as_object_mut) {
            drop_keys(c, &["_meta"]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// SEP-2106: a non-object `outputSchema` and `structuredContent` reach 2026-07-28 callers
    /// unchanged and are left out for the revisions that require an object.
    #[test]
    fn non_object_structured_output_is_modern_only() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}});
        assert_eq!(super::tool(tool.clone(), V2026_07_28)["outputSchema"], json!({"type": "array"}));
        assert!(super::tool(tool, V2025_11_25).get("outputSchema").is_none());
        let object =
            json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}});
        assert_eq!(super::tool(object, V2025_06_18)["outputSchema"], json!({"type": "object"}));
        let r = json!({"content": [{"type": "text", "text": "42"}], "structuredContent": 42});
        assert_eq!(call_tool_result(r.clone(), V2026_07_28)["structuredContent"], 42);
        assert!(call_tool_result(r, V2025_11_25).get("structuredContent").is_none());
        let o = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(call_tool_result(o, V2025_11_25)["structuredContent"], json!({"a": 1}));
    }
}
