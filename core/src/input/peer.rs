//! Server → client JSON-RPC requests on a legacy connection: send one, await its response.
//!
//! [`PeerRequests`] is the connection's table of requests awaiting an answer (one per stdio
//! connection or HTTP session); the shell hands every response from the client to
//! [`PeerRequests::resolve`]. A [`Peer`] pairs that table with the outbound route of one call.

use crate::error::{Error, Result};
use crate::jsonrpc::{Message, Request, RequestId, Response};
use crate::registry::NotificationSink;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Requests this server sent to one client and still awaits; ids are unique per table.
#[derive(Debug, Default)]
pub struct PeerRequests {
    next: AtomicI64,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Response>>>,
}

impl PeerRequests {
    /// An empty table.
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// Delivers a response from the client; false when no request with its id is waiting.
    pub fn resolve(&self, resp: Response) -> bool {
        let Some(id) = resp.id.clone() else { return false };
        match self.waiting.lock().expect("lock").remove(&id) {
            Some(tx) => tx.send(resp).is_ok(),
            None => false,
        }
    }

    /// Requests still waiting.
    pub fn len(&self) -> usize {
        self.waiting.lock().expect("lock").len()
    }

    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Sends requests to the client of one call and awaits their responses.
#[derive(Clone)]
pub struct Peer {
    outbound: NotificationSink,
    table: Arc<PeerRequests>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("waiting", &self.table.len()).finish()
    }
}

/// Removes a request from the table when its future is dropped (the call was cancelled).
struct Waiting<'a> {
    table: &'a PeerRequests,
    id: RequestId,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.table.waiting.lock().expect("lock").remove(&self.id);
    }
}

impl Peer {
    /// A peer sending on `outbound`, with responses resolved through `table`.
    pub fn new(outbound: NotificationSink, table: Arc<PeerRequests>) -> Self {
        Peer { outbound, table }
    }

    /// Sends `method` to the client and waits for its result; a JSON-RPC error answer is an
    /// [`crate::ErrorKind::Rpc`] error, a closed connection [`crate::ErrorKind::Closed`].
    pub async fn request(&self, method: &str, params: Option<Map<String, Value>>) -> Result<Value> {
        let n = self.table.next.fetch_add(1, Ordering::Relaxed) + 1;
        let id = RequestId::String(format!("mcpcore-s{n}"));
        let (tx, rx) = oneshot::channel();
        self.table.waiting.lock().expect("lock").insert(id.clone(), tx);
        let _guard = Waiting { table: &self.table, id: id.clone() };
        (self.outbound)(Message::Request(Request { id, method: method.to_owned(), params }));
        match rx.await {
            Ok(Response { outcome: Ok(v), .. }) => Ok(v),
            Ok(Response { outcome: Err(e), .. }) => Err(Error::rpc(e)),
            Err(_) => {
                Err(Error::closed(format!("the connection closed before the client answered {method}")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_response_reaches_its_request_and_a_dropped_request_leaves_the_table() {
        let table = PeerRequests::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: NotificationSink = Arc::new(move |m| {
            let _ = tx.send(m);
        });
        let peer = Peer::new(sink, table.clone());
        let call = tokio::spawn({
            let peer = peer.clone();
            async move { peer.request("roots/list", None).await }
        });
        let Some(Message::Request(req)) = rx.recv().await else { panic!("no request sent") };
        assert_eq!(req.method, "roots/list");
        assert!(!table.resolve(Response::result(RequestId::from("other"), json!({}))));
        assert!(table.resolve(Response::result(req.id, json!({"roots": []}))));
        assert_eq!(call.await.unwrap().unwrap(), json!({"roots": []}));

        let pending = tokio::spawn({
            let peer = peer.clone();
            async move { peer.request("roots/list", None).await }
        });
        let _ = rx.recv().await;
        assert_eq!(table.len(), 1);
        pending.abort();
        let _ = pending.await;
        assert!(table.is_empty());
    }
}
