//! Multi round-trip requests (MRTR, 2026-07-28): the server answers `tools/call`, `prompts/get`
//! or `resources/read` with an [`InputRequiredResult`]; the client retries the request with
//! `inputResponses` (and the echoed `requestState`).

use super::common::{Meta, ResultType};
use super::elicitation::{ElicitRequest, ElicitResult};
use super::roots::{ListRootsRequest, ListRootsResult};
use super::sampling::{CreateMessageRequest, CreateMessageResult};
use super::tags::{CreateMessageMethod, ElicitMethod, ListRootsMethod};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// A request the server needs the client to fulfil (`InputRequest`): `{method, params}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputRequest {
    /// `sampling/createMessage` (deprecated).
    CreateMessage(CreateMessageRequest),
    /// `roots/list` (deprecated).
    ListRoots(ListRootsRequest),
    /// `elicitation/create`.
    Elicit(ElicitRequest),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::CreateMessage(_) => CreateMessageMethod::VALUE,
            InputRequest::ListRoots(_) => ListRootsMethod::VALUE,
            InputRequest::Elicit(_) => ElicitMethod::VALUE,
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let r = match v.get("method").and_then(Value::as_str) {
            Some(CreateMessageMethod::VALUE) => serde_json::from_value(v).map(InputRequest::CreateMessage),
            Some(ListRootsMethod::VALUE) => serde_json::from_value(v).map(InputRequest::ListRoots),
            Some(ElicitMethod::VALUE) => serde_json::from_value(v).map(InputRequest::Elicit),
            Some(other) => return Err(D::Error::custom(format!("unknown input request method {other:?}"))),
            None => return Err(D::Error::custom("an input request needs a string `method`")),
        };
        r.map_err(D::Error::custom)
    }
}

/// The input requests of an [`InputRequiredResult`], by server-chosen key (`InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answer to one [`InputRequest`] (`InputResponse`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl InputResponse {
    /// Reads a response for a request of `method` (the shape alone is ambiguous only for
    /// malformed input; prefer this over plain deserialization when the method is known).
    pub fn from_value_for(method: &str, v: Value) -> Result<Self, serde_json::Error> {
        match method {
            CreateMessageMethod::VALUE => serde_json::from_value(v).map(InputResponse::CreateMessage),
            ListRootsMethod::VALUE => serde_json::from_value(v).map(InputResponse::ListRoots),
            ElicitMethod::VALUE => serde_json::from_value(v).map(InputResponse::Elicit),
            other => Err(serde_json::Error::custom(format!("unknown input request method {other:?}"))),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let method = if v.get("action").is_some() {
            ElicitMethod::VALUE
        } else if v.get("roots").is_some() {
            ListRootsMethod::VALUE
        } else {
            CreateMessageMethod::VALUE
        };
        InputResponse::from_value_for(method, v).map_err(D::Error::custom)
    }
}

/// The client's answers, by the keys of the [`InputRequests`] (`InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// An interim result asking the client for input (`resultType: "input_required"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// `"input_required"`.
    pub result_type: ResultType,
    /// What the client must provide before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// An interim result; at least one of the two should be `Some`.
    pub fn new(input_requests: Option<InputRequests>, request_state: Option<String>) -> Self {
        InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests,
            request_state,
            meta: None,
        }
    }
}

/// The result of a request that may need input: the final result `T`, or an
/// [`InputRequiredResult`] (chosen by `resultType`; a missing `resultType` means complete).
#[derive(Debug, Clone, PartialEq)]
pub enum ResultOrInputRequired<T> {
    /// The final result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
}

impl<T: Serialize> Serialize for ResultOrInputRequired<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ResultOrInputRequired::Complete(t) => t.serialize(s),
            ResultOrInputRequired::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for ResultOrInputRequired<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let r = if v.get("resultType").and_then(Value::as_str) == Some(ResultType::InputRequired.as_str()) {
            serde_json::from_value(v).map(ResultOrInputRequired::InputRequired)
        } else {
            serde_json::from_value(v).map(ResultOrInputRequired::Complete)
        };
        r.map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tools::CallToolResult;
    use serde_json::json;

    #[test]
    fn input_required_or_complete() {
        let r: ResultOrInputRequired<CallToolResult> =
            serde_json::from_value(json!({"resultType": "input_required", "requestState": "s"})).unwrap();
        assert!(
            matches!(r, ResultOrInputRequired::InputRequired(ref i) if i.request_state.as_deref() == Some("s"))
        );
        let r: ResultOrInputRequired<CallToolResult> =
            serde_json::from_value(json!({"content": [{"type": "text", "text": "hi"}]})).unwrap();
        assert!(matches!(r, ResultOrInputRequired::Complete(ref c) if c.first_text() == Some("hi")));
    }

    #[test]
    fn input_responses_by_shape_and_method() {
        let v = json!({"action": "accept", "content": {"n": 1}});
        assert!(matches!(serde_json::from_value(v.clone()).unwrap(), InputResponse::Elicit(_)));
        assert!(InputResponse::from_value_for("roots/list", v).is_err());
        let v = json!({"roots": []});
        assert!(matches!(serde_json::from_value(v).unwrap(), InputResponse::ListRoots(_)));
        assert!(
            serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}})).is_err()
        );
    }
}
