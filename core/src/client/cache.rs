//! The client's result cache (spec 2026-07-28 server/utilities/caching): results of `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list` (each page) and `resources/read`, kept while
//! fresh by their `ttlMs`, keyed by method and the params that affect the result.
//!
//! Only complete first-round results are stored (never MRTR retries); a result without `ttlMs`
//! (legacy servers) or with `ttlMs: 0` is never stored. The matching `list_changed` /
//! `resources/updated` notification drops entries; so does
//! [`Client::clear_cache`](super::Client::clear_cache). Both `public` and `private` scopes are
//! kept: one client is one authorization context.

use super::events::ServerEvent;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The methods whose results may be cached.
pub(crate) const CACHEABLE: [&str; 5] =
    ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

#[derive(Debug)]
struct Entry {
    value: Value,
    expires: Instant,
    method: String,
    uri: Option<String>,
}

/// Fresh results by key.
#[derive(Debug, Default)]
pub(crate) struct ResultCache {
    entries: Mutex<HashMap<String, Entry>>,
    /// Bumped by every invalidation: a result asked for before one may be stale, and is not
    /// stored after it (a list fetched while a `list_changed` arrives).
    generation: std::sync::atomic::AtomicU64,
}

/// The cache key: the method and the params without `_meta` (serde_json maps are sorted, so
/// equal params give equal keys).
fn key(method: &str, params: &Map<String, Value>) -> String {
    let mut p = params.clone();
    p.remove("_meta");
    format!("{method} {}", Value::Object(p))
}

impl ResultCache {
    /// A fresh cached result, if any.
    pub(crate) fn get(&self, method: &str, params: &Map<String, Value>) -> Option<Value> {
        let k = key(method, params);
        let mut entries = self.entries.lock().expect("lock");
        match entries.get(&k) {
            Some(e) if Instant::now() < e.expires => Some(e.value.clone()),
            Some(_) => {
                entries.remove(&k);
                None
            }
            None => None,
        }
    }

    /// Stores `value` when it is a complete result with a positive `ttlMs`.
    /// The current generation; pass it to [`ResultCache::put`] with the result of a request
    /// sent after reading it.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Stores `value` unless the cache was invalidated since `generation` was read.
    pub(crate) fn put(&self, generation: u64, method: &str, params: &Map<String, Value>, value: &Value) {
        if !CACHEABLE.contains(&method)
            || params.contains_key("inputResponses")
            || params.contains_key("requestState")
        {
            return;
        }
        if value.get("resultType").and_then(Value::as_str).is_some_and(|t| t != "complete") {
            return;
        }
        // Negative or fractional values: treat as 0 / whole milliseconds (spec 2026-07-28 server/utilities/caching).
        let ttl = value.get("ttlMs").and_then(Value::as_f64).unwrap_or(0.0);
        if ttl < 1.0 || !ttl.is_finite() {
            return;
        }
        let entry = Entry {
            value: value.clone(),
            expires: Instant::now() + Duration::from_millis(ttl.min(1e12) as u64),
            method: method.to_owned(),
            uri: params.get("uri").and_then(Value::as_str).map(str::to_owned),
        };
        let mut entries = self.entries.lock().expect("lock");
        if self.generation() == generation {
            entries.insert(key(method, params), entry);
        }
    }

    /// Drops what `event` makes stale.
    pub(crate) fn invalidate(&self, event: &ServerEvent) {
        let mut entries = self.entries.lock().expect("lock");
        if !matches!(event, ServerEvent::Other(_)) {
            self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        match event {
            ServerEvent::ToolsListChanged => entries.retain(|_, e| e.method != "tools/list"),
            ServerEvent::PromptsListChanged => entries.retain(|_, e| e.method != "prompts/list"),
            ServerEvent::ResourcesListChanged => {
                entries.retain(|_, e| e.method != "resources/list" && e.method != "resources/templates/list")
            }
            // The updated URI may be the read one or under it (or, for a read of a directory,
            // above it).
            ServerEvent::ResourceUpdated(p) => entries.retain(|_, e| {
                e.method != "resources/read"
                    || e.uri.as_deref().is_none_or(|u| !(u.starts_with(&p.uri) || p.uri.starts_with(u)))
            }),
            ServerEvent::Other(_) => {}
        }
    }

    /// Drops everything.
    pub(crate) fn clear(&self) {
        let mut entries = self.entries.lock().expect("lock");
        self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::resources::ResourceUpdatedNotificationParams;
    use serde_json::json;

    fn m(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn stores_fresh_complete_results_only() {
        let c = ResultCache::default();
        let p = m(json!({"_meta": {"x": 1}}));
        c.put(c.generation(), "tools/list", &p, &json!({"tools": []}));
        assert!(c.get("tools/list", &p).is_none(), "no ttlMs: not cached");
        c.put(c.generation(), "tools/list", &p, &json!({"tools": [], "ttlMs": 0}));
        assert!(c.get("tools/list", &p).is_none(), "ttlMs 0: not cached");
        c.put(
            c.generation(),
            "tools/list",
            &p,
            &json!({"resultType": "complete", "tools": [], "ttlMs": 60000}),
        );
        assert!(c.get("tools/list", &m(json!({}))).is_some(), "_meta is not part of the key");
        assert!(c.get("tools/list", &m(json!({"cursor": "2"}))).is_none(), "pages are separate");
        let retry = m(json!({"uri": "a://x", "requestState": "s"}));
        c.put(c.generation(), "resources/read", &retry, &json!({"contents": [], "ttlMs": 60000}));
        assert!(c.get("resources/read", &retry).is_none(), "MRTR retries are never cached");
        c.put(c.generation(), "tools/call", &p, &json!({"content": [], "ttlMs": 60000}));
        assert!(c.get("tools/call", &p).is_none());
    }

    #[test]
    fn a_result_asked_for_before_an_invalidation_is_not_stored() {
        let c = ResultCache::default();
        let fresh = json!({"tools": [], "ttlMs": 60000});
        let before = c.generation();
        c.invalidate(&ServerEvent::ToolsListChanged);
        c.put(before, "tools/list", &m(json!({})), &fresh);
        assert!(c.get("tools/list", &m(json!({}))).is_none(), "stale: asked for before the change");
        c.put(c.generation(), "tools/list", &m(json!({})), &fresh);
        assert!(c.get("tools/list", &m(json!({}))).is_some());
    }

    #[test]
    fn notifications_invalidate() {
        let c = ResultCache::default();
        let fresh = json!({"ttlMs": 60000});
        c.put(c.generation(), "tools/list", &m(json!({})), &fresh);
        c.put(c.generation(), "resources/templates/list", &m(json!({})), &fresh);
        c.put(c.generation(), "resources/read", &m(json!({"uri": "file:///a/b"})), &fresh);
        c.put(c.generation(), "resources/read", &m(json!({"uri": "file:///c"})), &fresh);
        c.invalidate(&ServerEvent::ResourcesListChanged);
        assert!(c.get("resources/templates/list", &m(json!({}))).is_none());
        assert!(c.get("tools/list", &m(json!({}))).is_some());
        let updated = ResourceUpdatedNotificationParams { uri: "file:///a/b/c.txt".into(), meta: None };
        c.invalidate(&ServerEvent::ResourceUpdated(updated));
        assert!(c.get("resources/read", &m(json!({"uri": "file:///a/b"}))).is_none());
        assert!(c.get("resources/read", &m(json!({"uri": "file:///c"}))).is_some());
        c.invalidate(&ServerEvent::ToolsListChanged);
        assert!(c.get("tools/list", &m(json!({}))).is_none());
    }
}
