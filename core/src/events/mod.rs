//! Event types and their recent occurrences (the Events extension, SEP-3415): what
//! `events/list` lists, what `events/poll` and `events/stream` read, what a host emits into.
//!
//! Pure bookkeeping: emitting takes the time from the caller ([`EventRegistry::emit_at`]; the
//! runtime's [`EventRegistry::emit`] reads the clock), and each emit is announced on the
//! registry's [`ChangeFeed`] as [`Change::Event`] so that open streams wake up. Every type keeps
//! its last occurrences in order ([`EventDecl::retain`]): a poll or a stream resumes from a
//! position within them, and learns it missed some (`truncated`) when its position fell out.
//! A position is `(epoch, seq)`: `epoch` names this registry (a process), `seq` counts a type's
//! occurrences from 1; [`cursor`] seals it for the wire.
//!
//! Several instances of one server behind a load balancer share their occurrences through a
//! [`SharedLog`] ([`EventRegistry::share`]; the Redis store's
//! `mcpcore::store::redis::RedisEventLog`): an emit goes to the shared log instead, which gives
//! it its position (the epoch is then the log's, `seq` counts in it) and hands it back to every
//! instance's registry ([`EventRegistry::mirror`]). Polls, streams and webhooks then read the
//! same positions on every instance, so a cursor from one instance is good on any other.

pub mod cursor;
mod log;
pub mod matching;
pub mod receiver;
#[cfg(test)]
mod tests;
pub mod webhook;

use crate::changes::{Change, ChangeFeed};
use crate::error::{Error, ErrorData, Result};
use crate::protocol::events::{DeliveryMode, EventOccurrence, EventType, MAX_OCCURRENCE_BYTES};
use crate::registry::schema::CompiledSchema;
use log::Log;
pub use log::{Position, Read};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, SystemTime};

/// Occurrences a type keeps for replay unless told otherwise.
pub const DEFAULT_RETAIN: usize = 256;
/// `nextPollMs` a type answers unless told otherwise.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 5_000;
/// How often a quiet stream hears a heartbeat unless told otherwise (SEP-3415 §Push: "at least
/// every 30 seconds").
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// An event type as a host declares it: its descriptor and how it is kept.
#[derive(Debug, Clone)]
pub struct EventDecl {
    /// What `events/list` shows.
    pub event: EventType,
    /// Occurrences kept for replay (at least 1).
    pub retain: usize,
    /// The `nextPollMs` of its poll results.
    pub poll_interval_ms: u64,
    /// Which occurrences reach which subscription ([`matching`]).
    pub matching: matching::Matching,
}

