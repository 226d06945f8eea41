//! Server → client input, one host API for both lineages.
//!
//! A handler asks with [`RequestContext::input`] (or [`RequestContext::elicit`],
//! [`RequestContext::create_message`], [`RequestContext::list_roots`]) and gets the client's answers:
//!
//! * **legacy** (`initialize` sessions): real `elicitation/create`, `sampling/createMessage` and
//!   `roots/list` requests go to the client and the handler awaits their responses;
//! * **2026-07-28** (MRTR, 2026-07-28 basic/patterns/mrtr): answers come from the request's `inputResponses` and
//!   from the sealed `requestState` of earlier rounds. A missing answer ends the handler with an
//!   [`ErrorKind::InputRequired`] error (propagate it with `?`); the server turns that into an
//!   `InputRequiredResult` whose sealed `requestState` carries the answers used so far, and the
//!   client's retry runs the handler again from the start, now with the answers.
//!
//! * **inside a task** (Tasks extension, [`crate::tasks`]): the requests become the task's
//!   `inputRequests` and the handler waits until `tasks/update` answered all of them.
//!
//! So a handler written once works on both lineages, as long as it asks for its inputs in a
//! deterministic order with stable keys and keeps side effects after its last input.
//!
//! ```
//! use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams};
//! use mcpcore::context::RequestContext;
//! # async fn tool(ctx: RequestContext) -> mcpcore::Result<String> {
//! let form: ElicitRequestParams = serde_json::from_value(serde_json::json!({
//!     "message": "Your name?",
//!     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
//! })).unwrap();
//! let answer = ctx.elicit("user_name", form).await?;
//! Ok(match answer.action {
//!     ElicitAction::Accept => format!("Hello, {:?}!", answer.content),
//!     _ => "Maybe later.".to_owned(),
//! })
//! # }
//! ```

use super::{BoxFuture, RequestContext};
use crate::error::{Error, ErrorCode, ErrorData, ErrorKind};
use crate::protocol::elicitation::{ElicitRequest, ElicitRequestParams, ElicitResult};
use crate::protocol::mrtr::{InputRequest, InputRequests, InputResponse};
use crate::protocol::roots::{ListRootsRequest, ListRootsResult};
use crate::protocol::sampling::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult};
use crate::protocol::{CacheHint, ClientCapabilities};
use crate::Result;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// How a request can get input from its client; decided by the engine, completed by the shell.
#[derive(Debug, Clone)]
pub enum InputSeed {
    /// A legacy session: send real requests to the client (the runtime supplies the [`PeerLink`]).
    Legacy {
        /// What the client declared in `initialize`.
        capabilities: ClientCapabilities,
    },
    /// A 2026-07-28 request: answers from `inputResponses` and the opened `requestState`.
    Modern {
        /// What the request declared in `_meta` clientCapabilities.
        capabilities: ClientCapabilities,
        /// Answers by key: earlier rounds' (from the state), then this request's.
        answers: Map<String, Value>,
        /// The handler's own state from the previous round.
        user: Option<Value>,
    },
}

/// The per-request input book: how to get answers, and (MRTR) which were used and which are
/// still missing. Shared between the handler's context and the shell that settles the request.
pub struct InputLedger {
    mode: Mode,
    book: Mutex<Book>,
    /// Set when the request became a task: input then goes through `tasks/update`.
    task: Mutex<Option<Arc<dyn TaskInput>>>,
}

enum Mode {
    Legacy { peer: Option<Arc<dyn PeerLink>>, capabilities: ClientCapabilities },
    Modern { capabilities: ClientCapabilities, answers: Map<String, Value> },
}

#[derive(Debug, Default)]
struct Book {
    used: Map<String, Value>,
    missing: InputRequests,
    user: Option<Value>,
    /// The handler's own caching hints for its result.
    cache: Option<CacheHint>,
}

