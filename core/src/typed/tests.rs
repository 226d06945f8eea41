//! Schema generation, argument decoding and result conversion of typed tools.
#![allow(dead_code)] // the argument structs exist for their schemas; most fields are never read

use super::*;
use crate::context::RequestContext;
use crate::protocol::{CallToolResult, ContentBlock};
use crate::{ErrorCode, ErrorKind};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};

/// Units (this doc comment is the enum's, not the field's).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A place (overridden by the field's doc comment).
#[derive(Deserialize, JsonSchema)]
struct Place {
    /// City name.
    city: String,
    /// ISO country code.
    country: Option<String>,
}

/// The forecast tool's arguments (dropped from the schema: the tool has its own description).
#[derive(Deserialize, JsonSchema)]
struct Forecast {
    /// Where.
    place: Place,
    /// Which unit.
    unit: Unit,
    /// Days ahead.
    days: Option<u8>,
    count: i32,
    ratio: f64,
    tags: Vec<String>,
    #[serde(default)]
    verbose: bool,
    #[serde(rename = "maxResults")]
    max_results: u64,
}

#[test]
fn input_schema_is_2020_12_inline_with_descriptions_bounds_and_optional_fields() {
    let schema = schema::input_schema::<Forecast>().unwrap();
    let expected = json!({
        "type": "object",
        "properties": {
            "place": {
                "description": "Where.",
                "type": "object",
                "properties": {
                    "city": {"description": "City name.", "type": "string"},
                    "country": {"description": "ISO country code.", "type": ["string", "null"]}
                },
                "required": ["city"]
            },
            "unit": {"description": "Which unit.", "type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"description": "Days ahead.", "type": ["integer", "null"], "minimum": 0, "maximum": 255},
            "count": {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX},
            "ratio": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "verbose": {"type": "boolean", "default": false},
            "maxResults": {"type": "integer", "minimum": 0, "maximum": u64::MAX}
        },
        "required": ["place", "unit", "count", "ratio", "tags", "maxResults"]
    });
    assert_eq!(schema, expected);
}

#[test]
fn only_a_recursive_type_keeps_a_ref_to_its_own_defs() {
    #[derive(Deserialize, JsonSchema)]
    struct Tree {
        name: String,
        children: Vec<Tree>,
    }
    #[derive(Deserialize, JsonSchema)]
    struct Args {
        tree: Tree,
        place: Place,
    }
    let schema = schema::input_schema::<Args>().unwrap();
    let tree = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
        "required": ["name", "children"]
    });
    assert_eq!(schema["$defs"], json!({ "Tree": tree }));
    assert_eq!(schema["properties"]["tree"], tree);
    assert_eq!(schema["properties"]["place"]["properties"]["city"]["type"], "string");
    let text = schema.to_string();
    assert_eq!(text.matches("$ref").count(), 2, "{text}");
}

#[test]
fn documented_enum_variants_become_titled_choices() {
    #[derive(Deserialize, JsonSchema)]
    enum Mood {
        /// Cheerful.
        Happy,
        /// Gloomy.
        Sad,
    }
    #[derive(Deserialize, JsonSchema)]
    struct Args {
        mood: Mood,
    }
    let schema = schema::input_schema::<Args>().unwrap();
    assert_eq!(
        schema["properties"]["mood"],
        json!({"oneOf": [
            {"const": "Happy", "description": "Cheerful.", "type": "string"},
            {"const": "Sad", "description": "Gloomy.", "type": "string"}
        ]})
    );
}

#[test]
fn non_object_arguments_and_outputs_are_refused_at_registration() {
    #[derive(Deserialize, JsonSchema)]
    struct Count(u32);
    let e = schema::input_schema::<Count>().unwrap_err();
    assert!(e.message().contains("not `type: \"object\"`"), "{e}");
    let def = ToolDef::typed("count", "", |c: Count| async move { c.0.to_string() });
    assert!(def.problem().is_some());
    let tools = ToolRegistry::new();
    let e = tools.add(def).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.message().starts_with("tool count: "), "{e}");
    assert!(tools.is_empty());

    let list = ToolDef::typed("list", "", |_: Place| async move { Json(vec![1u8]) });
    let e = tools.add(list).unwrap_err();
    assert!(e.message().contains("structured output"), "{e}");
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
struct Pair {
    a: f64,
    b: f64,
}

