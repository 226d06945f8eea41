//! Compiled JSON Schemas of a tool (input and output), and the error data they produce.

use crate::error::ErrorData;
use serde_json::{json, Value};

/// A compiled JSON Schema (2020-12 unless the schema names another dialect).
pub(crate) struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

impl CompiledSchema {
    /// Compiles `schema`; external `$ref`s are never fetched, so they fail here.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| CompiledSchema { validator })
            .map_err(|e| e.to_string())
    }

    /// The failing fields of `instance`, as `[{path, message}]`; empty when valid.
    pub(crate) fn errors(&self, instance: &Value) -> Vec<Value> {
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        self.validator
            .iter_errors(instance)
            .take(32)
            .map(|e| json!({ "path": e.instance_path().to_string(), "message": e.to_string() }))
            .collect()
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
