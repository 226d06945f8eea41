//! JSON-RPC 2.0 framing: message kinds, ids, parsing with the right error codes, serialization.
//!
//! Pure code: no I/O. [`parse`] turns one wire frame (a stdio line or an HTTP body) into an
//! [`Inbound`] value or into the error response the peer must receive. [`scan`] reads the id
//! of a message too large to parse.

mod envelope;
pub mod scan;
pub(crate) mod write;

use crate::error::ErrorData;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// A request id: a string or an integer, round-tripped unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (any value of the signed 64-bit range).
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }
    /// Reads an id from a JSON value; `None` for null, floats, out-of-range integers and other types.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// A request: it expects exactly one response with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Map<String, Value>>,
}

/// A notification: no id, never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The params object, when present.
    pub params: Option<Map<String, Value>>,
}

/// A response: a result or an error for the request with `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request answered; `None` only when it could not be read.
    pub id: Option<RequestId>,
    /// The result object, or the error.
    pub outcome: Result<Value, ErrorData>,
}

impl Response {
    /// A success response.
    pub fn result(id: RequestId, result: Value) -> Self {
        Response { id: Some(id), outcome: Ok(result) }
    }
    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorData) -> Self {
        Response { id, outcome: Err(error) }
    }
}

/// Any JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response.
    Response(Response),
}

impl Message {
    /// Serializes to compact JSON (no embedded newlines, as stdio needs).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_json(&mut out);
        String::from_utf8(out).expect("written from UTF-8 text and ASCII")
    }
    /// Appends the compact JSON of the message to `out` (what [`Message::to_json`] returns).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        write::message(out, self);
    }
    /// Converts to a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a JSON-RPC message always serializes")
    }
    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Message::Request(r) => {
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Notification(n) => {
                m.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Response(r) => {
                // Error responses to unreadable requests carry `"id": null` (JSON-RPC 2.0).
                match (&r.id, &r.outcome) {
                    (Some(id), _) => m.serialize_entry("id", id)?,
                    (None, Err(_)) => m.serialize_entry("id", &Value::Null)?,
                    (None, Ok(_)) => {}
                }
                match &r.outcome {
                    Ok(v) => m.serialize_entry("result", v)?,
                    Err(e) => m.serialize_entry("error", e)?,
                }
            }
        }
        m.end()
    }
}

/// One inbound frame: a single message or (2025-03-26 only) a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// One message.
    Single(Message),
    /// A JSON array: each element parsed on its own (an element that is not a valid
    /// message becomes the error response owed for it).
    Batch(Vec<Result<Message, Response>>),
}

/// Parses one frame. `Err` holds the error response owed to the peer (`-32700` with a null id
/// for invalid JSON or invalid UTF-8, `-32600` for a JSON value that is not a message).
pub fn parse(bytes: &[u8]) -> Result<Inbound, Response> {
    if let Some(m) = envelope::fast(bytes) {
        return Ok(Inbound::Single(m));
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Response::error(None, ErrorData::parse_error(format!("Parse error: {e}"))))?;
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return Err(Response::error(
                    None,
                    ErrorData::invalid_request("Invalid Request: empty batch"),
                ));
            }
            Ok(Inbound::Batch(items.into_iter().map(from_value).collect()))
        }
        other => from_value(other).map(Inbound::Single),
    }
}

