//! The fast path of [`super::parse`]: a well-formed single message read straight into its
//! parts, without first building the whole frame as a `serde_json::Value` and taking it apart
//! (the top-level map, its keys and the `"2.0"` string were allocated and freed per message;
//! bench/NOTES.md, "Parsing a message in one pass").
//!
//! Only messages the slow path ([`super::from_value`]) would accept unchanged are taken here;
//! anything else (a batch, a bad `jsonrpc`, a null id on a request, params that are not an
//! object, a duplicate key, …) returns `None` and goes the slow way, which owes the peer the
//! exact error response. So both paths agree on every input (tested below).

use super::{Message, Notification, Request, RequestId, Response};
use crate::error::ErrorData;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The members of one JSON-RPC object. A member given as `null` reads as `Some(None)` where
/// that matters (`id`), and fails where the slow path refuses it (`method`, `params`,
/// `error`); other members are skipped, as the slow path ignores them.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Option<Id>>,
    #[serde(default, deserialize_with = "present")]
    method: Option<String>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<ErrorData>,
}

/// `Some` of whatever the member holds, so a member given as `null` is told from one left out.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An id as the slow path reads it: a string, or an integer in the `i64` range.
struct Id(RequestId);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl<'de> Visitor<'de> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer")
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Id, E> {
        Ok(Id(RequestId::Number(n)))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Id, E> {
        i64::try_from(n).map(|n| Id(RequestId::Number(n))).map_err(|_| E::custom("id out of range"))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Id, E> {
        Ok(Id(RequestId::String(s.to_owned())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Id, E> {
        Ok(Id(RequestId::String(s)))
    }
}

/// The message in `bytes` when it is a well-formed single message; `None` sends the frame
/// down the slow path.
pub(super) fn fast(bytes: &[u8]) -> Option<Message> {
    // Only an object: serde's derived struct reading also takes an array, member by member
    // (`["2.0",1,"ping"]` would read as a request, where the slow path sees a batch).
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let e: Envelope<'_> = serde_json::from_slice(bytes).ok()?;
    if e.jsonrpc.as_deref() != Some("2.0") {
        return None;
    }
    let id = match e.id {
        None => None,
        Some(Some(Id(id))) => Some(id),
        // `"id": null`: only an error response may carry it; the slow path sorts it out.
        Some(None) => return None,
    };
    if let Some(method) = e.method {
        let params = e.params;
        return Some(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }
    match (e.result, e.error, id) {
        (Some(result), None, Some(id)) => Some(Message::Response(Response::result(id, result))),
        (None, Some(err), Some(id)) => Some(Message::Response(Response::error(Some(id), err))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_value, Inbound};
    use super::*;

    /// The slow path alone, as `parse` was before the fast path.
    fn slow(bytes: &[u8]) -> Result<Inbound, Response> {
        let v: Value =
            serde_json::from_slice(bytes).map_err(|_| Response::error(None, ErrorData::internal("x")))?;
        match v {
            Value::Array(items) => Ok(Inbound::Batch(items.into_iter().map(from_value).collect())),
            other => from_value(other).map(Inbound::Single),
        }
    }

    #[test]
    fn both_paths_agree_on_every_message() {
        let frames = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"id":"a\"b","method":"x","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2\u002e0","id":-9223372036854775808,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"x","extra":[1,{"a":null}]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"é\n"}]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"m","data":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"m","data":null}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"x","result":1}"#,
            // Each of these is the slow path's (the fast path declines them).
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1e40,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":null,"id":1,"method":"x"}"#,
            r#"{"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            r#"[{"jsonrpc":"2.0","method":"n"},5]"#,
            r#"["2.0",1,"ping"]"#,
            r#" ["2.0",1,"tools/call",{"name":"echo"}]"#,
            r#"42"#,
        ];
        for f in frames {
            let fast = super::super::parse(f.as_bytes());
            assert_eq!(fast, slow(f.as_bytes()), "{f}");
        }
    }

    #[test]
    fn the_fast_path_takes_the_common_messages() {
        for f in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"r1","result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}"#,
        ] {
            assert!(fast(f.as_bytes()).is_some(), "{f}");
        }
    }
}
