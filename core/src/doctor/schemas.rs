//! The tool definitions of a `tools/list` answer, checked as a client will read them
//! (2025-11-25 and 2026-07-28 `server/tools`, "Tool" and "Tool Names"; schema.ts `Tool`):
//! - names: unique, and 1–128 characters of `[A-Za-z0-9_.-]` (a SHOULD);
//! - `inputSchema`: present, an object schema (`"type": "object"`), valid JSON Schema in its
//!   dialect (2020-12 unless `$schema` names another), with no `$ref` a client must fetch;
//! - `outputSchema`: valid JSON Schema; an object schema for the initialize-based revisions,
//!   whose `structuredContent` is an object (2026-07-28 allows any schema).
//!
//! Pure: the caller fetched the tools (as raw JSON, so what a typed client would drop is seen).

use super::{Finding, Status};
use crate::protocol::ProtocolVersion;
use serde_json::Value;
use std::collections::BTreeSet;

/// The check's name in the report.
pub(super) const CHECK: &str = "tool schemas";

/// Most problems listed one by one; the rest are counted.
const LISTED: usize = 20;

/// One finding for `tools` (the `tools` arrays of every page) as served on `version`.
pub(super) fn check(tools: &[Value], version: ProtocolVersion) -> Finding {
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    for (i, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str);
        let label = name.map(|n| format!("tool {n:?}")).unwrap_or_else(|| format!("tool #{i}"));
        match name {
            None => problems.push(format!("{label}: no \"name\"")),
            Some(n) => {
                if !names.insert(n.to_owned()) {
                    problems.push(format!("{label}: the name is listed twice"));
                }
                if let Some(why) = name_problem(n) {
                    problems.push(format!("{label}: {why}"));
                }
            }
        }
        match tool.get("inputSchema") {
            None | Some(Value::Null) => problems.push(format!("{label}: no inputSchema")),
            Some(s) => {
                if s.get("type").and_then(Value::as_str) != Some("object") {
                    problems.push(format!("{label}: inputSchema is not {{\"type\": \"object\"}}"));
                }
                if let Some(why) = schema_problem(s) {
                    problems.push(format!("{label}: inputSchema {why}"));
                }
            }
        }
        if let Some(s) = tool.get("outputSchema").filter(|s| !s.is_null()) {
            if !version.is_modern() && s.get("type").and_then(Value::as_str) != Some("object") {
                problems.push(format!(
                    "{label}: outputSchema is not an object schema, which {} requires",
                    version.as_str()
                ));
            }
            if let Some(why) = schema_problem(s) {
                problems.push(format!("{label}: outputSchema {why}"));
            }
        }
    }
    let count = tools.len();
    if problems.is_empty() {
        return Finding::new(CHECK, Status::Ok, format!("{count} tools, every schema valid"));
    }
    let total = problems.len();
    if total > LISTED {
        problems.truncate(LISTED);
        problems.push(format!("... and {} more", total - LISTED));
    }
    Finding::new(CHECK, Status::Fail, format!("{total} problems in {count} tools")).details(problems).remedy(
        "give every tool a unique name of [A-Za-z0-9_.-] (1-128 characters) and an inputSchema \
             of \"type\": \"object\" that compiles as JSON Schema 2020-12 (or the dialect its \
             $schema names); clients refuse or drop tools whose schemas they cannot compile",
    )
}

/// Why `name` breaks the naming rule (2025-11-25 server/tools, "Tool Names"), if it does.
fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.chars().count() > 128 {
        return Some(format!("the name has {} characters (1-128)", name.chars().count()));
    }
    let bad: BTreeSet<char> =
        name.chars().filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))).collect();
    if bad.is_empty() {
        return None;
    }
    Some(format!("the name has characters outside [A-Za-z0-9_.-]: {:?}", bad.into_iter().collect::<String>()))
}

/// Why `schema` is not a usable JSON Schema, if it is not.
fn schema_problem(schema: &Value) -> Option<String> {
    if !schema.is_object() {
        return Some("is not a JSON object".into());
    }
    // A client MUST NOT fetch a network `$ref` on its own (2026-07-28 server/tools, "JSON
    // Schema Usage"): a schema that needs one does not compile there.
    if let Some(r) = external_ref(schema) {
        return Some(format!("refers to {r:?}, which a client will not fetch"));
    }
    jsonschema::validator_for(schema).err().map(|e| format!("is not valid JSON Schema: {e}"))
}

/// The first `$ref` in `schema` that leaves the document (not `#...`).
fn external_ref(schema: &Value) -> Option<String> {
    match schema {
        Value::Object(map) => map.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("$ref", Value::String(r)) if !r.starts_with('#') => Some(r.clone()),
            _ => external_ref(v),
        }),
        Value::Array(items) => items.iter().find_map(external_ref),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, input: Value) -> Value {
        json!({"name": name, "inputSchema": input})
    }

    #[test]
    fn good_tools_pass() {
        let tools = [
            tool("echo", json!({"type": "object", "properties": {"text": {"type": "string"}}})),
            tool("a.b-c_d", json!({"type": "object", "additionalProperties": false})),
        ];
        let f = check(&tools, ProtocolVersion::V2025_11_25);
        assert_eq!(f.status, Status::Ok, "{f:?}");
    }

    #[test]
    fn each_defect_is_named() {
        let tools = [
            tool("dup", json!({"type": "object"})),
            tool("dup", json!({"type": "object"})),
            tool("has space", json!({"type": "object"})),
            tool("arr", json!({"type": "array"})),
            tool("bad", json!({"type": "object", "properties": {"x": {"type": "strin"}}})),
            tool(
                "remote",
                json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}),
            ),
            json!({"name": "none"}),
            json!({"name": "out", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}),
        ];
        let f = check(&tools, ProtocolVersion::V2025_11_25);
        assert_eq!(f.status, Status::Fail);
        let all = f.details.join("\n");
        for needle in [
            "\"dup\": the name is listed twice",
            "\"has space\": the name has characters outside",
            "\"arr\": inputSchema is not",
            "\"bad\": inputSchema is not valid JSON Schema",
            "\"remote\": inputSchema refers to \"https://example.com/s.json\"",
            "\"none\": no inputSchema",
            "\"out\": outputSchema is not an object schema",
        ] {
            assert!(all.contains(needle), "{needle} missing from {all}");
        }
        assert!(f.remedy.is_some());
        // 2026-07-28 allows a non-object output schema.
        let modern = check(&tools[7..], ProtocolVersion::V2026_07_28);
        assert_eq!(modern.status, Status::Ok, "{modern:?}");
    }

    #[test]
    fn a_long_list_is_cut() {
        let tools: Vec<Value> = (0..30).map(|i| tool(&format!("t {i}"), json!({"type": "object"}))).collect();
        let f = check(&tools, ProtocolVersion::V2025_11_25);
        assert_eq!(f.details.len(), LISTED + 1);
        assert!(f.details.last().unwrap().contains("10 more"));
    }
}
