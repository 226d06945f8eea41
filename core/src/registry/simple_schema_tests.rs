//! The simple-schema path against jsonschema itself: same validity, same errors, same refusals.

use super::{parse, Simple};
use serde_json::{json, Value};

fn simple(schema: &Value) -> Simple {
    match parse(schema) {
        Some(Ok(s)) => s,
        Some(Err(e)) => panic!("refused {schema}: {e}"),
        None => panic!("not simple: {schema}"),
    }
}

fn schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}},
               "additionalProperties": false}),
        json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 2, "maxLength": 3}}}),
        json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}}}),
        json!({"type": "object", "properties": {"e": {"enum": ["a", 1, null]}, "c": {"const": {"k": [1, 2]}}}}),
        json!({"type": "object", "properties": {"e": {"enum": [1, 2, 3, 4, 5]}}}),
        json!({"type": "object", "additionalProperties": {"type": ["string", "null"]}}),
        json!({"type": "object", "properties": {"x": false, "y": true}, "additionalProperties": false}),
        json!({"type": ["object"], "properties": {"f": {"type": "number", "minimum": 1.5, "maximum": 2.5}}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
               "title": "t", "description": "d", "properties": {"q": {"type": "boolean", "default": true,
               "examples": [true], "deprecated": false, "readOnly": true, "$comment": "c"}}}),
    ]
}

fn instances() -> Vec<Value> {
    vec![
        json!({}),
        json!({"text": "hi"}),
        json!({"text": 5}),
        json!({"a": 1, "b": 2.0}),
        json!({"a": "1", "b": 2.5}),
        json!({"n": 5}),
        json!({"n": -1}),
        json!({"n": 11, "z": 1, "w": 2}),
        json!({"n": 3.0}),
        json!({"s": "ab"}),
        json!({"s": "a"}),
        json!({"s": "abcd"}),
        json!({"s": "ééé"}),
        json!({"l": []}),
        json!({"l": ["a", "b", "c"]}),
        json!({"l": ["a", 1]}),
        json!({"e": 1.0, "c": {"k": [1.0, 2]}}),
        json!({"e": "b", "c": {"k": [2, 1]}}),
        json!({"e": 6}),
        json!({"x": 1}),
        json!({"y": 1, "other": null}),
        json!({"f": 1.5}),
        json!({"f": 1}),
        json!({"f": 3}),
        json!({"q": "yes"}),
        json!({"a/b~": "x"}),
        json!({"a/b~": 5, "~0": [1]}),
        json!([1]),
        json!("str"),
        json!(null),
        json!(18446744073709551615u64),
    ]
}

fn sorted(mut v: Vec<(String, String)>) -> Vec<(String, String)> {
    v.sort();
    v
}

#[test]
fn same_validity_and_errors_as_jsonschema() {
    let mut compared = 0;
    for schema in schemas() {
        let ours = simple(&schema);
        let theirs = jsonschema::validator_for(&schema).expect("valid schema");
        for instance in instances() {
            assert_eq!(ours.is_valid(&instance), theirs.is_valid(&instance), "{schema} on {instance}");
            let want: Vec<(String, String)> = theirs
                .iter_errors(&instance)
                .map(|e| (e.instance_path().to_string(), e.to_string()))
                .collect();
            assert_eq!(sorted(ours.errors(&instance, 100)), sorted(want), "{schema} on {instance}");
            compared += 1;
        }
    }
    assert_eq!(compared, schemas().len() * instances().len());
}

#[test]
fn invalid_simple_schemas_are_refused_like_jsonschema_refuses_them() {
    for bad in [
        json!({"type": "object", "properties": {"a": {"type": "strin"}}}),
        json!({"type": "object", "required": "a"}),
        json!({"type": "object", "required": ["a", "a"]}),
        json!({"type": "object", "required": [1]}),
        json!({"type": "object", "properties": {"s": {"type": "string", "minLength": -1}}}),
        json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 1.5}}}),
        json!({"type": "object", "properties": {"n": {"minimum": "0"}}}),
        json!({"type": "object", "properties": {"n": {"type": []}}}),
        json!({"type": "object", "properties": {"n": {"type": ["string", "string"]}}}),
        json!({"type": "object", "properties": 5}),
        json!({"type": "object", "properties": {"a": 5}}),
        json!({"type": "object", "enum": 5}),
        json!({"type": "object", "description": 5}),
        json!({"type": "object", "deprecated": "no"}),
        json!({"type": "object", "examples": {}}),
        json!({"type": "object", "additionalProperties": "no"}),
        json!({"type": "object", "items": [{"type": "string"}]}),
    ] {
        let ours = parse(&bad);
        assert!(matches!(ours, Some(Err(_))), "{bad} should be refused, got {ours:?}");
        assert!(jsonschema::validator_for(&bad).is_err(), "jsonschema accepts {bad}");
    }
    let Some(Err(e)) = parse(&json!({"type": "object", "properties": {"a": {"type": "strin"}}})) else {
        unreachable!()
    };
    assert_eq!(e, "at /properties/a/type: \"strin\" is not a JSON Schema type");
}

#[test]
fn anything_else_goes_to_jsonschema() {
    for other in [
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}),
        json!({"type": "object", "anyOf": [{"required": ["a"]}]}),
        json!({"type": "object", "x-vendor": 1}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
        json!({"type": "object", "properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}}),
        json!({"type": "object", "properties": {"s": {"maxLength": 1e30}}}),
    ] {
        assert!(parse(&other).is_none(), "{other} should not be simple");
    }
}
