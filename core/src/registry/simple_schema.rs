//! A checker and validator for the small JSON Schema subset most tool schemas use, so that
//! registering and calling such a tool never builds jsonschema's draft 2020-12 meta-validator.
//!
//! Building that meta-validator (once per process, the first time any schema is compiled) was
//! 83% of the instructions of `echo_server`'s start-up (callgrind). jsonschema 0.61 has no public
//! way to skip it, so a schema made only of the keywords below is checked here instead, against
//! the same rules the 2020-12 meta-schema states for them (JSON Schema 2020-12 Validation §6 and
//! the meta-schemas `meta/validation`, `meta/applicator`, `meta/meta-data`), and validated here
//! with the same results and messages as jsonschema's. Every other schema — any other keyword
//! anywhere, `$ref`, `format`, `pattern`, combinators, a `$schema` other than 2020-12 — is not
//! "simple" and goes to jsonschema, which checks and compiles it at registration as before.
//! Nothing invalid is accepted: a simple schema that breaks a meta-schema rule is refused with
//! the failing location.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;

/// Keywords handled here (anything else makes a schema "not simple").
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
];

const TYPES: &[&str] = &["array", "boolean", "integer", "null", "number", "object", "string"];

/// A checked simple schema.
#[derive(Debug)]
pub(crate) enum Simple {
    /// `true` or `false`.
    Bool(bool),
    /// An object schema.
    Object(Box<Node>),
}

/// One object schema of the subset, its keywords parsed.
#[derive(Debug, Default)]
pub(crate) struct Node {
    types: Option<Vec<&'static str>>,
    properties: Vec<(String, Simple)>,
    required: Vec<String>,
    additional: Option<Simple>,
    items: Option<Simple>,
    enumeration: Option<Vec<Value>>,
    constant: Option<Value>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    min_items: Option<u64>,
    max_items: Option<u64>,
}

/// `None`: not in the subset (use jsonschema). `Some(Err)`: in the subset but invalid, with
/// the schema location and the broken rule. `Some(Ok)`: checked.
pub(crate) fn parse(schema: &Value) -> Option<Result<Simple, String>> {
    parse_at(schema, "", true)
}

fn parse_at(schema: &Value, at: &str, root: bool) -> Option<Result<Simple, String>> {
    let map = match schema {
        Value::Bool(b) => return Some(Ok(Simple::Bool(*b))),
        Value::Object(m) => m,
        other => return Some(Err(format!("{}: {other} is not a schema (an object or a boolean)", loc(at)))),
    };
    if !map.keys().all(|k| KEYWORDS.contains(&k.as_str())) {
        return None;
    }
    if let Some(s) = map.get("$schema") {
        // A dialect declared below the root is an embedded resource: jsonschema's business.
        let dialect = s.as_str().map(|s| s.trim_end_matches('#'));
        if !root || dialect != Some("https://json-schema.org/draft/2020-12/schema") {
            return None;
        }
    }
    let mut node = Node::default();
    for (key, value) in map {
        let here = format!("{at}/{}", escape(key));
        let bad = |rule: &str| Some(Err(format!("{}: {value} {rule}", loc(&here))));
        match key.as_str() {
            "type" => match value {
                Value::String(t) => match type_name(t) {
                    Some(t) => node.types = Some(vec![t]),
                    None => return bad("is not a JSON Schema type"),
                },
                Value::Array(items) => {
                    let mut types = Vec::new();
                    for item in items {
                        match item.as_str().and_then(type_name) {
                            Some(t) if !types.contains(&t) => types.push(t),
                            Some(_) => return bad("has non-unique elements"),
                            None => return bad("is not an array of JSON Schema types"),
                        }
                    }
                    if types.is_empty() {
                        return bad("has less than 1 item");
                    }
                    // jsonschema names them in this (alphabetical) order
                    types.sort_by_key(|t| TYPES.iter().position(|x| x == t));
                    node.types = Some(types);
                }
                _ => return bad("is not a JSON Schema type or an array of them"),
            },
            "properties" => {
                let Value::Object(props) = value else { return bad("is not of type \"object\"") };
                for (name, sub) in props {
                    match parse_at(sub, &format!("{here}/{}", escape(name)), false)? {
                        Ok(s) => node.properties.push((name.clone(), s)),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            "additionalProperties" | "items" => {
                let parsed = match parse_at(value, &here, false)? {
                    Ok(s) => s,
                    Err(e) => return Some(Err(e)),
                };
                if key == "items" {
                    node.items = Some(parsed);
                } else {
                    node.additional = Some(parsed);
                }
            }
            "required" => {
                let Value::Array(items) = value else { return bad("is not of type \"array\"") };
                let mut names: Vec<String> = Vec::new();
                for item in items {
                    match item.as_str() {
                        Some(s) if !names.iter().any(|n| n == s) => names.push(s.to_owned()),
                        Some(_) => return bad("has non-unique elements"),
                        None => return bad("is not an array of strings"),
                    }
                }
                node.required = names;
            }
            "enum" => match value {
                Value::Array(items) => node.enumeration = Some(items.clone()),
                _ => return bad("is not of type \"array\""),
            },
            "const" => node.constant = Some(value.clone()),
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                let limit = match size_limit(value) {
                    Limit::Ok(n) => n,
                    Limit::Invalid => return bad("is not a non-negative integer"),
                    // Valid for the meta-schema but past u64 (e.g. 1e30): jsonschema decides.
                    Limit::Huge => return None,
                };
                match key.as_str() {
                    "minLength" => node.min_length = Some(limit),
                    "maxLength" => node.max_length = Some(limit),
                    "minItems" => node.min_items = Some(limit),
                    _ => node.max_items = Some(limit),
                }
            }
            "minimum" | "maximum" => {
                let Value::Number(n) = value else { return bad("is not of type \"number\"") };
                if key == "minimum" {
                    node.minimum = Some(n.clone());
                } else {
                    node.maximum = Some(n.clone());
                }
            }
            "title" | "description" | "$comment" | "$schema" if !value.is_string() => {
                return bad("is not of type \"string\"")
            }
            "deprecated" | "readOnly" | "writeOnly" if !value.is_boolean() => {
                return bad("is not of type \"boolean\"")
            }
            "examples" if !value.is_array() => return bad("is not of type \"array\""),
            _ => {} // annotations: title, description, default, examples, ...
        }
    }
    Some(Ok(Simple::Object(Box::new(node))))
}

fn loc(at: &str) -> String {
    if at.is_empty() {
        "the schema".to_owned()
    } else {
        format!("at {at}")
    }
}

/// JSON Pointer escaping (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn type_name(t: &str) -> Option<&'static str> {
    TYPES.iter().copied().find(|x| *x == t)
}

enum Limit {
    Ok(u64),
    Invalid,
    Huge,
}

/// The meta-schema's `nonNegativeInteger`: an integer (1.0 counts) ≥ 0.
fn size_limit(v: &Value) -> Limit {
    let Value::Number(n) = v else { return Limit::Invalid };
    if let Some(u) = n.as_u64() {
        return Limit::Ok(u);
    }
    match n.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 => {
            if f < 18_446_744_073_709_551_616.0 {
                Limit::Ok(f as u64)
            } else {
                Limit::Huge
            }
        }
        _ => Limit::Invalid, // negative integers, fractions
    }
}

