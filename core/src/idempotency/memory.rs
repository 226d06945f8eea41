//! Idempotency keys in this process's memory, bounded.

use super::{Claimed, IdempotencyStore};
use crate::error::ErrorData;
use crate::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The most keys kept by default; past it, expired ones go first, then the finished ones that
/// expire soonest. A store full of running calls refuses new keys (`-32603`, `data.limit`
/// `"idempotency_keys"`).
pub const DEFAULT_MAX_KEYS: usize = 100_000;

#[derive(Debug)]
struct Entry {
    fingerprint: String,
    /// The running call's token (empty once finished).
    holder: String,
    result: Option<Value>,
    until: SystemTime,
}

/// An [`IdempotencyStore`] in memory: one process (instances behind a load balancer need the
/// Redis one).
#[derive(Debug)]
pub struct MemoryIdempotencyStore {
    entries: Mutex<HashMap<String, Entry>>,
    max_keys: usize,
}

impl Default for MemoryIdempotencyStore {
    fn default() -> Self {
        MemoryIdempotencyStore::new(DEFAULT_MAX_KEYS)
    }
}

impl MemoryIdempotencyStore {
    /// A store keeping at most `max_keys` keys.
    pub fn new(max_keys: usize) -> Self {
        MemoryIdempotencyStore { entries: Mutex::new(HashMap::new()), max_keys: max_keys.max(1) }
    }

    /// The number of keys held (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claims synchronously (see [`IdempotencyStore::claim`]).
    pub fn claim_now(
        &self,
        key: &str,
        fingerprint: &str,
        holder: &str,
        lease: Duration,
        now: SystemTime,
    ) -> Result<Claimed, ErrorData> {
        let mut entries = self.lock();
        // A claim repeated by the holder that made it is its own (see the trait).
        let own = |e: &&Entry| e.result.is_none() && e.holder == holder && e.fingerprint == fingerprint;
        if let Some(e) = entries.get(key).filter(|e| e.until > now && !own(e)) {
            return Ok(match (&e.result, e.fingerprint == fingerprint) {
                (_, false) => Claimed::Conflict,
                (Some(r), true) => Claimed::Done(r.clone()),
                (None, true) => Claimed::Running,
            });
        }
        if entries.len() >= self.max_keys && !entries.contains_key(key) {
            entries.retain(|_, e| e.until > now);
            if entries.len() >= self.max_keys {
                let soonest = entries
                    .iter()
                    .filter(|(_, e)| e.result.is_some())
                    .min_by_key(|(_, e)| e.until)
                    .map(|(k, _)| k.clone());
                match soonest {
                    Some(k) => {
                        entries.remove(&k);
                    }
                    None => {
                        return Err(ErrorData::over_limit(
                            "idempotency_keys",
                            self.max_keys,
                            format!(
                                "Too many idempotent calls running at once (at most {}); retry shortly",
                                self.max_keys
                            ),
                        ))
                    }
                }
            }
        }
        let entry = Entry {
            fingerprint: fingerprint.to_owned(),
            holder: holder.to_owned(),
            result: None,
            until: now + lease,
        };
        entries.insert(key.to_owned(), entry);
        Ok(Claimed::Fresh)
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        holder: &'a str,
        lease: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claimed, ErrorData>> {
        let out = self.claim_now(key, fingerprint, holder, lease, now);
        Box::pin(async move { out })
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        lease: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>> {
        let mut entries = self.lock();
        let held = match entries.get_mut(key) {
            Some(e) if e.result.is_none() && e.holder == holder && e.until > now => {
                e.until = now + lease;
                true
            }
            _ => false,
        };
        Box::pin(async move { Ok(held) })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        result: &'a Value,
        ttl: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>> {
        let entry = Entry {
            fingerprint: fingerprint.to_owned(),
            holder: String::new(),
            result: Some(result.clone()),
            until: now + ttl,
        };
        self.lock().insert(key.to_owned(), entry);
        Box::pin(async { Ok(()) })
    }

    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, Result<(), ErrorData>> {
        let mut entries = self.lock();
        if entries.get(key).is_some_and(|e| e.result.is_none() && e.holder == holder) {
            entries.remove(key);
        }
        Box::pin(async { Ok(()) })
    }
}
