//! Posting to a callback (SEP-3415 §Webhook delivery, §Endpoint verification): where it may
//! point (no private address unless development allows loopback; the address checked is the
//! one connected to, and no redirect is followed), the signed verification challenge, and a
//! subscription's delivery loop with its retries.

use super::{Inner, Sub, WebhookPolicy, WebhookStats};
use crate::events::webhook::{sign, SubscriptionStore, WebhookError};
use crate::events::{cursor, EventRegistry, Position};
use crate::protocol::events::EventsErrorKind;
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Occurrences read (and delivered in order) per round of a delivery loop.
const BATCH: usize = 32;
/// The most of a verification answer read.
const MAX_ANSWER: usize = 64 * 1024;

/// A checked callback: its URL and a client that connects only to the address checked.
#[derive(Debug)]
pub(super) struct Callback {
    url: reqwest::Url,
    client: reqwest::Client,
}

/// The HTTP clients of a hub, one per (host, checked address): subscriptions to one endpoint
/// share its connections (and its memory: a client per subscription cost about 6 KB each).
pub(super) type Clients = std::sync::Mutex<std::collections::HashMap<(String, SocketAddr), reqwest::Client>>;

fn invalid(why: String) -> WebhookError {
    WebhookError::Rpc(crate::ErrorData::invalid_params(format!("Invalid params: {why}")))
}

/// True for an address anyone on the internet could own: not loopback, private, link-local,
/// shared (CGNAT), documentation, multicast or unspecified.
pub(super) fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (18..20).contains(&b)))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => public(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                !(v6.is_loopback()
                    || v6.is_unspecified()
                    || v6.is_multicast()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
                    || first == 0x2001 && v6.segments()[1] == 0x0db8)
            }
        },
    }
}

impl Callback {
    /// Checks `url` under `policy`: `https` to public addresses, or (development) `http` or
    /// `https` to loopback ones; every address the host resolves to must pass.
    pub(super) async fn check(
        url: &str,
        policy: &WebhookPolicy,
        clients: &Clients,
    ) -> Result<Callback, WebhookError> {
        let url = reqwest::Url::parse(url).map_err(|e| invalid(format!("delivery.url: {e}")))?;
        let host = url.host_str().ok_or_else(|| invalid("delivery.url needs a host".into()))?.to_owned();
        let port = url.port_or_known_default().unwrap_or(443);
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => {
                let lookup =
                    tokio::time::timeout(policy.timeout, tokio::net::lookup_host((bare, port))).await;
                match lookup {
                    Ok(Ok(found)) => found.collect(),
                    _ => return Err(invalid(format!("delivery.url: the host {host} does not resolve"))),
                }
            }
        };
        let loopback = |a: &SocketAddr| a.ip().is_loopback();
        let allowed = |a: &SocketAddr| public(a.ip()) || (policy.allow_http_loopback && loopback(a));
        if addrs.is_empty() || !addrs.iter().all(allowed) {
            return Err(invalid(format!(
                "delivery.url must point to a public address; {host} is not one (loopback callbacks need the development option allow_http_loopback)"
            )));
        }
        if url.scheme() != "https" && !(policy.allow_http_loopback && addrs.iter().all(loopback)) {
            return Err(invalid("delivery.url must be https".into()));
        }
        let key = (bare.to_owned(), addrs[0]);
        let cached = clients.lock().expect("lock").get(&key).cloned();
        let client = match cached {
            Some(c) => c,
            None => {
                let c = crate::tls::client_builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .timeout(policy.timeout)
                    .resolve(bare, addrs[0])
                    .build()
                    .map_err(|e| {
                        WebhookError::Rpc(crate::ErrorData::internal(format!("Internal error: {e}")))
                    })?;
                clients.lock().expect("lock").entry(key).or_insert(c).clone()
            }
        };
        Ok(Callback { url, client })
    }
}

