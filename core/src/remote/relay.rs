//! Where a remote server's requests for client input go.
//!
//! A **2026-07-28** remote asks with `input_required` results, which the forwarded call itself
//! reads (`bridge.rs`); the call only has to declare what its caller declared, which
//! [`Declares`] does as the call's [`CallOptions::input`](crate::client::CallOptions::input).
//!
//! A **legacy** remote sends real `elicitation/create`, `sampling/createMessage` and
//! `roots/list` requests, which name no request they belong to (2025-11-25
//! client/elicitation: a server sends them "during" a request, on stdio with nothing tying
//! them to it). Every forwarded call on that connection registers with the remote's
//! [`Dispatch`], which hands each such request, as an [`Ask`], to the call it most likely
//! belongs to: the only forwarded call in flight; else the newest one not already waiting on an
//! answer of its own (a call waiting on its client, e.g. parked for an MRTR round, asks
//! nothing more until answered); else the newest. With one call at a time, or several where
//! only one asks, that is exact. The call (`bridge.rs`) then asks its own caller.

use super::logs::LogRoute;
use crate::client::{BoxFuture, Client, InputHandler, InputKinds};
use crate::error::{Error, Result};
use crate::protocol::elicitation::{ElicitRequest, ElicitRequestParams, ElicitResult};
use crate::protocol::mrtr::{InputRequest, InputResponse};
use crate::protocol::roots::{ListRootsRequest, ListRootsResult};
use crate::protocol::sampling::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult};
use crate::protocol::ClientCapabilities;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// The connection-level input handler of a client whose server is forwarded by a
/// [`RemoteServer`](super::RemoteServer): it declares `kinds` to the remote (legacy sessions
/// declare client capabilities once, at `initialize`, so a remote can only ask for what was
/// declared then). Input asked within a forwarded call goes to that call's caller; input asked
/// outside any call (e.g. a server's `roots/list` at start-up) is declined (elicitation) or
/// refused (sampling, roots).
///
/// ```no_run
/// use mcpcore::client::{Client, ClientOptions, InputKinds};
/// use mcpcore::remote::RelayInput;
/// # async fn demo(cmd: mcpcore::transport::child::StdioCommand) -> mcpcore::Result<()> {
/// let kinds = InputKinds { elicitation: true, sampling: true, ..InputKinds::default() };
/// let options = ClientOptions { input: Some(RelayInput::new(kinds)), ..ClientOptions::default() };
/// let client = Client::connect_stdio(cmd, options).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RelayInput {
    kinds: InputKinds,
}

impl RelayInput {
    /// A handler declaring `kinds`.
    pub fn new(kinds: InputKinds) -> Arc<RelayInput> {
        Arc::new(RelayInput { kinds })
    }
}

impl InputHandler for RelayInput {
    fn kinds(&self) -> InputKinds {
        self.kinds
    }
}

/// The input kinds a client declared.
pub(crate) fn kinds_of(caps: &ClientCapabilities) -> InputKinds {
    InputKinds {
        elicitation: caps.elicitation.is_some(),
        elicitation_url: caps.elicitation.as_ref().is_some_and(|e| e.contains_key("url")),
        sampling: caps.sampling.is_some(),
        roots: caps.roots.is_some(),
        roots_list_changed: false,
    }
}

/// A per-call input handler that only declares: a 2026-07-28 forwarded call tells the remote
/// (in `_meta` clientCapabilities) what its own caller declared, and answers nothing itself.
pub(crate) struct Declares(pub(crate) InputKinds);

impl InputHandler for Declares {
    fn kinds(&self) -> InputKinds {
        self.0
    }
}

/// One request of a legacy remote for client input, handed to the forwarded call it belongs to.
pub(crate) struct Ask {
    /// What the remote asks.
    pub(crate) request: InputRequest,
    /// Where the answer goes (to the remote, as the response to its request).
    pub(crate) reply: oneshot::Sender<Result<InputResponse>>,
}

