//! The Events extension's methods (SEP-3415, `seps/0000-events-extension.md` rev. 5eb6862,
//! §Methods): `events/list`, `events/poll` and `events/stream`, on both lineages (the SEP
//! defines the extension for 2026-07-28; a legacy session gets the same methods, as ChatGPT's
//! dialect serves them, without `resultType`). Poll keeps no state: its cursor is the whole
//! position, sealed ([`crate::events::cursor`]). A stream is a long-lived request answered by
//! the runtime ([`EventStream`]): `notifications/events/active`, then each occurrence, with
//! heartbeats while quiet.

use super::{parse_params, reply_err, Action, PendingCall, ServerEngine, WebhookOp, Work};
use crate::context::{Access, Caller, Entry, Origin};
use crate::error::{ErrorCode, ErrorData};
use crate::events::webhook::{self, Granted, Subscribe, SubscriptionKey, Ttl, WebhookError};
use crate::events::{cursor, millis, DeclaredEvent, Position};
use crate::jsonrpc::{Message, Notification, Request, RequestId, Response};
use crate::protocol::events::{
    self as ext, DeliveryMode, Dialect, EventOccurrence, EventsErrorKind, PollParams,
};
use crate::protocol::meta::SUBSCRIPTION_ID;
use crate::protocol::ProtocolVersion;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::SystemTime;

/// Occurrences a poll answers when it names no `maxEvents`; also the most it answers.
const POLL_PAGE: usize = 100;

/// An open `events/stream` request: what it reads and from where.
#[derive(Debug, Clone, PartialEq)]
pub struct EventStream {
    /// The request's id: the stream's subscription id.
    pub id: RequestId,
    /// The revision it speaks.
    pub version: ProtocolVersion,
    /// The event type.
    pub name: String,
    /// The subscription's arguments (which occurrences reach it: [`crate::events::matching`]).
    pub arguments: Value,
    /// Where it resumes; `None` starts from now.
    pub after: Option<Position>,
    /// Replay nothing older than this (milliseconds since the Unix epoch).
    pub not_before_ms: Option<u64>,
    /// The error codes and final result its client expects.
    pub dialect: Dialect,
}

/// A poll, stream or subscribe request the engine checked (see `ServerEngine::event_request`).
struct Checked {
    params: PollParams,
    declared: Arc<DeclaredEvent>,
    /// Where its cursor stands; `None`: from now.
    after: Option<Position>,
    /// The oldest time (ms) a replay reaches (`maxAgeMs`).
    not_before_ms: Option<u64>,
}

/// The dialect of a request: the SEP's when its client declared the extension under
/// `extensions`, the design sketch's otherwise (see [`Dialect`]).
pub(super) fn dialect(caller: &Caller) -> Dialect {
    let declared =
        caller.client_capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(ext::EXTENSION_ID));
    if declared {
        Dialect::Sep
    } else {
        Dialect::Sketch
    }
}

fn error(kind: EventsErrorKind, dialect: Dialect, message: String, data: Value) -> ErrorData {
    ErrorData::new(ErrorCode(kind.code(dialect)), message).with_data(data)
}

/// A stream's notification, tagged with its subscription id (SEP-3415 §Push).
fn note(method: &str, mut params: Map<String, Value>, id: &RequestId) -> Message {
    params.insert("_meta".into(), json!({ SUBSCRIPTION_ID: id.to_value() }));
    Message::Notification(Notification { method: method.to_owned(), params: Some(params) })
}

impl ServerEngine {
    pub(super) fn events_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let events = self.events.as_ref().expect("checked by the caller");
        let page = super::catalog::cursor(&req)
            .and_then(|c| events.page_where(c, self.config.page_size, |t| allowed(origin, t, Access::List)));
        let (entries, next) = match page {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let mut result = json!({ "events": entries });
        if let Some(n) = next {
            result["nextCursor"] = json!(n);
        }
        self.reply_ok(req.id, version, result)
    }

