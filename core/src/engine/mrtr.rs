//! The server's half of MRTR (DIGEST §A.9): reading `inputResponses` and the sealed
//! `requestState` of a retried request into the answers its handler sees.

use super::ServerConfig;
use crate::error::ErrorData;
use crate::input::state::{self, Binding};
use crate::input::InputSeed;
use crate::protocol::ClientCapabilities;
use serde_json::{Map, Value};
use std::time::SystemTime;

/// The input seed of a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`: answers of
/// earlier rounds (from the verified state), overridden by this request's `inputResponses`.
pub(super) fn modern_seed(
    config: &ServerConfig,
    params: Option<&Map<String, Value>>,
    binding: &Binding,
    capabilities: ClientCapabilities,
) -> Result<InputSeed, ErrorData> {
    let params = params.cloned().unwrap_or_default();
    let responses =
        match params.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(ErrorData::invalid_params(
                "Invalid params: inputResponses must be an object mapping input keys to the client's results",
            )),
        };
    let (mut answers, user) = match params.get("requestState") {
        None => (Map::new(), None),
        Some(Value::String(s)) => {
            let sealed = state::open(&config.input_state_key, s, binding, SystemTime::now())?;
            (sealed.answers, sealed.user)
        }
        Some(_) => return Err(ErrorData::invalid_params("Invalid params: requestState must be a string")),
    };
    answers.extend(responses);
    Ok(InputSeed::Modern { capabilities, answers, user })
}
