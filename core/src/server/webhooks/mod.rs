//! Webhook delivery of the Events extension (SEP-3415 §Webhook delivery, rev. 5eb6862): the
//! [`WebhookHub`] a [`Server`](super::Server) installs on its
//! [`EventRegistry`]. It keeps each subscription (the key `(principal, url, name, arguments)`,
//! its secret, TTL and position), verifies a new callback with a signed challenge before
//! anything else is sent to it, and runs one delivery task per subscription: each occurrence
//! after the subscription's position, POSTed signed as Standard Webhooks, retried with backoff
//! up to [`WebhookPolicy::attempts`], a `gap` envelope when occurrences were dropped, until the
//! TTL runs out or the client unsubscribes. Subscriptions live in this process's memory.

mod deliver;
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
    subs: Mutex<HashMap<String, Arc<Sub>>>,
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
        let inner = Arc::new(Inner::default());
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
        Arc::new(Webhooks { core, _feed: feed })
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
        self.check_room(&req.key.principal)?;
        let callback = deliver::Callback::check(&req.key.url, &self.policy, &self.inner.clients).await?;
        let verified_key = (req.key.principal.clone(), req.key.url.clone());
        if !self.inner.verified.lock().expect("lock").contains_key(&verified_key) {
            deliver::verify(&callback, &req.secret, &id, &self.stats).await?;
            self.inner.verified.lock().expect("lock").insert(verified_key, ());
        }
        let (position, truncated) = match req.after {
            None => (registry.head(&req.key.name), false),
            Some(p) => {
                let read = registry.read(&req.key.name, Some(p), 1, req.not_before_ms);
                (read.start(), read.truncated)
            }
        };
        let sub = Arc::new(Sub {
            key: req.key,
            id: id.clone(),
            callback,
            state: Mutex::new(SubState {
                secret: req.secret,
                keys: req.keys,
                dialect: req.dialect,
                expires,
                position,
                not_before_ms: None,
                task: None,
            }),
            wake: Notify::new(),
        });
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
        let task = tokio::spawn(deliver::run(
            Arc::downgrade(&self.inner),
            self.registry.clone(),
            sub.clone(),
            self.policy.clone(),
            self.stats.clone(),
        ));
        sub.state.lock().expect("lock").task = Some(task.abort_handle());
        tracing::debug!(target: "mcpcore::events", subscription = %id, "webhook subscription created");
        Ok(Granted { id, refresh_before: expires, position, truncated })
    }

    fn check_room(&self, principal: &str) -> Result<(), WebhookError> {
        let subs = self.inner.subs.lock().expect("lock");
        let (max, n) = if subs.len() >= self.policy.max_subscriptions {
            (self.policy.max_subscriptions, subs.len())
        } else {
            let mine = subs.values().filter(|s| s.key.principal == principal).count();
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

    fn unsubscribe_now(&self, mut key: SubscriptionKey) -> Result<(), WebhookError> {
        if key.principal.is_empty() && self.policy.allow_anonymous {
            key.principal = "anonymous".into();
        }
        let removed = self.inner.subs.lock().expect("lock").remove(&key.id());
        match removed {
            Some(sub) => {
                if let Some(task) = sub.state.lock().expect("lock").task.take() {
                    task.abort();
                }
                Ok(())
            }
            None => {
                let why = "No webhook subscription has this key (principal, url, name, arguments)".to_owned();
                Err(WebhookError::Events(EventsErrorKind::NotFound, why, json!({ "kind": "subscription" })))
            }
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
        let outcome = self.core.unsubscribe_now(key);
        Box::pin(async move { outcome })
    }
}
