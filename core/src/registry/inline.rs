//! `$ref`s inlined: LLM clients and many MCP hosts cannot follow `$ref` (the official SDKs'
//! trackers are full of it), so the schemas the bindings generate (pydantic, zod, valibot,
//! arktype) are handed over with every local reference to a non-recursive definition replaced
//! by the definition itself. Only a recursive type keeps its `$ref` (it cannot be written out),
//! and `$defs` keeps just what those still name.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// `schema` with its local `$ref`s (`#/$defs/X`, `#/definitions/X`) to non-recursive
/// definitions inlined (sibling keywords of a `$ref`, such as a `description`, are kept over the
/// definition's own), and `$defs`/`definitions` reduced to the recursive definitions still
/// referenced (removed when none is).
pub fn inline_refs(schema: &Value) -> Value {
    let Value::Object(root) = schema else { return schema.clone() };
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = root.get(key) {
            for (name, body) in d {
                defs.insert(format!("#/{key}/{}", escape(name)), body.clone());
            }
        }
    }
    if defs.is_empty() {
        return schema.clone();
    }
    let recursive = recursive_defs(&defs);
    let mut used = BTreeSet::new();
    let mut out = Map::new();
    for (k, v) in root {
        if k != "$defs" && k != "definitions" {
            out.insert(k.clone(), expand(v, &defs, &recursive, &mut used));
        }
    }
    // The recursive definitions still named, with their own references expanded the same way.
    let mut kept: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
    let mut pending: Vec<String> = used.iter().cloned().collect();
    let mut done = BTreeSet::new();
    while let Some(r) = pending.pop() {
        if !done.insert(r.clone()) {
            continue;
        }
        let mut inner = BTreeSet::new();
        let body = expand(&defs[&r], &defs, &recursive, &mut inner);
        pending.extend(inner);
        let (key, name) = split(&r);
        kept.entry(key).or_default().insert(name, body);
    }
    for (key, map) in kept {
        out.insert(key.to_owned(), Value::Object(map));
    }
    Value::Object(out)
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// (`$defs` or `definitions`, the unescaped name) of a reference.
fn split(r: &str) -> (&'static str, String) {
    let (key, name) =
        if let Some(n) = r.strip_prefix("#/$defs/") { ("$defs", n) } else { ("definitions", &r[14..]) };
    (key, name.replace("~1", "/").replace("~0", "~"))
}

/// The local references in `v`.
fn refs_in(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.insert(r.clone());
            }
            m.values().for_each(|x| refs_in(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, out)),
        _ => {}
    }
}

/// The definitions that reach themselves through references.
fn recursive_defs(defs: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let edges: BTreeMap<&String, BTreeSet<String>> = defs
        .iter()
        .map(|(k, v)| {
            let mut out = BTreeSet::new();
            refs_in(v, &mut out);
            (k, out.into_iter().filter(|r| defs.contains_key(r)).collect())
        })
        .collect();
    let mut recursive = BTreeSet::new();
    for start in defs.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = edges[start].iter().collect();
        while let Some(n) = stack.pop() {
            if n == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(n.clone()) {
                stack.extend(edges[n].iter());
            }
        }
    }
    recursive
}

fn expand(
    v: &Value,
    defs: &BTreeMap<String, Value>,
    recursive: &BTreeSet<String>,
    used: &mut BTreeSet<String>,
) -> Value {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                if let Some(body) = defs.get(r) {
                    if recursive.contains(r) {
                        used.insert(r.clone());
                    } else {
                        let mut inlined = match expand(body, defs, recursive, used) {
                            Value::Object(b) => b,
                            other => return other, // `true`/`false` schemas
                        };
                        for (k, x) in m {
                            if k != "$ref" {
                                inlined.insert(k.clone(), expand(x, defs, recursive, used));
                            }
                        }
                        return Value::Object(inlined);
                    }
                }
            }
            Value::Object(m.iter().map(|(k, x)| (k.clone(), expand(x, defs, recursive, used))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| expand(x, defs, recursive, used)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn non_recursive_definitions_are_inlined() {
        let s = json!({"type": "object", "properties": {
            "home": {"$ref": "#/$defs/Address", "description": "where they live"},
            "work": {"$ref": "#/$defs/Address"},
            "pet": {"anyOf": [{"$ref": "#/definitions/Pet"}, {"type": "null"}]}},
            "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"},
                "geo": {"$ref": "#/$defs/Geo"}}}, "Geo": {"type": "array", "items": {"type": "number"}}},
            "definitions": {"Pet": {"enum": ["cat", "dog"]}}});
        let address = json!({"type": "object", "properties": {"city": {"type": "string"},
            "geo": {"type": "array", "items": {"type": "number"}}}});
        let mut home = address.clone();
        home["description"] = json!("where they live");
        assert_eq!(
            inline_refs(&s),
            json!({"type": "object", "properties": {"home": home, "work": address,
                "pet": {"anyOf": [{"enum": ["cat", "dog"]}, {"type": "null"}]}}})
        );
    }

    #[test]
    fn recursive_definitions_keep_their_ref() {
        let s = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}, "meta": {"$ref": "#/$defs/Meta"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "meta": {"$ref": "#/$defs/Meta"}}}, "Meta": {"type": "string"}, "Unused": {"type": "null"}}});
        assert_eq!(
            inline_refs(&s),
            json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}, "meta": {"type": "string"}},
                "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "meta": {"type": "string"}}}}})
        );
        let plain = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
        assert_eq!(inline_refs(&plain), plain, "no definitions: unchanged");
    }
}
