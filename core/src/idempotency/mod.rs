//! Idempotent writes: a tool call carrying an idempotency key acts once. A repeat of the key
//! by the same client answers the first call's stored result; a repeat while the first still
//! runs waits for it; the key with other arguments is refused. Keys expire after a TTL.
//!
//! This module holds the rules and the store's contract ([`IdempotencyStore`]) with the
//! in-memory store ([`MemoryIdempotencyStore`]: one process); the Redis one (instances behind
//! one load balancer act once between them) is `store::redis::RedisIdempotencyStore`; the
//! middleware that applies them to `tools/call` is
//! [`Idempotency`](crate::server::middleware::Idempotency). Time is passed in.

mod memory;

pub use memory::{MemoryIdempotencyStore, DEFAULT_MAX_KEYS};

use crate::error::ErrorData;
use crate::future::BoxFuture;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime};

/// What a claim of a key found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claimed {
    /// Nobody holds the key: the caller now does, for its lease, and must complete or release it.
    Fresh,
    /// A call with the same arguments finished: its result.
    Done(Value),
    /// A call with the same arguments is running (another request, maybe on another instance).
    Running,
    /// The key was used with other arguments.
    Conflict,
}

/// Where idempotency keys and first results are kept. A running call's claim names its
/// `holder` (a random token per call): only that call renews or releases it, so a call that
/// outlived its lease cannot free the claim of the call that took over.
pub trait IdempotencyStore: Send + Sync + std::fmt::Debug {
    /// Claims `key` for `holder`, a call whose arguments hash to `fingerprint`, at `now`; a
    /// claim neither renewed nor completed within `lease` lapses (its holder is taken to have
    /// died). A claim repeated by the holder already holding the key is [`Claimed::Fresh`]
    /// again (its lease restarted): a store that sends a command again after a dropped
    /// connection may meet its own first execution.
    fn claim<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        holder: &'a str,
        lease: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claimed, ErrorData>>;

    /// Extends `holder`'s claim of `key` by `lease` from `now`; false when it no longer holds it.
    fn renew<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        lease: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, ErrorData>>;

    /// Stores the result of the call holding `key`, kept for `ttl` from `now`.
    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        result: &'a Value,
        ttl: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), ErrorData>>;

    /// Gives `key` up without a result (the call failed with a JSON-RPC error, or was
    /// cancelled), if `holder` still holds it: the next request with it acts.
    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, Result<(), ErrorData>>;
}

/// The store key of `idempotency_key` sent by `client` to `tool`: keys of different clients or
/// tools never meet. Hashed, so a key of any length or content makes a bounded store key.
pub fn scope(client: &str, tool: &str, idempotency_key: &str) -> String {
    let mut h = Sha256::new();
    for part in [client, tool, idempotency_key] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

/// The fingerprint of a call's arguments: the sha256 of their canonical JSON (object keys
/// sorted at every level), so the same arguments in another key order are the same call.
pub fn fingerprint(arguments: &Value) -> String {
    let mut text = String::new();
    crate::state::write_canonical(arguments, &mut text);
    hex(&Sha256::digest(text.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
