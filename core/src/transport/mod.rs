//! Transports: move JSON-RPC frames between peers. No protocol rules live here.
//!
//! | transport | module | side |
//! |---|---|---|
//! | stdio, child process | [`child`] | client spawns the server |
//! | stdio, own stdin/stdout | [`stdio`] | server |
//! | a pipe written from the caller's thread (own stdout, a child's stdin) | [`direct`] | both |
//! | the sender peer logic writes frames to, queued or direct | [`sender`] | both |
//! | newline-delimited framing shared by both | [`framing`] | both |
//! | a child's stdout read by the host's event loop, dispatched in place | [`host_read`] | client |
//! | a child's stderr, bounded | [`stderr`] | client |
//! | an optional spin before a stdio read blocks (off by default) | [`spin`] | both |
//! | the URL of an HTTP peer, checked | `url` | client |
//!
//! Every transport hands the peer logic a [`Channel`]: a sender of outbound frames and a
//! receiver of inbound events, ending with [`TransportEvent::Closed`] and a reason a person can act on.

pub mod child;
pub mod direct;
pub mod framing;
pub mod host_read;
mod process;
pub mod sender;
#[cfg(unix)]
pub mod spin;
pub mod stderr;
pub mod stdio;
pub(crate) mod url;

use crate::jsonrpc::{Inbound, Message, Response};
pub use sender::{FrameTx, WeakFrameTx};
use tokio::sync::mpsc;

/// Default largest inbound frame: 16 MiB.
pub const DEFAULT_MAX_FRAME: usize = 16 * 1024 * 1024;

/// One outbound frame.
#[derive(Debug, Clone)]
pub enum OutFrame {
    /// One message.
    One(Message),
    /// A JSON array of messages (2025-03-26 batch responses).
    Batch(Vec<Message>),
    /// End the outbound stream after the frames before it (closes a child's stdin).
    Close,
}

impl OutFrame {
    /// Compact JSON, no trailing newline.
    pub fn to_json(&self) -> String {
        match self {
            OutFrame::One(m) => m.to_json(),
            OutFrame::Batch(ms) => serde_json::to_string(ms).expect("messages serialize"),
            OutFrame::Close => String::new(),
        }
    }
}

/// What arrives from the peer.
#[derive(Debug)]
pub enum TransportEvent {
    /// A parsed frame, or the error response owed for an unparseable one.
    Frame(Result<Inbound, Response>),
    /// The connection ended; the reason says why (e.g. "server exited with code 3").
    Closed(String),
    /// One request failed in the transport (an HTTP error status, a refused connection): its
    /// caller gets this error; the connection lives on.
    Failed(crate::jsonrpc::RequestId, crate::Error),
}

/// One side of a connection.
#[derive(Debug)]
pub struct Channel {
    /// Frames to send (a queue's `mpsc::UnboundedSender` converts with `.into()`).
    pub tx: FrameTx,
    /// Events received.
    pub rx: mpsc::UnboundedReceiver<TransportEvent>,
    /// Completes when every frame given to `tx` was written, after `tx` and its clones are dropped.
    pub flushed: Option<tokio::task::JoinHandle<()>>,
    /// Set when the transport can hand inbound frames over in place, on the thread that read
    /// them ([`host_read`]): the peer logic puts its handler in the slot, and only the end of
    /// the connection comes through `rx` then. `None`: everything comes through `rx`.
    pub in_place: Option<host_read::InPlace>,
}