    /// The type a poll or stream names, checked: known and usable by the caller (else
    /// NotFound, as if it did not exist), offering `mode` (else Unsupported), arguments valid
    /// (else `-32602`); the position its cursor stands for, and the oldest time (ms) a replay
    /// from it reaches (`maxAgeMs`).
    fn event_request(
        &self,
        req: &Request,
        mode: DeliveryMode,
        dialect: Dialect,
        origin: &Origin,
        now: SystemTime,
    ) -> Result<Checked, ErrorData> {
        let events = self.events.as_ref().expect("checked by the caller");
        let params: PollParams = parse_params(req)?;
        let name = params.name.as_str();
        let Some(declared) = events.get(name).filter(|t| allowed(origin, t, Access::Use)) else {
            let why = format!("No event type named {name} is offered");
            return Err(error(
                EventsErrorKind::NotFound,
                dialect,
                why,
                json!({ "kind": "event", "name": name }),
            ));
        };
        if !declared.offers(mode) {
            let why = format!("Event type {name} is not delivered by {}", mode.as_str());
            let data = json!({ "feature": "deliveryMode", "value": mode.as_str() });
            return Err(error(EventsErrorKind::Unsupported, dialect, why, data));
        }
        declared.validate_arguments(&crate::events::arguments(&params.arguments))?;
        let after = match params.cursor.as_deref() {
            None => None,
            Some(c) => Some(cursor::open(&self.config.state_keys, name, c)?),
        };
        // `maxAgeMs` bounds a replay only: a null cursor starts from now anyway.
        let not_before_ms = after.and(params.max_age_ms).map(|age| millis(now).saturating_sub(age));
        Ok(Checked { params, declared, after, not_before_ms })
    }

    pub(super) fn events_poll(
        &self,
        req: Request,
        version: ProtocolVersion,
        caller: &Caller,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let Checked { params, declared, after, not_before_ms: floor } =
            match self.event_request(&req, DeliveryMode::Poll, dialect(caller), origin, now) {
                Ok(x) => x,
                Err(e) => return reply_err(req.id, e),
            };
        let events = self.events.as_ref().expect("checked by the caller");
        let max = params.max_events.unwrap_or(POLL_PAGE).min(POLL_PAGE);
        let read = events.read(&params.name, after, max, floor);
        // Occurrences this subscription's arguments filter out are passed over: the cursor
        // still moves past them (SEP-3415 Appendix A, `match`).
        let arguments = crate::events::arguments(&params.arguments);
        let occurrences: Vec<EventOccurrence> =
            read.events.into_iter().filter_map(|(_, o)| declared.deliver(o, &arguments)).collect();
        let result = json!({
            "events": occurrences,
            "cursor": cursor::seal(&self.config.state_keys, &params.name, read.position),
            "truncated": read.truncated,
            "hasMore": read.has_more,
            "nextPollMs": declared.decl().poll_interval_ms,
        });
        self.reply_ok(req.id, version, result)
    }

    pub(super) fn events_stream(
        &self,
        req: Request,
        version: ProtocolVersion,
        caller: &Caller,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let dialect = dialect(caller);
        let Checked { params, after, not_before_ms, .. } =
            match self.event_request(&req, DeliveryMode::Push, dialect, origin, now) {
                Ok(x) => x,
                Err(e) => return reply_err(req.id, e),
            };
        let arguments = crate::events::arguments(&params.arguments);
        Action::Events(EventStream {
            id: req.id,
            version,
            name: params.name,
            arguments,
            after,
            not_before_ms,
            dialect,
        })
    }

