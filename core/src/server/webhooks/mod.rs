//! Webhook delivery of the Events extension (SEP-3415 §Webhook delivery, rev. 5eb6862): the
//! [`WebhookHub`] a [`Server`](super::Server) installs on its
//! [`EventRegistry`]. It keeps each subscription (the key `(principal, url, name, arguments)`,
//! its secret, TTL and position), verifies a new callback with a signed challenge before
//! anything else is sent to it, and runs one delivery task per subscription: each occurrence
//! after the subscription's position, POSTed signed as Standard Webhooks, retried with backoff
//! up to [`WebhookPolicy::attempts`], a `gap` envelope when occurrences were dropped, until the
//! TTL runs out or the client unsubscribes. Subscriptions live in this process's memory, or,
//! when the registry shares them with a fleet ([`EventRegistry::shared_subscriptions`]), in
//! the fleet's store, each delivered by one instance at a time ([`fleet`]).

mod deliver;
mod fleet;
mod receive;
#[cfg(test)]
mod tests;

pub use receive::receiver_router;

use crate::changes::{Change, Subscription};
use crate::events::webhook::{Granted, Subscribe, SubscriptionKey, Ttl, WebhookError, WebhookHub};
use crate::events::{EventRegistry, Position};
use crate::future::BoxFuture;
use crate::protocol::events::{Dialect, EventsErrorKind};
use crate::state::StateKeys;
use deliver::Callback;
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};
use tokio::sync::Notify;

/// How a server delivers webhooks.
#[derive(Debug, Clone)]
pub struct WebhookPolicy {
    /// Development only: accept `http://` callbacks on loopback addresses (127.0.0.1, ::1,
    /// `localhost`), which are refused otherwise (a callback must be `https` to a public
    /// address). `--events-allow-http-loopback` on the example servers.
    pub allow_http_loopback: bool,
    /// Development only: accept subscriptions from callers without an authenticated principal
    /// (they all share one). Refused otherwise: SEP-3415 requires a principal.
    pub allow_anonymous: bool,
    /// The TTL granted when the client names none.
    pub default_ttl: Duration,
    /// The shortest TTL granted (a shorter ask is raised to it).
    pub min_ttl: Duration,
    /// The longest TTL granted (a longer ask, or none, is lowered to it).
    pub max_ttl: Duration,
    /// Attempts per occurrence before it is abandoned (at least 1).
    pub attempts: u32,
    /// The wait before the first retry; each next one doubles it.
    pub backoff: Duration,
    /// How long one POST may take.
    pub timeout: Duration,
    /// Subscriptions this server keeps at most.
    pub max_subscriptions: usize,
    /// Subscriptions one principal keeps at most.
    pub max_per_principal: usize,
}

impl WebhookPolicy {
    /// The default policy, or the development one when either development option is on, with
    /// exactly those options: what the bindings' `allow_http_loopback` / `allow_anonymous`
    /// settings make.
    pub fn with_options(allow_http_loopback: bool, allow_anonymous: bool) -> Self {
        let base = if allow_http_loopback || allow_anonymous {
            WebhookPolicy::development()
        } else {
            WebhookPolicy::default()
        };
        WebhookPolicy { allow_http_loopback, allow_anonymous, ..base }
    }
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy {
            allow_http_loopback: false,
            allow_anonymous: false,
            default_ttl: Duration::from_secs(3600),
            min_ttl: Duration::from_secs(1),
            max_ttl: Duration::from_secs(24 * 3600),
            attempts: 5,
            backoff: Duration::from_secs(2),
            timeout: Duration::from_secs(10),
            max_subscriptions: 10_000,
            max_per_principal: 100,
        }
    }
}

impl WebhookPolicy {
    /// The development policy: loopback `http` callbacks and anonymous subscribers accepted,
    /// quick retries. Never for a server others can reach.
    pub fn development() -> Self {
        WebhookPolicy {
            allow_http_loopback: true,
            allow_anonymous: true,
            backoff: Duration::from_millis(200),
            ..WebhookPolicy::default()
        }
    }
}

/// Counters of deliveries, for logs and metrics.
#[derive(Debug, Default)]
pub struct WebhookStats {
    /// POSTs made (every attempt, verifications included).
    pub attempts: AtomicU64,
    /// Occurrences and envelopes acknowledged with a 2xx.
    pub delivered: AtomicU64,
    /// Occurrences and envelopes abandoned after their last attempt or a 410/413.
    pub abandoned: AtomicU64,
}

/// One subscription.
#[derive(Debug)]
struct Sub {
    key: SubscriptionKey,
    id: String,
    callback: Callback,
    state: Mutex<SubState>,
    wake: Notify,
}

