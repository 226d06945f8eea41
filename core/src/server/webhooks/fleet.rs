//! Webhook subscriptions kept by a fleet ([`SubscriptionStore`]; issue 48, "Subscriptions in a
//! fleet"): a subscribe, refresh or unsubscribe on any instance changes the one stored
//! subscription; exactly one instance delivers it at a time, holding a lease it renews every
//! [`CLAIM_EVERY`]; when that instance dies its lease runs out and another takes the
//! subscription over from the position stored after each acknowledged delivery. So a delivery
//! the dead instance made but had not yet recorded is made again, with the same `webhook-id`
//! (the occurrence's id), which a receiver drops as a duplicate (Standard Webhooks).

use super::{start_of, Core, Inner, WebhookPolicy, WebhookStats};
use crate::events::webhook::{Granted, StoredSubscription, Subscribe, SubscriptionStore, WebhookError};
use crate::events::{millis, EventRegistry};
use std::collections::HashSet;
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a hub holds a subscription's delivery without renewing.
pub(super) const LEASE: Duration = Duration::from_secs(6);
/// How often a hub renews its leases and takes subscriptions nobody holds.
const CLAIM_EVERY: Duration = Duration::from_secs(2);
/// Subscriptions a hub takes over in one round, at most (the others are left to other instances
/// or the next round).
const MAX_NEW: usize = 64;

/// A [`Core`] that does not keep its hub alive (the claim loop's).
#[derive(Debug, Clone)]
pub(super) struct WeakCore {
    registry: Weak<EventRegistry>,
    policy: WebhookPolicy,
    inner: Weak<Inner>,
    stats: Arc<WebhookStats>,
}

impl Core {
    pub(super) fn clone_weak(&self) -> WeakCore {
        WeakCore {
            registry: self.registry.clone(),
            policy: self.policy.clone(),
            inner: Arc::downgrade(&self.inner),
            stats: self.stats.clone(),
        }
    }
}

impl WeakCore {
    fn upgrade(&self) -> Option<Core> {
        Some(Core {
            registry: self.registry.clone(),
            policy: self.policy.clone(),
            inner: self.inner.upgrade()?,
            stats: self.stats.clone(),
        })
    }
}

fn rpc(e: crate::ErrorData) -> WebhookError {
    WebhookError::Rpc(e)
}