impl Simple {
    /// True when `instance` is valid.
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        let mut errors = Vec::new();
        self.check(instance, &Path::Root, &mut errors, 1);
        errors.is_empty()
    }

    /// Up to `max` errors as `(instance path, message)`, in jsonschema's wording.
    pub(crate) fn errors(&self, instance: &Value, max: usize) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        self.check(instance, &Path::Root, &mut errors, max);
        errors
    }

    fn check(&self, v: &Value, path: &Path<'_>, out: &mut Vec<(String, String)>, max: usize) {
        match self {
            Simple::Bool(true) => {}
            Simple::Bool(false) => push(out, max, path, format!("False schema does not allow {v}")),
            Simple::Object(node) => node.check(v, path, out, max),
        }
    }
}

/// Where the checker is in the instance: a chain of segments on the stack, rendered as a JSON
/// Pointer only when an error is reported (a valid instance costs no allocation).
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.render(out);
                out.push('/');
                out.push_str(&escape(key));
            }
            Path::Index(parent, i) => {
                parent.render(out);
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
}

fn push(out: &mut Vec<(String, String)>, max: usize, path: &Path<'_>, message: String) {
    if out.len() < max {
        let mut p = String::new();
        path.render(&mut p);
        out.push((p, message));
    }
}

impl Node {
    fn check(&self, v: &Value, path: &Path<'_>, out: &mut Vec<(String, String)>, max: usize) {
        if out.len() >= max {
            return;
        }
        if let Some(types) = &self.types {
            if !types.iter().any(|t| has_type(v, t)) {
                let msg = if types.len() == 1 {
                    format!("{v} is not of type \"{}\"", types[0])
                } else {
                    let list: Vec<String> = types.iter().map(|t| format!("\"{t}\"")).collect();
                    format!("{v} is not of types {}", list.join(", "))
                };
                push(out, max, path, msg);
            }
        }
        if let Some(c) = &self.constant {
            if !equal(v, c) {
                push(out, max, path, format!("{c} was expected"));
            }
        }
        if let Some(options) = &self.enumeration {
            if !options.iter().any(|o| equal(v, o)) {
                push(out, max, path, enum_message(v, options));
            }
        }
        match v {
            Value::String(s) => {
                let (min, max_len) = (self.min_length, self.max_length);
                if min.is_some() || max_len.is_some() {
                    let n = s.chars().count() as u64;
                    if let Some(m) = max_len.filter(|m| n > *m) {
                        push(out, max, path, format!("{v} is longer than {m} character{}", plural(m)));
                    }
                    if let Some(m) = min.filter(|m| n < *m) {
                        push(out, max, path, format!("{v} is shorter than {m} character{}", plural(m)));
                    }
                }
            }
            Value::Number(n) => {
                if let Some(m) = self.minimum.as_ref().filter(|m| compare(n, m) == Ordering::Less) {
                    push(out, max, path, format!("{v} is less than the minimum of {m}"));
                }
                if let Some(m) = self.maximum.as_ref().filter(|m| compare(n, m) == Ordering::Greater) {
                    push(out, max, path, format!("{v} is greater than the maximum of {m}"));
                }
            }
            Value::Array(items) => {
                let n = items.len() as u64;
                if let Some(m) = self.max_items.filter(|m| n > *m) {
                    push(out, max, path, format!("{v} has more than {m} item{}", plural(m)));
                }
                if let Some(m) = self.min_items.filter(|m| n < *m) {
                    push(out, max, path, format!("{v} has less than {m} item{}", plural(m)));
                }
                if let Some(schema) = &self.items {
                    for (i, item) in items.iter().enumerate() {
                        schema.check(item, &Path::Index(path, i), out, max);
                    }
                }
            }
            Value::Object(map) => self.check_object(map, path, out, max),
            _ => {}
        }
    }

