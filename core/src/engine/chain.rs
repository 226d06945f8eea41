//! Requests through the server's middleware ([`crate::middleware`]): with a chain configured,
//! the engine does not answer a dispatchable request itself but hands it to the runtime as
//! [`Work::Chain`]; the chain's innermost step comes back here ([`ServerEngine::dispatch`])
//! for the answer the engine would have given without middleware.

use super::{Action, Chained, PendingCall, ServerEngine, Who, Work};
use crate::context::Origin;
use crate::jsonrpc::Request;
use crate::protocol::logging::LoggingLevel;
use crate::protocol::{meta, ProtocolVersion};
use serde_json::{Map, Value};
use std::time::SystemTime;

impl ServerEngine {
    /// True when requests go through middleware first.
    pub(super) fn chains(&self) -> bool {
        !self.config.middleware.is_empty()
    }

    /// The request as work for the chain.
    pub(super) fn chained(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        who: Who,
    ) -> Action {
        let progress_token = req
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .cloned();
        Action::CallTool(Box::new(PendingCall {
            id: req.id.clone(),
            version,
            caller: who.caller().clone(),
            work: Work::Chain(Box::new(Chained { request: req, who })),
            progress_token,
            log_level,
            input: None,
            binding: None,
            task: None,
        }))
    }

    /// What the engine does with `req` (the request a chain passed on, changed or not) at the
    /// end of `call`'s chain: answer it, or start host code. The id stays the client's.
    pub(crate) fn dispatch(
        &self,
        call: &PendingCall,
        mut req: Request,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let Work::Chain(chained) = &call.work else {
            return super::reply_err(
                call.id.clone(),
                crate::ErrorData::internal("Internal error: only a chained request is dispatched"),
            );
        };
        req.id = call.id.clone();
        match &chained.who {
            Who::Modern(caller) => {
                self.modern_methods(req, call.version, call.log_level, caller.clone(), now, origin)
            }
            Who::Legacy(caller) => {
                self.legacy_methods(req, call.version, call.log_level, caller.clone(), now, origin)
            }
        }
    }

    /// The result of a chain as the client gets it: on 2026-07-28 a result of a middleware's
    /// own without `resultType` is a complete one and carries the server's identity.
    pub fn chain_result(&self, version: ProtocolVersion, mut result: Value) -> Value {
        if version.is_modern() {
            if let Value::Object(obj) = &mut result {
                if !obj.contains_key("resultType") {
                    obj.insert("resultType".into(), Value::from("complete"));
                    let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(m) = meta {
                        m.entry(meta::SERVER_INFO).or_insert_with(|| self.info.clone());
                    }
                }
            }
        }
        result
    }
}

impl PendingCall {
    /// True when the handler reaches the client through the connection (legacy requests that
    /// may ask the client for input, or a chained legacy request, whose handler may).
    pub fn wants_peer(&self) -> bool {
        match &self.work {
            Work::Chain(c) => matches!(c.who, Who::Legacy(_)),
            _ => matches!(self.input, Some(crate::context::InputSeed::Legacy { .. })),
        }
    }
}
