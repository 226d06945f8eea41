//! Compiled JSON Schemas of a tool (input and output), and the error data they produce.

use super::simple_schema::{self, Simple};
use crate::error::ErrorData;
use serde_json::{json, Value};

/// At most this many failing fields are reported per instance.
const MAX_ERRORS: usize = 32;

/// A compiled JSON Schema (2020-12 unless the schema names another dialect).
pub(crate) enum CompiledSchema {
    /// The common subset, checked and validated without jsonschema (see `simple_schema`).
    Simple(Simple),
    /// Everything else, compiled by jsonschema (meta-schema check included).
    Full(Box<jsonschema::Validator>),
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

impl CompiledSchema {
    /// Checks and compiles `schema`: a schema of the common subset is checked against the
    /// draft 2020-12 meta-schema's rules for its keywords here; any other goes to jsonschema
    /// (which builds its meta-validator the first time). Invalid schemas fail either way.
    /// External `$ref`s are never fetched, so they fail here.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        match simple_schema::parse(schema) {
            Some(Ok(simple)) => Ok(CompiledSchema::Simple(simple)),
            Some(Err(e)) => Err(e),
            None => jsonschema::validator_for(schema)
                .map(|validator| CompiledSchema::Full(Box::new(validator)))
                .map_err(|e| e.to_string()),
        }
    }

    /// The failing fields of `instance`, as `[{path, message}]`; empty when valid.
    pub(crate) fn errors(&self, instance: &Value) -> Vec<Value> {
        let entry = |path: String, message: String| json!({ "path": path, "message": message });
        match self {
            CompiledSchema::Simple(s) => {
                if s.is_valid(instance) {
                    return Vec::new();
                }
                s.errors(instance, MAX_ERRORS).into_iter().map(|(p, m)| entry(p, m)).collect()
            }
            CompiledSchema::Full(v) => {
                if v.is_valid(instance) {
                    return Vec::new();
                }
                v.iter_errors(instance)
                    .take(MAX_ERRORS)
                    .map(|e| entry(e.instance_path().to_string(), e.to_string()))
                    .collect()
            }
        }
    }
}

/// The `-32602` error for arguments that fail the tool's `inputSchema`.
pub(crate) fn invalid_arguments(tool: &str, errors: Vec<Value>) -> ErrorData {
    let summary = errors
        .iter()
        .filter_map(|e| {
            let path = e["path"].as_str()?;
            let msg = e["message"].as_str()?;
            Some(if path.is_empty() { msg.to_owned() } else { format!("{path}: {msg}") })
        })
        .collect::<Vec<_>>()
        .join("; ");
    ErrorData::invalid_params(format!("Invalid arguments for tool {tool}: {summary}"))
        .with_data(json!({ "tool": tool, "errors": errors }))
}
