//! The server's half of MRTR (2026-07-28 basic/patterns/mrtr): reading `inputResponses` and the sealed
//! `requestState` of a retried request into the answers its handler sees.

use super::ServerConfig;
use crate::context::InputSeed;
use crate::error::ErrorData;
use crate::protocol::ClientCapabilities;
use crate::state::{self, Binding, Claim};
use serde_json::{Map, Value};
use std::time::SystemTime;

/// The input seed of a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`: answers of
/// earlier rounds (from the verified state), overridden by this request's `inputResponses`;
/// and the state's claim, when it carried one (single use).
pub(super) fn modern_seed(
    config: &ServerConfig,
    params: Option<&Map<String, Value>>,
    binding: Option<&Binding>,
    capabilities: ClientCapabilities,
    now: SystemTime,
) -> Result<(InputSeed, Option<Claim>), ErrorData> {
    let field = |name: &str| params.and_then(|p| p.get(name));
    let responses =
        match field("inputResponses") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(ErrorData::invalid_params(
                "Invalid params: inputResponses must be an object mapping input keys to the client's results",
            )),
        };
    let (mut answers, user, claim) = match field("requestState") {
        None => (Map::new(), None, None),
        Some(Value::String(s)) => {
            let Some(binding) = binding else {
                return Err(ErrorData::internal("Internal error: requestState without a binding"));
            };
            let sealed = state::open(&config.state_keys, s, binding, now)?;
            let claim = sealed.claim();
            (sealed.answers, sealed.user, Some(claim))
        }
        Some(_) => return Err(ErrorData::invalid_params("Invalid params: requestState must be a string")),
    };
    answers.extend(responses);
    Ok((InputSeed::Modern { capabilities, answers, user }, claim))
}
