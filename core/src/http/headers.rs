//! Modern (2026-07-28) Streamable HTTP request headers, sans I/O: which headers a client sends
//! for a request, the `=?base64?…?=` value encoding, `x-mcp-header` schema annotations, and the
//! server-side header/body check that fails with `HeaderMismatch` (`-32020`).

use crate::error::{ErrorCode, ErrorData};
use crate::jsonrpc::Request;
use crate::protocol::meta;
use base64::Engine as _;
use serde_json::{Map, Value};

/// `MCP-Protocol-Version` (lowercase, for lookups).
pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (lowercase, for lookups).
pub const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name` (lowercase, for lookups).
pub const MCP_NAME: &str = "mcp-name";
/// `Mcp-Session-Id` (legacy lineage; lowercase, for lookups).
pub const MCP_SESSION_ID: &str = "mcp-session-id";
/// The prefix of `Mcp-Param-{X}` headers (lowercase, for lookups).
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";
/// `Last-Event-ID` (legacy resumption; lowercase, for lookups).
pub const LAST_EVENT_ID: &str = "last-event-id";

const PREFIX: &str = "=?base64?";
const SUFFIX: &str = "?=";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn is_header_char(c: char) -> bool {
    c == '\t' || (' '..='~').contains(&c)
}

fn sentinel_payload(s: &str) -> Option<&str> {
    s.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)
}

/// Encodes a value for `Mcp-Name` / `Mcp-Param-*`: plain when it is printable ASCII (or tab)
/// without surrounding whitespace and does not look like the sentinel, else
/// `=?base64?{standard padded Base64 of its UTF-8}?=`. The empty string stays empty.
pub fn encode_value(value: &str) -> String {
    let plain = value.chars().all(is_header_char)
        && !value.starts_with([' ', '\t'])
        && !value.ends_with([' ', '\t'])
        && sentinel_payload(value).is_none();
    if plain {
        value.to_owned()
    } else {
        format!("{PREFIX}{}{SUFFIX}", B64.encode(value))
    }
}

/// Decodes a raw header value: trims surrounding whitespace, rejects characters outside
/// 0x20–0x7E and tab, and decodes the exact lowercase `=?base64?…?=` form (anything else,
/// including `=?BASE64?…?=`, is literal). The error describes the problem.
pub fn decode_value(raw: &str) -> Result<String, String> {
    let v = raw.trim_matches([' ', '\t']);
    if !v.chars().all(is_header_char) {
        return Err("contains characters outside visible ASCII".into());
    }
    match sentinel_payload(v) {
        None => Ok(v.to_owned()),
        Some(b64) => {
            let bytes = B64.decode(b64).map_err(|e| format!("invalid Base64 ({e})"))?;
            String::from_utf8(bytes).map_err(|_| "Base64 payload is not valid UTF-8".to_owned())
        }
    }
}

/// The JSON type of a property carrying `x-mcp-header`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// A tool argument mirrored into an `Mcp-Param-{header}` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The `X` of `Mcp-Param-X`, as written in the schema.
    pub header: String,
    /// The property keys leading from the root of `inputSchema` to the argument.
    pub path: Vec<String>,
    /// The property's declared type.
    pub kind: ParamKind,
}

/// Collects and validates the `x-mcp-header` annotations of a tool's `inputSchema`.
///
/// Valid annotations sit on properties reachable from the root through `properties` alone,
/// name a non-empty RFC 9110 token that is unique (case-insensitively) within the schema,
/// and annotate a property whose `type` is `"string"`, `"integer"` or `"boolean"`. Any
/// violation is an error naming the property; a client drops such a tool.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    // The server runs this on every tools/call: most schemas carry no annotation at all, and
    // the walk below formats a location string per node. An allocation-free scan first.
    if !mentions_header(input_schema) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    walk(input_schema, Some(&mut Vec::new()), "#", &mut out)?;
    for (i, p) in out.iter().enumerate() {
        if let Some(q) = out[..i].iter().find(|q| q.header.eq_ignore_ascii_case(&p.header)) {
            return Err(format!(
                "x-mcp-header '{}' on property '{}' duplicates '{}' on property '{}' (case-insensitively)",
                p.header,
                p.path.join("."),
                q.header,
                q.path.join(".")
            ));
        }
    }
    Ok(out)
}

/// Whether the key `x-mcp-header` appears anywhere in `v` (a superset of where `walk` looks:
/// when this is false, `walk` finds nothing and reports no error).
fn mentions_header(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("x-mcp-header") || m.values().any(mentions_header),
        Value::Array(a) => a.iter().any(mentions_header),
        _ => false,
    }
}

/// `path` is `None` below a keyword that is not `properties` (annotations there are invalid).
fn walk(
    schema: &Value,
    mut path: Option<&mut Vec<String>>,
    loc: &str,
    out: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    let Some(obj) = schema.as_object() else { return Ok(()) };
    if let Some(h) = obj.get("x-mcp-header") {
        let path = match path.as_deref() {
            Some(p) if !p.is_empty() => p.clone(),
            Some(_) => return Err("x-mcp-header on the schema root is invalid".into()),
            None => {
                return Err(format!(
                    "x-mcp-header at {loc} is invalid: only properties reachable through `properties` \
                     may carry it"
                ))
            }
        };
        out.push(check_annotation(h, obj, path)?);
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            let sub_loc = format!("{loc}/properties/{k}");
            match path.as_deref_mut() {
                Some(p) => {
                    p.push(k.clone());
                    let r = walk(sub, Some(p), &sub_loc, out);
                    p.pop();
                    r?;
                }
                None => walk(sub, None, &sub_loc, out)?,
            }
        }
    }
    // Every other subschema keyword: an `x-mcp-header` below it is invalid.
    for (key, sub) in obj {
        let sub_loc = format!("{loc}/{key}");
        match (key.as_str(), sub) {
            ("items" | "prefixItems" | "anyOf" | "oneOf" | "allOf", Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    walk(s, None, &format!("{sub_loc}/{i}"), out)?;
                }
            }
            ("$defs" | "definitions" | "patternProperties" | "dependentSchemas", Value::Object(map)) => {
                for (k, s) in map {
                    walk(s, None, &format!("{sub_loc}/{k}"), out)?;
                }
            }
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contains"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else",
                _,
            ) => walk(sub, None, &sub_loc, out)?,
            _ => {}
        }
    }
    Ok(())
}

fn check_annotation(h: &Value, prop: &Map<String, Value>, path: Vec<String>) -> Result<HeaderParam, String> {
    let name = path.join(".");
    let Some(header) = h.as_str() else {
        return Err(format!("x-mcp-header on property '{name}' is not a string"));
    };
    if header.is_empty() {
        return Err(format!("x-mcp-header on property '{name}' is empty"));
    }
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if !header.chars().all(tchar) {
        return Err(format!("x-mcp-header '{header}' on property '{name}' is not an HTTP token"));
    }
    if prop.contains_key("$ref") {
        return Err(format!("x-mcp-header '{header}' on property '{name}' cannot be used with $ref"));
    }
    let kind = match prop.get("type").and_then(Value::as_str) {
        Some("string") => ParamKind::String,
        Some("integer") => ParamKind::Integer,
        Some("boolean") => ParamKind::Boolean,
        _ => {
            return Err(format!(
                "x-mcp-header '{header}' on property '{name}' requires \"type\" to be \"string\", \
                 \"integer\" or \"boolean\""
            ))
        }
    };
    Ok(HeaderParam { header: header.to_owned(), path, kind })
}

/// The header text of an argument value (before [`encode_value`]): strings as-is, integers
/// (including integral floats such as `42.0`) in decimal, booleans as `true`/`false`; `None`
/// for null and for values that cannot be a header.
pub fn header_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Number(n) => {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0).then(|| format!("{}", f as i64))
        }
        _ => None,
    }
}

/// The lowercase lookup name `mcp-param-{x}` of a parameter header.
pub fn param_header_name(x: &str) -> String {
    format!("{MCP_PARAM_PREFIX}{}", x.to_ascii_lowercase())
}

fn protocol_version(params: Option<&Map<String, Value>>) -> Option<&str> {
    params?.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str()
}

/// The body value `Mcp-Name` mirrors, for the methods that have one.
fn name_value<'a>(method: &str, params: Option<&'a Map<String, Value>>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

/// The argument at `path` under `params.arguments`, if present and not null.
fn argument<'a>(params: Option<&'a Map<String, Value>>, path: &[String]) -> Option<&'a Value> {
    let mut v = params?.get("arguments")?;
    for key in path {
        v = v.get(key)?;
    }
    Some(v).filter(|v| !v.is_null())
}

/// The MCP headers a modern client sends with `req` (canonical capitalisation, values ready to
/// send). `params` are the [`header_params`] of the tool when `req` is `tools/call`.
pub fn request_headers(req: &Request, params: &[HeaderParam]) -> Vec<(String, String)> {
    let body = req.params.as_ref();
    let mut out = Vec::new();
    if let Some(v) = protocol_version(body) {
        out.push(("MCP-Protocol-Version".to_owned(), v.to_owned()));
    }
    out.push(("Mcp-Method".to_owned(), req.method.clone()));
    if let Some(name) = name_value(&req.method, body) {
        out.push(("Mcp-Name".to_owned(), encode_value(name)));
    }
    if req.method == "tools/call" {
        for p in params {
            if let Some(v) = argument(body, &p.path).and_then(header_value) {
                out.push((format!("Mcp-Param-{}", p.header), encode_value(&v)));
            }
        }
    }
    out
}

fn mismatch(message: String) -> ErrorData {
    ErrorData::new(ErrorCode::HEADER_MISMATCH, format!("Header mismatch: {message}"))
}

/// Reads a header through `get`: `Ok(None)` when absent, an error when it has invalid characters.
fn read<F>(get: &F, lookup: &str, display: &str) -> Result<Option<String>, ErrorData>
where
    F: Fn(&str) -> Option<Result<String, ()>>,
{
    match get(lookup) {
        None => Ok(None),
        Some(Err(())) => Err(mismatch(format!("{display} header contains invalid characters"))),
        Some(Ok(raw)) => Ok(Some(raw)),
    }
}

fn required<F>(get: &F, lookup: &str, display: &str) -> Result<String, ErrorData>
where
    F: Fn(&str) -> Option<Result<String, ()>>,
{
    read(get, lookup, display)?.ok_or_else(|| mismatch(format!("required header {display} is missing")))
}

fn decoded(raw: &str, display: &str) -> Result<String, ErrorData> {
    decode_value(raw).map_err(|e| mismatch(format!("{display} header value '{raw}' is invalid: {e}")))
}

fn differs(display: &str, header: &str, body: &str) -> ErrorData {
    mismatch(format!("{display} header value '{header}' does not match body value '{body}'"))
}

/// Whether a decoded `Mcp-Param-*` value equals the body value (integers compare numerically).
fn param_matches(header: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (header.parse::<i64>(), n.as_i64()) {
            (Ok(h), Some(b)) => h == b,
            _ => matches!((header.parse::<f64>(), n.as_f64()), (Ok(h), Some(b)) if h == b),
        },
        _ => false,
    }
}

/// Checks a modern request's headers against its body (server side).
///
/// `get(lowercase_name)` returns `None` when the header is absent, `Some(Err(()))` when its
/// raw value is not visible ASCII, and `Some(Ok(raw))` otherwise. `params` are the
/// [`header_params`] of the called tool for `tools/call`. Fails with `-32020`. A body
/// without a `_meta` protocol version skips the version check (the engine reports that).
pub fn validate_request<F>(get: F, req: &Request, params: &[HeaderParam]) -> Result<(), ErrorData>
where
    F: Fn(&str) -> Option<Result<String, ()>>,
{
    let body = req.params.as_ref();
    if let Some(version) = protocol_version(body) {
        let raw = required(&get, MCP_PROTOCOL_VERSION, "MCP-Protocol-Version")?;
        let header = raw.trim_matches([' ', '\t']);
        if header != version {
            return Err(differs("MCP-Protocol-Version", header, version));
        }
    }
    let raw = required(&get, MCP_METHOD, "Mcp-Method")?;
    let header = raw.trim_matches([' ', '\t']);
    if header != req.method {
        return Err(differs("Mcp-Method", header, &req.method));
    }
    if let Some(name) = name_value(&req.method, body) {
        let raw = required(&get, MCP_NAME, "Mcp-Name")?;
        let header = decoded(&raw, "Mcp-Name")?;
        if header != name {
            return Err(differs("Mcp-Name", &header, name));
        }
    }
    if req.method != "tools/call" {
        return Ok(());
    }
    for p in params {
        let display = format!("Mcp-Param-{}", p.header);
        let header = read(&get, &param_header_name(&p.header), &display)?;
        let header = header.map(|raw| decoded(&raw, &display)).transpose()?;
        let value = argument(body, &p.path).filter(|v| header_value(v).is_some());
        match (header, value) {
            (None, None) => {}
            (None, Some(_)) => return Err(mismatch(format!("required header {display} is missing"))),
            (Some(h), None) => {
                return Err(mismatch(format!(
                    "{display} header value '{h}' is present but argument '{}' is absent or null",
                    p.path.join(".")
                )))
            }
            (Some(h), Some(v)) if !param_matches(&h, v) => {
                return Err(differs(&display, &h, &header_value(v).unwrap_or_default()))
            }
            (Some(_), Some(_)) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::RequestId;
    use serde_json::json;
    use std::collections::HashMap;

    fn req(method: &str, params: Value) -> Request {
        let params = params.as_object().cloned();
        Request { id: RequestId::Number(1), method: method.into(), params }
    }

    fn call(args: Value) -> Request {
        let meta = json!({ meta::PROTOCOL_VERSION: "2026-07-28" });
        req("tools/call", json!({"name": "get_weather", "arguments": args, "_meta": meta}))
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
            "other": {"type": "number"}
        }})
    }

    /// Validates `r` against the headers `h` (names looked up case-insensitively).
    fn check(h: &[(&str, &str)], r: &Request) -> Result<(), ErrorData> {
        let map: HashMap<String, String> =
            h.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect();
        let params = header_params(&schema()).unwrap();
        validate_request(|n| map.get(n).map(|v| Ok(v.clone())), r, &params)
    }

    #[test]
    fn encoding_examples() {
        assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(""), "");
        let tricky = "=?base64?SGk=?=";
        assert_eq!(encode_value(tricky), format!("=?base64?{}?=", B64.encode(tricky)));
        assert_eq!(encode_value("=?BASE64?SGk=?="), "=?BASE64?SGk=?=");
        for v in ["Hello, 世界", " padded ", "line1\nline2", "us west 1", "", tricky, "a\tb", "=?base64?="]
        {
            assert_eq!(decode_value(&encode_value(v)).as_deref(), Ok(v));
        }
    }

    #[test]
    fn decoding_rules() {
        assert_eq!(decode_value("  =?base64?SGk=?=\t").as_deref(), Ok("Hi"));
        assert_eq!(decode_value("=?BASE64?SGk=?=").as_deref(), Ok("=?BASE64?SGk=?="));
        assert_eq!(decode_value("=?base64?SGk=").as_deref(), Ok("=?base64?SGk="));
        assert_eq!(decode_value("=?base64??=").as_deref(), Ok(""));
        assert!(decode_value("=?base64?SGk?=").is_err(), "bad padding");
        assert!(decode_value("=?base64?S*k=?=").is_err(), "bad character");
        assert!(decode_value("=?base64?/w==?=").is_err(), "not UTF-8");
        assert!(decode_value("caf\u{e9}").is_err());
        assert!(decode_value("a\nb").is_err());
    }

    #[test]
    fn schema_annotations() {
        let got = header_params(&schema()).unwrap();
        let summary: Vec<_> = got.iter().map(|p| (p.header.as_str(), p.path.join("."), p.kind)).collect();
        assert_eq!(
            summary,
            [
                ("Count", "count".to_owned(), ParamKind::Integer),
                ("Dry", "opts.dry".to_owned(), ParamKind::Boolean),
                ("Region", "region".to_owned(), ParamKind::String),
            ]
        );
        assert_eq!(header_params(&json!({"type": "object"})), Ok(vec![]));
        let bad = |props: Value| header_params(&json!({"type": "object", "properties": props})).unwrap_err();
        let e = bad(json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}));
        assert!(e.contains("#/properties/a/items"), "{e}");
        assert!(bad(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}})).contains("anyOf/0"));
        assert!(bad(json!({"a": {"type": "number", "x-mcp-header": "A"}})).contains("'a'"));
        bad(json!({"a": {"x-mcp-header": "A"}}));
        bad(json!({"a": {"type": "string", "x-mcp-header": ""}}));
        bad(json!({"a": {"type": "string", "x-mcp-header": "A B"}}));
        bad(json!({"a": {"type": "string", "x-mcp-header": "Ünï"}}));
        let e = bad(
            json!({"a": {"type": "string", "x-mcp-header": "Reg"}, "b": {"type": "integer", "x-mcp-header": "REG"}}),
        );
        assert!(e.contains("duplicates"), "{e}");
        let defs = json!({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}});
        assert!(header_params(&defs).is_err());
        let root = json!({"type": "string", "x-mcp-header": "D"});
        assert!(header_params(&root).is_err());
        let method =
            json!({"type": "object", "properties": {"m": {"type": "string", "x-mcp-header": "Method"}}});
        assert_eq!(header_params(&method).unwrap()[0].header, "Method");
    }

    #[test]
    fn values_and_client_headers() {
        assert_eq!(header_value(&json!("x")).as_deref(), Some("x"));
        assert_eq!(header_value(&json!(42)).as_deref(), Some("42"));
        assert_eq!(header_value(&json!(42.0)).as_deref(), Some("42"));
        assert_eq!(header_value(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(header_value(&json!(true)).as_deref(), Some("true"));
        for v in [json!(null), json!(1.5), json!([]), json!({})] {
            assert_eq!(header_value(&v), None);
        }
        assert_eq!(param_header_name("Region"), "mcp-param-region");
        let params = header_params(&schema()).unwrap();
        let r = call(json!({"region": "us west 1", "count": 3, "opts": {"dry": false}, "other": null}));
        let h = request_headers(&r, &params);
        let want = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "get_weather"),
            ("Mcp-Param-Count", "3"),
            ("Mcp-Param-Dry", "false"),
            ("Mcp-Param-Region", "us west 1"),
        ];
        assert_eq!(h, want.map(|(k, v)| (k.to_owned(), v.to_owned())));
        let h = request_headers(&call(json!({"region": "日本", "count": null})), &params);
        assert_eq!(h[3], ("Mcp-Param-Region".to_owned(), encode_value("日本")));
        assert_eq!(h.len(), 4);
        let r = req("resources/read", json!({"uri": "file:///a b"}));
        let want = [("Mcp-Method", "resources/read"), ("Mcp-Name", "file:///a b")];
        assert_eq!(request_headers(&r, &[]), want.map(|(k, v)| (k.to_owned(), v.to_owned())));
        let r = req("tasks/cancel", json!({"taskId": "t1"}));
        assert_eq!(request_headers(&r, &[])[1].1, "t1");
        assert_eq!(request_headers(&req("tools/list", json!({})), &[]).len(), 1);
    }

    #[test]
    fn server_validation() {
        let r = call(json!({"region": "Hello, 世界", "count": 42.0, "opts": {"dry": true}}));
        let ok = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("Mcp-Name", " get_weather "),
            ("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("MCP-PARAM-COUNT", "42"),
            ("Mcp-Param-Dry", "true"),
        ];
        assert_eq!(check(&ok, &r), Ok(()));
        let with = |i: usize, v: &str| {
            let mut h = ok.to_vec();
            h[i].1 = v;
            check(&h, &r).unwrap_err()
        };
        let without = |i: usize| {
            let mut h = ok.to_vec();
            h.remove(i);
            check(&h, &r).unwrap_err()
        };
        let e = with(1, "TOOLS/CALL");
        assert_eq!(e.code, ErrorCode::HEADER_MISMATCH);
        assert_eq!(
            e.message,
            "Header mismatch: Mcp-Method header value 'TOOLS/CALL' does not match body value 'tools/call'"
        );
        assert_eq!(
            with(2, "foo").message,
            "Header mismatch: Mcp-Name header value 'foo' does not match body value 'get_weather'"
        );
        assert_eq!(without(1).message, "Header mismatch: required header Mcp-Method is missing");
        assert_eq!(without(0).message, "Header mismatch: required header MCP-Protocol-Version is missing");
        assert!(with(0, "2025-11-25").message.contains("MCP-Protocol-Version header value '2025-11-25'"));
        assert_eq!(without(2).message, "Header mismatch: required header Mcp-Name is missing");
        assert_eq!(without(3).message, "Header mismatch: required header Mcp-Param-Region is missing");
        assert!(with(3, "Hello").message.contains("Mcp-Param-Region header value 'Hello' does not match"));
        assert!(with(3, "=?base64?SGVsbG8?=").message.contains("is invalid: invalid Base64"));
        assert_eq!(
            check(
                &{
                    let mut h = ok.to_vec();
                    h[4].1 = "42.0";
                    h
                },
                &r
            ),
            Ok(())
        );
        assert!(with(4, "43").message.contains("body value '42'"));
        assert!(with(5, "True").message.contains("Mcp-Param-Dry"));
        // Header sent for an argument the body does not carry.
        let r2 = call(json!({"region": "Hello, 世界", "count": 42, "opts": {"dry": null}}));
        let e = check(&ok, &r2).unwrap_err();
        assert!(e.message.contains("Mcp-Param-Dry header value 'true' is present but argument 'opts.dry'"));
        let mut h = ok.to_vec();
        h.remove(5);
        assert_eq!(check(&h, &r2), Ok(()));
        // Invalid raw characters and a body without a `_meta` version.
        let e = validate_request(|n| (n == MCP_METHOD).then_some(Err(())), &req("ping", json!({})), &[]);
        assert_eq!(e.unwrap_err().message, "Header mismatch: Mcp-Method header contains invalid characters");
        assert_eq!(check(&[("Mcp-Method", "tools/list")], &req("tools/list", json!({}))), Ok(()));
    }
}