    /// `events/subscribe` (SEP-3415 §Webhook delivery): checked here (the type, its modes, the
    /// arguments, the callback's form, the secret's), run by the hub
    /// ([`crate::events::webhook::WebhookHub`]).
    pub(super) fn events_subscribe(
        &self,
        req: Request,
        version: ProtocolVersion,
        caller: &Arc<Caller>,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let dialect = dialect(caller);
        let Checked { params, after, not_before_ms, .. } =
            match self.event_request(&req, DeliveryMode::Webhook, dialect, origin, now) {
                Ok(x) => x,
                Err(e) => return reply_err(req.id, e),
            };
        let delivery = req.params.as_ref().and_then(|p| p.get("delivery"));
        let (url, secret) = match callback(delivery, dialect, true) {
            Ok(x) => x,
            Err(e) => return reply_err(req.id, e),
        };
        let ttl = match req.params.as_ref().and_then(|p| p.get("ttlMs")) {
            None => Ttl::Default,
            Some(Value::Null) => Ttl::Forever,
            Some(v) => match v.as_u64() {
                Some(ms) => Ttl::Millis(ms),
                None => {
                    return reply_err(
                        req.id,
                        ErrorData::invalid_params(
                            "Invalid params: ttlMs must be a non-negative integer or null",
                        ),
                    )
                }
            },
        };
        let key = SubscriptionKey {
            principal: origin.owner().unwrap_or_default(),
            url,
            name: params.name.clone(),
            arguments: crate::events::arguments(&params.arguments),
        };
        let keys = self.config.state_keys.clone();
        let op = WebhookOp::Subscribe(Subscribe {
            key,
            secret: secret.unwrap_or_default(),
            after,
            not_before_ms,
            ttl,
            keys,
            dialect,
        });
        self.webhook_call(req, version, caller, op)
    }

    /// `events/unsubscribe`: by key (principal, url, name, arguments); never by id.
    pub(super) fn events_unsubscribe(
        &self,
        req: Request,
        version: ProtocolVersion,
        caller: &Arc<Caller>,
        origin: &Origin,
    ) -> Action {
        let dialect = dialect(caller);
        let params: PollParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let delivery = req.params.as_ref().and_then(|p| p.get("delivery"));
        let url = match callback(delivery, dialect, false) {
            Ok((url, _)) => url,
            Err(e) => return reply_err(req.id, e),
        };
        let key = SubscriptionKey {
            principal: origin.owner().unwrap_or_default(),
            url,
            name: params.name.clone(),
            arguments: crate::events::arguments(&params.arguments),
        };
        self.webhook_call(req, version, caller, WebhookOp::Unsubscribe(key))
    }

    fn webhook_call(
        &self,
        req: Request,
        version: ProtocolVersion,
        caller: &Arc<Caller>,
        op: WebhookOp,
    ) -> Action {
        Action::CallTool(Box::new(PendingCall {
            id: req.id,
            version,
            caller: caller.clone(),
            work: Work::Webhook(op),
            progress_token: None,
            log_level: None,
            input: None,
            binding: None,
            task: None,
        }))
    }

    /// The response to a webhook method, from what the hub answered (`None`: no hub is set,
    /// so the server does not deliver webhooks).
    pub fn webhook_reply(
        &self,
        call: &PendingCall,
        outcome: Option<Result<Option<Granted>, WebhookError>>,
    ) -> Response {
        let dialect = dialect(&call.caller);
        let id = call.id.clone();
        let name = match &call.work {
            Work::Webhook(WebhookOp::Subscribe(s)) => s.key.name.clone(),
            Work::Webhook(WebhookOp::Unsubscribe(k)) => k.name.clone(),
            _ => {
                return Response::error(Some(id), ErrorData::internal("Internal error: not a webhook method"))
            }
        };
        match outcome {
            None => {
                let why = "This server does not deliver webhooks".to_owned();
                let data = json!({ "feature": "deliveryMode", "value": "webhook" });
                Response::error(Some(id), error(EventsErrorKind::Unsupported, dialect, why, data))
            }
            Some(Err(WebhookError::Rpc(e))) => Response::error(Some(id), e),
            Some(Err(WebhookError::Events(kind, message, data))) => {
                Response::error(Some(id), error(kind, dialect, message, data))
            }
            Some(Ok(None)) => self.ok(id, call.version, json!({})),
            Some(Ok(Some(g))) => {
                let body = json!({
                    "id": g.id,
                    "refreshBefore": g.refresh_before.map(crate::tasks::clock::iso8601),
                    "cursor": cursor::seal(&self.config.state_keys, &name, g.position),
                    "truncated": g.truncated,
                });
                self.ok(id, call.version, body)
            }
        }
    }

