//! Webhook subscriptions of the Events extension (SEP-3415 §Webhook delivery, rev. 5eb6862):
//! the contract between the engine, which checks `events/subscribe` and `events/unsubscribe`,
//! and the hub that keeps subscriptions and delivers to them
//! ([`crate::server::webhooks::Webhooks`], a shell: it talks HTTP); and Standard Webhooks
//! signing (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
//! "id.timestamp.body">`), which a receiver uses to check deliveries.

use super::Position;
use crate::error::ErrorData;
use crate::future::BoxFuture;
use crate::protocol::events::EventsErrorKind;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::SystemTime;

/// The prefix of a Standard Webhooks secret.
pub const SECRET_PREFIX: &str = "whsec_";

/// A subscription's TTL as the client asked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ttl {
    /// `ttlMs` absent: the server's default.
    Default,
    /// `ttlMs: null`: no expiry asked (the hub may grant a finite one).
    Forever,
    /// `ttlMs: N`.
    Millis(u64),
}

/// What identifies a subscription: SEP-3415's key `(principal, url, name, arguments)`.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionKey {
    /// Who subscribed ([`crate::context::Origin::owner`]).
    pub principal: String,
    /// The callback URL.
    pub url: String,
    /// The event type.
    pub name: String,
    /// The subscription's arguments.
    pub arguments: Value,
}

impl SubscriptionKey {
    /// The subscription's id: `sub_` and 32 hex digits of SHA-256 over the key, arguments in
    /// canonical JSON (sorted members), so the same key gives the same id across refreshes,
    /// instances and restarts.
    pub fn id(&self) -> String {
        let mut h = Sha256::new();
        for part in [self.principal.as_bytes(), self.url.as_bytes(), self.name.as_bytes()] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part);
        }
        // serde_json's maps are sorted (no preserve_order): this is canonical.
        h.update(self.arguments.to_string().as_bytes());
        let digest = h.finalize();
        format!("sub_{}", digest[..16].iter().map(|b| format!("{b:02x}")).collect::<String>())
    }
}

/// An `events/subscribe` the engine checked: the type exists, offers webhooks, the arguments
/// fit, the URL's scheme and the secret's form are right, a principal is known.
#[derive(Debug, Clone)]
pub struct Subscribe {
    /// The key.
    pub key: SubscriptionKey,
    /// The decoded secret (24 to 64 bytes).
    pub secret: Vec<u8>,
    /// Where delivery resumes; `None`: from now.
    pub after: Option<Position>,
    /// Replay nothing older than this (milliseconds since the Unix epoch).
    pub not_before_ms: Option<u64>,
    /// The TTL asked for.
    pub ttl: Ttl,
    /// The server's `requestState` keys: deliveries carry cursors sealed with them
    /// ([`super::cursor`]).
    pub keys: crate::state::StateKeys,
    /// The error codes of the client that subscribed (its `terminated` envelope uses them).
    pub dialect: crate::protocol::events::Dialect,
}

/// What the hub granted.
#[derive(Debug, Clone, PartialEq)]
pub struct Granted {
    /// The subscription's id ([`SubscriptionKey::id`]).
    pub id: String,
    /// When the client must refresh by; `None`: no expiry.
    pub refresh_before: Option<SystemTime>,
    /// Delivery has reached this position (a safe watermark for the client).
    pub position: Position,
    /// True when delivery starts later than the cursor asked.
    pub truncated: bool,
}

/// A hub's refusal: one of the extension's kinds (its code depends on the client's dialect),
/// or a plain JSON-RPC error.
#[derive(Debug, Clone)]
pub enum WebhookError {
    /// NotFound, Forbidden, ResourceExhausted, CallbackEndpointError…, with its message and data.
    Events(EventsErrorKind, String, Value),
    /// Any other error.
    Rpc(ErrorData),
}

/// Keeps webhook subscriptions and delivers occurrences to them.
pub trait WebhookHub: Send + Sync + std::fmt::Debug {
    /// Creates or refreshes the subscription (verifying a new callback first).
    fn subscribe(&self, request: Subscribe) -> BoxFuture<'static, Result<Granted, WebhookError>>;
    /// Ends the subscription with this key; NotFound when there is none.
    fn unsubscribe(&self, key: SubscriptionKey) -> BoxFuture<'static, Result<(), WebhookError>>;
    /// The registry now shares its subscriptions with a fleet
    /// ([`super::EventRegistry::shared_subscriptions`]): start taking part.
    fn shared(&self) {}
}

