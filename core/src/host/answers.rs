//! The rules turning what a host's client-side handler returned into the answer to a server's
//! request for input (a client's `on_elicitation`, `on_sampling` and roots callback), shared by
//! every binding like [`super::results`] is for server-side handlers. Cases:
//! `tests/vectors/host-results/input.json`.
//!
//! **Elicitation** ([`elicit_result`]): an object with `action` → that `ElicitResult`; any other
//! object → `accept` with the object as the form's content; `"accept"`, `"decline"` or
//! `"cancel"` → that action without content; `null` → `decline`.
//!
//! **Sampling** ([`create_message_result`]): a string → the assistant's text, model
//! `"unknown"`; an object → a `CreateMessageResult`, where `role` defaults to `assistant`,
//! `model` to `"unknown"`, and a string `content` is a text block.
//!
//! **Roots** ([`list_roots_result`]): a list of URIs (strings) or `{uri, name}` objects, or an
//! object with such a `roots` list.

use super::results::HostValue;
use crate::protocol::elicitation::ElicitResult;
use crate::protocol::roots::ListRootsResult;
use crate::protocol::sampling::CreateMessageResult;
use serde_json::{json, Value};

fn parse<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| format!("not {what}: {e}"))
}

/// What an elicitation handler's value answers.
pub fn elicit_result(value: HostValue) -> Result<ElicitResult, String> {
    let v = match value.into_json() {
        Value::Null => json!({ "action": "decline" }),
        Value::String(s) if matches!(s.as_str(), "accept" | "decline" | "cancel") => json!({ "action": s }),
        Value::Object(m) if m.contains_key("action") => Value::Object(m),
        Value::Object(m) => json!({ "action": "accept", "content": m }),
        other => return Err(format!("an elicitation answer is an object or an action, not {other}")),
    };
    parse("an elicitation answer", v)
}

/// What a sampling handler's value answers.
pub fn create_message_result(value: HostValue) -> Result<CreateMessageResult, String> {
    let v = match value.into_json() {
        Value::String(text) => {
            json!({ "role": "assistant", "content": { "type": "text", "text": text }, "model": "unknown" })
        }
        Value::Object(mut m) => {
            m.entry("role").or_insert_with(|| json!("assistant"));
            m.entry("model").or_insert_with(|| json!("unknown"));
            if let Some(Value::String(text)) = m.get("content") {
                let block = json!({ "type": "text", "text": text });
                m.insert("content".into(), block);
            }
            Value::Object(m)
        }
        other => return Err(format!("a sampling answer is a string or an object, not {other}")),
    };
    parse("a sampling answer (CreateMessageResult)", v)
}

/// What a roots handler's value answers.
pub fn list_roots_result(value: HostValue) -> Result<ListRootsResult, String> {
    let v = value.into_json();
    let list = match v {
        Value::Object(mut m) if m.contains_key("roots") => m.remove("roots").unwrap_or_default(),
        other => other,
    };
    let Value::Array(items) = list else {
        return Err(format!("roots are a list of URIs or {{uri, name}} objects, not {list}"));
    };
    let roots: Vec<Value> = items
        .into_iter()
        .map(|i| match i {
            Value::String(uri) => json!({ "uri": uri }),
            other => other,
        })
        .collect();
    parse("a list of roots", json!({ "roots": roots }))
}
