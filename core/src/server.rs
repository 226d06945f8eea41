//! The async server shell: feeds a transport's frames to the [`ServerEngine`] and runs tool calls.
//!
//! ```no_run
//! use mcpcore::{registry::ToolRegistry, server::Server, engine::ServerConfig};
//! # async fn demo() -> mcpcore::Result<()> {
//! let tools = std::sync::Arc::new(ToolRegistry::new());
//! Server::new(ServerConfig::new("demo", "1.0"), tools).serve_stdio().await
//! # }
//! ```

use crate::engine::{Action, Connection, Listen, PendingCall, ServerConfig, ServerEngine};
use crate::input::{InputLedger, Peer, PeerRequests};
use crate::jsonrpc::{Inbound, Message, RequestId, Response};
use crate::prompts::PromptRegistry;
use crate::registry::{NotificationSink, ToolContext, ToolRegistry};
use crate::resources::ResourceRegistry;
use crate::transport::{stdio, Channel, OutFrame, TransportEvent, DEFAULT_MAX_FRAME};
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

/// An MCP server: an engine plus the transports it serves on.
#[derive(Debug, Clone)]
pub struct Server {
    engine: Arc<ServerEngine>,
    max_frame: usize,
    shutdown_grace: std::time::Duration,
}

type InFlight = Arc<Mutex<HashMap<RequestId, AbortHandle>>>;

impl Server {
    /// A server for `registry`.
    pub fn new(config: ServerConfig, registry: Arc<ToolRegistry>) -> Self {
        Server {
            engine: Arc::new(ServerEngine::new(config, registry)),
            max_frame: DEFAULT_MAX_FRAME,
            shutdown_grace: std::time::Duration::from_secs(30),
        }
    }

    /// Serves `resources` too (`resources/*`, subscriptions, completion of template variables).
    pub fn with_resources(mut self, resources: Arc<ResourceRegistry>) -> Self {
        self.engine = Arc::new((*self.engine).clone().with_resources(resources));
        self
    }

    /// Serves `prompts` too (`prompts/*`, completion of prompt arguments).
    pub fn with_prompts(mut self, prompts: Arc<PromptRegistry>) -> Self {
        self.engine = Arc::new((*self.engine).clone().with_prompts(prompts));
        self
    }

    /// Keeps tasks (Tasks extension, [`crate::tasks`]) in `store` instead of the default
    /// bounded in-memory store. Task settings (`ttlMs`, `pollIntervalMs`) are in
    /// [`ServerConfig::tasks`].
    pub fn with_task_store(mut self, store: Arc<dyn crate::tasks::TaskStore>) -> Self {
        self.engine = Arc::new((*self.engine).clone().with_task_store(store));
        self
    }

    /// Sets the largest accepted frame in bytes (default 16 MiB); larger ones get `-32600`.
    pub fn with_max_frame(mut self, bytes: usize) -> Self {
        self.max_frame = bytes;
        self
    }

