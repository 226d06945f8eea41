//! Client input, both directions.
//!
//! - A client answers the server's requests for input (`elicitation/create`,
//!   `sampling/createMessage`, `roots/list`) with the host's [`ClientInput`] (Kotlin `suspend
//!   fun`s, Swift `async` functions), given at connect in `ConnectOptions.input`; the core relays
//!   them on both lineages (legacy server→client requests, 2026-07-28 `input_required` rounds)
//!   and declares only the capabilities of [`ClientInput::kinds`].
//! - A host handler asks its client for input through its [`ToolCall`] ([`ToolCall::elicit`],
//!   [`ToolCall::sample`], [`ToolCall::list_roots`], [`ToolCall::input`]: the core's
//!   `HostCall::input`, as Python's `ctx.elicit`).

use crate::errors::McpError;
use crate::handler::ToolCall;
use crate::{parse_json, rt};
use mcpcore::client::{BoxFuture, InputHandler, InputKinds as CoreKinds};
use mcpcore::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpcore::protocol::roots::ListRootsResult;
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpcore::Error;
use serde_json::{json, Value};
use std::sync::Arc;

/// Which requests for input a [`ClientInput`] answers (the client declares those capabilities
/// and no others).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, uniffi::Record)]
pub struct InputKinds {
    /// Form elicitation (`elicitation/create`; legacy from 2025-06-18).
    #[uniffi(default = false)]
    pub elicitation: bool,
    /// URL-mode elicitation as well (2025-11-25+).
    #[uniffi(default = false)]
    pub elicitation_url: bool,
    /// Sampling (`sampling/createMessage`).
    #[uniffi(default = false)]
    pub sampling: bool,
    /// Roots (`roots/list`).
    #[uniffi(default = false)]
    pub roots: bool,
    /// Legacy only: the host calls `Client.rootsChanged()` when its roots change
    /// (`roots: {listChanged: true}`).
    #[uniffi(default = false)]
    pub roots_list_changed: bool,
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ElicitAction {
    /// Submitted (the form's `content` goes with it).
    Accept,
    /// Refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// An `elicitation/create` of the server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ElicitRequest {
    /// `form` or `url`.
    pub mode: String,
    /// What to tell the user.
    pub message: String,
    /// Form mode: the JSON Schema of the form (flat object of primitives), as JSON text.
    pub requested_schema: Option<String>,
    /// URL mode: where to send the user.
    pub url: Option<String>,
    /// The whole request params, as JSON text.
    pub json: String,
}

/// The answer to an elicitation.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ElicitAnswer {
    /// What the user did.
    pub action: ElicitAction,
    /// `Accept` of a form: the values by field name, as a JSON object text. Fields left out get
    /// the schema's defaults (SEP-1034).
    #[uniffi(default = None)]
    pub content: Option<String>,
}

/// A root the client exposes (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[uniffi(default = None)]
    pub name: Option<String>,
}

impl Root {
    /// The core's root.
    pub(crate) fn to_core(&self) -> mcpcore::protocol::roots::Root {
        mcpcore::protocol::roots::Root::new(self.uri.clone(), self.name.clone())
    }
}

/// The host's answers to the server's requests for input. Implement every method; those of
/// kinds not named by [`ClientInput::kinds`] are never called. Throwing [`McpError::Rpc`]
/// answers a legacy server with that JSON-RPC error (any other exception: `-32603`); on
/// 2026-07-28 the call that needed the input fails with it.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait ClientInput: Send + Sync {
    /// The kinds answered (read once, at connect).
    fn kinds(&self) -> InputKinds;
    /// Answers an `elicitation/create`.
    async fn elicit(&self, request: ElicitRequest) -> Result<ElicitAnswer, McpError>;
    /// Answers a `sampling/createMessage`: `params` and the returned `CreateMessageResult`
    /// (`{role, content, model, stopReason}`) are JSON text.
    async fn create_message(&self, params: String) -> Result<String, McpError>;
    /// Answers a `roots/list`.
    async fn list_roots(&self) -> Result<Vec<Root>, McpError>;
}

fn json_text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("protocol values serialize")
}

fn core_err(e: McpError) -> Error {
    match e {
        McpError::Rpc { code, reason, data } => {
            Error::rpc(crate::errors::error_data(code, reason, data.as_deref()))
        }
        other => Error::tool(other.reason().to_owned()),
    }
}

fn parse_answer<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> mcpcore::Result<T> {
    serde_json::from_value(v).map_err(|e| Error::invalid_input(format!("invalid {what}: {e}")))
}

/// A [`ClientInput`] as the core's input handler.
pub(crate) struct ForeignInput {
    host: Arc<dyn ClientInput>,
    kinds: CoreKinds,
}

impl ForeignInput {
    pub(crate) fn new(host: Arc<dyn ClientInput>) -> Arc<Self> {
        let k = host.kinds();
        let kinds = CoreKinds {
            elicitation: k.elicitation || k.elicitation_url,
            elicitation_url: k.elicitation_url,
            sampling: k.sampling,
            roots: k.roots,
            roots_list_changed: k.roots && k.roots_list_changed,
        };
        Arc::new(ForeignInput { host, kinds })
    }
}

