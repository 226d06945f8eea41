//! One server connection as a sans-IO state machine: the request lifecycle of every transport.
//!
//! A shell (stdio, an HTTP session, one modern HTTP request) feeds inbound frames with
//! [`ServerConnection::handle`], polls [`ServerConnection::poll_event`] for what to do, and
//! reports finished host code with [`ServerConnection::complete`]. Requests to the client go
//! out with [`ServerConnection::send_request`]; their answers come back as [`Event::Answer`].
//! Time comes in as an argument; [`ServerConnection::poll_timeout`] says when to call
//! [`ServerConnection::handle_timeout`]. Nothing here does I/O.
//!
//! Routes tell the shell where to send what: every inbound frame arrives on a [`RouteId`] the
//! shell chose (stdio has one; each HTTP POST is its own), the response to a request and what
//! its handler sends while it runs go back on that route, and [`Event::RouteDone`] says
//! nothing more is owed on it (an HTTP POST's response can end).

use super::{Action, Listen, PendingCall, ServerEngine};
use crate::changes::Change;
use crate::context::{Caller, Origin};
use crate::error::{ErrorCode, ErrorData};
use crate::jsonrpc::{Inbound, Message, Notification, Request, RequestId, Response};
use crate::session::{LegacySession, OutstandingRequest, SessionKind, SessionRecord};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::SystemTime;

/// One piece of host work the connection started: a call or a listen stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u64);

/// Where inbound frames came from and where their answers go; chosen by the shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RouteId(pub u64);

/// Host work to run for a request.
#[derive(Debug)]
pub enum Job {
    /// A tool call, prompt, resource read, completion or task method.
    Call(Box<PendingCall>),
    /// A `subscriptions/listen` stream (2026-07-28): its messages go on its route until it
    /// ends; its final response comes back through [`ServerConnection::complete`].
    Listen(Listen),
    /// An `events/stream` request (Events extension), run like a listen stream.
    Events(super::EventStream),
}

/// What the connection asks its driver to do.
#[derive(Debug)]
pub enum Event {
    /// Send `message` to the client: on `route` when it belongs to a request (its response,
    /// a request the handler made), on the session's own stream when `None` (list changes).
    Send {
        /// The route of the request it belongs to.
        route: Option<RouteId>,
        /// The message.
        message: Message,
    },
    /// Send a JSON-RPC batch response (2025-03-26).
    SendBatch {
        /// The route the batch came on.
        route: RouteId,
        /// The responses.
        messages: Vec<Message>,
    },
    /// Run host code; report its response with [`ServerConnection::complete`].
    Start {
        /// The job.
        job: JobId,
        /// The route of its request (where its notifications go).
        route: RouteId,
        /// What to run.
        work: Job,
    },
    /// Stop the host code of `job` (the client cancelled its request): no response is owed.
    Abort {
        /// The job.
        job: JobId,
    },
    /// The answer to server→client request `id` (or why there is none: timeout, cancelled).
    Answer {
        /// The id [`ServerConnection::send_request`] returned.
        id: RequestId,
        /// The client's result or error.
        outcome: Result<Value, ErrorData>,
    },
    /// A response from the client to a request this connection did not send (another server
    /// instance of a shared session may have sent it: relay it there).
    Unmatched(Response),
    /// Nothing more is owed on this route.
    RouteDone(RouteId),
}

/// A request being served.
#[derive(Debug)]
struct Flight {
    job: JobId,
    route: RouteId,
    batch: Option<u64>,
}

/// A request to the client awaiting its answer.
#[derive(Debug)]
struct Outgoing {
    job: JobId,
    route: RouteId,
    method: String,
    deadline: SystemTime,
}

/// A 2025-03-26 batch collecting its responses.
#[derive(Debug)]
struct Batch {
    route: RouteId,
    waiting: usize,
    responses: Vec<Response>,
}

/// One connection's request lifecycle (see the module docs).
#[derive(Debug)]
pub struct ServerConnection {
    engine: Arc<ServerEngine>,
    session: Option<LegacySession>,
    /// The legacy session's caller, built once (see `ServerEngine::handle`).
    caller: Option<Arc<Caller>>,
    dirty: bool,
    flights: super::PeerMap<RequestId, Flight>,
    jobs: super::IdMap<JobId, RequestId>,
    outgoing: HashMap<RequestId, Outgoing>,
    next_outgoing: u64,
    next_job: u64,
    batches: super::IdMap<u64, Batch>,
    next_batch: u64,
    owed: super::IdMap<RouteId, usize>,
    events: VecDeque<Event>,
}