/// Classifies one JSON value as a message, or yields the error response owed for it.
pub fn from_value(value: Value) -> Result<Message, Response> {
    let Value::Object(mut obj) = value else {
        return Err(Response::error(
            None,
            ErrorData::invalid_request("Invalid Request: a message must be a JSON object"),
        ));
    };
    let raw_id = obj.remove("id");
    // `"id": null` is how JSON-RPC marks an error response to an unreadable request; requests
    // must never carry it (MCP), so it only reads as "no id" when there is no method.
    let null_for_response = matches!(raw_id, Some(Value::Null)) && !obj.contains_key("method");
    let id = match &raw_id {
        None => None,
        Some(Value::Null) if null_for_response => None,
        Some(v) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            None => {
                return Err(Response::error(
                    None,
                    ErrorData::invalid_request(
                        "Invalid Request: id must be a string or an integer in the signed 64-bit range",
                    ),
                ))
            }
        },
    };
    let invalid = |msg: &str| Err(Response::error(id.clone(), ErrorData::invalid_request(msg)));
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("Invalid Request: jsonrpc must be \"2.0\"");
    }
    if let Some(method) = obj.remove("method") {
        let Value::String(method) = method else {
            return invalid("Invalid Request: method must be a string");
        };
        let params = match obj.remove("params") {
            None => None,
            Some(Value::Object(p)) => Some(p),
            Some(Value::Array(_)) => {
                return Err(Response::error(
                    id,
                    ErrorData::invalid_params("Invalid params: MCP params must be an object"),
                ))
            }
            Some(_) => return invalid("Invalid Request: params must be an object"),
        };
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }
    match (obj.remove("result"), obj.remove("error")) {
        (Some(result), None) => match id {
            Some(id) => Ok(Message::Response(Response::result(id, result))),
            None => invalid("Invalid Request: a result needs an id"),
        },
        (None, Some(err)) => match serde_json::from_value::<ErrorData>(err) {
            Ok(e) => Ok(Message::Response(Response::error(id, e))),
            Err(_) => invalid("Invalid Request: malformed error object"),
        },
        _ => invalid("Invalid Request: missing method, result or error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    fn single(s: &str) -> Message {
        match parse(s.as_bytes()).unwrap() {
            Inbound::Single(m) => m,
            other => panic!("not single: {other:?}"),
        }
    }
    fn err(s: &[u8]) -> Response {
        parse(s).unwrap_err()
    }

    #[test]
    fn ids_round_trip_unchanged() {
        for raw in [r#""abc""#, "0", "-7", "9223372036854775807", r#""""#] {
            let m = single(&format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"x"}}"#));
            let v = m.to_value();
            assert_eq!(v["id"].to_string(), raw);
        }
    }

    #[test]
    fn a_null_id_is_read_only_on_error_responses() {
        let r = from_value(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "no"}}));
        match r {
            Ok(Message::Response(resp)) => {
                assert_eq!(resp.id, None);
                assert_eq!(resp.outcome.unwrap_err().code, ErrorCode::INVALID_REQUEST);
            }
            other => panic!("{other:?}"),
        }
        assert!(from_value(json!({"jsonrpc": "2.0", "id": null, "method": "ping"})).is_err());
    }

    #[test]
    fn parse_error_has_null_id() {
        let r = err(b"{not json");
        assert_eq!(r.id, None);
        assert_eq!(r.outcome.as_ref().unwrap_err().code, ErrorCode::PARSE_ERROR);
        let v = Message::Response(r).to_value();
        assert_eq!(v["id"], Value::Null);
        assert_eq!(err(b"\xff\xfe{}").outcome.unwrap_err().code, ErrorCode::PARSE_ERROR);
    }

    #[test]
    fn invalid_requests() {
        let code = |s: &str| err(s.as_bytes()).outcome.unwrap_err().code;
        assert_eq!(code(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":5}"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#), ErrorCode::INVALID_PARAMS);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1e40,"method":"x"}"#), ErrorCode::INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":99999999999999999999999,"method":"x"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(code("42"), ErrorCode::INVALID_REQUEST);
        assert_eq!(code("[]"), ErrorCode::INVALID_REQUEST);
        // The id is echoed when it could be read.
        let r = err(br#"{"jsonrpc":"1.0","id":"k","method":"x"}"#);
        assert_eq!(r.id, Some(RequestId::from("k")));
    }

    #[test]
    fn deep_nesting_is_a_parse_error_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(err(deep.as_bytes()).outcome.unwrap_err().code, ErrorCode::PARSE_ERROR);
    }

    #[test]
    fn kinds() {
        assert!(matches!(single(r#"{"jsonrpc":"2.0","method":"n"}"#), Message::Notification(_)));
        let r = single(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#);
        assert_eq!(r, Message::Response(Response::result(3.into(), json!({"a":1}))));
        let e = single(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"m","data":[1]}}"#);
        let Message::Response(Response { outcome: Err(e), .. }) = e else { panic!() };
        assert_eq!(e.data, Some(json!([1])));
        match parse(br#"[{"jsonrpc":"2.0","method":"n"}, 5]"#).unwrap() {
            Inbound::Batch(items) => {
                assert!(items[0].is_ok());
                assert!(items[1].is_err());
            }
            _ => panic!(),
        }
    }
}
