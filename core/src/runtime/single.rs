//! One stateless request served without a driver task (2026-07-28 over HTTP: every POST is a
//! request of its own). The connection decides; host code runs inside the caller's future, so
//! dropping it (the client closed the stream) cancels the request.

use super::env::Env;
use super::jobs;
use super::queue::{self, OnOverflow, QueueRx};
use crate::context::{BoxFuture, NotificationSink, Origin};
use crate::engine::{Event, Job, JobId, RouteId, ServerConnection};
use crate::jsonrpc::{Inbound, Message, RequestId, Response};
use std::sync::Arc;
use tokio::sync::watch;

const ROUTE: RouteId = RouteId(0);

/// How one request goes on.
pub(crate) enum Step {
    /// Answered at once.
    Reply(Message),
    /// Nothing is owed (a notification, a response).
    Accepted,
    /// Host code runs: read `notifications` until [`Running::finish`] gives the response.
    Running(Box<Running>),
}

/// A request whose host code runs.
pub(crate) struct Running {
    /// What the handler sends while it runs (progress, logs, a listen stream's notifications),
    /// as JSON, bounded in bytes (see [`start`]).
    pub(crate) notifications: QueueRx<String>,
    /// Its end.
    pub(crate) done: Finish,
}

/// The end of a running request.
pub(crate) struct Finish {
    /// The request's id.
    pub(crate) id: RequestId,
    done: BoxFuture<'static, Response>,
    conn: ServerConnection,
    job: JobId,
}

impl Finish {
    /// Waits for the response (cancel-safe: call it again after a `select!` dropped it).
    pub(crate) async fn finish(&mut self) -> Message {
        let response = (&mut self.done).await;
        self.conn.complete(self.job, response);
        while let Some(event) = self.conn.poll_event() {
            if let Event::Send { message, .. } = event {
                return message;
            }
        }
        unreachable!("a completed request owes its response")
    }
}

/// Starts one request; `closing` ends a listen stream gracefully (the server shuts down). At
/// most `backlog` bytes of its notifications wait for the reader; past that they are dropped,
/// the notifications end and `on_overflow` runs.
pub(crate) fn start(
    env: &Arc<Env>,
    frame: Result<Inbound, Response>,
    origin: Arc<Origin>,
    closing: watch::Receiver<bool>,
    backlog: usize,
    on_overflow: Option<OnOverflow>,
) -> Step {
    let mut conn = ServerConnection::new(env.engine.clone());
    conn.handle(frame, ROUTE, &origin, env.now());
    let mut reply = None;
    while let Some(event) = conn.poll_event() {
        match event {
            Event::Send { message, .. } => reply = Some(message),
            Event::SendBatch { messages, .. } => {
                reply = Some(messages.into_iter().next().expect("a batch response is not empty"))
            }
            Event::Start { job, work, .. } => {
                let (tx, notifications) = queue::bounded(backlog, on_overflow);
                let sink: NotificationSink = Arc::new(move |m: Message| {
                    let json = m.to_json();
                    let size = json.len();
                    let _ = tx.push(json, size);
                });
                let env = env.clone();
                let (id, done): (RequestId, BoxFuture<'static, Response>) = match work {
                    Job::Call(call) => {
                        (call.id.clone(), Box::pin(jobs::run_call(env, call, origin, sink, None)))
                    }
                    Job::Listen(listen) => {
                        (listen.id.clone(), Box::pin(jobs::run_listen(env, listen, sink, closing)))
                    }
                    Job::Events(stream) => {
                        (stream.id.clone(), Box::pin(jobs::run_events(env, stream, sink, closing)))
                    }
                };
                return Step::Running(Box::new(Running {
                    notifications,
                    done: Finish { id, done, conn, job },
                }));
            }
            _ => {}
        }
    }
    match reply {
        Some(m) => Step::Reply(m),
        None => Step::Accepted,
    }
}
