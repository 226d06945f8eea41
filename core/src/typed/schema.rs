//! JSON Schemas of Rust types, for `inputSchema` and `outputSchema` (schemars).
//!
//! Draft 2020-12 (the default dialect since 2025-11-25 basic/json-schema-usage, and what
//! 2026-07-28 server/tools requires clients to support), with every subschema inlined: a
//! nested struct or enum appears in place, not as a `$ref` into `$defs` (several LLM clients
//! resolve no `$ref`). Only a recursive type keeps a `$ref` to its own `$defs` entry, which
//! cannot be inlined.
//!
//! schemars' integer and float `format`s (`int32`, `uint8`, `double`…) are not JSON Schema
//! formats: validators ignore them and clients show them as noise. They are replaced by what
//! they mean — the type's `minimum` and `maximum` for integers, nothing for floats — so a
//! `u8` argument of 300 is refused before the handler runs, and the schema stays in the keyword
//! subset the registry validates without building jsonschema's meta-validator.
//! The root's `title` and `description` (the argument struct's name and doc comment) are
//! dropped: the tool's own `title` and `description` say that. So is `$schema`: without it a
//! schema is 2020-12 (2025-11-25 basic/json-schema-usage), and clients differ on an explicit
//! one — validators defaulting to draft-07 (Ajv in older TypeScript SDKs) fail on the 2020-12
//! URI, others refuse any dialect they do not support. The keywords generated here mean the
//! same in draft-07 and 2020-12 (a recursive type's `$defs` aside).

use crate::error::{Error, Result};
use schemars::generate::SchemaSettings;
use schemars::transform::{transform_subschemas, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{json, Value};

/// The `inputSchema` of a tool taking `T`: an object schema (`type: "object"`), or an error
/// saying why `T` cannot be a tool's arguments.
pub fn input_schema<T: JsonSchema>() -> Result<Value> {
    let schema = root_schema::<T>();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(Error::invalid_input(format!(
            "{} cannot be a tool's arguments: its schema is not `type: \"object\"` (take a struct \
             with named fields)",
            std::any::type_name::<T>()
        )));
    }
    Ok(schema)
}

/// The `outputSchema` of a tool returning `T` as `structuredContent`: an object schema, since
/// `structuredContent` is an object on every revision before 2026-07-28 (2025-06-18 and
/// 2025-11-25 server/tools), and a tool serves them all.
pub fn output_schema<T: JsonSchema>() -> Result<Value> {
    let schema = root_schema::<T>();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(Error::invalid_input(format!(
            "{} cannot be a tool's structured output: its schema is not `type: \"object\"` \
             (structuredContent is an object on 2025-06-18 and 2025-11-25; wrap it in a struct)",
            std::any::type_name::<T>()
        )));
    }
    Ok(schema)
}

fn root_schema<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.transforms.push(Box::new(NumberFormats));
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("title");
        root.remove("description");
    }
    schema
}

/// Replaces schemars' number `format`s with the bounds they stand for (see the module docs).
#[derive(Debug, Clone, Copy)]
struct NumberFormats;

impl Transform for NumberFormats {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(obj) = schema.as_object_mut() {
            let format = obj.get("format").and_then(Value::as_str).map(str::to_owned);
            if let Some((min, max)) = format.as_deref().and_then(bounds_of) {
                obj.remove("format");
                obj.entry("minimum").or_insert(min);
                obj.entry("maximum").or_insert(max);
            } else if matches!(format.as_deref(), Some("float" | "double")) {
                obj.remove("format");
            }
        }
        transform_subschemas(self, schema);
    }
}

/// The range of schemars' integer formats (`int` and `uint` are `isize` and `usize`).
fn bounds_of(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (json!(i8::MIN), json!(i8::MAX)),
        "int16" => (json!(i16::MIN), json!(i16::MAX)),
        "int32" => (json!(i32::MIN), json!(i32::MAX)),
        "int64" => (json!(i64::MIN), json!(i64::MAX)),
        "int" => (json!(isize::MIN), json!(isize::MAX)),
        "uint8" => (json!(0), json!(u8::MAX)),
        "uint16" => (json!(0), json!(u16::MAX)),
        "uint32" => (json!(0), json!(u32::MAX)),
        "uint64" => (json!(0), json!(u64::MAX)),
        "uint" => (json!(0), json!(usize::MAX)),
        _ => return None,
    })
}