impl EventDecl {
    /// A type named `name` delivered by poll and push, taking any arguments and any object
    /// payload; refine it with the builder methods.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let object = serde_json::json!({ "type": "object" });
        EventDecl {
            event: EventType {
                name: name.into(),
                description: Some(description.into()),
                delivery: vec![DeliveryMode::Poll, DeliveryMode::Push],
                input_schema: object.clone(),
                payload_schema: object,
                meta: None,
            },
            retain: DEFAULT_RETAIN,
            poll_interval_ms: DEFAULT_POLL_INTERVAL_MS,
            matching: matching::Matching::default(),
        }
    }

    /// A declaration from the JSON a binding passes: `name`, and optionally `description`,
    /// `delivery` (default poll and push), `inputSchema`, `payloadSchema` (default: any
    /// object), `_meta`, `retain`, `pollIntervalMs` and `filterOn` (see
    /// [`EventDecl::filter_on`]). Errors name the member that does not fit.
    pub fn from_json(value: Value) -> Result<Self> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Json {
            name: String,
            #[serde(default)]
            description: Option<String>,
            #[serde(default)]
            delivery: Option<Vec<DeliveryMode>>,
            #[serde(default)]
            input_schema: Option<Value>,
            #[serde(default)]
            payload_schema: Option<Value>,
            #[serde(rename = "_meta", default)]
            meta: Option<Map<String, Value>>,
            #[serde(default)]
            retain: Option<usize>,
            #[serde(default)]
            poll_interval_ms: Option<u64>,
            #[serde(default)]
            filter_on: Vec<String>,
        }
        let j: Json = serde_json::from_value(value)
            .map_err(|e| Error::invalid_input(format!("invalid event type declaration: {e}")))?;
        let mut decl = EventDecl::new(j.name, String::new());
        decl.event.description = j.description;
        decl.event.meta = j.meta;
        if let Some(d) = j.delivery {
            decl.event.delivery = d;
        }
        if let Some(s) = j.input_schema {
            decl.event.input_schema = s;
        }
        if let Some(s) = j.payload_schema {
            decl.event.payload_schema = s;
        }
        decl.retain = j.retain.unwrap_or(DEFAULT_RETAIN);
        decl.poll_interval_ms = j.poll_interval_ms.unwrap_or(DEFAULT_POLL_INTERVAL_MS);
        decl.matching.filter_on = j.filter_on;
        Ok(decl)
    }

    /// The delivery modes it offers.
    pub fn delivery(mut self, modes: impl IntoIterator<Item = DeliveryMode>) -> Self {
        self.event.delivery = modes.into_iter().collect();
        self
    }

    /// The JSON Schema of a subscription's arguments.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.event.input_schema = schema;
        self
    }

    /// The JSON Schema of an occurrence's `data`, checked at emit.
    pub fn payload_schema(mut self, schema: Value) -> Self {
        self.event.payload_schema = schema;
        self
    }

    /// How many occurrences are kept for replay.
    pub fn retain(mut self, n: usize) -> Self {
        self.retain = n;
        self
    }

    /// The `nextPollMs` its poll results suggest.
    pub fn poll_interval_ms(mut self, ms: u64) -> Self {
        self.poll_interval_ms = ms;
        self
    }

    /// Subscription arguments that filter occurrences: a subscription whose arguments give one
    /// of `names` receives only the occurrences whose `data` has the same value there (polls,
    /// streams and webhooks alike; SEP-3415 Appendix A, `match`).
    pub fn filter_on(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.matching.filter_on = names.into_iter().map(Into::into).collect();
        self
    }

    /// A further match of occurrences to subscriptions: `f(occurrence, arguments)` true when
    /// that subscription receives it.
    pub fn matches(mut self, f: impl Fn(&EventOccurrence, &Value) -> bool + Send + Sync + 'static) -> Self {
        self.matching.custom = Some(Arc::new(f));
        self
    }

    /// Shapes each occurrence for the subscription receiving it: `f(occurrence, arguments)`
    /// (SEP-3415 Appendix A, `transform`: to redact fields, or expand or thin the payload, per
    /// the subscription's arguments). Its `eventId` should stay: a receiver deduplicates by it.
    pub fn transforms(
        mut self,
        f: impl Fn(EventOccurrence, &Value) -> EventOccurrence + Send + Sync + 'static,
    ) -> Self {
        self.matching.transform = Some(Arc::new(f));
        self
    }
}

/// A declared type with its compiled schemas.
#[derive(Debug)]
pub struct DeclaredEvent {
    decl: EventDecl,
    input: CompiledSchema,
    payload: CompiledSchema,
}

impl DeclaredEvent {
    /// The descriptor `events/list` shows.
    pub fn event(&self) -> &EventType {
        &self.decl.event
    }

    /// The declaration.
    pub fn decl(&self) -> &EventDecl {
        &self.decl
    }

    /// True when the type offers `mode`.
    pub fn offers(&self, mode: DeliveryMode) -> bool {
        self.decl.event.delivery.contains(&mode)
    }

    /// True when `occurrence` reaches a subscription with `arguments` ([`matching`]).
    pub fn reaches(&self, occurrence: &EventOccurrence, arguments: &Value) -> bool {
        self.decl.matching.matches(occurrence, arguments)
    }

