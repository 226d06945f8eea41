//! Following a remote server's announcements: legacy session notifications (through
//! [`Client::on_notification`](crate::client::Client::on_notification)) or, on 2026-07-28,
//! `subscriptions/listen` streams (2026-07-28 basic/patterns/subscriptions). One task per
//! server acts on them: a list change re-lists that part of the remote, a resource update is
//! announced by the local resource registry. Announcements that arrive while a re-listing runs
//! are coalesced into the next one.

use super::catalog::{Catalogs, Part};
use super::Connected;
use crate::client::{ServerEvent, Subscription};
use crate::error::{ErrorKind, Result};
use crate::protocol::subscriptions::SubscriptionFilter;
use crate::protocol::Lineage;
use std::sync::{Arc, Weak};
use tokio::sync::mpsc;

/// Starts following `c` for `parts`.
pub(super) async fn start(c: &Arc<Connected>, catalogs: &Catalogs, parts: &[Part]) -> Result<()> {
    let client = &c.remote.client()?;
    let (tx, rx) = mpsc::unbounded_channel();
    *c.events.lock().expect("lock") = Some(tx.clone());
    if client.lineage() == Lineage::Modern {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(parts.contains(&Part::Tools)),
            prompts_list_changed: Some(parts.contains(&Part::Prompts) && catalogs.prompts.is_some()),
            resources_list_changed: Some(parts.contains(&Part::Resources) && catalogs.resources.is_some()),
            ..SubscriptionFilter::default()
        };
        match client.listen(filter).await {
            Ok(sub) => pump(c, sub, tx),
            // The remote has no subscriptions/listen: its catalogue is taken as it is now.
            Err(e) if e.kind() == ErrorKind::Rpc => {}
            Err(e) => return Err(e),
        }
    } else {
        client.on_notification(move |event| {
            let _ = tx.send(event);
        });
    }
    let task = tokio::spawn(run(Arc::downgrade(c), catalogs.clone(), rx));
    c.followers.lock().expect("lock").push(task);
    Ok(())
}

/// Subscribes to updates of the remote `uri` on the remote (once per connection; again after
/// a reconnection, see [`resubscribe`]).
pub(super) async fn subscribe(c: &Arc<Connected>, _catalogs: &Catalogs, uri: &str) -> Result<()> {
    let client = &c.remote.client()?;
    if !c.subscribed.lock().expect("lock").insert(uri.to_owned()) {
        return Ok(());
    }
    let done = subscribe_on(c, client, uri).await;
    if done.is_err() {
        c.subscribed.lock().expect("lock").remove(uri);
    }
    done
}

/// Subscribes again to what `c` was subscribed to (its connection is new).
pub(super) async fn resubscribe(c: &Arc<Connected>) {
    let uris: Vec<String> = c.subscribed.lock().expect("lock").iter().cloned().collect();
    let Ok(client) = c.remote.client() else { return };
    for uri in uris {
        let _ = subscribe_on(c, &client, &uri).await;
    }
}

/// A local client subscribed to the local `uri`: subscribes on the remotes it may belong to
/// (the one whose URI prefix it carries; those mounted without a URI prefix), in the
/// background. A remote that cannot announce updates (a legacy server without
/// `resources.subscribe`) is skipped.
pub(super) fn interest(
    servers: &std::sync::Weak<std::sync::Mutex<std::collections::HashMap<String, Arc<Connected>>>>,
    catalogs: &Catalogs,
    uri: &str,
) {
    let Some(servers) = servers.upgrade() else { return };
    let all: Vec<Arc<Connected>> = servers.lock().expect("lock").values().cloned().collect();
    for c in all {
        let Some(remote_uri) = c.mount.remote_uri(uri) else { continue };
        let (remote_uri, catalogs) = (remote_uri.to_owned(), catalogs.clone());
        let Some(client) = c.remote.link.current() else { continue };
        let can = client.lineage() == Lineage::Modern
            || client.negotiated().capabilities.resources.is_some_and(|r| r.subscribe == Some(true));
        if can {
            tokio::spawn(async move {
                let _ = subscribe(&c, &catalogs, &remote_uri).await;
            });
        }
    }
}

/// Subscribes to `uri` on the remote through `client`.
async fn subscribe_on(c: &Arc<Connected>, client: &crate::client::Client, uri: &str) -> Result<()> {
    if client.lineage() != Lineage::Modern {
        // Updates arrive as session notifications, which `start` already follows.
        return client.subscribe_resource(uri).await;
    }
    let filter = SubscriptionFilter {
        resource_subscriptions: Some(vec![uri.to_owned()]),
        ..SubscriptionFilter::default()
    };
    let sub = client.listen(filter).await?;
    let tx = c.events.lock().expect("lock").clone();
    if let Some(tx) = tx {
        pump(c, sub, tx);
    }
    Ok(())
}

/// Moves the notifications of a listen stream to the server's task, until the stream ends.
fn pump(c: &Connected, mut sub: Subscription, tx: mpsc::UnboundedSender<ServerEvent>) {
    let task = tokio::spawn(async move {
        while let Some(event) = sub.next().await {
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    c.followers.lock().expect("lock").push(task);
}

/// Acts on the announcements of one server until it is disconnected.
async fn run(c: Weak<Connected>, catalogs: Catalogs, mut rx: mpsc::UnboundedReceiver<ServerEvent>) {
    while let Some(first) = rx.recv().await {
        let mut parts = Vec::new();
        let mut updated = Vec::new();
        let mut take = |event: ServerEvent| {
            let part = match event {
                ServerEvent::ToolsListChanged => Part::Tools,
                ServerEvent::PromptsListChanged => Part::Prompts,
                ServerEvent::ResourcesListChanged => Part::Resources,
                ServerEvent::ResourceUpdated(p) => {
                    updated.push(p.uri);
                    return;
                }
                ServerEvent::Other(_) => return,
            };
            if !parts.contains(&part) {
                parts.push(part);
            }
        };
        take(first);
        while let Ok(event) = rx.try_recv() {
            take(event);
        }
        let Some(c) = c.upgrade() else { return };
        if let Some(resources) = &catalogs.resources {
            for uri in updated {
                resources.notify_updated(&c.mount.local_uri(&uri));
            }
        }
        if parts.is_empty() {
            continue;
        }
        let outcome = c.sync(&catalogs, &parts).await;
        *c.sync_error.lock().expect("lock") = outcome.err();
    }
}