    /// How long in-flight calls may run after the connection closes (default 30 s); the rest
    /// are aborted.
    pub fn with_shutdown_grace(mut self, grace: std::time::Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<ServerEngine> {
        &self.engine
    }

    /// Serves on this process's stdin/stdout until stdin closes, then finishes in-flight calls.
    pub async fn serve_stdio(&self) -> crate::Result<()> {
        self.serve_channel(stdio::own_stdio(self.max_frame)).await
    }

    /// Serves Streamable HTTP (both lineages) and the 2024-11-05 HTTP+SSE transport on `addr`
    /// until [`HttpServing::shutdown`](crate::http::server::HttpServing::shutdown).
    pub async fn serve_http(
        &self,
        addr: std::net::SocketAddr,
        config: crate::http::server::HttpServerConfig,
    ) -> crate::Result<crate::http::server::HttpServing> {
        crate::http::server::serve(self.engine.clone(), addr, config).await
    }

    /// Serves one connection until it closes; in-flight calls finish before this returns.
    pub async fn serve_channel(&self, channel: Channel) -> crate::Result<()> {
        let Channel { tx, mut rx, flushed } = channel;
        let mut conn = Connection::new();
        let inflight: InFlight = Arc::default();
        let peers = PeerRequests::new();
        let mut changes = self.engine.change_listener();
        let (closing, _) = tokio::sync::watch::channel(false);
        let mut tasks = JoinSet::new();
        let mut link = Link { tx: &tx, inflight: &inflight, peers: &peers, closing: &closing };
        loop {
            let event = tokio::select! {
                event = rx.recv() => event,
                Some(change) = changes.recv() => {
                    if let Some(note) = self.engine.legacy_notification(&conn, &change) {
                        let _ = tx.send(OutFrame::One(note));
                    }
                    continue;
                }
            };
            let Some(event) = event else { break };
            match event {
                TransportEvent::Closed(_) => break,
                TransportEvent::Failed(..) => {}
                TransportEvent::Frame(Err(resp)) => send(&tx, resp),
                TransportEvent::Frame(Ok(Inbound::Single(msg))) => {
                    self.dispatch(&mut conn, msg, &mut link, &mut tasks);
                }
                TransportEvent::Frame(Ok(Inbound::Batch(items))) => {
                    self.batch(&mut conn, items, &tx, &peers, &mut tasks);
                }
            }
            // Reap finished calls so the set stays small on long connections.
            while tasks.try_join_next().is_some() {}
        }
        // Listen streams end with the connection; calls get the grace period.
        let _ = closing.send(true);
        let drained =
            tokio::time::timeout(self.shutdown_grace, async { while tasks.join_next().await.is_some() {} })
                .await;
        if drained.is_err() {
            tasks.abort_all();
        }
        drop(tx);
        if let Some(f) = flushed {
            let _ = f.await;
        }
        Ok(())
    }

    fn dispatch(&self, conn: &mut Connection, msg: Message, link: &mut Link<'_>, tasks: &mut JoinSet<()>) {
        let tx = link.tx;
        let inflight = link.inflight;
        match self.engine.handle(conn, msg) {
            Action::Reply(r) => send(tx, r),
            Action::CallTool(call) => {
                let id = call.id.clone();
                if inflight.lock().expect("lock").contains_key(&id) {
                    let e = crate::ErrorData::invalid_request(format!(
                        "Invalid Request: request id {id} is already in flight"
                    ));
                    return send(tx, Response::error(Some(id), e));
                }
                let peer = Peer::new(sink(tx), link.peers.clone());
                let fut = run_call(self.engine.clone(), call, sink(tx), Some(peer));
                let tx = tx.clone();
                let done = inflight.clone();
                let mut guard = inflight.lock().expect("lock");
                let handle = tasks.spawn(async move {
                    let (id, resp) = fut.await;
                    // Only answer if not cancelled meanwhile.
                    if done.lock().expect("lock").remove(&id).is_some() {
                        send(&tx, resp);
                    }
                });
                guard.insert(id, handle);
            }
            Action::Listen(listen) => {
                let id = listen.id.clone();
                let mut guard = inflight.lock().expect("lock");
                if guard.contains_key(&id) {
                    let e = crate::ErrorData::invalid_request(format!(
                        "Invalid Request: request id {id} is already in flight"
                    ));
                    return send(tx, Response::error(Some(id), e));
                }
                let fut = run_listen(self.engine.clone(), listen, sink(tx), link.closing.subscribe());
                let handle = tasks.spawn(fut);
                guard.insert(id, handle);
            }
            Action::Cancel(id) => {
                if let Some(h) = inflight.lock().expect("lock").remove(&id) {
                    h.abort();
                }
            }
            Action::PeerResponse(r) => {
                link.peers.resolve(r);
            }
            Action::Nothing => {}
        }
    }

    fn batch(
        &self,
        conn: &mut Connection,
        items: Vec<Result<Message, Response>>,
        tx: &mpsc::UnboundedSender<OutFrame>,
        peers: &Arc<PeerRequests>,
        tasks: &mut JoinSet<()>,
    ) {
        if !self.engine.accepts_batch(conn) {
            return send(tx, ServerEngine::batch_rejected());
        }
        let mut ready = Vec::new();
        let mut calls = Vec::new();
        for item in items {
            match item {
                Err(resp) => ready.push(resp),
                Ok(Message::Request(r)) if r.method == "initialize" => ready.push(Response::error(
                    Some(r.id),
                    crate::ErrorData::invalid_request(
                        "Invalid Request: initialize must not be part of a batch",
                    ),
                )),
                Ok(msg) => match self.engine.handle(conn, msg) {
                    Action::Reply(r) => ready.push(r),
                    Action::CallTool(call) => {
                        let peer = Peer::new(sink(tx), peers.clone());
                        calls.push(run_call(self.engine.clone(), call, sink(tx), Some(peer)))
                    }
                    Action::PeerResponse(r) => {
                        peers.resolve(r);
                    }
                    Action::Listen(l) => ready.push(Response::error(
                        Some(l.id),
                        crate::ErrorData::invalid_request(
                            "Invalid Request: subscriptions/listen cannot be batched",
                        ),
                    )),
                    Action::Cancel(_) | Action::Nothing => {}
                },
            }
        }
        let tx = tx.clone();
        tasks.spawn(async move {
            for call in calls {
                ready.push(call.await.1);
            }
            if !ready.is_empty() {
                let _ = tx.send(OutFrame::Batch(ready.into_iter().map(Message::Response).collect()));
            }
        });
    }
}

fn send(tx: &mpsc::UnboundedSender<OutFrame>, resp: Response) {
    let _ = tx.send(OutFrame::One(Message::Response(resp)));
}

fn sink(tx: &mpsc::UnboundedSender<OutFrame>) -> NotificationSink {
    let tx = tx.clone();
    Arc::new(move |m: Message| {
        let _ = tx.send(OutFrame::One(m));
    })
}

/// What a connection's dispatch needs besides the engine.
struct Link<'a> {
    tx: &'a mpsc::UnboundedSender<OutFrame>,
    inflight: &'a InFlight,
    peers: &'a Arc<PeerRequests>,
    closing: &'a tokio::sync::watch::Sender<bool>,
}