#[tokio::test]
async fn json_output_declares_its_schema_and_returns_structured_content_and_text() {
    let tools = ToolRegistry::new();
    let def = ToolDef::typed("add", "Adds.", |p: Pair| async move { Json(Sum { sum: p.a + p.b }) });
    assert_eq!(
        def.tool().output_schema,
        Some(json!({
            "type": "object",
            "properties": {"sum": {"description": "a + b", "type": "number"}},
            "required": ["sum"]
        }))
    );
    tools.add(def).unwrap();
    let r = tools.call("add", json!({"a": 1.5, "b": 2}), RequestContext::local()).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 3.5})));
    assert_eq!(r.first_text(), Some(r#"{"sum":3.5}"#));
    assert!(!r.is_error());
}

/// An integer the schema allows but the struct refuses (odd ones).
struct Even(i64);

impl<'de> Deserialize<'de> for Even {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        if n % 2 == 0 {
            Ok(Even(n))
        } else {
            Err(serde::de::Error::custom(format!("{n} is odd")))
        }
    }
}

impl JsonSchema for Even {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Even".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer"})
    }
}

#[derive(Deserialize, JsonSchema)]
struct Halves {
    outer: Inner,
}

#[derive(Deserialize, JsonSchema)]
struct Inner {
    values: Vec<Even>,
}

#[tokio::test]
async fn a_decoding_failure_reads_like_a_schema_failure() {
    let tools = ToolRegistry::new();
    tools
        .add(ToolDef::typed("halve", "", |h: Halves| async move {
            h.outer.values.iter().map(|v| (v.0 / 2).to_string()).collect::<Vec<_>>().join(",")
        }))
        .unwrap();
    let ok = tools.call("halve", json!({"outer": {"values": [2, 4]}}), RequestContext::local()).await;
    assert_eq!(ok.unwrap().first_text(), Some("1,2"));

    // In-process calls answer as the newest revision: both are isError results with the same
    // message shape.
    let by_schema =
        tools.call("halve", json!({"outer": {"values": [2, "x"]}}), RequestContext::local()).await.unwrap();
    let by_decoder =
        tools.call("halve", json!({"outer": {"values": [2, 3]}}), RequestContext::local()).await.unwrap();
    for r in [&by_schema, &by_decoder] {
        assert!(r.is_error());
        let text = r.first_text().unwrap();
        assert!(text.starts_with("Invalid arguments for tool halve: /outer/values/1: "), "{text}");
    }
    assert_eq!(by_decoder.first_text(), Some("Invalid arguments for tool halve: /outer/values/1: 3 is odd"));
    // A revision that makes them protocol errors gets the -32602 with the failing fields.
    let tool = tools.get("halve").unwrap();
    let args = match json!({"outer": {"values": [2, 3]}}) {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    let outcome = tool.invoke(args, RequestContext::local()).await;
    let e = tool.settle(outcome, crate::ProtocolVersion::V2025_06_18).unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let data = e.data.as_ref().unwrap();
    assert_eq!(data["tool"], "halve");
    assert_eq!(data["errors"][0]["path"], "/outer/values/1");
    assert_eq!(data["errors"][0]["message"], "3 is odd");
}

#[test]
fn decode_moves_and_reports_json_pointers() {
    #[derive(Deserialize, Debug)]
    struct A {
        #[serde(rename = "a/b")]
        _x: u8,
    }
    let args = json!({"a/b": 300}).as_object().unwrap().clone();
    let e = decode::<A>("t", args).unwrap_err();
    let data = e.rpc_error().unwrap().data.clone().unwrap();
    assert_eq!(data["errors"][0]["path"], "/a~1b");
    let missing = decode::<A>("t", serde_json::Map::new()).unwrap_err();
    let data = missing.rpc_error().unwrap().data.clone().unwrap();
    assert_eq!(data["errors"], json!([{"path": "", "message": "missing field `a/b`"}]));
}

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

#[tokio::test]
async fn return_types_convert_as_documented() {
    let local = RequestContext::local;
    let tools = ToolRegistry::new();
    tools.add(ToolDef::typed("s", "", |_: Nothing| async { "static" })).unwrap();
    tools.add(ToolDef::typed("own", "", |_: Nothing| async { String::from("owned") })).unwrap();
    tools.add(ToolDef::typed("raw", "", |_: Nothing| async { CallToolResult::text("raw") })).unwrap();
    tools
        .add(ToolDef::typed("blocks", "", |_: Nothing| async {
            vec![ContentBlock::text("one"), ContentBlock::text("two")]
        }))
        .unwrap();
    tools
        .add(ToolDef::typed("fails", "", |_: Nothing| async {
            Err::<String, _>(std::io::Error::other("disk on fire"))
        }))
        .unwrap();
    tools
        .add(ToolDef::typed("needs_input", "", |_: Nothing| async {
            Err::<String, _>(crate::Error::new(ErrorKind::InputRequired, "client input required"))
        }))
        .unwrap();
    tools
        .add(ToolDef::typed("rpc", "", |_: Nothing| async {
            Err::<Json<Sum>, _>(crate::Error::rpc(crate::ErrorData::new(ErrorCode(-32042), "upstream")))
        }))
        .unwrap();
    let call = |name: &'static str| {
        let tools = &tools;
        async move { tools.call(name, json!({}), local()).await }
    };
    assert_eq!(call("s").await.unwrap().first_text(), Some("static"));
    assert_eq!(call("own").await.unwrap().first_text(), Some("owned"));
    assert_eq!(call("raw").await.unwrap().first_text(), Some("raw"));
    assert_eq!(call("blocks").await.unwrap().content.len(), 2);
    let failed = call("fails").await.unwrap();
    assert!(failed.is_error());
    assert_eq!(failed.first_text(), Some("disk on fire"));
    // `tools.call` settles like the engine: an InputRequired error stays an error (the engine
    // turns it into an InputRequiredResult), not an isError result.
    let input = tools.get("needs_input").unwrap();
    let outcome = input.invoke(serde_json::Map::new(), local()).await;
    assert_eq!(outcome.unwrap_err().kind(), ErrorKind::InputRequired);
    let rpc = call("rpc").await.unwrap_err();
    assert_eq!(rpc.code(), ErrorCode(-32042));
    assert!(
        tools.get("rpc").unwrap().tool().output_schema.is_some(),
        "Result<Json<T>, E> declares T's schema"
    );
}