    /// `occurrence` as a subscription with `arguments` receives it (matched, then transformed);
    /// `None` when it does not reach it ([`matching`]).
    pub fn deliver(&self, occurrence: EventOccurrence, arguments: &Value) -> Option<EventOccurrence> {
        self.decl.matching.deliver(occurrence, arguments)
    }

    /// Checks subscription arguments against `inputSchema`: `-32602` with the failing fields.
    pub fn validate_arguments(&self, arguments: &Value) -> std::result::Result<(), ErrorData> {
        let errors = self.input.errors(arguments);
        if errors.is_empty() {
            return Ok(());
        }
        let name = &self.decl.event.name;
        let e = crate::registry::schema::invalid_arguments(name, errors.clone());
        Err(ErrorData::invalid_params(e.message.replacen("for tool", "for event type", 1))
            .with_data(serde_json::json!({ "name": name, "errors": errors })))
    }
}

/// A log of occurrences shared by the instances of a fleet: every emit of a sharing registry
/// goes to it, and it hands each occurrence back to every instance's registry at the position
/// it gave it ([`EventRegistry::mirror`]), catching up on what a registry missed
/// ([`EventRegistry::positions`], [`EventRegistry::skip`]).
pub trait SharedLog: Send + Sync + std::fmt::Debug {
    /// Appends `occurrence` of the type `name` (`json`: it serialized, as the emit's size check
    /// made it), emitted at `at_ms` (milliseconds since the Unix epoch), to the shared log,
    /// which keeps the type's last `retain`. Returns at once: the append is queued, in emit
    /// order.
    fn append(&self, name: &str, occurrence: &EventOccurrence, json: &str, at_ms: u64, retain: usize);
    /// Starts handing `registry` the shared log's occurrences (once, from
    /// [`EventRegistry::share`]); stops when it is dropped.
    fn attach(&self, registry: Weak<EventRegistry>);
    /// Where the fleet keeps webhook subscriptions, when it does.
    fn subscriptions(&self) -> Option<Arc<dyn webhook::SubscriptionStore>> {
        None
    }
}

/// The event types a server offers and their recent occurrences; cheap to share (`Arc`).
#[derive(Debug)]
pub struct EventRegistry {
    /// The epoch of positions: this registry's own, or the shared log's once it told it.
    epoch: AtomicU64,
    /// This registry's own epoch (it names the registry in the ids of what it emits).
    origin: u64,
    /// Occurrences emitted into a shared log (numbers their ids).
    emitted: AtomicU64,
    shared: RwLock<Option<Arc<dyn SharedLog>>>,
    /// The fleet's `requestState` keys: what seals the cursors of webhook deliveries an
    /// instance took over (given with [`EventRegistry::share`]).
    fleet_keys: RwLock<crate::state::StateKeys>,
    types: RwLock<BTreeMap<String, Arc<DeclaredEvent>>>,
    logs: Mutex<BTreeMap<String, Log>>,
    changes: ChangeFeed,
    /// Announces [`Change::EventsListChanged`] (apart from `changes`, which every emit wakes).
    list_changes: ChangeFeed,
    /// Milliseconds between heartbeats.
    heartbeat_ms: AtomicU64,
    webhooks: RwLock<Option<Arc<dyn webhook::WebhookHub>>>,
}

impl EventRegistry {
    /// An empty registry whose positions carry `epoch` (a number that differs between
    /// processes: the runtime's [`EventRegistry::new`] draws one at random).
    pub fn with_epoch(epoch: u64) -> Self {
        EventRegistry {
            epoch: AtomicU64::new(epoch),
            origin: epoch,
            emitted: AtomicU64::new(0),
            shared: RwLock::default(),
            fleet_keys: RwLock::default(),
            types: RwLock::default(),
            logs: Mutex::default(),
            changes: ChangeFeed::default(),
            list_changes: ChangeFeed::default(),
            heartbeat_ms: AtomicU64::new(DEFAULT_HEARTBEAT.as_millis() as u64),
            webhooks: RwLock::default(),
        }
    }