    /// `notifications/events/active`: the stream is open at `position` (again after a gap,
    /// with `truncated: true`).
    pub fn events_active(&self, stream: &EventStream, position: Position, truncated: bool) -> Message {
        let mut p = Map::new();
        p.insert("cursor".into(), json!(cursor::seal(&self.config.state_keys, &stream.name, position)));
        p.insert("truncated".into(), json!(truncated));
        note(ext::ACTIVE, p, &stream.id)
    }

    /// `notifications/events/event`: one occurrence, with the position after it.
    pub fn events_occurrence(
        &self,
        stream: &EventStream,
        seq: u64,
        mut occurrence: EventOccurrence,
    ) -> Message {
        let position = Position { epoch: self.events_epoch(), seq };
        occurrence.cursor = Some(cursor::seal(&self.config.state_keys, &stream.name, position));
        let Ok(Value::Object(params)) = serde_json::to_value(occurrence) else { unreachable!("an object") };
        note(ext::EVENT, params, &stream.id)
    }

    /// `notifications/events/heartbeat`: the stream is alive and has checked up to `position`.
    pub fn events_heartbeat(&self, stream: &EventStream, position: Position) -> Message {
        let mut p = Map::new();
        p.insert("cursor".into(), json!(cursor::seal(&self.config.state_keys, &stream.name, position)));
        note(ext::HEARTBEAT, p, &stream.id)
    }

    /// `notifications/events/terminated` for a stream whose type was removed (SEP-3415 §Event
    /// type removal): `NotFound` with `data.kind: "event"`, in the stream's dialect. The stream
    /// then ends ([`ServerEngine::events_end`]).
    pub fn events_removed(&self, stream: &EventStream) -> Message {
        let why = format!("The event type {} is no longer offered", stream.name);
        let e = error(
            EventsErrorKind::NotFound,
            stream.dialect,
            why,
            json!({ "kind": "event", "name": stream.name }),
        );
        let mut p = Map::new();
        p.insert("error".into(), serde_json::to_value(e).expect("serializable"));
        note(ext::TERMINATED, p, &stream.id)
    }

    /// The graceful end of a stream the server closes (it shuts down): `StreamEventsResult`,
    /// `{_meta}` (the design sketch's, which the conformance suite checks), with `resultType`
    /// for a client of the SEP's dialect.
    pub fn events_end(&self, stream: &EventStream) -> Response {
        let mut result = json!({ "_meta": { SUBSCRIPTION_ID: stream.id.to_value() } });
        if stream.dialect == Dialect::Sep && stream.version.is_modern() {
            result["resultType"] = json!("complete");
        }
        Response::result(stream.id.clone(), result)
    }

    fn events_epoch(&self) -> u64 {
        self.events.as_ref().map_or(0, |e| e.epoch())
    }
}