#[tokio::test]
async fn a_handler_may_take_the_context_and_the_definition_carries_its_settings() {
    let def = ToolDef::typed("who", "Says who calls.", |_: Nothing, ctx: RequestContext| async move {
        format!("{:?}", ctx.protocol_version())
    })
    .title("Who")
    .read_only(true)
    .idempotent(true)
    .open_world(false)
    .destructive(false)
    .task(crate::tasks::TaskPolicy::optional());
    let tool = def.tool().clone();
    assert_eq!(tool.title.as_deref(), Some("Who"));
    assert_eq!(
        serde_json::to_value(tool.annotations.unwrap()).unwrap(),
        json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false, "destructiveHint": false})
    );
    let tools = ToolRegistry::new();
    tools.add(def).unwrap();
    assert_eq!(tools.get("who").unwrap().task_policy(), crate::tasks::TaskPolicy::optional());
    let r = tools.call("who", json!({}), RequestContext::local()).await.unwrap();
    assert_eq!(r.first_text(), Some("None"));
    assert!(tools.add(ToolDef::typed("who", "", |_: Nothing| async { "again" })).is_err(), "name taken");
}

#[test]
fn doc_lines_become_one_trimmed_description() {
    assert_eq!(
        __private::doc_text(&[" Adds two numbers.", "", " Second paragraph.  "]),
        "Adds two numbers.\n\nSecond paragraph."
    );
    assert_eq!(__private::doc_text(&[]), "");
    assert_eq!(__private::doc_text(&["", " x", ""]), "x");
}

#[test]
fn generated_schemas_use_no_keyword_outside_the_registry_fast_path() {
    // No `format`, `$ref` or `title`: the registry validates such a schema itself, so
    // registering never builds jsonschema's meta-validator (start-up time).
    let schema = schema::input_schema::<Forecast>().unwrap();
    fn keys(v: &Value, out: &mut Vec<String>) {
        if let Value::Object(m) = v {
            for (k, v) in m {
                out.push(k.clone());
                keys(v, out);
            }
        } else if let Value::Array(a) = v {
            a.iter().for_each(|v| keys(v, out));
        }
    }
    let mut all = Vec::new();
    keys(&schema, &mut all);
    assert!(!all.iter().any(|k| ["format", "$ref", "title", "$schema"].contains(&k.as_str())), "{all:?}");
}
