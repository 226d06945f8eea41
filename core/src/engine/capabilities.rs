//! What a server declares: its capabilities per revision (each lineage's shape, a gateway's
//! taken from its upstreams) and which gated methods it therefore serves.

use super::ServerEngine;
use crate::protocol::capabilities::{ListChangedCapability, ResourcesCapability};
use crate::protocol::events as event_ext;
use crate::protocol::skills as skill_ext;
use crate::protocol::{ProtocolVersion, ServerCapabilities};
use serde_json::{json, Map};

impl ServerEngine {
    /// True when the capability `method` belongs to is served and declared (a gateway's: when
    /// one of its upstreams offers it). `version` decides nothing yet: the gated methods exist
    /// in every revision (completion too: 2024-11-05 has it without a capability).
    pub(super) fn advertises(&self, method: &str, _version: ProtocolVersion) -> bool {
        let served = match method {
            "resources/list" | "resources/templates/list" | "resources/read" => self.resources.is_some(),
            "prompts/list" | "prompts/get" => self.prompts.is_some(),
            // 2024-11-05 has the method but no capability for it: served there as declared.
            "completion/complete" => self.completions(),
            skill_ext::LIST | skill_ext::GET | skill_ext::DIRECTORY_READ => self.skills.is_some(),
            event_ext::LIST
            | event_ext::POLL
            | event_ext::STREAM
            | event_ext::SUBSCRIBE
            | event_ext::UNSUBSCRIBE => self.events.is_some(),
            _ => return false,
        };
        let Some(a) = self.config.aggregate.as_ref().filter(|_| served) else { return served };
        let caps = a.capabilities();
        match method {
            "prompts/list" | "prompts/get" => caps.prompts.is_some(),
            "completion/complete" => caps.completions.is_some() || caps.prompts.is_some(),
            m if m.starts_with("skills/") || m == skill_ext::DIRECTORY_READ => {
                caps.extensions.as_ref().is_some_and(|e| e.contains_key(skill_ext::EXTENSION_ID))
            }
            // A gateway's events are its own registry's (the upstreams' types relayed into it).
            m if m.starts_with("events/") => self.aggregate_events(),
            _ => caps.resources.is_some(),
        }
    }

    /// True when a gateway relays some event type (its registry is not empty).
    fn aggregate_events(&self) -> bool {
        self.events.as_ref().is_some_and(|e| !e.is_empty())
    }

    pub(super) fn completions(&self) -> bool {
        self.resources.is_some() || self.prompts.is_some()
    }

    pub(super) fn capabilities(&self, version: ProtocolVersion) -> ServerCapabilities {
        if let Some(a) = &self.config.aggregate {
            let mut caps = a.capabilities();
            if version < ProtocolVersion::V2025_03_26 {
                caps.completions = None;
            }
            if version.is_modern() {
                caps.tasks = None;
            } else if let Some(ext) = caps.extensions.as_mut() {
                // A legacy session hears of the Skills extension only (the Tasks extension is
                // 2026-07-28's; legacy tasks are `capabilities.tasks`).
                ext.retain(|k, _| k == skill_ext::EXTENSION_ID || k == crate::protocol::apps::EXTENSION_ID);
                if ext.is_empty() {
                    caps.extensions = None;
                }
            }
            if self.aggregate_events() {
                caps.extensions
                    .get_or_insert_with(Map::new)
                    .insert(event_ext::EXTENSION_ID.into(), json!({}));
                caps.events = Some(Map::new());
            }
            if version < ProtocolVersion::V2025_11_25 {
                caps.tasks = None;
            }
            return caps;
        }
        let mut caps = ServerCapabilities {
            tools: Some(ListChangedCapability { list_changed: Some(true) }),
            logging: Some(serde_json::Map::new()),
            ..Default::default()
        };
        if self.prompts.is_some() {
            caps.prompts = Some(ListChangedCapability { list_changed: Some(true) });
        }
        if self.resources.is_some() {
            caps.resources = Some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) });
        }
        if self.completions() && version >= ProtocolVersion::V2025_03_26 {
            caps.completions = Some(serde_json::Map::new());
        }
        let mut ext = Map::new();
        if version.is_modern() {
            ext.insert(crate::protocol::tasks_ext::EXTENSION_ID.into(), json!({}));
        }
        if self.resources.as_ref().is_some_and(|r| r.has_apps()) {
            // MCP Apps (SEP-1865): the server serves app resources; no settings of its own.
            ext.insert(crate::protocol::apps::EXTENSION_ID.into(), json!({}));
        }
        if self.skills.is_some() {
            // Settings inline under the identifier (SEP-2133); a legacy session learns of the
            // extension in `initialize`, whose capabilities admit other members.
            ext.insert(skill_ext::EXTENSION_ID.into(), json!({ "directoryRead": true }));
        }
        if self.events.is_some() {
            // SEP-3415 §Capability negotiation, and the sketch's top-level key ChatGPT reads.
            // `listChanged`: types come and go at run time (SEP-3415 §Dynamic event types).
            ext.insert(event_ext::EXTENSION_ID.into(), json!({ "listChanged": true }));
            caps.events = Some(Map::new());
        }
        for (k, v) in &self.config.extensions {
            // The host's own extensions; the engine's keep their settings.
            ext.entry(k.clone()).or_insert_with(|| v.clone());
        }
        if !ext.is_empty() {
            caps.extensions = Some(ext);
        }
        caps
    }
}