/// A webhook subscription as a fleet keeps it ([`SubscriptionStore`]): what any instance needs
/// to deliver it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSubscription {
    /// The key.
    pub key: SubscriptionKey,
    /// The secret's bytes.
    pub secret: Vec<u8>,
    /// The error codes of the client that subscribed.
    pub dialect: crate::protocol::events::Dialect,
    /// When it ends (milliseconds since the Unix epoch); `None`: never.
    pub expires_ms: Option<u64>,
    /// Where its deliveries stand.
    pub position: Position,
}

/// Webhook subscriptions shared by the instances of a fleet (the Redis store's
/// `RedisWebhookStore`): any instance takes a subscribe, refresh or unsubscribe, and exactly
/// one instance at a time holds each subscription's delivery, for a lease it renews; when it
/// stops renewing (it died), another takes the subscription over from its stored position.
pub trait SubscriptionStore: Send + Sync + std::fmt::Debug {
    /// Subscription `id`, unless it is gone or expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSubscription>, ErrorData>>;
    /// Creates subscription `id`, or refreshes it (its position then stays); `holder`, when
    /// given, takes its delivery for `lease` unless another holds it. True when `holder` holds
    /// it now.
    fn put<'a>(
        &'a self,
        id: &'a str,
        sub: &'a StoredSubscription,
        holder: Option<&'a str>,
        lease: std::time::Duration,
    ) -> BoxFuture<'a, Result<bool, ErrorData>>;
    /// Removes subscription `id`; true when it existed.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, ErrorData>>;
    /// Records that the deliveries of `id` reached `position` (never back within an epoch).
    fn advance<'a>(&'a self, id: &'a str, position: Position) -> BoxFuture<'a, Result<(), ErrorData>>;
    /// Renews the leases of `holder` and takes at most `max_new` subscriptions nobody holds,
    /// for `lease`; the ids `holder` holds now. `now_ms`: the time, for expiries.
    fn claim<'a>(
        &'a self,
        holder: &'a str,
        lease: std::time::Duration,
        max_new: usize,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Vec<String>, ErrorData>>;
    /// Live subscriptions: in all, and of `principal`.
    fn count<'a>(
        &'a self,
        principal: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<(usize, usize), ErrorData>>;
}

/// Reads a `whsec_` secret: the bytes its base64 decodes to, 24 to 64 of them (SEP-3415
/// §Subscribe); `None` otherwise.
pub fn parse_secret(secret: &str) -> Option<Vec<u8>> {
    let bytes = STANDARD.decode(secret.strip_prefix(SECRET_PREFIX)?).ok()?;
    (24..=64).contains(&bytes.len()).then_some(bytes)
}

/// The `webhook-signature` of a delivery: `v1,` and the base64 HMAC-SHA256 of
/// `"{id}.{timestamp}."` followed by the raw body, keyed with the secret's bytes (Standard
/// Webhooks, "Signature scheme").
pub fn sign(secret: &[u8], id: &str, timestamp: u64, body: &[u8]) -> String {
    format!("v1,{}", STANDARD.encode(mac(secret, id, timestamp, body).finalize().into_bytes()))
}

/// The HMAC-SHA256 of `"{id}.{timestamp}."` and the body, keyed with the secret's bytes.
fn mac(secret: &[u8], id: &str, timestamp: u64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    mac
}

/// True when one of the space-separated `v1,` signatures in `header` is [`sign`]'s for this
/// delivery (constant-time comparison).
pub fn verify(secret: &[u8], id: &str, timestamp: u64, body: &[u8], header: &str) -> bool {
    header.split(' ').filter_map(|s| s.strip_prefix("v1,")).any(|sig| {
        let Ok(sig) = STANDARD.decode(sig) else { return false };
        mac(secret, id, timestamp, body).verify_slice(&sig).is_ok()
    })
}
