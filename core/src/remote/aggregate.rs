//! A [`RemoteServer`](super::RemoteServer)'s connected servers seen as one
//! ([`Aggregate`]): what a local server fronting them declares, and the caching hints of its
//! lists.
//!
//! Capabilities are the union of what the connected servers negotiated, as far as this
//! provider forwards it: `tools` always (local tools may sit beside the remote ones), `prompts`
//! and `resources` when a server offers them and this provider forwards them (with
//! `listChanged`, since the local server announces changes itself; `subscribe` when one of the
//! servers offers it), `completions`, `logging` and `experimental` keys when one offers them,
//! the Skills extension when one declares it and this provider forwards skills, and on
//! 2026-07-28 the Tasks extension, which the local engine serves. A server that is
//! unavailable (or not yet connected) adds nothing.
//!
//! A list's hints are those of every server's last listing of it merged: the shortest
//! `ttlMs` wins and `cacheScope` is private when one server's is (2026-07-28
//! server/utilities/caching). A legacy server gives none (it announces changes instead, which
//! the local server passes on).

use super::catalog::Catalogs;
use super::Connected;
use crate::engine::{Aggregate, ListKind};
use crate::protocol::capabilities::{ListChangedCapability, ResourcesCapability};
use crate::protocol::skills as skill_ext;
use crate::protocol::{CacheHint, ServerCapabilities};
use serde_json::{json, Map};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The connected servers of one provider, as one.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) servers: Arc<Mutex<HashMap<String, Arc<Connected>>>>,
    pub(crate) catalogs: Catalogs,
}

impl Aggregate for View {
    fn capabilities(&self) -> ServerCapabilities {
        let changed = || Some(ListChangedCapability { list_changed: Some(true) });
        let mut caps = ServerCapabilities { tools: changed(), ..ServerCapabilities::default() };
        let mut ext = Map::new();
        ext.insert(crate::protocol::tasks_ext::EXTENSION_ID.into(), json!({}));
        caps.extensions = Some(ext);
        let servers: Vec<Arc<Connected>> = self.servers.lock().expect("lock").values().cloned().collect();
        for c in servers {
            let Some(client) = c.remote.link.current() else { continue };
            let up = client.negotiated().capabilities;
            if up.prompts.is_some() && self.catalogs.prompts.is_some() {
                caps.prompts = changed();
            }
            if let (Some(r), Some(_)) = (&up.resources, &self.catalogs.resources) {
                let subscribe = r.subscribe == Some(true)
                    || caps.resources.as_ref().is_some_and(|mine| mine.subscribe == Some(true));
                caps.resources =
                    Some(ResourcesCapability { subscribe: Some(subscribe), list_changed: Some(true) });
            }
            if up.completions.is_some()
                && (self.catalogs.prompts.is_some() || self.catalogs.resources.is_some())
            {
                caps.completions = Some(Map::new());
            }
            if up.logging.is_some() {
                caps.logging = Some(Map::new());
            }
            let skills = up.extensions.as_ref().is_some_and(|e| e.contains_key(skill_ext::EXTENSION_ID));
            if skills && self.catalogs.skills.is_some() {
                // Directories are read from the forwarded entries' manifests, here.
                caps.extensions
                    .get_or_insert_with(Map::new)
                    .insert(skill_ext::EXTENSION_ID.into(), json!({ "directoryRead": true }));
            }
            let apps =
                up.extensions.as_ref().is_some_and(|e| e.contains_key(crate::protocol::apps::EXTENSION_ID));
            if apps && self.catalogs.resources.is_some() {
                caps.extensions
                    .get_or_insert_with(Map::new)
                    .insert(crate::protocol::apps::EXTENSION_ID.into(), json!({}));
            }
            if let Some(x) = up.experimental {
                caps.experimental.get_or_insert_with(Map::new).extend(x);
            }
        }
        caps
    }

    fn list_hint(&self, list: ListKind) -> CacheHint {
        let servers: Vec<Arc<Connected>> = self.servers.lock().expect("lock").values().cloned().collect();
        servers
            .iter()
            .filter(|c| c.remote.link.current().is_some())
            .map(|c| {
                let h = *c.hints.lock().expect("lock");
                match list {
                    ListKind::Tools => h.tools,
                    ListKind::Prompts => h.prompts,
                    ListKind::Resources => h.resources,
                    ListKind::Templates => h.templates,
                }
            })
            .fold(CacheHint::default(), CacheHint::merge)
    }
}
