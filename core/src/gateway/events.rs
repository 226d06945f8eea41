//! The gateway relays its upstreams' events (SEP-3415; issue 48): each event type of a mounted
//! upstream is declared in the gateway's own [`EventRegistry`] under the mount's prefix, and a
//! relay task follows it upstream — an `events/stream` when the type is pushed, polls at the
//! upstream's pace otherwise — re-emitting each occurrence here. Everything the gateway's
//! clients do then happens at the gateway: `events/list` (the visibility rules apply to the
//! prefixed names), polls, streams, and webhook subscriptions held by the gateway's hub and
//! signed with each caller's own secret. A relay resumes from its last upstream cursor after
//! the upstream reconnects.
//!
//! An upstream on 2026-07-28 that declares `listChanged` is followed on a
//! `subscriptions/listen` stream asking for `eventsListChanged`: each
//! `notifications/events/list_changed` mounts its types again, so a type it adds, changes or
//! removes is added, changed or removed here too (SEP-3415 §Dynamic event types). A legacy
//! upstream that declares `listChanged` sends the same notification on its session (the
//! gateway's client declares the extension in `initialize` for that), and is followed the same
//! way; any upstream's list is read again at each (re)connection.
//!
//! Relayed types take no subscription arguments: the relay follows each upstream type once,
//! with `{}` (a type whose `inputSchema` requires arguments is not relayed, and a log line
//! says so).

use crate::client::{Client, ServerEvent, StreamItem};
use crate::events::{EventDecl, EventRegistry};
use crate::protocol::events::{DeliveryMode, EventType, LIST_CHANGED};
use crate::protocol::subscriptions::SubscriptionFilter;
use crate::protocol::Lineage;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// What one upstream declared here: the local names, and the tasks relaying them.
type Mounted = (Vec<String>, Vec<tokio::task::AbortHandle>);

/// The relayed event types of a gateway.
#[derive(Debug)]
pub(crate) struct EventRelay {
    registry: Arc<EventRegistry>,
    /// Per upstream: what it declared.
    mounted: Mutex<BTreeMap<String, Mounted>>,
    /// The last upstream cursor of each local name (kept across reconnects).
    cursors: Arc<Mutex<HashMap<String, String>>>,
    /// Per upstream: the task following its list changes (replaced at each mount).
    watchers: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

impl EventRelay {
    pub(crate) fn new() -> EventRelay {
        EventRelay {
            registry: Arc::new(EventRegistry::new()),
            mounted: Mutex::default(),
            cursors: Arc::default(),
            watchers: Mutex::default(),
        }
    }

    /// The gateway's registry (served with the gateway's server).
    pub(crate) fn registry(&self) -> &Arc<EventRegistry> {
        &self.registry
    }

    /// Declares the event types of `upstream` (reached through `client`) under `prefix` and
    /// starts their relays; an upstream without the extension declares nothing. Replaces what
    /// an earlier mount of the same upstream declared. Then follows the upstream's list
    /// changes (see the module's documentation).
    pub(crate) async fn mount(self: &Arc<Self>, upstream: &str, prefix: &str, client: &Client) {
        self.mount_types(upstream, prefix, client).await;
        let follows = client.events_support().is_some_and(|s| s.list_changed);
        let watcher = follows.then(|| match client.lineage() {
            Lineage::Modern => self.watch(upstream, prefix, client),
            Lineage::Legacy => self.watch_session(upstream, prefix, client),
        });
        let old = match watcher {
            Some(w) => self.watchers.lock().expect("lock").insert(upstream.to_owned(), w),
            None => self.watchers.lock().expect("lock").remove(upstream),
        };
        if let Some(old) = old {
            old.abort();
        }
    }

