//! Multi round-trip requests on the modern lineage (spec 2026-07-28 basic/patterns/mrtr): when `tools/call`,
//! `prompts/get` or `resources/read` answers `resultType: "input_required"`, gather every
//! input request from the host's [`InputHandler`](super::InputHandler) (concurrently), then retry
//! with a new JSON-RPC id, the original params, `inputResponses` and the echoed `requestState`
//! (only when the server gave one). A result with only `requestState` is retried at once. At
//! most [`ClientOptions::max_input_rounds`](super::ClientOptions::max_input_rounds) retries.

use super::{input, CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::mrtr::{InputRequests, InputResponses};
use crate::protocol::{InputRequest, InputRequiredResult};
use futures_util::future::try_join_all;
use serde_json::{Map, Value};

/// The only requests a server may answer with `input_required`.
pub(crate) const METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// Runs `method` to completion; the `bool` is true when the result came from a retry (such
/// results are never cached).
pub(crate) async fn run(
    client: &Client,
    method: &str,
    original: Map<String, Value>,
    opts: &CallOptions,
) -> Result<(Value, bool)> {
    let max = client.inner.options.max_input_rounds;
    let mut params = original.clone();
    let mut round = 0;
    loop {
        let v = client.request_once(method, params, opts).await?;
        match v.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {}
            _ => {
                super::check_result_type(method, &v, client.declares_tasks(opts))?;
                return Ok((v, round > 0));
            }
        }
        let irr: InputRequiredResult = serde_json::from_value(v)
            .map_err(|e| Error::protocol(format!("{method}: malformed input_required result: {e}")))?;
        if irr.input_requests.is_none() && irr.request_state.is_none() {
            return Err(Error::protocol(format!(
                "{method}: the server answered input_required with neither inputRequests nor requestState"
            )));
        }
        if round == max {
            return Err(Error::protocol(format!(
                "{method}: the server still asked for input after {max} rounds (ClientOptions::max_input_rounds)"
            )));
        }
        round += 1;
        let responses = gather(client, method, irr.input_requests.unwrap_or_default(), opts).await?;
        params = original.clone();
        if !responses.is_empty() {
            params.insert("inputResponses".into(), serde_json::to_value(responses).expect("serializable"));
        }
        if let Some(state) = irr.request_state {
            params.insert("requestState".into(), Value::String(state));
        }
    }
}

/// Asks the handler (the call's own, else the connection's) for every input at once; fails when
/// one cannot be answered (MRTR has no error path to the server, so the call itself fails).
pub(crate) async fn gather(
    client: &Client,
    method: &str,
    requests: InputRequests,
    opts: &CallOptions,
) -> Result<InputResponses> {
    let handler = opts.input.clone().or_else(|| client.inner.shared.hooks.input.clone());
    let kinds = handler.as_ref().map(|h| h.kinds()).unwrap_or_default();
    let asks = requests.into_iter().map(|(key, request)| {
        let handler = handler.clone();
        async move {
            let declared = match &request {
                InputRequest::Elicit(_) => kinds.elicitation,
                InputRequest::CreateMessage(_) => kinds.sampling,
                InputRequest::ListRoots(_) => kinds.roots,
            };
            let handler = handler.filter(|_| declared).ok_or_else(|| {
                Error::protocol(format!(
                    "{method}: the server asked for {} (input {key:?}), a capability this client did not declare",
                    request.method()
                ))
            })?;
            let response = input::answer(handler.as_ref(), request).await?;
            Ok::<_, Error>((key, response))
        }
    });
    Ok(try_join_all(asks).await?.into_iter().collect())
}