    /// The same registry with streams hearing a heartbeat every `every` (see
    /// [`EventRegistry::set_heartbeat`]).
    pub fn with_heartbeat(self, every: Duration) -> Self {
        self.set_heartbeat(every);
        self
    }

    /// Streams opened from now on hear a heartbeat every `every` (between 10 ms and 30 s:
    /// SEP-3415 §Push asks for one at least every 30 seconds).
    pub fn set_heartbeat(&self, every: Duration) {
        let every = every.clamp(Duration::from_millis(10), Duration::from_secs(30));
        self.heartbeat_ms.store(every.as_millis() as u64, Ordering::Relaxed);
    }

    /// Delivers webhook subscriptions through `hub` (replacing any before).
    pub fn set_webhooks(&self, hub: Arc<dyn webhook::WebhookHub>) {
        *self.webhooks.write().expect("lock") = Some(hub);
    }

    /// The hub delivering webhook subscriptions, when one is set.
    pub fn webhooks(&self) -> Option<Arc<dyn webhook::WebhookHub>> {
        self.webhooks.read().expect("lock").clone()
    }

    /// How often a quiet stream hears a heartbeat.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.heartbeat_ms.load(Ordering::Relaxed))
    }

    /// The epoch of this registry's positions (the shared log's when it shares one).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Shares occurrences with the other instances of a fleet through `log`: from now on each
    /// emit goes to the log, and polls, streams and webhooks read what the log hands back (see
    /// the module's documentation); webhook subscriptions too, when the log keeps them, their
    /// cursors sealed with `keys` (the fleet's `requestState` keys). Call once, before serving.
    pub fn share(self: &Arc<Self>, log: Arc<dyn SharedLog>, keys: crate::state::StateKeys) {
        *self.fleet_keys.write().expect("lock") = keys;
        *self.shared.write().expect("lock") = Some(log.clone());
        log.attach(Arc::downgrade(self));
        if let Some(hub) = self.webhooks() {
            hub.shared();
        }
    }

    /// Where the fleet keeps webhook subscriptions, when this registry shares them.
    pub fn shared_subscriptions(&self) -> Option<Arc<dyn webhook::SubscriptionStore>> {
        self.shared.read().expect("lock").as_ref().and_then(|l| l.subscriptions())
    }

    /// The fleet's `requestState` keys (empty unless shared).
    pub fn fleet_keys(&self) -> crate::state::StateKeys {
        self.fleet_keys.read().expect("lock").clone()
    }

    /// True when emits go to a [`SharedLog`].
    pub fn is_shared(&self) -> bool {
        self.shared.read().expect("lock").is_some()
    }

    /// Takes occurrence `seq` of the type `name` from the shared log whose epoch is `epoch`
    /// (a new epoch, a log started over, drops everything kept). In sequence it is kept and
    /// announced; one ahead of a gap waits for it; one already kept, or of a type not declared
    /// here, is ignored.
    pub fn mirror(&self, epoch: u64, name: &str, seq: u64, at_ms: u64, occurrence: EventOccurrence) {
        let Some(retain) = self.get(name).map(|t| t.decl.retain) else { return };
        let moved = {
            let mut logs = self.logs.lock().expect("lock");
            self.adopt(epoch, &mut logs);
            logs.entry(name.to_owned()).or_default().insert(seq, at_ms, occurrence, retain)
        };
        if moved {
            self.changes.send(Change::Event(name.to_owned()));
        }
    }

    /// Gives up the occurrences of `name` up to `seq` of the shared log's `epoch`, which it no
    /// longer keeps: readers from before them learn of the gap (`truncated`).
    pub fn skip(&self, epoch: u64, name: &str, seq: u64) {
        if self.get(name).is_none() {
            return;
        }
        let mut logs = self.logs.lock().expect("lock");
        self.adopt(epoch, &mut logs);
        logs.entry(name.to_owned()).or_default().skip(seq);
    }

    /// Each declared type and the position this registry has reached in it (what a shared log
    /// compares with its own to hand over what was missed).
    pub fn positions(&self) -> Vec<(String, Position)> {
        let names: Vec<String> = self.types.read().expect("lock").keys().cloned().collect();
        let logs = self.logs.lock().expect("lock");
        let epoch = self.epoch();
        names
            .into_iter()
            .map(|n| {
                let seq = logs.get(&n).map_or(0, Log::last_seq);
                (n, Position { epoch, seq })
            })
            .collect()
    }

    /// Switches to the shared log's `epoch` (under the logs' lock): a new one drops what was
    /// kept under the old.
    fn adopt(&self, epoch: u64, logs: &mut BTreeMap<String, Log>) {
        if self.epoch() != epoch {
            logs.values_mut().for_each(|l| *l = Log::default());
            self.epoch.store(epoch, Ordering::Release);
        }
    }

    /// Declares (or replaces) an event type. Errors: an empty name or delivery list, a
    /// schema that does not compile, `retain` of 0.
    pub fn declare(&self, decl: EventDecl) -> Result<()> {
        let name = decl.event.name.clone();
        if name.is_empty() {
            return Err(Error::invalid_input("an event type needs a name"));
        }
        if decl.event.delivery.is_empty() {
            return Err(Error::invalid_input(format!("event type {name}: name at least one delivery mode")));
        }
        if decl.retain == 0 {
            return Err(Error::invalid_input(format!("event type {name}: retain at least 1 occurrence")));
        }
        let compile = |what: &str, schema: &Value| {
            CompiledSchema::compile(schema)
                .map_err(|e| Error::invalid_input(format!("event type {name}: invalid {what}: {e}")))
        };
        let input = compile("inputSchema", &decl.event.input_schema)?;
        let payload = compile("payloadSchema", &decl.event.payload_schema)?;
        let retain = decl.retain;
        let descriptor = decl.event.clone();
        let old = self
            .types
            .write()
            .expect("lock")
            .insert(name.clone(), Arc::new(DeclaredEvent { decl, input, payload }));
        self.logs.lock().expect("lock").entry(name).or_default().retain(retain);
        if old.is_none_or(|o| o.decl.event != descriptor) {
            // SEP-3415 §Dynamic event types: a new type, or a changed descriptor.
            self.list_changes.send(Change::EventsListChanged);
        }
        Ok(())
    }

    /// Removes an event type and its occurrences; true when it was declared. Its streams and
    /// webhook subscriptions end with a `NotFound` termination (SEP-3415 §Event type removal).
    pub fn remove(&self, name: &str) -> bool {
        self.logs.lock().expect("lock").remove(name);
        let removed = self.types.write().expect("lock").remove(name).is_some();
        if removed {
            self.changes.send(Change::Event(name.to_owned()));
            self.list_changes.send(Change::EventsListChanged);
        }
        removed
    }

    /// The type named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<DeclaredEvent>> {
        self.types.read().expect("lock").get(name).cloned()
    }

    /// Number of declared types.
    pub fn len(&self) -> usize {
        self.types.read().expect("lock").len()
    }

    /// True when no type is declared.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One page of descriptors of the types `keep` admits (cursors as in `tools/list`).
    pub fn page_where(
        &self,
        cursor: Option<&str>,
        size: usize,
        keep: impl Fn(&DeclaredEvent) -> bool,
    ) -> std::result::Result<(Vec<EventType>, Option<String>), ErrorData> {
        crate::registry::page_of(
            &self.types.read().expect("lock"),
            cursor,
            size,
            |t| keep(t),
            |t| t.decl.event.clone(),
        )
    }

    /// Records an occurrence of `name` with payload `data` at `now`, announces it, and returns
    /// it. Errors: an unknown type, `data` that is not an object or fails the type's
    /// `payloadSchema`, more than 256 KiB serialized.
    pub fn emit_at(&self, name: &str, data: Value, now: SystemTime) -> Result<EventOccurrence> {
        let Some(declared) = self.get(name) else {
            return Err(Error::invalid_input(format!("no event type named {name} is declared")));
        };
        if !data.is_object() {
            return Err(Error::invalid_input(format!("event type {name}: data must be a JSON object")));
        }
        let errors = declared.payload.errors(&data);
        if !errors.is_empty() {
            return Err(Error::invalid_input(format!(
                "event type {name}: data fails its payloadSchema: {}",
                Value::Array(errors)
            )));
        }
        let shared = self.shared.read().expect("lock").clone();
        if let Some(log) = shared {
            let n = self.emitted.fetch_add(1, Ordering::Relaxed) + 1;
            let (occurrence, json) =
                self.occurrence(name, format!("evt_{:016x}_s{n}", self.origin), data, now)?;
            log.append(name, &occurrence, &json, millis(now), declared.decl.retain);
            return Ok(occurrence);
        }
        let occurrence = {
            let mut logs = self.logs.lock().expect("lock");
            let log = logs.entry(name.to_owned()).or_default();
            let seq = log.next_seq();
            let (occurrence, _) =
                self.occurrence(name, format!("evt_{:016x}_{seq}", self.epoch()), data, now)?;
            log.push(occurrence.clone(), millis(now), declared.decl.retain);
            occurrence
        };
        self.changes.send(Change::Event(name.to_owned()));
        Ok(occurrence)
    }

    /// An occurrence of `name` with id `event_id`, and it serialized; errors when that is more
    /// than 256 KiB.
    fn occurrence(
        &self,
        name: &str,
        event_id: String,
        data: Value,
        now: SystemTime,
    ) -> Result<(EventOccurrence, String)> {
        let occurrence = EventOccurrence {
            event_id,
            name: name.to_owned(),
            timestamp: crate::tasks::clock::iso8601(now),
            data,
            cursor: None,
            meta: None,
        };
        let json = serde_json::to_string(&occurrence).ok();
        let size = json.as_ref().map_or(usize::MAX, String::len);
        match json {
            Some(json) if size <= MAX_OCCURRENCE_BYTES => Ok((occurrence, json)),
            _ => Err(Error::invalid_input(format!(
                "event type {name}: an occurrence is at most {MAX_OCCURRENCE_BYTES} bytes serialized ({size} given)"
            ))),
        }
    }

    /// The newest position of `name` (nothing delivered yet: seq 0).
    pub fn head(&self, name: &str) -> Position {
        let logs = self.logs.lock().expect("lock");
        let seq = logs.get(name).map_or(0, Log::last_seq);
        Position { epoch: self.epoch(), seq }
    }

    /// Occurrences of `name` after `after` (`None`: none, from now on), at most `max`, none
    /// older than `not_before_ms` (milliseconds since the Unix epoch).
    pub fn read(&self, name: &str, after: Option<Position>, max: usize, not_before_ms: Option<u64>) -> Read {
        let logs = self.logs.lock().expect("lock");
        let empty = Log::default();
        let log = logs.get(name).unwrap_or(&empty);
        log.read(self.epoch(), after, max, not_before_ms)
    }

    /// The feed announcing each emit and each removal ([`Change::Event`]).
    pub fn changes(&self) -> &ChangeFeed {
        &self.changes
    }

    /// The feed announcing changes of the list of types ([`Change::EventsListChanged`]).
    pub fn list_changes(&self) -> &ChangeFeed {
        &self.list_changes
    }
}

/// Milliseconds since the Unix epoch (0 before it).
pub(crate) fn millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The arguments object of a request (absent: `{}`).
pub(crate) fn arguments(args: &Option<Map<String, Value>>) -> Value {
    Value::Object(args.clone().unwrap_or_default())
}
