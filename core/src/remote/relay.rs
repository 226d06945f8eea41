//! Relaying a remote server's requests for client input to the local caller.
//!
//! A forwarded call carries a [`CallRelay`] as its own input handler
//! ([`CallOptions::input`](crate::client::CallOptions::input)): whatever the remote asks while the
//! call runs — a legacy `elicitation/create`, `sampling/createMessage` or `roots/list` request, or
//! a modern MRTR `input_required` round — is asked of the local caller through the call's
//! [`RequestContext`] ([`RequestContext::input`]), and the caller's answer goes back to the remote.
//!
//! The keys the relay asks under are `remote.<server>.<n>`, numbered in the order the remote
//! asks within one call, so they are the same each time the call runs. That matters when the
//! local caller speaks 2026-07-28: its answers come with a retry of the whole call (MRTR), which
//! runs the forwarded call again from the start; the remote asks again, and this time the
//! answers are there. When an answer is still missing, the relay stops the remote call (it is
//! cancelled) and the forwarded call ends with the [`ErrorKind::InputRequired`] error, which the
//! local server turns into its `InputRequiredResult`.

use crate::client::{BoxFuture, InputHandler, InputKinds};
use crate::context::RequestContext;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use crate::protocol::roots::ListRootsResult;
use crate::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::protocol::ClientCapabilities;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

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

/// The input handler of one forwarded call: asks the local caller.
pub(crate) struct CallRelay {
    ctx: RequestContext,
    server: String,
    next: AtomicU64,
    stop: Mutex<Option<Error>>,
    stopped: Notify,
}

impl CallRelay {
    pub(crate) fn new(ctx: RequestContext, server: &str) -> Arc<CallRelay> {
        Arc::new(CallRelay {
            ctx,
            server: server.to_owned(),
            next: AtomicU64::new(1),
            stop: Mutex::new(None),
            stopped: Notify::new(),
        })
    }

    fn key(&self) -> String {
        format!("remote.{}.{}", self.server, self.next.fetch_add(1, Ordering::Relaxed))
    }

    /// Passes `e` on; an [`ErrorKind::InputRequired`] also stops the forwarded call.
    fn note(&self, e: Error) -> Error {
        if e.kind() == ErrorKind::InputRequired {
            let mut stop = self.stop.lock().expect("lock");
            if stop.is_none() {
                *stop = Some(e.clone());
                self.stopped.notify_one();
            }
        }
        e
    }

    /// Runs the forwarded call `call` until it ends or the local caller's input is still
    /// missing (then the [`ErrorKind::InputRequired`] error, and `call` is dropped, which
    /// cancels it on the remote).
    pub(crate) async fn run<T>(&self, call: impl Future<Output = Result<T>>) -> Result<T> {
        let stopped = async {
            self.stopped.notified().await;
            self.stop.lock().expect("lock").clone().unwrap_or_else(|| Error::protocol("input relay stopped"))
        };
        let outcome = tokio::select! {
            r = call => r,
            e = stopped => return Err(e),
        };
        match self.stop.lock().expect("lock").clone() {
            Some(e) => Err(e),
            None => outcome,
        }
    }
}

/// The input kinds a client declared.
fn kinds_of(caps: &ClientCapabilities) -> InputKinds {
    InputKinds {
        elicitation: caps.elicitation.is_some(),
        elicitation_url: caps.elicitation.as_ref().is_some_and(|e| e.contains_key("url")),
        sampling: caps.sampling.is_some(),
        roots: caps.roots.is_some(),
        roots_list_changed: false,
    }
}

impl InputHandler for CallRelay {
    /// What the local caller declared: the remote may ask for that and no more.
    fn kinds(&self) -> InputKinds {
        self.ctx.client_capabilities().map(kinds_of).unwrap_or_default()
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        let key = self.key();
        Box::pin(async move { self.ctx.elicit(&key, params).await.map_err(|e| self.note(e)) })
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult>> {
        let key = self.key();
        Box::pin(async move { self.ctx.create_message(&key, params).await.map_err(|e| self.note(e)) })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult>> {
        let key = self.key();
        Box::pin(async move { self.ctx.list_roots(&key).await.map_err(|e| self.note(e)) })
    }
}