/// Runs a call to its response; a panicking tool becomes an `isError` result, another panicking
/// handler `-32603`. `peer` carries legacy server→client requests.
pub(crate) async fn run_call(
    engine: Arc<ServerEngine>,
    call: Box<PendingCall>,
    outbound: NotificationSink,
    peer: Option<Peer>,
) -> (RequestId, Response) {
    if let Some(start) = call.task {
        return crate::tasks::run::run(engine, call, outbound, start).await;
    }
    let ledger = call.input.clone().map(|seed| InputLedger::new(seed, peer));
    let mut ctx = ToolContext::for_request(
        call.id.clone(),
        call.version,
        call.progress_token.clone(),
        outbound.clone(),
    )
    .with_log_level(call.log_level, outbound);
    if let Some(l) = &ledger {
        ctx = ctx.with_input(l.clone());
    }
    let fut = call.run(ctx);
    let resp = match (CatchUnwind { inner: fut }).await {
        Ok(outcome) => engine.finish_call(&call, outcome, ledger.as_deref()),
        Err(why) => engine.crashed_call(&call, &why),
    };
    (call.id, resp)
}

/// Runs a `subscriptions/listen` stream on a connection: the acknowledgement, then matching
/// changes, until cancelled (the task is aborted) or the connection closes (`closing`), which
/// ends it gracefully with its result.
pub(crate) async fn run_listen(
    engine: Arc<ServerEngine>,
    listen: Listen,
    outbound: NotificationSink,
    mut closing: tokio::sync::watch::Receiver<bool>,
) {
    let mut changes = engine.change_listener();
    outbound(engine.listen_ack(&listen));
    for note in engine.listen_task_snapshots(&listen) {
        outbound(note);
    }
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Some(c) => {
                    if let Some(note) = engine.listen_notification(&listen, &c) {
                        outbound(note);
                    }
                }
                None => break,
            },
            _ = closing.wait_for(|c| *c) => break,
        }
    }
    outbound(Message::Response(engine.listen_end(&listen)));
}

/// Polls a future, turning a panic into `Err(message)`.
pub(crate) struct CatchUnwind<F: ?Sized> {
    pub(crate) inner: Pin<Box<F>>,
}

impl<F: Future + ?Sized> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_owned());
                Poll::Ready(Err(msg))
            }
        }
    }
}
