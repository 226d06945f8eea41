//! Server→client input: elicitation, sampling and roots, answered by the host's
//! [`InputHandler`] — one API for both lineages.
//!
//! - Legacy (≤ 2025-11-25): the server sends `elicitation/create`, `sampling/createMessage` or
//!   `roots/list` as JSON-RPC requests; the router answers each by calling the handler.
//! - Modern (2026-07-28): the server answers `tools/call`, `prompts/get` or `resources/read` with
//!   `resultType: "input_required"`; the client gathers every input from the handler and retries
//!   (see `mrtr.rs`).
//!
//! The client declares only the capabilities of the kinds the handler says it answers
//! ([`InputHandler::kinds`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpcore::client::{BoxFuture, Client, ClientOptions, InputHandler, InputKinds};
//! use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
//! use mcpcore::transport::child::StdioCommand;
//!
//! struct AlwaysAccept;
//! impl InputHandler for AlwaysAccept {
//!     fn kinds(&self) -> InputKinds {
//!         InputKinds { elicitation: true, ..InputKinds::default() }
//!     }
//!     fn elicit(&self, _params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
//!         // Fields the user left empty get the schema's defaults (SEP-1034).
//!         Box::pin(async { Ok(ElicitResult::new(ElicitAction::Accept)) })
//!     }
//! }
//!
//! # async fn demo() -> mcpcore::Result<()> {
//! let options = ClientOptions { input: Some(Arc::new(AlwaysAccept)), ..ClientOptions::default() };
//! let client = Client::connect_stdio(StdioCommand::new("my-server", Vec::<String>::new()), options).await?;
//! let r = client.call_tool("book_flight", serde_json::json!({"to": "OSL"})).await?; // may elicit
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use crate::protocol::elicitation::{
    ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue, NumberType, PrimitiveSchemaDefinition,
};
use crate::protocol::roots::ListRootsResult;
use crate::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::protocol::{ClientCapabilities, InputRequest, InputResponse, ProtocolVersion};
use serde_json::{json, Map, Value};

/// A boxed, sendable future (the return type of [`InputHandler`] methods).
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Which kinds of server→client input an [`InputHandler`] answers. The client declares the
/// matching capabilities (`initialize` on legacy, `_meta` clientCapabilities on modern) and no
/// others.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputKinds {
    /// Form elicitation (`elicitation: {}`; legacy from 2025-06-18).
    pub elicitation: bool,
    /// URL-mode elicitation as well (`elicitation: {form: {}, url: {}}`; 2025-11-25+).
    pub elicitation_url: bool,
    /// Sampling (`sampling: {}`).
    pub sampling: bool,
    /// Roots (`roots: {}`).
    pub roots: bool,
    /// Legacy only: the host will call [`Client::roots_changed`](super::Client::roots_changed) when
    /// its roots change (`roots: {listChanged: true}`; no such flag on 2026-07-28).
    pub roots_list_changed: bool,
}

/// The host's answers to server→client input. Implement [`InputHandler::kinds`] and the methods
/// of the kinds it names; the defaults decline an elicitation and fail sampling and roots.
///
/// Errors returned here become a JSON-RPC error to the server on legacy sessions (the code of an
/// [`Error`] carrying one is kept, else `-32603`); on the modern lineage the original call fails
/// with the error (MRTR has no error path back to the server).
pub trait InputHandler: Send + Sync + 'static {
    /// The kinds this handler answers.
    fn kinds(&self) -> InputKinds;

    /// Answers an `elicitation/create`. For an accepted form, fields the answer leaves out are
    /// filled from the schema's `default`s by the client (SEP-1034).
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        drop(params);
        Box::pin(async { Ok(ElicitResult::new(ElicitAction::Decline)) })
    }

    /// Answers a `sampling/createMessage`.
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult>> {
        drop(params);
        Box::pin(async { Err(Error::invalid_input("this client does not support sampling")) })
    }

    /// Answers a `roots/list`.
    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult>> {
        Box::pin(async { Err(Error::invalid_input("this client does not expose roots")) })
    }
}

/// `capabilities` with the input kinds set as `kinds` says for `version` (`None` = legacy
/// `initialize`, decided later): kinds the handler does not answer are removed.
pub(crate) fn capabilities(
    base: &ClientCapabilities,
    kinds: InputKinds,
    version: ProtocolVersion,
) -> ClientCapabilities {
    let mut caps = base.clone();
    let modern = version.is_modern();
    // What the handler answers is declared; otherwise what the host declared itself stays (a
    // host may answer input its own way, e.g. through `tasks/update`).
    if kinds.elicitation && version >= ProtocolVersion::V2025_06_18 {
        let mut m = Map::new();
        if kinds.elicitation_url && version >= ProtocolVersion::V2025_11_25 {
            m.insert("form".into(), json!({}));
            m.insert("url".into(), json!({}));
        }
        caps.elicitation = Some(m);
    }
    if kinds.sampling {
        caps.sampling = Some(base.sampling.clone().unwrap_or_default());
    }
    if kinds.roots {
        let mut m = Map::new();
        if !modern && kinds.roots_list_changed {
            m.insert("listChanged".into(), json!(true));
        }
        caps.roots = Some(m);
    }
    caps
}