#[derive(Debug)]
struct SubState {
    secret: Vec<u8>,
    keys: StateKeys,
    /// The error codes of the client that subscribed (a refresh by the same key takes its own).
    dialect: Dialect,
    expires: Option<SystemTime>,
    position: Position,
    not_before_ms: Option<u64>,
    task: Option<tokio::task::AbortHandle>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The subscriptions delivered here (in a fleet: those this hub holds).
    subs: Mutex<HashMap<String, Arc<Sub>>>,
    /// This hub's name as a holder of fleet subscriptions.
    holder: String,
    /// The fleet's claim loop runs.
    claiming: std::sync::atomic::AtomicBool,
    /// Callbacks verified, by (principal, url).
    verified: Mutex<HashMap<(String, String), ()>>,
    clients: deliver::Clients,
}

/// What a subscribe needs of the hub, cheap to clone into its future.
#[derive(Debug, Clone)]
struct Core {
    registry: Weak<EventRegistry>,
    policy: WebhookPolicy,
    inner: Arc<Inner>,
    stats: Arc<WebhookStats>,
}

/// The webhook hub of one [`EventRegistry`] (see the module's documentation).
#[derive(Debug)]
pub struct Webhooks {
    core: Core,
    _feed: Subscription,
}

impl Webhooks {
    /// A hub delivering the occurrences of `registry` under `policy`; install it with
    /// [`EventRegistry::set_webhooks`] (a [`Server`](super::Server) does).
    pub fn new(registry: &Arc<EventRegistry>, policy: WebhookPolicy) -> Arc<Webhooks> {
        let inner = Arc::new(Inner { holder: crate::runtime::entropy::random_id(), ..Inner::default() });
        let weak = Arc::downgrade(&inner);
        // Each emit wakes the delivery tasks of its type (quick: the feed's callback runs on
        // the emitting thread).
        let feed = registry.changes().subscribe(move |c| {
            let (Change::Event(name), Some(inner)) = (c, weak.upgrade()) else { return };
            for sub in inner.subs.lock().expect("lock").values().filter(|s| &s.key.name == name) {
                sub.wake.notify_one();
            }
        });
        let core = Core { registry: Arc::downgrade(registry), policy, inner, stats: Arc::default() };
        let hub = Arc::new(Webhooks { core, _feed: feed });
        if registry.shared_subscriptions().is_some() {
            hub.shared();
        }
        hub
    }

    /// The delivery counters.
    pub fn stats(&self) -> &WebhookStats {
        &self.core.stats
    }

    /// Number of live subscriptions.
    pub fn len(&self) -> usize {
        self.core.inner.subs.lock().expect("lock").len()
    }

    /// True when there is no subscription.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Core {
    fn grant(&self, ttl: Ttl, now: SystemTime) -> SystemTime {
        let asked = match ttl {
            Ttl::Default => self.policy.default_ttl,
            Ttl::Forever => self.policy.max_ttl,
            Ttl::Millis(ms) => Duration::from_millis(ms),
        };
        now + asked.clamp(self.policy.min_ttl, self.policy.max_ttl.max(self.policy.min_ttl))
    }

    async fn subscribe_now(self, mut req: Subscribe) -> Result<Granted, WebhookError> {
        let Some(registry) = self.registry.upgrade() else {
            return Err(WebhookError::Rpc(crate::ErrorData::internal("Internal error: the events are gone")));
        };
        if req.key.principal.is_empty() {
            if !self.policy.allow_anonymous {
                let why = "A webhook subscription needs an authenticated caller".to_owned();
                return Err(WebhookError::Events(
                    EventsErrorKind::Forbidden,
                    why,
                    json!({ "reason": "unauthenticated" }),
                ));
            }
            req.key.principal = "anonymous".into();
        }
        if let Some(store) = registry.shared_subscriptions() {
            return fleet::subscribe(self, req, store, registry).await;
        }
        let id = req.key.id();
        let now = SystemTime::now();
        let expires = Some(self.grant(req.ttl, now));
        let existing = self.inner.subs.lock().expect("lock").get(&id).cloned();
        if let Some(sub) = existing {
            // A refresh: a new secret and TTL; the position stays (a cursor at or behind it
            // changes nothing, SEP-3415 §Subscribe).
            let mut st = sub.state.lock().expect("lock");
            st.secret = std::mem::take(&mut req.secret);
            st.keys = req.keys.clone();
            st.dialect = req.dialect;
            st.expires = expires;
            return Ok(Granted { id, refresh_before: expires, position: st.position, truncated: false });
        }
        let (all, mine) = {
            let subs = self.inner.subs.lock().expect("lock");
            (subs.len(), subs.values().filter(|s| s.key.principal == req.key.principal).count())
        };
        self.check_room(all, mine)?;
        let callback = self.checked_callback(&req, &id).await?;
        let (position, truncated) = start_of(&registry, &req);
        let sub =
            self.sub(req.key, id.clone(), callback, req.secret, req.keys, req.dialect, expires, position);
        {
            let mut subs = self.inner.subs.lock().expect("lock");
            if let Some(raced) = subs.get(&id) {
                // Two first subscribes of one key at once: the first one stands.
                let st = raced.state.lock().expect("lock");
                return Ok(Granted {
                    id,
                    refresh_before: st.expires,
                    position: st.position,
                    truncated: false,
                });
            }
            subs.insert(id.clone(), sub.clone());
        }
        self.deliver(&sub);
        tracing::debug!(target: "mcpcore::events", subscription = %id, "webhook subscription created");
        Ok(Granted { id, refresh_before: expires, position, truncated })
    }