/// A cheap fingerprint of what a message may change in a session.
fn fingerprint(
    s: &Option<LegacySession>,
) -> Option<(bool, Option<crate::protocol::logging::LoggingLevel>, usize)> {
    s.as_ref().map(|s| (s.initialized, s.log_level, s.subscriptions.len()))
}

impl ServerConnection {
    /// A fresh connection served by `engine`.
    pub fn new(engine: Arc<ServerEngine>) -> Self {
        ServerConnection {
            engine,
            session: None,
            caller: None,
            dirty: false,
            flights: super::PeerMap::default(),
            jobs: super::IdMap::default(),
            outgoing: HashMap::new(),
            next_outgoing: 0,
            next_job: 0,
            batches: super::IdMap::default(),
            next_batch: 0,
            owed: super::IdMap::default(),
            events: VecDeque::new(),
        }
    }

    /// Numbers this connection's server→client request ids from `n` on: instances serving one
    /// shared session start far apart, so the client never gets two requests with one id.
    pub fn number_requests_from(&mut self, n: u64) {
        self.next_outgoing = n;
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<ServerEngine> {
        &self.engine
    }

    /// The legacy session, once `initialize` was answered.
    pub fn session(&self) -> Option<&LegacySession> {
        self.session.as_ref()
    }

    /// Replaces the session state (from a store shared with other instances).
    pub fn restore(&mut self, session: Option<LegacySession>) {
        self.session = session;
        self.caller = None;
    }

    /// True (once) when the session state changed since the last call: store it then.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// The record a session store keeps for this connection.
    pub fn record(&self, kind: SessionKind) -> SessionRecord {
        let mut outstanding: Vec<OutstandingRequest> = self
            .outgoing
            .iter()
            .map(|(id, o)| OutstandingRequest { id: id_text(id), method: o.method.clone() })
            .collect();
        outstanding.sort_by(|a, b| a.id.cmp(&b.id));
        SessionRecord { kind, session: self.session.clone(), outstanding }
    }

    /// How many requests are being served.
    pub fn in_flight(&self) -> usize {
        self.flights.len()
    }

    /// The next thing to do, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Takes one inbound frame (or the error response owed for an unreadable one) that arrived
    /// on `route` from `origin` at `now`.
    pub fn handle(
        &mut self,
        frame: Result<Inbound, Response>,
        route: RouteId,
        origin: &Origin,
        now: SystemTime,
    ) {
        match frame {
            Err(resp) => self.send(Some(route), Message::Response(resp)),
            Ok(Inbound::Single(msg)) => {
                if let Some(r) = self.message(msg, route, origin, now, None) {
                    self.send(Some(route), Message::Response(r));
                }
            }
            Ok(Inbound::Batch(items)) => self.batch(items, route, origin, now),
        }
        if self.owed(route) == 0 {
            self.events.push_back(Event::RouteDone(route));
        }
    }

    /// One message; an immediate response is returned (a batch collects it).
    fn message(
        &mut self,
        msg: Message,
        route: RouteId,
        origin: &Origin,
        now: SystemTime,
        batch: Option<u64>,
    ) -> Option<Response> {
        let before = fingerprint(&self.session);
        let action = self.engine.handle(&mut self.session, &mut self.caller, msg, origin, now);
        if fingerprint(&self.session) != before {
            self.dirty = true;
        }
        match action {
            Action::Reply(r) => return Some(r),
            Action::CallTool(call) => {
                if self.flights.contains_key(&call.id) {
                    return Some(duplicate(call.id));
                }
                if let Some(refused) = self.over_limit(&call.id) {
                    return Some(refused);
                }
                let id = call.id.clone();
                self.start(id, route, batch, Job::Call(call));
            }
            Action::Listen(l) => return self.open_stream(l.id.clone(), route, batch, Job::Listen(l)),
            Action::Events(s) => return self.open_stream(s.id.clone(), route, batch, Job::Events(s)),
            Action::Cancel(id) => self.cancel(&id),
            Action::PeerResponse(r) => self.answer(r),
            Action::Nothing => {}
        }
        None
    }

    /// Starts a long-lived request (`subscriptions/listen`, `events/stream`); it counts as a
    /// request in flight, and cannot be batched.
    fn open_stream(
        &mut self,
        id: RequestId,
        route: RouteId,
        batch: Option<u64>,
        job: Job,
    ) -> Option<Response> {
        if batch.is_some() {
            let method = if matches!(job, Job::Events(_)) { "events/stream" } else { "subscriptions/listen" };
            let e = ErrorData::invalid_request(format!("Invalid Request: {method} cannot be batched"));
            return Some(Response::error(Some(id), e));
        }
        if self.flights.contains_key(&id) {
            return Some(duplicate(id));
        }
        if let Some(refused) = self.over_limit(&id) {
            return Some(refused);
        }
        self.start(id, route, None, job);
        None
    }

    /// The answer owed to request `id` when the connection has `max_in_flight` requests in
    /// flight already.
    fn over_limit(&self, id: &RequestId) -> Option<Response> {
        let max = self.engine.config().max_in_flight;
        (self.flights.len() >= max).then(|| {
            let e = ErrorData::over_limit(
                "in_flight",
                max,
                format!("Too many requests in flight on this connection (at most {max}); retry when one has finished"),
            );
            Response::error(Some(id.clone()), e)
        })
    }

    fn start(&mut self, id: RequestId, route: RouteId, batch: Option<u64>, work: Job) {
        self.next_job += 1;
        let job = JobId(self.next_job);
        self.flights.insert(id.clone(), Flight { job, route, batch });
        self.jobs.insert(job, id);
        match batch.and_then(|b| self.batches.get_mut(&b)) {
            Some(b) => b.waiting += 1,
            None => *self.owed.entry(route).or_default() += 1,
        }
        self.events.push_back(Event::Start { job, route, work });
    }

    fn batch(
        &mut self,
        items: Vec<Result<Message, Response>>,
        route: RouteId,
        origin: &Origin,
        now: SystemTime,
    ) {
        if !self.engine.accepts_batch(self.session.as_ref()) {
            return self.send(Some(route), Message::Response(ServerEngine::batch_rejected()));
        }
        self.next_batch += 1;
        let b = self.next_batch;
        self.batches.insert(b, Batch { route, waiting: 0, responses: Vec::new() });
        *self.owed.entry(route).or_default() += 1;
        for item in items {
            let immediate = match item {
                Err(resp) => Some(resp),
                Ok(Message::Request(r)) if r.method == "initialize" => Some(Response::error(
                    Some(r.id),
                    ErrorData::invalid_request("Invalid Request: initialize must not be part of a batch"),
                )),
                Ok(msg) => self.message(msg, route, origin, now, Some(b)),
            };
            if let (Some(r), Some(batch)) = (immediate, self.batches.get_mut(&b)) {
                batch.responses.push(r);
            }
        }
        self.finish_batch(b);
    }

    fn finish_batch(&mut self, b: u64) {
        if self.batches.get(&b).is_none_or(|batch| batch.waiting > 0) {
            return;
        }
        let batch = self.batches.remove(&b).expect("checked");
        if !batch.responses.is_empty() {
            let messages = batch.responses.into_iter().map(Message::Response).collect();
            self.events.push_back(Event::SendBatch { route: batch.route, messages });
        }
        self.settle(batch.route);
    }

    fn owed(&self, route: RouteId) -> usize {
        self.owed.get(&route).copied().unwrap_or(0)
    }

    /// One answer less is owed on `route`.
    fn settle(&mut self, route: RouteId) {
        let left = match self.owed.get_mut(&route) {
            Some(n) => {
                *n = n.saturating_sub(1);
                *n
            }
            None => 0,
        };
        if left == 0 {
            self.owed.remove(&route);
            self.events.push_back(Event::RouteDone(route));
        }
    }

    fn send(&mut self, route: Option<RouteId>, message: Message) {
        self.events.push_back(Event::Send { route, message });
    }

    /// A request the client cancelled: its job stops, no response is owed.
    fn cancel(&mut self, id: &RequestId) {
        let Some(f) = self.flights.remove(id) else { return };
        self.jobs.remove(&f.job);
        self.events.push_back(Event::Abort { job: f.job });
        self.drop_outgoing_of(f.job, "the request it served was cancelled");
        self.release(f);
    }

    /// The flight ended: its batch or route is owed one answer less.
    fn release(&mut self, f: Flight) {
        match f.batch {
            Some(b) => {
                if let Some(batch) = self.batches.get_mut(&b) {
                    batch.waiting = batch.waiting.saturating_sub(1);
                }
                self.finish_batch(b);
            }
            None => self.settle(f.route),
        }
    }

    /// The host code of `job` finished with `response` (ignored when the job was aborted).
    pub fn complete(&mut self, job: JobId, response: Response) {
        let Some(id) = self.jobs.remove(&job) else { return };
        let Some(f) = self.flights.remove(&id) else { return };
        self.drop_outgoing_of(job, "the request it served has ended");
        match f.batch.and_then(|b| self.batches.get_mut(&b)) {
            Some(batch) => batch.responses.push(response),
            None => self.send(Some(f.route), Message::Response(response)),
        }
        self.release(f);
    }

    /// The host code of `job` ended without a response to send (its request was answered
    /// another way, or its connection is going away).
    pub fn forget(&mut self, job: JobId) {
        let Some(id) = self.jobs.remove(&job) else { return };
        if let Some(f) = self.flights.remove(&id) {
            self.drop_outgoing_of(job, "the request it served has ended");
            self.release(f);
        }
    }

    /// Sends `method` to the client on behalf of `job`'s handler (legacy sessions: elicitation,
    /// sampling, roots) and returns the request's id; its answer comes as [`Event::Answer`],
    /// or a timeout error after the configured `peer_request_timeout`.
    pub fn send_request(
        &mut self,
        job: JobId,
        method: &str,
        params: Option<Map<String, Value>>,
        now: SystemTime,
    ) -> Result<RequestId, ErrorData> {
        let route =
            self.jobs.get(&job).and_then(|id| self.flights.get(id)).map(|f| f.route).ok_or_else(|| {
                ErrorData::internal("Internal error: the request this handler served has ended")
            })?;
        self.next_outgoing += 1;
        let id = RequestId::String(format!("mcpcore-s{}", self.next_outgoing));
        let deadline = now + self.engine.config().peer_request_timeout;
        self.outgoing.insert(id.clone(), Outgoing { job, route, method: method.to_owned(), deadline });
        self.dirty = true;
        let req = Request { id: id.clone(), method: method.to_owned(), params };
        self.send(Some(route), Message::Request(req));
        Ok(id)
    }

    fn answer(&mut self, resp: Response) {
        let waiting = resp.id.as_ref().and_then(|id| self.outgoing.remove(id));
        match (waiting, resp.id.clone()) {
            (Some(_), Some(id)) => {
                self.dirty = true;
                self.events.push_back(Event::Answer { id, outcome: resp.outcome });
            }
            _ => self.events.push_back(Event::Unmatched(resp)),
        }
    }

    /// Requests `job` made that nobody waits for any more: the client is told to drop them.
    fn drop_outgoing_of(&mut self, job: JobId, why: &str) {
        let ids: Vec<RequestId> =
            self.outgoing.iter().filter(|(_, o)| o.job == job).map(|(id, _)| id.clone()).collect();
        for id in ids {
            let o = self.outgoing.remove(&id).expect("listed");
            self.dirty = true;
            self.send(Some(o.route), cancelled_note(&id, why));
        }
    }

    /// The earliest time [`ServerConnection::handle_timeout`] has something to do.
    pub fn poll_timeout(&self) -> Option<SystemTime> {
        self.outgoing.values().map(|o| o.deadline).min()
    }

    /// Fails every server→client request whose deadline passed at `now`: its handler gets a
    /// timeout error and the client is told to drop it.
    pub fn handle_timeout(&mut self, now: SystemTime) {
        let expired: Vec<RequestId> =
            self.outgoing.iter().filter(|(_, o)| o.deadline <= now).map(|(id, _)| id.clone()).collect();
        for id in expired {
            let o = self.outgoing.remove(&id).expect("listed");
            self.dirty = true;
            let why = format!(
                "the client did not answer {} within {} s",
                o.method,
                self.engine.config().peer_request_timeout.as_secs()
            );
            self.send(Some(o.route), cancelled_note(&id, &why));
            let e = ErrorData::new(ErrorCode::REQUEST_TIMEOUT, format!("Request timed out: {why}"));
            self.events.push_back(Event::Answer { id, outcome: Err(e) });
        }
    }

    /// A change in a catalog: the legacy session's notification, if it is owed one.
    pub fn on_change(&mut self, change: &Change) {
        let note = self.session.as_ref().and_then(|s| self.engine.legacy_notification(s, change));
        if let Some(note) = note {
            self.send(None, note);
        }
    }

    /// Ends every request in flight (the connection is going away): their jobs are aborted.
    pub fn abort_all(&mut self) {
        let ids: Vec<RequestId> = self.flights.keys().cloned().collect();
        for id in ids {
            self.cancel(&id);
        }
    }
}

fn duplicate(id: RequestId) -> Response {
    let e = ErrorData::invalid_request(format!("Invalid Request: request id {id} is already in flight"));
    Response::error(Some(id), e)
}

fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::String(s) => s.clone(),
        RequestId::Number(n) => n.to_string(),
    }
}

fn cancelled_note(id: &RequestId, why: &str) -> Message {
    let params = json!({ "requestId": id.to_value(), "reason": why });
    let Value::Object(params) = params else { unreachable!("built as an object") };
    Message::Notification(Notification { method: "notifications/cancelled".into(), params: Some(params) })
}