/// Asks `handler` for one input; applies elicitation defaults to an accepted form.
pub(crate) async fn answer(handler: &dyn InputHandler, request: InputRequest) -> Result<InputResponse> {
    match request {
        InputRequest::Elicit(r) => {
            let params = r.params;
            let mut result = handler.elicit(params.clone()).await?;
            apply_defaults(&params, &mut result);
            Ok(InputResponse::Elicit(result))
        }
        InputRequest::CreateMessage(r) => {
            Ok(InputResponse::CreateMessage(handler.create_message(r.params).await?))
        }
        InputRequest::ListRoots(_) => Ok(InputResponse::ListRoots(handler.list_roots().await?)),
    }
}

/// Reads a legacy server→client request as an [`InputRequest`]; `None` for other methods.
pub(crate) fn from_legacy(method: &str, params: Option<Map<String, Value>>) -> Option<Result<InputRequest>> {
    if !matches!(method, "elicitation/create" | "sampling/createMessage" | "roots/list") {
        return None;
    }
    let mut v = json!({ "method": method });
    if let Some(p) = params {
        v["params"] = Value::Object(p);
    }
    Some(serde_json::from_value(v).map_err(|e| Error::invalid_input(format!("invalid {method} params: {e}"))))
}

/// SEP-1034: an accepted form answer gets the schema's `default` for every field it left out.
pub(crate) fn apply_defaults(params: &ElicitRequestParams, result: &mut ElicitResult) {
    let ElicitRequestParams::Form(form) = params else { return };
    if result.action != ElicitAction::Accept {
        return;
    }
    let content = result.content.get_or_insert_with(Default::default);
    for (name, field) in &form.requested_schema.properties {
        if content.contains_key(name) {
            continue;
        }
        if let Some(v) = default_of(field) {
            content.insert(name.clone(), v);
        }
    }
}

fn default_of(field: &PrimitiveSchemaDefinition) -> Option<ElicitValue> {
    use PrimitiveSchemaDefinition as P;
    Some(match field {
        P::String(s) => ElicitValue::String(s.default.clone()?),
        P::Number(n) => {
            let d = n.default?;
            if n.kind == NumberType::Integer && d.fract() == 0.0 && d.abs() < 9.0e15 {
                ElicitValue::Integer(d as i64)
            } else {
                ElicitValue::Number(d)
            }
        }
        P::Boolean(b) => ElicitValue::Boolean(b.default?),
        P::UntitledSingleSelectEnum(e) => ElicitValue::String(e.default.clone()?),
        P::TitledSingleSelectEnum(e) => ElicitValue::String(e.default.clone()?),
        P::LegacyTitledEnum(e) => ElicitValue::String(e.default.clone()?),
        P::UntitledMultiSelectEnum(e) => ElicitValue::StringArray(e.default.clone()?),
        P::TitledMultiSelectEnum(e) => ElicitValue::StringArray(e.default.clone()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_omitted_fields_of_an_accepted_form() {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "message": "m",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
                "free": {"type": "string"}
            }}
        }))
        .unwrap();
        let mut r: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ann"}})).unwrap();
        apply_defaults(&params, &mut r);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"action": "accept", "content": {
                "name": "Ann", "age": 30, "score": 95.5, "status": "active", "verified": true, "tags": ["a"]
            }})
        );
        let mut declined = ElicitResult::new(ElicitAction::Decline);
        apply_defaults(&params, &mut declined);
        assert_eq!(declined.content, None);
    }

    #[test]
    fn capabilities_follow_the_kinds_and_the_revision() {
        let all = InputKinds {
            elicitation: true,
            elicitation_url: true,
            sampling: true,
            roots: true,
            roots_list_changed: true,
        };
        let v = |c: ClientCapabilities| serde_json::to_value(c).unwrap();
        let base = ClientCapabilities::default();
        assert_eq!(
            v(capabilities(&base, all, ProtocolVersion::V2026_07_28)),
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
        );
        assert_eq!(
            v(capabilities(&base, all, ProtocolVersion::V2025_06_18)),
            json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}})
        );
        assert_eq!(
            v(capabilities(&base, all, ProtocolVersion::V2025_03_26)),
            json!({"sampling": {}, "roots": {"listChanged": true}})
        );
        // What the host declared itself stays declared (it may answer through tasks/update).
        let mut declared = base.clone();
        declared.sampling = Some(Map::new());
        assert_eq!(
            v(capabilities(&declared, InputKinds::default(), ProtocolVersion::V2026_07_28)),
            json!({"sampling": {}})
        );
    }

    #[test]
    fn legacy_requests_read_as_input_requests() {
        let r = from_legacy("roots/list", None).unwrap().unwrap();
        assert!(matches!(r, InputRequest::ListRoots(_)));
        assert!(from_legacy("ping", None).is_none());
        let p = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
        let Value::Object(p) = p else { unreachable!() };
        assert!(matches!(
            from_legacy("elicitation/create", Some(p)).unwrap().unwrap(),
            InputRequest::Elicit(_)
        ));
    }
}