/// What an MRTR handler left behind when it needed input: the requests still missing, the
/// answers it used, and its own state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    pub(crate) missing: InputRequests,
    pub(crate) used: Map<String, Value>,
    pub(crate) user: Option<Value>,
}

/// Sends legacy server→client requests (`elicitation/create`, `sampling/createMessage`,
/// `roots/list`) to the client of one call and awaits the answers; supplied by the runtime.
pub trait PeerLink: Send + Sync {
    /// Sends `method` with `params` and resolves to the client's result; a JSON-RPC error
    /// answer is an [`ErrorKind::Rpc`] error, a closed connection [`ErrorKind::Closed`].
    fn request(
        &self,
        method: String,
        params: Option<Map<String, Value>>,
    ) -> BoxFuture<'static, Result<Value>>;
}

/// Asks for client input inside a task (the requests become the task's `inputRequests`, the
/// answers come with `tasks/update`); supplied by the runtime.
pub trait TaskInput: Send + Sync {
    /// Issues `requests` on the task and waits for every answer.
    fn ask(&self, requests: InputRequests) -> BoxFuture<'static, Result<BTreeMap<String, InputResponse>>>;
}

impl std::fmt::Debug for InputLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.mode {
            Mode::Legacy { .. } => "legacy",
            Mode::Modern { .. } => "modern",
        };
        f.debug_struct("InputLedger").field("mode", &mode).finish_non_exhaustive()
    }
}

impl InputLedger {
    /// A ledger for `seed`; `peer` carries legacy requests to the client (None: no way to ask).
    pub fn new(seed: InputSeed, peer: Option<Arc<dyn PeerLink>>) -> Arc<Self> {
        let (mode, user) = match seed {
            InputSeed::Legacy { capabilities } => (Mode::Legacy { peer, capabilities }, None),
            InputSeed::Modern { capabilities, answers, user } => {
                (Mode::Modern { capabilities, answers }, user)
            }
        };
        Arc::new(InputLedger {
            mode,
            book: Mutex::new(Book { user, ..Book::default() }),
            task: Mutex::new(None),
        })
    }