/// Why a POST failed: retry it, or not (410 Gone, 413), with the SEP's category.
enum Failure {
    Retry(&'static str),
    Permanent(&'static str),
}

fn category(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        return "timeout";
    }
    let text = format!("{e:?}").to_ascii_lowercase();
    if text.contains("certificate") || text.contains("tls") || text.contains("handshake") {
        "tls_error"
    } else {
        "connection_refused"
    }
}

/// One signed POST of `body` (a new timestamp and signature every time: Standard Webhooks).
async fn post(
    cb: &Callback,
    secret: &[u8],
    msg_id: &str,
    sub_id: &str,
    body: &[u8],
    stats: &WebhookStats,
) -> Result<reqwest::Response, Failure> {
    stats.attempts.fetch_add(1, Ordering::Relaxed);
    let ts = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let sent = cb
        .client
        .post(cb.url.clone())
        .header("content-type", "application/json")
        .header("webhook-id", msg_id)
        .header("webhook-timestamp", ts.to_string())
        .header("webhook-signature", sign(secret, msg_id, ts, body))
        .header("x-mcp-subscription-id", sub_id)
        .body(body.to_vec())
        .send()
        .await;
    let resp = sent.map_err(|e| Failure::Retry(category(&e)))?;
    match resp.status().as_u16() {
        200..=299 => Ok(resp),
        410 | 413 => Err(Failure::Permanent("http_4xx")),
        500..=599 => Err(Failure::Retry("http_5xx")),
        _ => Err(Failure::Retry("http_4xx")),
    }
}

/// The verification challenge (SEP-3415 §Endpoint verification): a signed
/// `{"type":"verification","challenge"}` the endpoint must answer 2xx `{"challenge"}` with the
/// same nonce. CallbackEndpointError with the reason otherwise (never the endpoint's answer).
pub(super) async fn verify(
    cb: &Callback,
    secret: &[u8],
    sub_id: &str,
    stats: &WebhookStats,
) -> Result<(), WebhookError> {
    let nonce = crate::runtime::entropy::random_id();
    let body =
        serde_json::to_vec(&json!({ "type": "verification", "challenge": nonce })).expect("serializable");
    let msg_id = format!("msg_verification_{}", crate::runtime::entropy::random_id());
    let reason = match post(cb, secret, &msg_id, sub_id, &body, stats).await {
        Ok(mut resp) => {
            let mut answer = Vec::new();
            while let Ok(Some(chunk)) = resp.chunk().await {
                answer.extend_from_slice(&chunk);
                if answer.len() > MAX_ANSWER {
                    break;
                }
            }
            let echoed = serde_json::from_slice::<serde_json::Value>(&answer).ok();
            if echoed.as_ref().and_then(|v| v.get("challenge")).and_then(|c| c.as_str())
                == Some(nonce.as_str())
            {
                return Ok(());
            }
            "challenge_failed"
        }
        Err(Failure::Retry(r) | Failure::Permanent(r)) => {
            if r.starts_with("http_") {
                "challenge_failed"
            } else {
                r
            }
        }
    };
    tracing::info!(target: "mcpcore::events", subscription = %sub_id, reason, "webhook callback not verified");
    let why = format!("The callback did not confirm the subscription ({reason})");
    Err(WebhookError::Events(EventsErrorKind::CallbackEndpointError, why, json!({ "reason": reason })))
}

/// POSTs `body` until acknowledged, at most `policy.attempts` times with doubling waits; true
/// when delivered.
async fn deliver(sub: &Sub, msg_id: &str, body: &[u8], policy: &WebhookPolicy, stats: &WebhookStats) -> bool {
    let attempts = policy.attempts.max(1);
    for attempt in 0..attempts {
        if attempt > 0 {
            tokio::time::sleep(policy.backoff * 2u32.saturating_pow(attempt - 1)).await;
        }
        let secret = sub.state.lock().expect("lock").secret.clone();
        match post(&sub.callback, &secret, msg_id, &sub.id, body, stats).await {
            Ok(_) => {
                stats.delivered.fetch_add(1, Ordering::Relaxed);
                return true;
            }
            Err(Failure::Permanent(why)) => {
                tracing::warn!(target: "mcpcore::events", subscription = %sub.id, msg_id, why, "webhook delivery refused for good");
                break;
            }
            Err(Failure::Retry(why)) => {
                tracing::info!(target: "mcpcore::events", subscription = %sub.id, msg_id, why, attempt = attempt + 1, "webhook delivery failed");
            }
        }
    }
    stats.abandoned.fetch_add(1, Ordering::Relaxed);
    false
}

/// Drops `sub` from the hub (unless a newer subscription took its id).
fn forget(inner: &Weak<Inner>, sub: &Arc<Sub>) {
    if let Some(inner) = inner.upgrade() {
        let mut subs = inner.subs.lock().expect("lock");
        if subs.get(&sub.id).is_some_and(|s| Arc::ptr_eq(s, sub)) {
            subs.remove(&sub.id);
        }
    }
}

/// Reads the fleet's copy of `sub` (a refresh on another instance: its secret, TTL and
/// dialect); false when it is gone there (unsubscribed or expired).
async fn reload(store: &dyn SubscriptionStore, sub: &Sub) -> bool {
    match store.get(&sub.id).await {
        Ok(Some(stored)) => {
            let mut st = sub.state.lock().expect("lock");
            st.secret = stored.secret;
            st.dialect = stored.dialect;
            st.expires = stored.expires_ms.map(|ms| UNIX_EPOCH + Duration::from_millis(ms));
            true
        }
        Ok(None) => false,
        // Redis is away: go on with what is known (the claim loop stops this task if the
        // lease runs out meanwhile).
        Err(_) => true,
    }
}

/// A subscription's delivery loop: every occurrence after its position, in order; a `gap`
/// envelope when some were dropped; until its TTL ends (then it is removed), its type is
/// removed (a `terminated` envelope, then it is removed) or it is aborted. In a fleet the
/// stored subscription is read before each round and its position recorded after each
/// delivery.
pub(super) async fn run(
    inner: Weak<Inner>,
    registry: Weak<EventRegistry>,
    sub: Arc<Sub>,
    policy: WebhookPolicy,
    stats: Arc<WebhookStats>,
) {
    let store = registry.upgrade().and_then(|r| r.shared_subscriptions());
    loop {
        if let Some(store) = &store {
            if !reload(store.as_ref(), &sub).await {
                forget(&inner, &sub);
                tracing::debug!(target: "mcpcore::events", subscription = %sub.id, "webhook subscription gone from the fleet");
                return;
            }
        }
        let (expires, position, not_before, keys, dialect) = {
            let mut st = sub.state.lock().expect("lock");
            (st.expires, st.position, st.not_before_ms.take(), st.keys.clone(), st.dialect)
        };
        let left = expires.map(|e| e.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO));
        if left == Some(Duration::ZERO) {
            forget(&inner, &sub);
            tracing::debug!(target: "mcpcore::events", subscription = %sub.id, "webhook subscription expired");
            return;
        }
        let Some(registry) = registry.upgrade() else { return };
        if registry.get(&sub.key.name).is_none() {
            // The type was removed: a `terminated` envelope ends the subscription (SEP-3415
            // §Event type removal), in the error codes of the client that subscribed.
            let why = format!("The event type {} is no longer offered", sub.key.name);
            let code = crate::error::ErrorCode(EventsErrorKind::NotFound.code(dialect));
            let error = crate::error::ErrorData::new(code, why)
                .with_data(json!({ "kind": "event", "name": sub.key.name }));
            let body =
                serde_json::to_vec(&json!({ "type": "terminated", "error": error })).expect("serializable");
            let msg_id = format!("msg_terminated_{}", crate::runtime::entropy::random_id());
            deliver(&sub, &msg_id, &body, &policy, &stats).await;
            forget(&inner, &sub);
            tracing::info!(target: "mcpcore::events", subscription = %sub.id, "webhook subscription ended: its type was removed");
            return;
        }
        let read = registry.read(&sub.key.name, Some(position), BATCH, not_before);
        let declared = registry.get(&sub.key.name);
        drop(registry);
        let seal = |p: Position| cursor::seal(&keys, &sub.key.name, p);
        if read.truncated {
            let body = serde_json::to_vec(&json!({ "type": "gap", "cursor": seal(read.start()) }))
                .expect("serializable");
            let msg_id = format!("msg_gap_{}", crate::runtime::entropy::random_id());
            deliver(&sub, &msg_id, &body, &policy, &stats).await;
        }
        for (seq, occurrence) in read.events {
            let at = Position { seq, ..read.position };
            // What the subscription's arguments filter out is passed over; the rest is shaped
            // for it.
            let delivered = match &declared {
                Some(t) => t.deliver(occurrence, &sub.key.arguments),
                None => Some(occurrence),
            };
            let Some(mut occurrence) = delivered else {
                sub.state.lock().expect("lock").position = at;
                continue;
            };
            occurrence.cursor = Some(seal(at));
            let body = serde_json::to_vec(&occurrence).expect("serializable");
            deliver(&sub, &occurrence.event_id, &body, &policy, &stats).await;
            sub.state.lock().expect("lock").position = at;
            if let Some(store) = &store {
                let _ = store.advance(&sub.id, at).await;
            }
        }
        sub.state.lock().expect("lock").position = read.position;
        if let Some(store) = &store {
            let _ = store.advance(&sub.id, read.position).await;
        }
        if read.has_more {
            continue;
        }
        let wait = left.unwrap_or(Duration::from_secs(3600));
        tokio::select! {
            _ = sub.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}
