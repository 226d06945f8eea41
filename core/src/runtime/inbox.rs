//! A driver's inbox: what it is fed ([`Input`]: frames, the ends and requests of its jobs,
//! control) and the sending side every feeder holds ([`Inbox`]), which counts what waits so a
//! frame handed over in place never overtakes one queued before it.

use crate::context::Origin;
use crate::engine::{JobId, RouteId};
use crate::error::ErrorData;
use crate::jsonrpc::{Inbound, Message, Response};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// What a driver is fed.
pub(crate) enum Input {
    /// An inbound frame (or the error response owed for an unreadable one).
    Frame { frame: Result<Inbound, Response>, route: RouteId, origin: Arc<Origin> },
    /// A job's notification for its route.
    Notify { route: RouteId, message: Message },
    /// A job ended.
    Done { job: JobId, response: Response },
    /// A job's handler asks the client something (legacy sessions).
    PeerRequest {
        job: JobId,
        method: String,
        params: Option<Map<String, Value>>,
        reply: oneshot::Sender<Result<Value, ErrorData>>,
    },
    /// Replace the session state (reloaded from a shared store).
    Restore(Box<Option<crate::session::LegacySession>>),
    /// Answer once the session state so far is stored ([`Outbound::flush`]).
    Flush(oneshot::Sender<()>),
    /// The transport closed: finish what runs (within the grace period), then stop.
    Close,
    /// The session ended (HTTP DELETE): abort what runs and stop now.
    Terminate,
    /// A frame handled in place changed when the driver's task must next wake (a timeout, or
    /// the session's change feed): look again.
    Wake,
}

/// The sending side of a driver's inbox. It counts what was sent and not handled yet, so a
/// frame handed over in place never overtakes one that waits.
#[derive(Clone)]
pub(crate) struct Inbox {
    pub(super) tx: mpsc::UnboundedSender<Input>,
    pub(super) queued: Arc<AtomicUsize>,
}

impl Inbox {
    /// Queues `input` for the driver's task; gives it back once the driver stopped.
    pub(crate) fn send(&self, input: Input) -> Result<(), Input> {
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.tx.send(input).map_err(|e| {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            e.0
        })
    }

    pub(super) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
