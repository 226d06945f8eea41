//! Call arguments from the command line: one JSON object (`'{"a": 1}'`), or `key=value` pairs
//! typed by the tool's `inputSchema` (`a=1` is the number 1 where `a` is a number, the string
//! "1" where it is a string), with `key:=JSON` for a raw JSON value (as httpie spells it). An
//! array property may repeat its key (`tag=a tag=b`) or take a JSON array.

use serde_json::{Map, Value};

/// True when the items are `key=value` pairs rather than one JSON object.
pub(crate) fn are_pairs(items: &[String]) -> bool {
    !items.is_empty() && !items[0].trim_start().starts_with('{')
}

/// The arguments object from `items` (empty: `{}`), typed by `schema` (an `inputSchema`).
pub(crate) fn arguments(items: &[String], schema: Option<&Value>) -> Result<Value, String> {
    if items.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    if !are_pairs(items) {
        if items.len() > 1 {
            return Err("give one JSON object, or key=value pairs".into());
        }
        let v: Value =
            serde_json::from_str(&items[0]).map_err(|e| format!("the arguments are not valid JSON: {e}"))?;
        return if v.is_object() { Ok(v) } else { Err("the JSON arguments must be an object".into()) };
    }
    let props = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
    let mut out = Map::new();
    for item in items {
        let (key, raw, value) = if let Some((k, v)) = item.split_once(":=") {
            let parsed = serde_json::from_str(v).map_err(|e| format!("{k}:= needs JSON: {e}"))?;
            (k, true, parsed)
        } else if let Some((k, v)) = item.split_once('=') {
            (k, false, Value::String(v.to_owned()))
        } else {
            return Err(format!("{item:?} is not key=value (or key:=JSON)"));
        };
        if key.is_empty() {
            return Err(format!("{item:?} has no key"));
        }
        let schema = props.and_then(|p| p.get(key));
        let typed = if raw { value } else { typed(key, value.as_str().unwrap_or_default(), schema)? };
        match (out.get_mut(key), is_array(schema)) {
            (Some(Value::Array(items)), true) => match typed {
                Value::Array(more) => items.extend(more),
                one => items.push(one),
            },
            (Some(_), _) => return Err(format!("{key} is given twice")),
            (None, _) => {
                out.insert(key.to_owned(), typed);
            }
        }
    }
    Ok(Value::Object(out))
}

/// The JSON types a schema admits (`type` as a string or a list; none: any).
fn types(schema: Option<&Value>) -> Vec<&str> {
    match schema.and_then(|s| s.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

fn is_array(schema: Option<&Value>) -> bool {
    types(schema).contains(&"array")
}

/// `text` as the value `schema` wants.
fn typed(key: &str, text: &str, schema: Option<&Value>) -> Result<Value, String> {
    let ts = types(schema);
    let json = || serde_json::from_str::<Value>(text);
    if ts.is_empty() {
        // Unknown or untyped: a number, boolean or null stays a string unless the schema says so.
        return Ok(Value::String(text.to_owned()));
    }
    if ts.contains(&"null") && text == "null" {
        return Ok(Value::Null);
    }
    for t in &ts {
        let v = match *t {
            "string" => Some(Value::String(text.to_owned())),
            "integer" => text.parse::<i64>().ok().map(Value::from),
            "number" => text.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(|n| {
                // 3 rather than 3.0 when it is whole: what a person typed.
                text.parse::<i64>().map(Value::from).unwrap_or(Value::Number(n))
            }),
            "boolean" => match text {
                "true" | "yes" | "1" => Some(Value::Bool(true)),
                "false" | "no" | "0" => Some(Value::Bool(false)),
                _ => None,
            },
            "array" => match json() {
                Ok(v @ Value::Array(_)) => Some(v),
                _ => {
                    let items = schema.and_then(|s| s.get("items"));
                    Some(Value::Array(vec![typed(key, text, items)?]))
                }
            },
            "object" => json().ok().filter(Value::is_object),
            _ => None,
        };
        if let Some(v) = v {
            return Ok(v);
        }
    }
    Err(format!("{key}={text}: not a valid {} (use {key}:=JSON for a raw value)", ts.join(" or ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(items: &[&str], schema: &Value) -> Result<Value, String> {
        arguments(&items.iter().map(|s| s.to_string()).collect::<Vec<_>>(), Some(schema))
    }

    #[test]
    fn pairs_are_typed_by_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "n": {"type": "integer"}, "s": {"type": "string"},
            "b": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "integer"}},
            "o": {"type": "object"}, "maybe": {"type": ["integer", "null"]}}});
        assert_eq!(
            args(
                &[
                    "a=2.5",
                    "n=-3",
                    "s=42",
                    "b=true",
                    "tags=1",
                    "tags=2",
                    "o={\"k\":1}",
                    "maybe=null",
                    "extra=7"
                ],
                &schema
            )
            .unwrap(),
            json!({"a": 2.5, "n": -3, "s": "42", "b": true, "tags": [1, 2], "o": {"k": 1}, "maybe": null, "extra": "7"})
        );
        assert_eq!(
            args(&["tags=[3,4]", "raw:=[1,\"x\"]"], &schema).unwrap(),
            json!({"tags": [3, 4], "raw": [1, "x"]})
        );
        assert!(args(&["n=1.5"], &schema).unwrap_err().contains("not a valid integer"));
        assert!(args(&["b=maybe"], &schema).unwrap_err().contains("boolean"));
        assert!(args(&["s=1", "s=2"], &schema).unwrap_err().contains("twice"));
        assert!(args(&["nokey"], &schema).unwrap_err().contains("not key=value"));
    }

    #[test]
    fn one_json_object_is_taken_as_is() {
        assert_eq!(args(&["{\"a\": \"1\"}"], &json!({})).unwrap(), json!({"a": "1"}));
        assert!(args(&["{bad"], &json!({})).unwrap_err().contains("not valid JSON"));
        assert_eq!(arguments(&[], None).unwrap(), json!({}));
    }
}