/// The `delivery` of a subscribe (`url` and `secret`) or an unsubscribe (`url`): an absolute
/// `https` or `http` URL (the hub decides whether `http` is allowed), a `whsec_` secret of 24 to
/// 64 bytes; a `mode` other than `webhook` is Unsupported.
fn callback(
    delivery: Option<&Value>,
    dialect: Dialect,
    with_secret: bool,
) -> Result<(String, Option<Vec<u8>>), ErrorData> {
    let invalid = |why: &str| ErrorData::invalid_params(format!("Invalid params: {why}"));
    let Some(d) = delivery.and_then(Value::as_object) else {
        return Err(invalid("delivery must be an object with the callback url"));
    };
    if let Some(mode) = d.get("mode").filter(|m| m.as_str() != Some("webhook")) {
        let why = format!("events/subscribe delivers to webhooks only, not {mode}");
        let data = json!({ "feature": "deliveryMode", "value": mode });
        return Err(error(EventsErrorKind::Unsupported, dialect, why, data));
    }
    let Some(url) = d.get("url").and_then(Value::as_str) else {
        return Err(invalid("delivery.url must be a string"));
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(&format!("delivery.url is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "https" | "http")
        || parsed.host_str().is_none()
        || !parsed.username().is_empty()
    {
        return Err(invalid("delivery.url must be an https URL with a host and no credentials"));
    }
    if !with_secret {
        return Ok((url.to_owned(), None));
    }
    let secret =
        d.get("secret").and_then(Value::as_str).and_then(webhook::parse_secret).ok_or_else(|| {
            invalid("delivery.secret must be whsec_ followed by the base64 of 24 to 64 random bytes")
        })?;
    Ok((url.to_owned(), Some(secret)))
}

/// Whether `origin` may list or use event type `t`.
fn allowed(origin: &Origin, t: &DeclaredEvent, access: Access) -> bool {
    !origin.has_view() || origin.allows(&Entry::Event(&t.event().name), access)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{CatalogFilter, CatalogView, Identity};
    use crate::engine::{Event, Job, RouteId, ServerConfig, ServerConnection};
    use crate::events::{EventDecl, EventRegistry};
    use crate::registry::ToolRegistry;
    use crate::state::StateKey;
    use std::time::{Duration, UNIX_EPOCH};

    /// Hides event types starting with `secret` from every caller.
    struct NoSecrets;
    impl CatalogFilter for NoSecrets {
        fn allows(&self, _: Option<&Identity>, entry: &Entry<'_>, _: Access) -> bool {
            !matches!(entry, Entry::Event(n) if n.starts_with("secret"))
        }
    }

    fn answer(conn: &mut ServerConnection, origin: &Origin, method: &str, params: Value) -> Vec<Event> {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        let mut params = params;
        params["_meta"] = meta;
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        conn.handle(crate::jsonrpc::parse(frame.to_string().as_bytes()), RouteId(1), origin, now);
        std::iter::from_fn(|| conn.poll_event()).collect()
    }

    fn reply(events: &[Event]) -> Value {
        events
            .iter()
            .find_map(|e| match e {
                Event::Send { message, .. } => Some(serde_json::to_value(message).unwrap()),
                _ => None,
            })
            .expect("a reply")
    }

    #[test]
    fn a_caller_sees_and_uses_only_the_event_types_its_view_allows() {
        let events = EventRegistry::with_epoch(3);
        events.declare(EventDecl::new("public", "p")).unwrap();
        events.declare(EventDecl::new("secret.audit", "s")).unwrap();
        let mut config = ServerConfig::new("t", "1");
        config.state_keys = StateKey::new(vec![5u8; 32]).into();
        let engine = ServerEngine::new(config, Arc::new(ToolRegistry::new())).with_events(Arc::new(events));
        let mut conn = ServerConnection::new(Arc::new(engine));
        let mut origin = Origin::default();
        origin.extensions.insert(CatalogView(Arc::new(NoSecrets)));
        let list = reply(&answer(&mut conn, &origin, "events/list", json!({})));
        assert_eq!(list["result"]["events"].as_array().unwrap().len(), 1, "{list}");
        assert_eq!(list["result"]["events"][0]["name"], "public");
        // A hidden type is unknown to poll and stream, exactly like one that does not exist.
        for method in ["events/poll", "events/stream"] {
            let r =
                reply(&answer(&mut conn, &origin, method, json!({"name": "secret.audit", "arguments": {}})));
            assert_eq!(r["error"]["code"], -32011, "{method}: {r}");
        }
        // Without a view both are there, and a stream starts as a job of its own.
        let open = Origin::default();
        let list = reply(&answer(&mut conn, &open, "events/list", json!({})));
        assert_eq!(list["result"]["events"].as_array().unwrap().len(), 2);
        let started =
            answer(&mut conn, &open, "events/stream", json!({"name": "secret.audit", "arguments": {}}));
        assert!(
            started
                .iter()
                .any(|e| matches!(e, Event::Start { work: Job::Events(s), .. } if s.name == "secret.audit")),
            "{started:?}"
        );
    }
}
