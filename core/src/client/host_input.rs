//! A client's input handlers written in a host language: each binding registers its host's
//! functions (Python `on_elicitation=`, Node `onSampling`, …) as [`HostCallback`]s of kinds
//! [`HandlerKind::Elicitation`], [`HandlerKind::Sampling`] and [`HandlerKind::Roots`], and
//! [`HostInput`] makes them the client's [`InputHandler`]. What a returned value answers is
//! decided once, in [`crate::host::answers`]; only the kinds given are declared.

use super::input::{BoxFuture, InputHandler, InputKinds};
use crate::error::{Error, Result};
use crate::host::{answers, run, HandlerKind, HostCallback};
use crate::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use crate::protocol::roots::ListRootsResult;
use crate::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::{json, Value};
use std::sync::Arc;

/// Host functions answering the server's requests for input.
#[derive(Default)]
pub struct HostInput {
    elicitation: Option<Arc<dyn HostCallback>>,
    elicitation_url: bool,
    sampling: Option<Arc<dyn HostCallback>>,
    roots: Option<Arc<dyn HostCallback>>,
}

impl std::fmt::Debug for HostInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostInput").field("kinds", &self.kinds()).finish()
    }
}

impl HostInput {
    /// No handlers yet.
    pub fn new() -> Self {
        HostInput::default()
    }

    /// Answers `elicitation/create` with `callback` (called with the request params); `url`:
    /// it handles URL-mode elicitations too (declared from 2025-11-25).
    pub fn elicitation(mut self, callback: Arc<dyn HostCallback>, url: bool) -> Self {
        self.elicitation = Some(callback);
        self.elicitation_url = url;
        self
    }

    /// Answers `sampling/createMessage` with `callback` (called with the request params).
    pub fn sampling(mut self, callback: Arc<dyn HostCallback>) -> Self {
        self.sampling = Some(callback);
        self
    }

    /// Answers `roots/list` with `callback` (called with `{}`); the host calls
    /// [`Client::roots_changed`](super::Client::roots_changed) when its roots change.
    pub fn roots(mut self, callback: Arc<dyn HostCallback>) -> Self {
        self.roots = Some(callback);
        self
    }

    /// True when no handler was given (nothing to declare).
    pub fn is_empty(&self) -> bool {
        self.elicitation.is_none() && self.sampling.is_none() && self.roots.is_none()
    }
}

/// Calls `callback` as `kind` with `params`, and reads its value with `convert`.
fn ask<T: Send + 'static>(
    callback: &Option<Arc<dyn HostCallback>>,
    kind: HandlerKind,
    params: Value,
    convert: fn(crate::host::HostValue) -> std::result::Result<T, String>,
) -> BoxFuture<'static, Result<T>> {
    let Some(callback) = callback else {
        let what = kind.as_str();
        return Box::pin(async move { Err(Error::invalid_input(format!("this client has no {what}"))) });
    };
    run(callback, kind, params, None, convert)
}

impl InputHandler for HostInput {
    fn kinds(&self) -> InputKinds {
        InputKinds {
            elicitation: self.elicitation.is_some(),
            elicitation_url: self.elicitation.is_some() && self.elicitation_url,
            sampling: self.sampling.is_some(),
            roots: self.roots.is_some(),
            roots_list_changed: self.roots.is_some(),
        }
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        let params = serde_json::to_value(params).expect("serializable");
        ask(&self.elicitation, HandlerKind::Elicitation, params, answers::elicit_result)
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult>> {
        let params = serde_json::to_value(params).expect("serializable");
        ask(&self.sampling, HandlerKind::Sampling, params, answers::create_message_result)
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult>> {
        ask(&self.roots, HandlerKind::Roots, json!({}), answers::list_roots_result)
    }
}