    /// The callback of `req`, checked under the policy and verified (once per principal and
    /// URL) before anything is delivered to it.
    async fn checked_callback(&self, req: &Subscribe, id: &str) -> Result<Callback, WebhookError> {
        let callback = deliver::Callback::check(&req.key.url, &self.policy, &self.inner.clients).await?;
        let verified_key = (req.key.principal.clone(), req.key.url.clone());
        if !self.inner.verified.lock().expect("lock").contains_key(&verified_key) {
            deliver::verify(&callback, &req.secret, id, &self.stats).await?;
            self.inner.verified.lock().expect("lock").insert(verified_key, ());
        }
        Ok(callback)
    }

    /// A subscription as this hub delivers it.
    #[allow(clippy::too_many_arguments)]
    fn sub(
        &self,
        key: SubscriptionKey,
        id: String,
        callback: Callback,
        secret: Vec<u8>,
        keys: StateKeys,
        dialect: Dialect,
        expires: Option<SystemTime>,
        position: Position,
    ) -> Arc<Sub> {
        Arc::new(Sub {
            key,
            id,
            callback,
            state: Mutex::new(SubState {
                secret,
                keys,
                dialect,
                expires,
                position,
                not_before_ms: None,
                task: None,
            }),
            wake: Notify::new(),
        })
    }

    /// Starts the delivery task of `sub` (already in `subs`).
    fn deliver(&self, sub: &Arc<Sub>) {
        let task = tokio::spawn(deliver::run(
            Arc::downgrade(&self.inner),
            self.registry.clone(),
            sub.clone(),
            self.policy.clone(),
            self.stats.clone(),
        ));
        sub.state.lock().expect("lock").task = Some(task.abort_handle());
    }

    /// ResourceExhausted when `all` subscriptions, or `mine` of the caller's principal, are as
    /// many as the policy allows.
    fn check_room(&self, all: usize, mine: usize) -> Result<(), WebhookError> {
        let (max, n) = if all >= self.policy.max_subscriptions {
            (self.policy.max_subscriptions, all)
        } else {
            (self.policy.max_per_principal, mine)
        };
        if n >= max {
            let why = format!("Too many webhook subscriptions (at most {max})");
            return Err(WebhookError::Events(
                EventsErrorKind::ResourceExhausted,
                why,
                json!({ "limit": "subscriptions", "max": max }),
            ));
        }
        Ok(())
    }

    async fn unsubscribe_now(self, mut key: SubscriptionKey) -> Result<(), WebhookError> {
        if key.principal.is_empty() && self.policy.allow_anonymous {
            key.principal = "anonymous".into();
        }
        let id = key.id();
        let removed = self.inner.subs.lock().expect("lock").remove(&id);
        if let Some(sub) = &removed {
            if let Some(task) = sub.state.lock().expect("lock").task.take() {
                task.abort();
            }
        }
        let store = self.registry.upgrade().and_then(|r| r.shared_subscriptions());
        let existed = match store {
            Some(store) => store.remove(&id).await.map_err(WebhookError::Rpc)?,
            None => removed.is_some(),
        };
        match existed {
            true => Ok(()),
            false => {
                let why = "No webhook subscription has this key (principal, url, name, arguments)".to_owned();
                Err(WebhookError::Events(EventsErrorKind::NotFound, why, json!({ "kind": "subscription" })))
            }
        }
    }
}

/// Where a new subscription's delivery starts, and whether occurrences before it were dropped.
fn start_of(registry: &EventRegistry, req: &Subscribe) -> (Position, bool) {
    match req.after {
        None => (registry.head(&req.key.name), false),
        Some(p) => {
            let read = registry.read(&req.key.name, Some(p), 1, req.not_before_ms);
            (read.start(), read.truncated)
        }
    }
}

impl Drop for Webhooks {
    /// A hub replaced ([`EventRegistry::set_webhooks`]) or gone takes its deliveries with it.
    fn drop(&mut self) {
        if let Ok(mut subs) = self.core.inner.subs.lock() {
            for (_, sub) in subs.drain() {
                if let Some(task) = sub.state.lock().ok().and_then(|mut s| s.task.take()) {
                    task.abort();
                }
            }
        }
    }
}

impl WebhookHub for Webhooks {
    fn subscribe(&self, request: Subscribe) -> BoxFuture<'static, Result<Granted, WebhookError>> {
        Box::pin(self.core.clone().subscribe_now(request))
    }

    fn unsubscribe(&self, key: SubscriptionKey) -> BoxFuture<'static, Result<(), WebhookError>> {
        Box::pin(self.core.clone().unsubscribe_now(key))
    }

    fn shared(&self) {
        if self.core.inner.claiming.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(fleet::claim_loop(self.core.clone_weak()));
            }
            Err(_) => self.core.inner.claiming.store(false, std::sync::atomic::Ordering::Release),
        }
    }
}
