//! The Events extension's occurrences shared by a fleet (SEP-3415 §Cursor lifecycle: a cursor
//! must stay good on whichever instance a load balancer picks): [`RedisEventLog`], a
//! [`SharedLog`] in Redis.
//!
//! | key or channel | holds |
//! |---|---|
//! | `<prefix>:events:epoch` | the log's epoch (decimal): drawn by the first instance that finds none, so a Redis that lost its data starts a new one and old cursors read as a gap |
//! | `<prefix>:events:<name>:seq` | the last position given in the type `name` |
//! | `<prefix>:events:<name>:log` | sorted set: score the position, member `{"at":MS,"o":OCCURRENCE}`; the type's last `retain` |
//! | `<prefix>:events:sent:<eventId>` | an append done (60 s): a resent append is not taken twice |
//! | channel `<prefix>:events` | each append, `{"epoch","seq","name","entry"}`, for every instance's registry |
//!
//! An emit queues its append (one script: position, log, trim, publish) and returns; one task
//! per process appends in emit order (what waits goes in one pipelined round trip), retrying
//! for about 10 s while Redis is unreachable. Each
//! instance takes what is published into its registry ([`EventRegistry::mirror`]) and, once a
//! second and whenever it sees a gap, compares its positions with the log's and fetches what it
//! missed (pub/sub keeps nothing for an instance that was down or reconnecting).

use super::Redis;
use crate::error::ErrorData;
use crate::events::{EventRegistry, Position, SharedLog};
use crate::protocol::events::EventOccurrence;
use serde::Deserialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

/// Appends waiting for Redis, at most; beyond, an emit's append is dropped (and logged).
const QUEUE_MAX: usize = 10_000;
/// Appends sent in one pipelined round trip, at most.
const APPEND_BATCH: usize = 128;
/// How long one append is retried while Redis cannot be reached.
const APPEND_PATIENCE: Duration = Duration::from_secs(10);
/// How often an instance compares its positions with the log's.
const RECONCILE_EVERY: Duration = Duration::from_secs(1);
/// Occurrences fetched by one catch-up request.
const FETCH_PAGE: usize = 256;
/// Catch-up requests for one type in one round, at most.
const FETCH_ROUNDS: usize = 64;

/// Position, log, trim and publish, once per event id. KEYS: epoch, seq, log, sent. ARGV: a new
/// epoch (used when none is set), the entry, retain, the name as JSON, the channel.
const APPEND: &str = r#"
if not redis.call('SET', KEYS[4], '1', 'NX', 'EX', 60) then return 0 end
local e = redis.call('GET', KEYS[1])
if not e then
  e = ARGV[1]
  redis.call('SET', KEYS[1], e)
end
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], seq, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PUBLISH', ARGV[5], '{"epoch":"' .. e .. '","seq":' .. seq .. ',"name":' .. ARGV[4] .. ',"entry":' .. ARGV[2] .. '}')
return seq
"#;

/// The epoch, the last position and the entries after a position. KEYS: epoch, seq, log.
/// ARGV: the position, how many.
const FETCH: &str = r#"
local e = redis.call('GET', KEYS[1])
if not e then return {} end
local head = redis.call('GET', KEYS[2]) or '0'
local items = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
return {e, head, items}
"#;

/// The epoch (drawn now when there is none: ARGV[1]) and the last position of each type.
/// KEYS: epoch, then each type's seq.
const HEADS: &str = r#"
local e = redis.call('GET', KEYS[1])
if not e then
  e = ARGV[1]
  redis.call('SET', KEYS[1], e)
end
local out = {e}
for i = 2, #KEYS do out[i] = redis.call('GET', KEYS[i]) or '0' end
return out
"#;

/// One append waiting to go.
struct Append {
    name: String,
    event_id: String,
    entry: String,
    retain: usize,
}

/// What is published on the channel for each append.
#[derive(Deserialize)]
struct Published {
    epoch: String,
    seq: u64,
    name: String,
    entry: Entry,
}

/// One kept occurrence: when it was emitted and what it was.
#[derive(Deserialize)]
struct Entry {
    at: u64,
    o: EventOccurrence,
}