impl InputHandler for ForeignInput {
    fn kinds(&self) -> CoreKinds {
        self.kinds
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        Box::pin(async move {
            let request = match &params {
                ElicitRequestParams::Form(f) => ElicitRequest {
                    mode: "form".into(),
                    message: f.message.clone(),
                    requested_schema: Some(json_text(&f.requested_schema)),
                    url: None,
                    json: json_text(&params),
                },
                ElicitRequestParams::Url(u) => ElicitRequest {
                    mode: "url".into(),
                    message: u.message.clone(),
                    requested_schema: None,
                    url: Some(u.url.clone()),
                    json: json_text(&params),
                },
            };
            let answer = self.host.elicit(request).await.map_err(core_err)?;
            let action = match answer.action {
                ElicitAction::Accept => "accept",
                ElicitAction::Decline => "decline",
                ElicitAction::Cancel => "cancel",
            };
            let mut v = json!({ "action": action });
            if let Some(c) = answer.content {
                v["content"] = parse_json("the elicitation content", &c).map_err(core_err)?;
            }
            parse_answer("elicitation answer", v)
        })
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        Box::pin(async move {
            let out = self.host.create_message(json_text(&params)).await.map_err(core_err)?;
            parse_answer("sampling answer", parse_json("the sampling answer", &out).map_err(core_err)?)
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, mcpcore::Result<ListRootsResult>> {
        Box::pin(async move {
            let roots = self.host.list_roots().await.map_err(core_err)?;
            let roots: Vec<Value> =
                roots.into_iter().map(|r| json!({"uri": r.uri, "name": r.name})).collect();
            parse_answer("roots answer", json!({ "roots": roots }))
        })
    }
}

#[uniffi::export]
impl ToolCall {
    /// Asks the client for input: `requests` is JSON text of `{key: {method, params}}` (methods
    /// `elicitation/create`, `sampling/createMessage`, `roots/list`); returns the answers by key
    /// (JSON text). Throws `InputRequired` on 2026-07-28 while answers are missing (let it
    /// propagate: the server answers `input_required` and the client retries with them),
    /// `Rpc` -32021 when the client lacks the capability, `Cancelled` when the call is abandoned.
    pub async fn input(&self, requests: String) -> Result<String, McpError> {
        let requests = parse_json("input requests", &requests)?;
        let call = self.call.clone();
        rt::in_runtime(async move { Ok(call.input(requests).await?.to_string()) }).await
    }

    /// Asks the user to approve `action` (a sentence saying what will happen) with a
    /// confirmation form under the input key `key` (`mcpcore::context::approval`): "approved"
    /// (act), "declined" (do not), or "pending" when the caller cannot be asked (then return
    /// `pendingApprovalResult`). Throws as `input` does.
    #[uniffi::method(default(key = "approval"))]
    pub async fn approve(&self, action: String, key: String) -> Result<String, McpError> {
        let call = self.call.clone();
        rt::in_runtime(async move { Ok(call.approve(&key, &action).await?.to_owned()) }).await
    }

    /// Asks the user to fill a form (`elicitation/create`) under `key`: `message` and the form's
    /// JSON Schema (`requested_schema`, a flat object of primitives, as JSON text).
    pub async fn elicit(
        &self,
        key: String,
        message: String,
        requested_schema: String,
    ) -> Result<ElicitAnswer, McpError> {
        let schema = parse_json("requested schema", &requested_schema)?;
        let request = json!({ "method": "elicitation/create",
            "params": {"message": message, "requestedSchema": schema} });
        let answer = self.one(key, request).await?;
        let action = match answer["action"].as_str() {
            Some("accept") => ElicitAction::Accept,
            Some("decline") => ElicitAction::Decline,
            _ => ElicitAction::Cancel,
        };
        let content = answer.get("content").filter(|c| !c.is_null()).map(Value::to_string);
        Ok(ElicitAnswer { action, content })
    }

    /// Asks the client's model for a completion (`sampling/createMessage`) under `key`: `params`
    /// (`{messages, maxTokens, …}`) and the returned `CreateMessageResult` are JSON text.
    pub async fn sample(&self, key: String, params: String) -> Result<String, McpError> {
        let params = parse_json("sampling params", &params)?;
        let answer = self.one(key, json!({"method": "sampling/createMessage", "params": params})).await?;
        Ok(answer.to_string())
    }

    /// Asks the client for its roots (`roots/list`) under `key`.
    pub async fn list_roots(&self, key: String) -> Result<Vec<Root>, McpError> {
        let answer = self.one(key, json!({"method": "roots/list"})).await?;
        let roots = answer["roots"].as_array().cloned().unwrap_or_default();
        Ok(roots
            .iter()
            .filter_map(|r| {
                let uri = r["uri"].as_str()?.to_owned();
                Some(Root { uri, name: r["name"].as_str().map(str::to_owned) })
            })
            .collect())
    }
}

impl ToolCall {
    /// One input request under `key`; its answer.
    async fn one(&self, key: String, request: Value) -> Result<Value, McpError> {
        let call = self.call.clone();
        rt::in_runtime(async move {
            let mut answers = call.input(json!({ key.clone(): request })).await?;
            answers.get_mut(&key).map(Value::take).ok_or_else(|| {
                McpError::from(Error::protocol(format!("the client's answers have no {key:?}")))
            })
        })
        .await
    }
}