/// A forwarded call known to a [`Dispatch`].
struct Slot {
    id: u64,
    asks: mpsc::UnboundedSender<Ask>,
    /// Asks handed to the call and not answered yet.
    waiting: Arc<AtomicUsize>,
}

/// Routes a legacy remote's requests for input to its forwarded calls (see the module docs).
#[derive(Default)]
pub(crate) struct Dispatch {
    calls: Mutex<Vec<Slot>>,
    next: AtomicU64,
}

impl std::fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatch").field("calls", &self.calls.lock().expect("lock").len()).finish()
    }
}

/// A forwarded call's registration with its [`Dispatch`]; removed when dropped.
pub(crate) struct Entry {
    dispatch: Arc<Dispatch>,
    id: u64,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.dispatch.calls.lock().expect("lock").retain(|s| s.id != self.id);
    }
}

impl Dispatch {
    /// Registers a forwarded call: the requests routed to it arrive on the receiver.
    pub(crate) fn enter(self: &Arc<Self>) -> (Entry, mpsc::UnboundedReceiver<Ask>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.calls.lock().expect("lock").push(Slot { id, asks: tx, waiting: Arc::default() });
        (Entry { dispatch: self.clone(), id }, rx)
    }

    /// Hands `request` to the call it belongs to and waits for the answer.
    async fn route(&self, request: InputRequest) -> Result<InputResponse> {
        let method = request.method();
        let picked = {
            let calls = self.calls.lock().expect("lock");
            let idle = calls.iter().rev().find(|s| s.waiting.load(Ordering::Relaxed) == 0);
            idle.or(calls.last()).map(|s| (s.asks.clone(), s.waiting.clone()))
        };
        let Some((asks, waiting)) = picked else {
            return Err(Error::invalid_input(format!(
                "{method} arrived while no forwarded call was in flight"
            )));
        };
        let (tx, rx) = oneshot::channel();
        waiting.fetch_add(1, Ordering::Relaxed);
        let sent = asks.send(Ask { request, reply: tx }).is_ok();
        let answer = match sent {
            true => rx.await.unwrap_or_else(|_| Err(Error::closed("the forwarded call ended"))),
            false => Err(Error::closed("the forwarded call ended")),
        };
        waiting.fetch_sub(1, Ordering::Relaxed);
        answer
    }
}

fn mismatch(method: &str) -> Error {
    Error::protocol(format!("the answer to {method} is of another kind"))
}

/// Registered as the [`CallOptions::input`](crate::client::CallOptions::input) of every
/// forwarded call on a legacy remote, so the client hands it the remote's requests.
impl InputHandler for Dispatch {
    fn kinds(&self) -> InputKinds {
        InputKinds {
            elicitation: true,
            elicitation_url: true,
            sampling: true,
            roots: true,
            ..InputKinds::default()
        }
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        Box::pin(async move {
            match self.route(InputRequest::Elicit(ElicitRequest::new(params))).await? {
                InputResponse::Elicit(r) => Ok(r),
                _ => Err(mismatch("elicitation/create")),
            }
        })
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult>> {
        Box::pin(async move {
            match self.route(InputRequest::CreateMessage(CreateMessageRequest::new(params))).await? {
                InputResponse::CreateMessage(r) => Ok(r),
                _ => Err(mismatch("sampling/createMessage")),
            }
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult>> {
        Box::pin(async move {
            match self.route(InputRequest::ListRoots(ListRootsRequest::default())).await? {
                InputResponse::ListRoots(r) => Ok(r),
                _ => Err(mismatch("roots/list")),
            }
        })
    }
}

/// One connection to a remote for one request: the client, and where what the remote sends on
/// it goes (requests for input to the forwarded calls made on it, log messages to their callers).
pub(crate) struct Conn {
    pub(crate) client: Client,
    pub(crate) dispatch: Arc<Dispatch>,
    pub(crate) logs: Arc<LogRoute>,
}