    /// From now on, input goes through the task `link` (the request became a task).
    pub fn attach_task(&self, link: Arc<dyn TaskInput>) {
        *self.task.lock().expect("lock") = Some(link);
    }

    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        match &self.mode {
            Mode::Legacy { capabilities, .. } | Mode::Modern { capabilities, .. } => capabilities,
        }
    }

    /// The answers a 2026-07-28 request carries (its sealed state's, then its
    /// `inputResponses`), as the client sent them; `None` on a legacy session and once the call
    /// became a task (its input then goes through `tasks/update`).
    pub(crate) fn modern_answers(&self) -> Option<Map<String, Value>> {
        if self.task.lock().expect("lock").is_some() {
            return None;
        }
        match &self.mode {
            Mode::Modern { answers, .. } => Some(answers.clone()),
            Mode::Legacy { .. } => None,
        }
    }

    /// Records `requests` as missing, as they are (keys included), and returns the
    /// [`ErrorKind::InputRequired`] error that ends the round with them.
    pub(crate) fn require(&self, requests: InputRequests) -> Error {
        let keys: Vec<&String> = requests.keys().collect();
        let message = format!("client input required: {keys:?}");
        self.book.lock().expect("lock").missing.extend(requests);
        Error::new(ErrorKind::InputRequired, message)
    }

    /// The caching hints the handler set for its result.
    pub(crate) fn cache_hint(&self) -> Option<CacheHint> {
        self.book.lock().expect("lock").cache
    }

    /// What the MRTR handler left behind (used answers, missing requests, user state).
    pub(crate) fn pending(&self) -> Pending {
        let book = self.book.lock().expect("lock");
        Pending { missing: book.missing.clone(), used: book.used.clone(), user: book.user.clone() }
    }

    async fn input(&self, requests: InputRequests) -> Result<BTreeMap<String, InputResponse>> {
        let missing_caps = required_capabilities(self.capabilities(), &requests);
        let task = self.task.lock().expect("lock").clone();
        if let Some(link) = task {
            if let Some(required) = missing_caps {
                return Err(missing_capability(required));
            }
            return link.ask(requests).await;
        }
        match &self.mode {
            Mode::Modern { answers, .. } => {
                if let Some(required) = missing_caps {
                    return Err(missing_capability(required));
                }
                self.answer_from(answers, requests)
            }
            Mode::Legacy { peer, .. } => {
                if let Some(required) = missing_caps {
                    return Err(Error::tool(format!(
                        "the client did not declare the capabilities this request needs: {required}"
                    )));
                }
                let Some(peer) = peer else {
                    return Err(Error::tool("this connection cannot carry requests to the client"));
                };
                let mut out = BTreeMap::new();
                for (key, req) in requests {
                    let params = serde_json::to_value(&req).expect("serializable");
                    let params = params.get("params").and_then(Value::as_object).cloned();
                    let value = peer.request(req.method().to_owned(), params).await?;
                    let resp = InputResponse::from_value_for(req.method(), value).map_err(|e| {
                        Error::protocol(format!("the client's answer to {} is invalid: {e}", req.method()))
                    })?;
                    out.insert(key, resp);
                }
                Ok(out)
            }
        }
    }

    fn answer_from(
        &self,
        answers: &Map<String, Value>,
        requests: InputRequests,
    ) -> Result<BTreeMap<String, InputResponse>> {
        let mut book = self.book.lock().expect("lock");
        let mut out = BTreeMap::new();
        let mut missing = InputRequests::new();
        for (key, req) in requests {
            match answers.get(&key) {
                Some(v) => {
                    let resp = InputResponse::from_value_for(req.method(), v.clone()).map_err(|e| {
                        Error::rpc(ErrorData::invalid_params(format!(
                            "Invalid params: inputResponses[{key:?}] is not a valid {} result: {e}",
                            req.method()
                        )))
                    })?;
                    book.used.insert(key.clone(), v.clone());
                    out.insert(key, resp);
                }
                None => {
                    missing.insert(key, req);
                }
            }
        }
        if missing.is_empty() {
            return Ok(out);
        }
        let keys: Vec<&String> = missing.keys().collect();
        let message = format!("client input required: {keys:?}");
        book.missing.extend(missing);
        Err(Error::new(ErrorKind::InputRequired, message))
    }
}

/// The capabilities `requests` need that `declared` lacks, as a `ClientCapabilities` object.
fn required_capabilities(declared: &ClientCapabilities, requests: &InputRequests) -> Option<Value> {
    let mut required = Map::new();
    for req in requests.values() {
        let (name, present) = match req {
            InputRequest::Elicit(_) => ("elicitation", declared.elicitation.is_some()),
            InputRequest::CreateMessage(_) => ("sampling", declared.sampling.is_some()),
            InputRequest::ListRoots(_) => ("roots", declared.roots.is_some()),
        };
        if !present {
            required.insert(name.to_owned(), json!({}));
        }
        if let InputRequest::Elicit(ElicitRequest { params: ElicitRequestParams::Url(_), .. }) = req {
            let url = declared.elicitation.as_ref().is_some_and(|e| e.contains_key("url"));
            if !url {
                required.insert("elicitation".into(), json!({"url": {}}));
            }
        }
    }
    (!required.is_empty()).then_some(Value::Object(required))
}

/// `-32021` naming the capabilities a request needs (`data.requiredCapabilities`).
pub fn missing_capability(required: Value) -> Error {
    let names: Vec<String> = required.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    Error::rpc(
        ErrorData::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("Missing required client capability: {}", names.join(", ")),
        )
        .with_data(json!({ "requiredCapabilities": required })),
    )
}

fn unavailable() -> Error {
    Error::tool("client input is unavailable: this call did not come from an MCP client")
}

