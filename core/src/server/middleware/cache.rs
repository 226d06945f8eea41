//! A cache of list results, honouring the caching hints the server gives with them.

use crate::changes::{Change, ChangeFeed, Subscription};
use crate::context::{BoxFuture, RequestContext};
use crate::jsonrpc::Request;
use crate::middleware::{Middleware, Next, Reply};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The methods whose results are kept.
const LISTS: [&str; 4] = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];

/// Keeps the results of `tools/list`, `resources/list`, `resources/templates/list` and
/// `prompts/list` (each page, per revision) and answers repeats from memory, for catalogues
/// that are costly to list (host-language list handlers, many entries, per-caller filtering).
///
/// It honours the hints the server sends with each result (2026-07-28 caching, SEP-2549): a
/// result is kept for its `ttlMs` (legacy results, which carry none: the cache's own `ttl`),
/// not at all with `ttlMs: 0`, and a result that is `cacheScope: "private"`, or comes from a
/// per-identity catalogue, is kept for its caller only (its token, else its verified identity;
/// a per-identity list whose caller cannot be told apart is not kept). Legacy results carry no
/// `cacheScope`: a host middleware that filters lists per caller belongs outside the cache. Any list change of a catalogue the
/// server serves empties it at once (`notifications/*/list_changed` and a re-read agree), and a
/// result computed while a change happened is not kept. At most `max_entries` results are kept.
pub struct ListCache {
    ttl: Duration,
    max_entries: usize,
    state: Arc<Mutex<State>>,
    watched: Mutex<Vec<Subscription>>,
}

#[derive(Default)]
struct State {
    entries: HashMap<Key, (Instant, Value)>,
    /// Bumped by every list change.
    epoch: u64,
}

/// Method, revision, cursor, and the caller for results kept for one caller only.
type Key = (String, String, Option<String>, Option<String>);

impl std::fmt::Debug for ListCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListCache").field("ttl", &self.ttl).field("max_entries", &self.max_entries).finish()
    }
}

impl ListCache {
    /// Keeps results up to `ttl` (or their own `ttlMs`), at most `max_entries` of them.
    pub fn new(ttl: Duration, max_entries: usize) -> Self {
        ListCache {
            ttl,
            max_entries: max_entries.max(1),
            state: Arc::default(),
            watched: Mutex::new(Vec::new()),
        }
    }

    /// Forgets every result.
    pub fn clear(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.entries.clear();
        st.epoch += 1;
    }

    /// The number of results kept now.
    pub fn len(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).entries.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Who a private result is kept for: the caller's token (by its digest: two tokens of one user
/// may reach different catalogues), else its verified identity with its scopes and claims, else
/// (when the catalogue is not per identity) the client as the rate limits count it; `None` when
/// the catalogue is per identity and nothing tells this caller apart.
fn caller_key(ctx: &RequestContext, per_caller: bool) -> Option<String> {
    let origin = ctx.origin();
    if let Some(t) = origin.and_then(|o| o.extensions.get::<crate::context::CallerToken>()) {
        let hex: String = t.digest().iter().map(|b| format!("{b:02x}")).collect();
        return Some(format!("token {hex}"));
    }
    if let Some(id) = ctx.identity() {
        let claims = serde_json::to_string(&id.claims).unwrap_or_default();
        return Some(format!("identity {:?} {:?} {:?} {claims}", id.subject, id.client_id, id.scopes));
    }
    (!per_caller).then(|| super::client_of(ctx))
}

fn cursor_of(request: &Request) -> Option<String> {
    request.params.as_ref()?.get("cursor")?.as_str().map(str::to_owned)
}

impl Middleware for ListCache {
    fn handle(&self, request: Request, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        if !LISTS.contains(&request.method.as_str()) {
            return next.run(request);
        }
        let version = ctx.protocol_version().map(|v| v.as_str()).unwrap_or("").to_owned();
        let per_caller = ctx.origin().is_some_and(|o| o.has_view());
        let Some(caller) = caller_key(&ctx, per_caller) else {
            // A per-identity catalogue, and no way to tell this caller from others: not kept.
            return next.run(request);
        };
        let shared: Key = (request.method.clone(), version, cursor_of(&request), None);
        let own: Key = (shared.0.clone(), shared.1.clone(), shared.2.clone(), Some(caller));
        let now = Instant::now();
        let epoch = {
            let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let keys = if per_caller { vec![&own] } else { vec![&shared, &own] };
            for key in keys {
                if let Some((until, value)) = st.entries.get(key) {
                    if *until > now {
                        let value = value.clone();
                        return Box::pin(async move { Ok(value) });
                    }
                }
            }
            st.epoch
        };
        let (state, ttl, max) = (self.state.clone(), self.ttl, self.max_entries);
        let run = next.run(request);
        Box::pin(async move {
            let result = run.await?;
            let keep = match result.get("ttlMs").and_then(Value::as_u64) {
                Some(ms) => Duration::from_millis(ms),
                None => ttl,
            };
            let private = per_caller || result.get("cacheScope").and_then(Value::as_str) == Some("private");
            if !keep.is_zero() {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                if st.epoch == epoch {
                    let now = Instant::now();
                    if st.entries.len() >= max {
                        st.entries.retain(|_, (until, _)| *until > now);
                    }
                    if st.entries.len() >= max {
                        st.entries.clear();
                    }
                    st.entries.insert(if private { own } else { shared }, (now + keep, result.clone()));
                }
            }
            Ok(result)
        })
    }

    fn watch(&self, feed: &ChangeFeed) {
        let state = Arc::downgrade(&self.state);
        let sub = feed.subscribe(move |change| {
            let list = matches!(
                change,
                Change::ToolsListChanged | Change::PromptsListChanged | Change::ResourcesListChanged
            );
            if let (true, Some(state)) = (list, state.upgrade()) {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                st.entries.clear();
                st.epoch += 1;
            }
        });
        self.watched.lock().unwrap_or_else(|e| e.into_inner()).push(sub);
    }
}