    fn check_object(
        &self,
        map: &Map<String, Value>,
        path: &Path<'_>,
        out: &mut Vec<(String, String)>,
        max: usize,
    ) {
        for name in &self.required {
            if !map.contains_key(name) {
                push(out, max, path, format!("{} is a required property", Value::from(name.as_str())));
            }
        }
        for (name, schema) in &self.properties {
            if let Some(value) = map.get(name) {
                schema.check(value, &Path::Key(path, name), out, max);
            }
        }
        match &self.additional {
            None | Some(Simple::Bool(true)) => {}
            Some(Simple::Bool(false)) => {
                let unexpected: Vec<&String> =
                    map.keys().filter(|k| !self.properties.iter().any(|(n, _)| n == *k)).collect();
                if !unexpected.is_empty() {
                    let list: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
                    let verb = if unexpected.len() == 1 { "was" } else { "were" };
                    push(
                        out,
                        max,
                        path,
                        format!(
                            "Additional properties are not allowed ({} {verb} unexpected)",
                            list.join(", ")
                        ),
                    );
                }
            }
            Some(schema) => {
                for (k, value) in map {
                    if self.properties.iter().any(|(n, _)| n == k) {
                        continue;
                    }
                    schema.check(value, &Path::Key(path, k), out, max);
                }
            }
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn enum_message(v: &Value, options: &[Value]) -> String {
    let mut s = format!("{v} is not one of ");
    if options.len() <= 3 {
        for (i, o) in options.iter().enumerate() {
            let sep = if i == 0 {
                ""
            } else if i == options.len() - 1 {
                " or "
            } else {
                ", "
            };
            s.push_str(&format!("{sep}{o}"));
        }
    } else {
        let shown: Vec<String> = options.iter().take(2).map(Value::to_string).collect();
        s.push_str(&format!("{} or {} other candidates", shown.join(", "), options.len() - 2));
    }
    s
}

fn has_type(v: &Value, t: &str) -> bool {
    match (t, v) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => is_integer(n),
        _ => false,
    }
}

/// 2020-12 Validation §6.1.1: a number with a zero fractional part is an integer (1.0 is).
fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Exact order of two JSON numbers (integers beyond 2^53 are not rounded).
fn compare(a: &Number, b: &Number) -> Ordering {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(i), None) => cmp_int_float(i, b.as_f64().unwrap_or(f64::NAN)),
        (None, Some(i)) => cmp_int_float(i, a.as_f64().unwrap_or(f64::NAN)).reverse(),
        (None, None) => {
            let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

fn cmp_int_float(i: i128, f: f64) -> Ordering {
    // An integral float in i128 range compares exactly as an integer; a float with a fraction is
    // below 2^53 in magnitude, where rounding `i` cannot cross it.
    if f.fract() == 0.0 && f.abs() < 1.0e38 {
        i.cmp(&(f as i128))
    } else {
        (i as f64).partial_cmp(&f).unwrap_or(Ordering::Equal)
    }
}

/// JSON equality as `enum`/`const` define it: numbers by value (1 equals 1.0).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| equal(p, q)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
#[path = "simple_schema_tests.rs"]
mod tests;