impl RequestContext {
    /// Asks the client for every request in `requests` (keys are yours, stable across rounds)
    /// and returns the answers by key. See the [module docs](crate::context::input) for how this works on
    /// each lineage. Errors: `-32021` (2026-07-28) when the client did not declare a needed
    /// capability; [`ErrorKind::InputRequired`] (2026-07-28) when answers are still missing —
    /// return it with `?`.
    pub async fn input(&self, requests: InputRequests) -> Result<BTreeMap<String, InputResponse>> {
        match &self.input {
            Some(ledger) => ledger.input(requests).await,
            None => Err(unavailable()),
        }
    }

    /// Asks the user through the client (`elicitation/create`), under `key`.
    pub async fn elicit(&self, key: &str, params: ElicitRequestParams) -> Result<ElicitResult> {
        let req = InputRequest::Elicit(ElicitRequest::new(params));
        match self.input(BTreeMap::from([(key.to_owned(), req)])).await?.remove(key) {
            Some(InputResponse::Elicit(r)) => Ok(r),
            _ => Err(Error::protocol("the client answered the elicitation with something else")),
        }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`), under `key`.
    pub async fn create_message(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        let req = InputRequest::CreateMessage(CreateMessageRequest::new(params));
        match self.input(BTreeMap::from([(key.to_owned(), req)])).await?.remove(key) {
            Some(InputResponse::CreateMessage(r)) => Ok(r),
            _ => Err(Error::protocol("the client answered the sampling request with something else")),
        }
    }

    /// Asks the client for its roots (`roots/list`), under `key`.
    pub async fn list_roots(&self, key: &str) -> Result<ListRootsResult> {
        let req = InputRequest::ListRoots(ListRootsRequest::default());
        match self.input(BTreeMap::from([(key.to_owned(), req)])).await?.remove(key) {
            Some(InputResponse::ListRoots(r)) => Ok(r),
            _ => Err(Error::protocol("the client answered roots/list with something else")),
        }
    }

    /// The answers this 2026-07-28 request carries, by key (from its `requestState` and its
    /// `inputResponses`), for a handler that passes them on as they are (a proxy); `None` on a
    /// legacy session, in a task, or outside a request.
    pub(crate) fn input_answers(&self) -> Option<Map<String, Value>> {
        self.input.as_ref().and_then(|l| l.modern_answers())
    }

    /// Ends this 2026-07-28 round asking the client for `requests` as they are (a proxy
    /// passing on its upstream's `inputRequests`): returns the [`ErrorKind::InputRequired`]
    /// error to return from the handler. Outside a request, the error says input is unavailable.
    pub(crate) fn require_input(&self, requests: InputRequests) -> Error {
        match &self.input {
            Some(ledger) => ledger.require(requests),
            None => unavailable(),
        }
    }

    /// The state this handler stored with [`RequestContext::set_request_state`] in the previous
    /// round of this request (2026-07-28 MRTR; sealed, so the client cannot alter it).
    pub fn request_state(&self) -> Option<Value> {
        self.input.as_ref().and_then(|l| l.book.lock().expect("lock").user.clone())
    }

    /// Sets the caching hints of this `resources/read` result (2026-07-28
    /// server/utilities/caching): merged with the server's own, the shorter `ttlMs` and the more
    /// private `cacheScope` winning (a proxy passes its upstream's on this way). Ignored on
    /// other requests and on legacy sessions, whose results carry no hints.
    pub fn set_cache_hint(&self, hint: CacheHint) {
        if let Some(l) = &self.input {
            l.book.lock().expect("lock").cache = Some(hint);
        }
    }

    /// Stores state for the next round of this request (2026-07-28 MRTR); it travels sealed in
    /// `requestState`. Keep it small. A no-op on legacy sessions, where the handler just awaits.
    pub fn set_request_state(&self, state: Value) {
        if let Some(l) = &self.input {
            l.book.lock().expect("lock").user = Some(state);
        }
    }
}