/// The occurrences of the Events extension shared by the instances of a fleet in Redis (see
/// the module's documentation). Open it with [`Redis::events`]; a registry shares it with
/// [`EventRegistry::share`] (a [`crate::Server`] does in `with_scale_out`).
#[derive(Clone)]
pub struct RedisEventLog {
    redis: Redis,
    /// The webhook subscriptions of the registries sharing this log.
    subscriptions: Arc<super::RedisWebhookStore>,
    queue: mpsc::UnboundedSender<Append>,
    queued: Arc<AtomicUsize>,
}

impl std::fmt::Debug for RedisEventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventLog").field("redis", &self.redis).finish_non_exhaustive()
    }
}

impl RedisEventLog {
    /// A log on `redis`; starts its appending task (needs a tokio runtime).
    pub(super) fn on(redis: Redis) -> Self {
        let (queue, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        tokio::spawn(append_all(redis.clone(), rx, queued.clone()));
        let subscriptions = Arc::new(redis.webhooks());
        RedisEventLog { redis, subscriptions, queue, queued }
    }
}

impl SharedLog for RedisEventLog {
    fn append(&self, name: &str, occurrence: &EventOccurrence, json: &str, at_ms: u64, retain: usize) {
        if self.queued.fetch_add(1, Ordering::Relaxed) >= QUEUE_MAX {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            tracing::warn!(target: "mcpcore::events", event = name, "occurrence dropped: {QUEUE_MAX} appends already wait for Redis");
            return;
        }
        // `Entry` as JSON, around the occurrence the emit already serialized.
        let entry = format!(r#"{{"at":{at_ms},"o":{json}}}"#);
        let append = Append {
            name: name.to_owned(),
            event_id: occurrence.event_id.clone(),
            entry,
            retain: retain.max(1),
        };
        if self.queue.send(append).is_err() {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn attach(&self, registry: Weak<EventRegistry>) {
        if let Some(r) = registry.upgrade() {
            if let Err(e) = first_catch_up(&self.redis, &r) {
                tracing::warn!(target: "mcpcore::events", error = %e, "the shared events log could not be read at start; catching up in the background");
            }
        }
        tokio::spawn(mirror(self.redis.clone(), registry));
    }

    fn subscriptions(&self) -> Option<Arc<dyn crate::events::webhook::SubscriptionStore>> {
        Some(self.subscriptions.clone())
    }
}

/// Appends what is queued, in order, up to [`APPEND_BATCH`] in one pipelined round trip; a
/// batch is retried for [`APPEND_PATIENCE`] while Redis is away (each append is taken once per
/// event id, so a batch resent after a lost reply adds nothing twice).
async fn append_all(redis: Redis, mut rx: mpsc::UnboundedReceiver<Append>, queued: Arc<AtomicUsize>) {
    let mut batch = Vec::with_capacity(APPEND_BATCH);
    while rx.recv_many(&mut batch, APPEND_BATCH).await > 0 {
        let started = tokio::time::Instant::now();
        let mut wait = Duration::from_millis(50);
        loop {
            match append_batch(&redis, &batch).await {
                Ok(()) => break,
                Err(e) if started.elapsed() < APPEND_PATIENCE => {
                    tracing::debug!(target: "mcpcore::events", appends = batch.len(), error = %e.message, "append failed, retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(1));
                }
                Err(e) => {
                    for a in &batch {
                        tracing::warn!(target: "mcpcore::events", event = %a.name, event_id = %a.event_id, error = %e.message, "occurrence dropped: Redis did not take it");
                    }
                    break;
                }
            }
        }
        queued.fetch_sub(batch.len(), Ordering::Relaxed);
        batch.clear();
    }
}

/// One pipelined round trip of `batch`'s append scripts, in order.
async fn append_batch(redis: &Redis, batch: &[Append]) -> Result<(), ErrorData> {
    let mut pipe = redis::pipe();
    for a in batch {
        pipe.add_command(append_cmd(redis, a)).ignore();
    }
    redis.run_pipe(&pipe).await
}

/// The append script's command for `a`.
fn append_cmd(redis: &Redis, a: &Append) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(APPEND)
        .arg(4)
        .arg(redis.key("events:epoch"))
        .arg(redis.key(&format!("events:{}:seq", a.name)))
        .arg(redis.key(&format!("events:{}:log", a.name)))
        .arg(redis.key(&format!("events:sent:{}", a.event_id)))
        .arg(crate::runtime::entropy::random_u64().to_string())
        .arg(&a.entry)
        .arg(a.retain)
        .arg(serde_json::to_string(&a.name).expect("a string serializes"))
        .arg(redis.key("events"));
    cmd
}

/// Why the mirroring task woke.
enum Woke {
    /// A message on the channel.
    Message(String),
    /// The subscription ended.
    Ended,
    /// Time to compare positions with the log.
    Tick,
}

/// Hands `registry` what the log publishes, and catches up once a second and on each gap;
/// ends when the registry is dropped. The first catch-up, at once, gives the registry the log's
/// epoch: a cursor given before it (the first milliseconds of an instance) reads as a gap
/// later, never as a wrong position.
async fn mirror(redis: Redis, registry: Weak<EventRegistry>) {
    let mut subscription = None;
    let mut tick = tokio::time::interval(RECONCILE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        if subscription.is_none() {
            // Subscribed before catching up: what is appended meanwhile is heard, not missed.
            subscription = redis.subscribe(redis.key("events")).await.ok();
        }
        let woke = tokio::select! {
            m = async { subscription.as_mut().expect("checked").recv().await }, if subscription.is_some() => {
                m.map_or(Woke::Ended, Woke::Message)
            }
            _ = tick.tick() => Woke::Tick,
        };
        let Some(registry) = registry.upgrade() else { return };
        let caught_up = match woke {
            Woke::Message(text) => match serde_json::from_str::<Published>(&text) {
                Ok(p) => {
                    let Ok(epoch) = p.epoch.parse::<u64>() else { continue };
                    registry.mirror(epoch, &p.name, p.seq, p.entry.at, p.entry.o);
                    if registry.get(&p.name).is_none() || registry.head(&p.name).seq >= p.seq {
                        continue;
                    }
                    // Something before it never came: fetch it.
                    catch_up(&redis, &registry, &p.name).await
                }
                Err(e) => {
                    tracing::debug!(target: "mcpcore::events", error = %e, "unreadable message on the events channel");
                    continue;
                }
            },
            Woke::Ended => {
                subscription = None;
                reconcile(&redis, &registry).await
            }
            Woke::Tick => reconcile(&redis, &registry).await,
        };
        if let Err(e) = caught_up {
            tracing::debug!(target: "mcpcore::events", error = %e.message, "catching up with the shared log failed");
        }
    }
}

/// The command reading the log's epoch (drawing one when there is none) and the last
/// position of each type of `positions`.
fn heads_cmd(redis: &Redis, positions: &[(String, Position)]) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(HEADS).arg(positions.len() + 1).arg(redis.key("events:epoch"));
    for (name, _) in positions {
        cmd.arg(redis.key(&format!("events:{name}:seq")));
    }
    cmd.arg(crate::runtime::entropy::random_u64().to_string());
    cmd
}

/// The types of `positions` this instance is behind in, from the log's heads.
fn behind(positions: &[(String, Position)], heads: &[String]) -> Vec<String> {
    let Some(epoch) = heads.first().and_then(|e| e.parse::<u64>().ok()) else { return Vec::new() };
    positions
        .iter()
        .zip(heads.iter().skip(1))
        .filter(|((_, at), head)| at.epoch != epoch || head.parse::<u64>().unwrap_or(0) > at.seq)
        .map(|((name, _), _)| name.clone())
        .collect()
}

/// Compares each type's position with the log's and fetches what this instance missed.
async fn reconcile(redis: &Redis, registry: &EventRegistry) -> Result<(), ErrorData> {
    let positions = registry.positions();
    if positions.is_empty() {
        return Ok(());
    }
    let heads: Vec<String> = redis.run(&heads_cmd(redis, &positions)).await?;
    for name in behind(&positions, &heads) {
        catch_up(redis, registry, &name).await?;
    }
    Ok(())
}

/// The first catch-up, before the server serves: the log's epoch and what it keeps, so that
/// no cursor is given under this process's own epoch and a null cursor starts from the log's
/// end. On its own blocking connection (a server is built outside any `await`); at most about
/// two seconds, after which the mirroring task catches up as Redis allows.
fn first_catch_up(redis: &Redis, registry: &EventRegistry) -> redis::RedisResult<()> {
    let positions = registry.positions();
    if positions.is_empty() {
        return Ok(());
    }
    let mut conn = redis.client.get_connection_with_timeout(Duration::from_secs(1))?;
    conn.set_read_timeout(Some(Duration::from_secs(1)))?;
    conn.set_write_timeout(Some(Duration::from_secs(1)))?;
    let heads: Vec<String> = heads_cmd(redis, &positions).query(&mut conn)?;
    for name in behind(&positions, &heads) {
        for _ in 0..FETCH_ROUNDS {
            let at = registry.head(&name);
            let reply: Vec<redis::Value> = fetch_cmd(redis, &name, at.seq).query(&mut conn)?;
            let more = parse_page(reply).is_ok_and(|page| apply(registry, &name, at, page));
            if !more {
                break;
            }
        }
    }
    Ok(())
}

/// One page of the log of a type: its epoch, its last position, and `(position, entry)`s.
type Page = (u64, u64, Vec<(u64, String)>);

/// The command reading the entries of `name` after position `after`.
fn fetch_cmd(redis: &Redis, name: &str, after: u64) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(FETCH)
        .arg(3)
        .arg(redis.key("events:epoch"))
        .arg(redis.key(&format!("events:{name}:seq")))
        .arg(redis.key(&format!("events:{name}:log")))
        .arg(after)
        .arg(FETCH_PAGE);
    cmd
}

/// A page from [`FETCH`]'s reply (`None`: the log has no epoch yet, nothing was appended).
fn parse_page(reply: Vec<redis::Value>) -> Result<Option<Page>, ErrorData> {
    if reply.is_empty() {
        return Ok(None);
    }
    let corrupt =
        |why: String| ErrorData::internal(format!("Internal error: a corrupt events log in Redis: {why}"));
    let mut parts = reply.into_iter();
    let (Some(epoch), Some(head), Some(items)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(corrupt("the reply has not three parts".into()));
    };
    let text = |v: redis::Value| redis::from_redis_value::<String>(v).map_err(|e| corrupt(e.to_string()));
    let number = |t: &str| t.parse::<u64>().map_err(|e| corrupt(format!("{t:?}: {e}")));
    let epoch = number(&text(epoch)?)?;
    let head = number(&text(head)?)?;
    let items: Vec<String> = redis::from_redis_value(items).map_err(|e| corrupt(e.to_string()))?;
    // WITHSCORES: member, score, member, score…
    let mut entries = Vec::with_capacity(items.len() / 2);
    for pair in items.chunks_exact(2) {
        entries.push((number(&pair[1])?, pair[0].clone()));
    }
    Ok(Some((epoch, head, entries)))
}

/// Hands `registry` one page of the log of `name` fetched from position `at`; true when
/// another page is to be fetched (from the registry's new position).
fn apply(registry: &EventRegistry, name: &str, at: Position, page: Option<Page>) -> bool {
    let Some((epoch, head, items)) = page else { return false };
    if epoch != at.epoch {
        // The log's epoch is new here (this instance just joined, or the log started over):
        // adopt it, and fetch again from its beginning.
        registry.skip(epoch, name, 0);
        return true;
    }
    let Some(first) = items.first().map(|(seq, _)| *seq) else {
        // Nothing kept after this position, though the log went on: given up.
        if head > at.seq {
            registry.skip(epoch, name, head);
        }
        return false;
    };
    if first > at.seq + 1 {
        registry.skip(epoch, name, first - 1);
    }
    let full = items.len() == FETCH_PAGE;
    for (seq, member) in items {
        if let Ok(entry) = serde_json::from_str::<Entry>(&member) {
            registry.mirror(epoch, name, seq, entry.at, entry.o);
        }
    }
    full
}

/// Fetches the occurrences of `name` after this instance's position, in pages; gives up those
/// the log no longer keeps ([`EventRegistry::skip`]).
async fn catch_up(redis: &Redis, registry: &EventRegistry, name: &str) -> Result<(), ErrorData> {
    for _ in 0..FETCH_ROUNDS {
        let at = registry.head(name);
        let reply: Vec<redis::Value> = redis.run(&fetch_cmd(redis, name, at.seq)).await?;
        if !apply(registry, name, at, parse_page(reply)?) {
            return Ok(());
        }
    }
    Ok(())
}
