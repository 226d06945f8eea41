//! The modern HTTP header codec (`http::headers`): `Mcp-Name` / `Mcp-Param-*` values with their
//! `=?base64?…?=` form, `x-mcp-header` schema annotations, and the server's header/body check.
//!
//! Input: fields separated by NUL bytes: a raw header value, a tool `inputSchema` (JSON), a
//! request (JSON), then raw `name: value` header lines. Properties: no panic; `decode_value`
//! inverts `encode_value`; the headers a client derives for a request (`request_headers`)
//! always pass the server's check (`validate_request`) when the method and version can be
//! header values at all.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::http::headers::{self, HeaderParam};
use mcpcore::jsonrpc::{self, Inbound, Message, Request};
use serde_json::Value;

/// How a server sees a header: `Some(Err(()))` when its raw value is not visible ASCII.
fn lookup(headers: &[(String, String)], name: &str) -> Option<Result<String, ()>> {
    let (_, v) = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name))?;
    let visible = v.bytes().all(|b| b == b'\t' || (0x20..=0x7e).contains(&b));
    Some(if visible { Ok(v.clone()) } else { Err(()) })
}

fn header_safe(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

fuzz_target!(|data: &[u8]| {
    let mut fields = data.split(|b| *b == 0);
    let raw = String::from_utf8_lossy(fields.next().unwrap_or_default());
    let _ = headers::decode_value(&raw);
    let encoded = headers::encode_value(&raw);
    assert_eq!(headers::decode_value(&encoded).as_deref(), Ok(raw.as_ref()), "encoded as {encoded:?}");

    let schema: Value = serde_json::from_slice(fields.next().unwrap_or_default()).unwrap_or(Value::Null);
    let params: Vec<HeaderParam> = headers::header_params(&schema).unwrap_or_default();
    let Ok(Inbound::Single(Message::Request(req))) = jsonrpc::parse(fields.next().unwrap_or_default()) else {
        return;
    };
    check_derived_headers(&req, &params);
    let sent: Vec<(String, String)> = fields
        .flat_map(|f| f.split(|b| *b == b'\n'))
        .filter_map(|line| {
            let line = String::from_utf8_lossy(line);
            let (k, v) = line.split_once(':')?;
            Some((k.trim().to_owned(), v.to_owned()))
        })
        .collect();
    let _ = headers::validate_request(|n| lookup(&sent, n), &req, &params);
});

fn check_derived_headers(req: &Request, params: &[HeaderParam]) {
    let version = req
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str);
    if !header_safe(&req.method) || version.is_some_and(|v| !header_safe(v)) {
        return;
    }
    let derived = headers::request_headers(req, params);
    if let Err(e) = headers::validate_request(|n| lookup(&derived, n), req, params) {
        panic!(
            "the server refused the headers the client derived: {e:?}\nheaders {derived:?}\nrequest {req:?}"
        );
    }
}