fn at_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `events/subscribe` on a fleet: a refresh of the stored subscription (a new secret, TTL and
/// dialect; the position stays), or a new one, checked and verified here, stored, and
/// delivered from here at once when nobody else holds it.
pub(super) async fn subscribe(
    core: Core,
    req: Subscribe,
    store: Arc<dyn SubscriptionStore>,
    registry: Arc<EventRegistry>,
) -> Result<Granted, WebhookError> {
    let id = req.key.id();
    let now = SystemTime::now();
    let expires = core.grant(req.ttl, now);
    if let Some(mut stored) = store.get(&id).await.map_err(rpc)? {
        stored.secret = req.secret.clone();
        stored.dialect = req.dialect;
        stored.expires_ms = Some(at_ms(expires));
        store.put(&id, &stored, None, LEASE).await.map_err(rpc)?;
        if let Some(sub) = core.inner.subs.lock().expect("lock").get(&id).cloned() {
            let mut st = sub.state.lock().expect("lock");
            st.secret = req.secret;
            st.dialect = req.dialect;
            st.expires = Some(expires);
        }
        return Ok(Granted {
            id,
            refresh_before: Some(expires),
            position: stored.position,
            truncated: false,
        });
    }
    let (all, mine) = store.count(&req.key.principal, millis(now)).await.map_err(rpc)?;
    core.check_room(all, mine)?;
    let callback = core.checked_callback(&req, &id).await?;
    let (position, truncated) = start_of(&registry, &req);
    let stored = StoredSubscription {
        key: req.key.clone(),
        secret: req.secret.clone(),
        dialect: req.dialect,
        expires_ms: Some(at_ms(expires)),
        position,
    };
    let held = store.put(&id, &stored, Some(&core.inner.holder), LEASE).await.map_err(rpc)?;
    if held {
        let sub = core.sub(
            req.key,
            id.clone(),
            callback,
            req.secret,
            req.keys,
            req.dialect,
            Some(expires),
            position,
        );
        let fresh = core.inner.subs.lock().expect("lock").insert(id.clone(), sub.clone()).is_none();
        if fresh {
            core.deliver(&sub);
        }
    }
    tracing::debug!(target: "mcpcore::events", subscription = %id, held, "webhook subscription stored for the fleet");
    Ok(Granted { id, refresh_before: Some(expires), position, truncated })
}

/// Renews this hub's leases every [`CLAIM_EVERY`], takes over subscriptions nobody holds, and
/// stops delivering those it no longer holds (unsubscribed, expired, or its lease lost while
/// Redis was away); ends with the hub.
pub(super) async fn claim_loop(weak: WeakCore) {
    let mut tick = tokio::time::interval(CLAIM_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_renewed = tokio::time::Instant::now();
    loop {
        tick.tick().await;
        let Some(core) = weak.upgrade() else { return };
        let Some(registry) = core.registry.upgrade() else { return };
        let Some(store) = registry.shared_subscriptions() else { continue };
        drop(registry);
        match store.claim(&core.inner.holder, LEASE, MAX_NEW, at_ms(SystemTime::now())).await {
            Ok(ids) => {
                last_renewed = tokio::time::Instant::now();
                let held: HashSet<&str> = ids.iter().map(String::as_str).collect();
                core.stop_where(|id| !held.contains(id));
                for id in &ids {
                    if !core.inner.subs.lock().expect("lock").contains_key(id) {
                        take_over(&core, store.as_ref(), id).await;
                    }
                }
            }
            Err(e) => {
                tracing::debug!(target: "mcpcore::events", error = %e.message, "renewing webhook leases failed");
                if last_renewed.elapsed() >= LEASE {
                    // Another instance may hold them by now: stop, rather than deliver twice.
                    core.stop_where(|_| true);
                }
            }
        }
    }
}

/// Starts delivering stored subscription `id` here, from its stored position.
async fn take_over(core: &Core, store: &dyn SubscriptionStore, id: &str) {
    let Ok(Some(stored)) = store.get(id).await else { return };
    let keys = match core.registry.upgrade() {
        Some(r) => r.fleet_keys(),
        None => return,
    };
    let callback = match super::deliver::Callback::check(&stored.key.url, &core.policy, &core.inner.clients)
        .await
    {
        Ok(c) => c,
        Err(_) => {
            tracing::warn!(target: "mcpcore::events", subscription = %id, "a stored webhook callback no longer passes the policy; not delivered here");
            return;
        }
    };
    let expires = stored.expires_ms.map(|ms| UNIX_EPOCH + Duration::from_millis(ms));
    let sub = core.sub(
        stored.key,
        id.to_owned(),
        callback,
        stored.secret,
        keys,
        stored.dialect,
        expires,
        stored.position,
    );
    let fresh = core.inner.subs.lock().expect("lock").insert(id.to_owned(), sub.clone()).is_none();
    if fresh {
        core.deliver(&sub);
        tracing::info!(target: "mcpcore::events", subscription = %id, "webhook subscription taken over");
    }
}

impl Core {
    /// Stops delivering, here, the subscriptions whose id `stop` names.
    fn stop_where(&self, stop: impl Fn(&str) -> bool) {
        let stopped: Vec<_> = {
            let mut subs = self.inner.subs.lock().expect("lock");
            let ids: Vec<String> = subs.keys().filter(|id| stop(id)).cloned().collect();
            ids.into_iter().filter_map(|id| subs.remove(&id)).collect()
        };
        for sub in stopped {
            if let Some(task) = sub.state.lock().expect("lock").task.take() {
                task.abort();
            }
        }
    }
}