    /// A task mounting `upstream`'s types again at each `notifications/events/list_changed` it
    /// sends on a listen stream; it ends with the stream (the upstream's next connection
    /// starts another).
    fn watch(self: &Arc<Self>, upstream: &str, prefix: &str, client: &Client) -> tokio::task::AbortHandle {
        let (relay, upstream, prefix, client) =
            (Arc::downgrade(self), upstream.to_owned(), prefix.to_owned(), client.clone());
        let task = tokio::spawn(async move {
            let filter =
                SubscriptionFilter { events_list_changed: Some(true), ..SubscriptionFilter::default() };
            let mut sub = match client.listen(filter).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::info!(target: "mcpcore::gateway", upstream, error = %e, "event list changes not followed");
                    return;
                }
            };
            while let Some(event) = sub.next().await {
                if matches!(&event, ServerEvent::Other(n) if n.method == LIST_CHANGED) {
                    let Some(relay) = relay.upgrade() else { return };
                    relay.mount_types(&upstream, &prefix, &client).await;
                }
            }
        });
        task.abort_handle()
    }

    /// A legacy upstream's [`EventRelay::watch`]: its session's
    /// `notifications/events/list_changed`, several in a row mounted once; it ends with the
    /// connection.
    fn watch_session(
        self: &Arc<Self>,
        upstream: &str,
        prefix: &str,
        client: &Client,
    ) -> tokio::task::AbortHandle {
        let (relay, upstream, prefix) = (Arc::downgrade(self), upstream.to_owned(), prefix.to_owned());
        let mut changes = client.events_list_changes();
        let client = client.clone();
        let task = tokio::spawn(async move {
            let closed = client.closed();
            tokio::pin!(closed);
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                    _ = &mut closed => return,
                }
                let Some(relay) = relay.upgrade() else { return };
                relay.mount_types(&upstream, &prefix, &client).await;
            }
        });
        task.abort_handle()
    }

    /// The types and relays of [`EventRelay::mount`], without the watcher.
    async fn mount_types(&self, upstream: &str, prefix: &str, client: &Client) {
        // The types stay declared (with their kept occurrences, so the gateway's clients'
        // cursors stay good) while the relays restart on the new connection.
        let before = self.stop_relays(upstream);
        if client.events_support().is_none() {
            self.remove(&before);
            return;
        }
        let types = match client.list_events().await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(target: "mcpcore::gateway", upstream, error = %e, "events/list failed: no events relayed");
                return;
            }
        };
        let (mut names, mut tasks) = (Vec::new(), Vec::new());
        for t in types {
            if !takes_no_arguments(&t) {
                tracing::info!(target: "mcpcore::gateway", upstream, event = %t.name, "not relayed: the type needs subscription arguments");
                continue;
            }
            let local = format!("{prefix}{}", t.name);
            if self.registry.get(&local).is_some() && !before.contains(&local) {
                tracing::warn!(target: "mcpcore::gateway", upstream, event = %local, "not relayed: the name is taken");
                continue;
            }
            let push = t.delivery.contains(&DeliveryMode::Push);
            if !push && !t.delivery.contains(&DeliveryMode::Poll) {
                continue;
            }
            let decl = EventDecl::new(local.clone(), t.description.clone().unwrap_or_default())
                .delivery([DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook])
                .input_schema(json!({ "type": "object", "properties": {}, "additionalProperties": false }))
                .payload_schema(t.payload_schema.clone());
            let decl = EventDecl { event: EventType { meta: t.meta.clone(), ..decl.event }, ..decl };
            if !before.contains(&local) {
                let declared = self.registry.declare(decl.clone()).or_else(|_| {
                    // A payload schema this side cannot compile (an external $ref): any object.
                    self.registry.declare(decl.payload_schema(json!({ "type": "object" })))
                });
                if declared.is_err() {
                    continue;
                }
            }
            let relay = Relay {
                registry: Arc::downgrade(&self.registry),
                client: client.clone(),
                remote: t.name.clone(),
                local: local.clone(),
                cursors: self.cursors.clone(),
            };
            tasks.push(tokio::spawn(relay.run(push)).abort_handle());
            names.push(local);
        }
        let gone: Vec<String> = before.into_iter().filter(|n| !names.contains(n)).collect();
        self.remove(&gone);
        self.mounted.lock().expect("lock").insert(upstream.to_owned(), (names, tasks));
    }

    /// Stops the relays of `upstream`; returns the names it had declared.
    fn stop_relays(&self, upstream: &str) -> Vec<String> {
        let Some((names, tasks)) = self.mounted.lock().expect("lock").remove(upstream) else {
            return Vec::new();
        };
        for t in tasks {
            t.abort();
        }
        names
    }

    fn remove(&self, names: &[String]) {
        for n in names {
            self.registry.remove(n);
        }
    }
}

impl Drop for EventRelay {
    fn drop(&mut self) {
        if let Ok(mounted) = self.mounted.get_mut() {
            for t in mounted.values().flat_map(|(_, tasks)| tasks) {
                t.abort();
            }
        }
        if let Ok(watchers) = self.watchers.get_mut() {
            for t in watchers.values() {
                t.abort();
            }
        }
    }
}

/// True when `{}` satisfies the type's `inputSchema` as far as its `required` says.
fn takes_no_arguments(t: &EventType) -> bool {
    t.input_schema.get("required").and_then(Value::as_array).is_none_or(|r| r.is_empty())
}

/// One upstream type followed into the gateway's registry.
struct Relay {
    registry: Weak<EventRegistry>,
    client: Client,
    remote: String,
    local: String,
    cursors: Arc<Mutex<HashMap<String, String>>>,
}

impl Relay {
    fn cursor(&self) -> Option<String> {
        self.cursors.lock().expect("lock").get(&self.local).cloned()
    }

    fn keep(&self, cursor: Option<&str>) {
        if let Some(c) = cursor {
            self.cursors.lock().expect("lock").insert(self.local.clone(), c.to_owned());
        }
    }

    /// Re-emits one upstream occurrence here; false once the gateway's registry is gone.
    fn emit(&self, data: Value) -> bool {
        let Some(registry) = self.registry.upgrade() else { return false };
        if let Err(e) = registry.emit(&self.local, data) {
            tracing::warn!(target: "mcpcore::gateway", event = %self.local, error = %e, "an upstream occurrence was not relayed");
        }
        true
    }

    async fn run(self, push: bool) {
        loop {
            let ended = if push { self.stream().await } else { self.poll().await };
            if ended.is_err() || self.registry.upgrade().is_none() {
                // The upstream's connection is gone (the supervisor reconnects and mounts again)
                // or the gateway is: this relay is over.
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// Follows an `events/stream` until it ends (Ok: open another) or fails (Err: stop).
    async fn stream(&self) -> Result<(), ()> {
        let mut stream =
            self.client.stream_events(&self.remote, json!({}), self.cursor()).await.map_err(|_| ())?;
        while let Some(item) = stream.next().await {
            if let StreamItem::Event(o) = item {
                if !self.emit(o.data) {
                    return Err(());
                }
            }
            self.keep(stream.cursor());
        }
        Ok(())
    }

    /// Polls at the upstream's pace until a poll fails.
    async fn poll(&self) -> Result<(), ()> {
        let mut poller = self.client.poller(&self.remote, json!({}), self.cursor());
        loop {
            let r = poller.next().await.map_err(|_| ())?;
            for o in r.events {
                if !self.emit(o.data) {
                    return Err(());
                }
            }
            self.keep(poller.cursor());
        }
    }
}
