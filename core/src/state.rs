//! Sealed MRTR `requestState` (2026-07-28 basic/patterns/mrtr): what a server needs to resume a request after the
//! client gathered input, authenticated with HMAC-SHA256 so any server instance holding the key
//! accepts it and a tampered, expired or replayed-to-another-request one is rejected.
//!
//! Wire form: `base64url(json) "." base64url(hmac(key, json))`, no padding. The JSON binds the
//! method, the target (tool or prompt name, resource URI) and a digest of the arguments, and
//! carries the answers the handler already used plus the handler's own state.
//!
//! Encrypted form ([`crate::engine::ServerConfig::state_encryption`]): `"e." base64url(nonce
//! ciphertext)` with XChaCha20-Poly1305 under a key derived from the state key, so a client
//! cannot read what a handler keeps in its state. The 24-byte nonce is synthetic (an HMAC of
//! the plaintext under another derived key), which needs no entropy here and never repeats for
//! two different states. Both forms open whatever the setting, so it can change while states
//! are in flight.
//!
//! Single use ([`crate::engine::ServerConfig::state_single_use`]): each state has an id (its
//! tag or nonce); the runtime claims it in a [`StateLedger`] before the handler runs and
//! refuses it the second time. The default [`MemoryStateLedger`] remembers claims in this
//! process only: instances behind one load balancer need a ledger they share.

use crate::error::ErrorData;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type HmacSha256 = Hmac<Sha256>;

/// A secret that seals `requestState`. Share keys between server instances behind a load
/// balancer so any of them can resume a request; without one the runtime draws a random key
/// per process.
#[derive(Clone, PartialEq, Eq)]
pub struct StateKey(Vec<u8>);

impl StateKey {
    /// A key from secret bytes (use at least 32 random bytes).
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        StateKey(bytes.into())
    }

    /// A key from hex text (at least 32 bytes, i.e. 64 hex digits).
    pub fn from_hex(hex: &str) -> Result<Self, String> {
        let hex = hex.trim();
        if !hex.len().is_multiple_of(2) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("a requestState key must be hex digits".to_owned());
        }
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("checked"))
            .collect();
        if bytes.len() < 32 {
            return Err(format!("a requestState key needs at least 32 bytes, got {}", bytes.len()));
        }
        Ok(StateKey(bytes))
    }

    fn mac(&self) -> HmacSha256 {
        HmacSha256::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }

    /// A 32-byte subkey for `purpose` (HMAC-SHA256 of the label under this key).
    fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac = self.mac();
        mac.update(b"mcpcore requestState ");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(<redacted>)")
    }
}

/// The keys that seal and open `requestState`, newest first: states are sealed with the first
/// and opened with any, so keys rotate without breaking states in flight (add the new key in
/// front, drop the old one after the state lifetime).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateKeys(Vec<StateKey>);

impl StateKeys {
    /// These keys, newest first.
    pub fn new(keys: impl IntoIterator<Item = StateKey>) -> Self {
        StateKeys(keys.into_iter().collect())
    }

    /// True when no key is configured (the runtime then draws one per process).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sealing key.
    pub fn current(&self) -> Option<&StateKey> {
        self.0.first()
    }

    /// Every key, newest first.
    pub fn all(&self) -> &[StateKey] {
        &self.0
    }

    /// A 16-byte HMAC-SHA256 tag of `parts` (length-prefixed, under a `domain` label) with the
    /// sealing key; `None` without keys. Binds other values to this server's secret (e.g. a
    /// session id to its owner).
    pub(crate) fn tag(&self, domain: &str, parts: &[&[u8]]) -> Option<[u8; 16]> {
        let mut mac = self.current()?.mac();
        feed(&mut mac, domain, parts);
        let full = mac.finalize().into_bytes();
        Some(full[..16].try_into().expect("16 of 32 bytes"))
    }

    /// True when `tag` is [`StateKeys::tag`] of `parts` under any key (constant-time).
    pub(crate) fn verify_tag(&self, domain: &str, parts: &[&[u8]], tag: &[u8]) -> bool {
        tag.len() == 16
            && self.0.iter().any(|k| {
                let mut mac = k.mac();
                feed(&mut mac, domain, parts);
                mac.verify_truncated_left(tag).is_ok()
            })
    }
}

fn feed(mac: &mut HmacSha256, domain: &str, parts: &[&[u8]]) {
    for p in std::iter::once(domain.as_bytes()).chain(parts.iter().copied()) {
        mac.update(&(p.len() as u64).to_be_bytes());
        mac.update(p);
    }
}

impl From<StateKey> for StateKeys {
    fn from(k: StateKey) -> Self {
        StateKeys(vec![k])
    }
}

/// What a sealed `requestState` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sealed {
    /// The request's method (`tools/call`, `prompts/get`, `resources/read`).
    #[serde(rename = "m")]
    pub(crate) method: String,
    /// The tool or prompt name, or the resource URI.
    #[serde(rename = "t")]
    pub(crate) target: String,
    /// Digest of the request's arguments.
    #[serde(rename = "d")]
    pub(crate) digest: String,
    /// Answers the handler used in earlier rounds, by input key.
    #[serde(rename = "a", default, skip_serializing_if = "Map::is_empty")]
    pub(crate) answers: Map<String, Value>,
    /// The handler's own state ([`crate::context::RequestContext::set_request_state`]).
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    pub(crate) user: Option<Value>,
    /// Expiry, milliseconds since the Unix epoch.
    #[serde(rename = "x")]
    pub(crate) expires_ms: u64,
    /// Which state this is (its tag or nonce, base64url): what single use claims. Not sealed.
    #[serde(skip)]
    pub(crate) id: String,
}

/// The request a state is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) digest: String,
    /// The state the request carried, once opened: for single use.
    pub(crate) claim: Option<Claim>,
}

/// An opened state, as single use claims it: its id and expiry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The state's id.
    pub id: String,
    /// When it expires (a ledger may forget it then).
    pub expires: SystemTime,
}

impl Binding {
    /// Binds `method` on `target` with `arguments` (digest over canonical JSON).
    pub(crate) fn new(method: &str, target: &str, arguments: &Value) -> Self {
        let mut canonical = String::new();
        write_canonical(arguments, &mut canonical);
        let digest = Sha256::digest(canonical.as_bytes());
        Binding {
            method: method.to_owned(),
            target: target.to_owned(),
            digest: URL_SAFE_NO_PAD.encode(&digest[..16]),
            claim: None,
        }
    }
}

/// Writes `v` as canonical JSON (object keys sorted at every level) to `out`: the same
/// arguments in any key order are the same text (sealed bindings, idempotency fingerprints).
pub(crate) fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn now_ms(now: SystemTime) -> u64 {
    now.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Seals the state of `binding` with its answers and user state, valid for `ttl` from `now`.
pub(crate) fn seal(
    key: &StateKey,
    binding: &Binding,
    answers: Map<String, Value>,
    user: Option<Value>,
    ttl: Duration,
    now: SystemTime,
) -> String {
    let json = contents(binding, answers, user, ttl, now);
    let mut mac = key.mac();
    mac.update(&json);
    let tag = mac.finalize().into_bytes();
    format!("{}.{}", URL_SAFE_NO_PAD.encode(&json), URL_SAFE_NO_PAD.encode(tag))
}

fn contents(
    binding: &Binding,
    answers: Map<String, Value>,
    user: Option<Value>,
    ttl: Duration,
    now: SystemTime,
) -> Vec<u8> {
    let sealed = Sealed {
        method: binding.method.clone(),
        target: binding.target.clone(),
        digest: binding.digest.clone(),
        answers,
        user,
        expires_ms: now_ms(now).saturating_add(ttl.as_millis() as u64),
        id: String::new(),
    };
    serde_json::to_vec(&sealed).expect("serializable")
}

/// The prefix of an encrypted state (a plain one starts with `eyJ`, base64 of `{"`).
const ENCRYPTED: &str = "e.";

/// Seals like [`seal`], encrypted (see the module docs): the contents are unreadable without
/// the key.
pub(crate) fn seal_encrypted(
    key: &StateKey,
    binding: &Binding,
    answers: Map<String, Value>,
    user: Option<Value>,
    ttl: Duration,
    now: SystemTime,
) -> String {
    use chacha20poly1305::aead::{Aead, KeyInit};
    let json = contents(binding, answers, user, ttl, now);
    let mut nonce_mac =
        <HmacSha256 as KeyInit>::new_from_slice(&key.derive("nonce")).expect("any key length");
    nonce_mac.update(&json);
    let nonce: [u8; 24] = nonce_mac.finalize().into_bytes()[..24].try_into().expect("24 of 32 bytes");
    let cipher = chacha20poly1305::XChaCha20Poly1305::new(&key.derive("aead").into());
    let sealed = cipher.encrypt(&nonce.into(), json.as_slice()).expect("encryption of a Vec cannot fail");
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    format!("{ENCRYPTED}{}", URL_SAFE_NO_PAD.encode(out))
}

/// The contents of an encrypted state, and its id (the nonce), when one of `keys` opens it.
fn decrypt(keys: &StateKeys, text: &str) -> Result<(Vec<u8>, String), ErrorData> {
    use chacha20poly1305::aead::{Aead, KeyInit};
    let raw = URL_SAFE_NO_PAD.decode(text).map_err(|_| rejected("malformed (not issued by this server)"))?;
    if raw.len() < 24 + 16 {
        return Err(rejected("malformed (not issued by this server)"));
    }
    let (nonce, sealed) = raw.split_at(24);
    let nonce: [u8; 24] = nonce.try_into().expect("split at 24");
    keys.all()
        .iter()
        .find_map(|key| {
            let cipher = chacha20poly1305::XChaCha20Poly1305::new(&key.derive("aead").into());
            cipher.decrypt(&nonce.into(), sealed).ok()
        })
        .map(|json| (json, URL_SAFE_NO_PAD.encode(&nonce[..16])))
        .ok_or_else(|| rejected("integrity check failed (tampered, or sealed with another key)"))
}

fn rejected(why: &str) -> ErrorData {
    ErrorData::invalid_params(format!("Invalid params: requestState rejected: {why}"))
}

/// Opens a state sealed by [`seal`] with one of `keys`: `-32602` when it was not sealed with
/// any of them, was altered, has expired, or belongs to another request than `binding`.
pub(crate) fn open(
    keys: &StateKeys,
    state: &str,
    binding: &Binding,
    now: SystemTime,
) -> Result<Sealed, ErrorData> {
    let (json, id) = match state.strip_prefix(ENCRYPTED) {
        Some(text) => decrypt(keys, text)?,
        None => {
            let (body, tag) =
                state.split_once('.').ok_or_else(|| rejected("malformed (not issued by this server)"))?;
            let json = URL_SAFE_NO_PAD
                .decode(body)
                .map_err(|_| rejected("malformed (not issued by this server)"))?;
            let tag =
                URL_SAFE_NO_PAD.decode(tag).map_err(|_| rejected("malformed (not issued by this server)"))?;
            let verified = keys.all().iter().any(|key| {
                let mut mac = key.mac();
                mac.update(&json);
                mac.verify_slice(&tag).is_ok()
            });
            if !verified {
                return Err(rejected("integrity check failed (tampered, or sealed with another key)"));
            }
            (json, URL_SAFE_NO_PAD.encode(&tag[..tag.len().min(16)]))
        }
    };
    let mut sealed: Sealed = serde_json::from_slice(&json).map_err(|_| rejected("unreadable contents"))?;
    sealed.id = id;
    if sealed.expires_ms < now_ms(now) {
        return Err(rejected("expired; send the request again without requestState"));
    }
    if sealed.method != binding.method || sealed.target != binding.target {
        return Err(rejected(&format!(
            "it was issued for {} {:?}, not {} {:?}",
            sealed.method, sealed.target, binding.method, binding.target
        )));
    }
    if sealed.digest != binding.digest {
        return Err(rejected("it was issued for the same target with different arguments"));
    }
    Ok(sealed)
}

impl Sealed {
    /// What single use claims of this state.
    pub(crate) fn claim(&self) -> Claim {
        Claim { id: self.id.clone(), expires: UNIX_EPOCH + Duration::from_millis(self.expires_ms) }
    }
}

/// Remembers which `requestState`s were accepted, for single use
/// ([`crate::engine::ServerConfig::state_single_use`]). Instances behind one load balancer
/// must share one (a database with an atomic "set if absent, with expiry", e.g. Redis
/// `SET id 1 NX PXAT expiry`); the default [`MemoryStateLedger`] covers one process.
pub trait StateLedger: Send + Sync + std::fmt::Debug + 'static {
    /// Records `claim` at `now`: `Ok(true)` the first time, `Ok(false)` when it was claimed
    /// before. A ledger that cannot answer fails with the error the client gets (`-32603`).
    fn claim<'a>(
        &'a self,
        claim: &'a Claim,
        now: SystemTime,
    ) -> crate::future::BoxFuture<'a, Result<bool, ErrorData>>;
}

/// Claims in memory until their states expire, at most `capacity` at once (a claim past it is
/// refused with `-32603` naming the limit until older states expire).
#[derive(Debug)]
pub struct MemoryStateLedger {
    capacity: usize,
    claims: std::sync::Mutex<std::collections::HashMap<String, SystemTime>>,
}

impl MemoryStateLedger {
    /// The default capacity.
    pub const DEFAULT_CAPACITY: usize = 100_000;

    /// A ledger of at most `capacity` live claims.
    pub fn new(capacity: usize) -> Self {
        MemoryStateLedger { capacity: capacity.max(1), claims: Default::default() }
    }

    fn claim_now(&self, claim: &Claim, now: SystemTime) -> Result<bool, ErrorData> {
        let mut claims = self.claims.lock().expect("lock");
        if claims.contains_key(&claim.id) {
            return Ok(false);
        }
        if claims.len() >= self.capacity {
            claims.retain(|_, expires| *expires >= now);
        }
        if claims.len() >= self.capacity {
            return Err(ErrorData::over_limit(
                "state_claims",
                self.capacity,
                "Too many single-use requestStates in flight; retry shortly",
            ));
        }
        claims.insert(claim.id.clone(), claim.expires);
        Ok(true)
    }
}

impl Default for MemoryStateLedger {
    fn default() -> Self {
        MemoryStateLedger::new(Self::DEFAULT_CAPACITY)
    }
}

impl StateLedger for MemoryStateLedger {
    fn claim<'a>(
        &'a self,
        claim: &'a Claim,
        now: SystemTime,
    ) -> crate::future::BoxFuture<'a, Result<bool, ErrorData>> {
        Box::pin(std::future::ready(self.claim_now(claim, now)))
    }
}

/// `-32602` for a single-use state presented again.
pub(crate) fn replayed() -> ErrorData {
    rejected("already used (this server accepts each requestState once); send the request again without it")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StateKey {
        StateKey::new(crate::protocol::ProtocolVersion::LATEST.as_str().repeat(4))
    }
    use serde_json::json;

    fn binding() -> Binding {
        Binding::new("tools/call", "weather", &json!({"city": "Paris", "days": 2}))
    }

    #[test]
    fn round_trip_keeps_answers_and_user_state() {
        let key = key();
        let mut answers = Map::new();
        answers.insert("k".into(), json!({"action": "accept"}));
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let s = seal(&key, &binding(), answers.clone(), Some(json!([1, 2])), Duration::from_secs(60), now);
        let opened = open(&key.clone().into(), &s, &binding(), now).unwrap();
        assert_eq!(opened.answers, answers);
        assert_eq!(opened.user, Some(json!([1, 2])));
    }

    #[test]
    fn encrypted_states_hide_their_contents_and_open_like_plain_ones() {
        let key = key();
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let secret = json!({"cart": "the handler's secret"});
        let s =
            seal_encrypted(&key, &binding(), Map::new(), Some(secret.clone()), Duration::from_secs(60), now);
        assert!(s.starts_with("e."), "{s}");
        let raw = URL_SAFE_NO_PAD.decode(&s[2..]).unwrap();
        assert!(!String::from_utf8_lossy(&raw).contains("secret"), "readable: {s}");
        let opened = open(&key.clone().into(), &s, &binding(), now).unwrap();
        assert_eq!(opened.user, Some(secret.clone()));
        let plain = open(
            &key.clone().into(),
            &seal(&key, &binding(), Map::new(), None, Duration::from_secs(60), now),
            &binding(),
            now,
        )
        .unwrap();
        assert_ne!(opened.id, plain.id);
        // Tampered, another key, expired, another request: refused like a plain state.
        let mut bytes = raw.clone();
        bytes[30] ^= 1;
        let tampered = format!("e.{}", URL_SAFE_NO_PAD.encode(bytes));
        let msg = |r: Result<Sealed, ErrorData>| r.unwrap_err().message;
        assert!(msg(open(&key.clone().into(), &tampered, &binding(), now)).contains("integrity"));
        assert!(msg(open(&StateKey::new(vec![7u8; 32]).into(), &s, &binding(), now)).contains("integrity"));
        assert!(
            msg(open(&key.clone().into(), &s, &binding(), now + Duration::from_secs(61))).contains("expired")
        );
        let other = Binding::new("tools/call", "weather", &json!({"city": "Rome", "days": 2}));
        assert!(msg(open(&key.clone().into(), &s, &other, now)).contains("different arguments"));
        assert!(msg(open(&key.clone().into(), "e.AAAA", &binding(), now)).contains("malformed"));
        // Rotation: sealed with the old key, opened with [new, old].
        let rotated = StateKeys::new([StateKey::new(vec![9u8; 32]), key.clone()]);
        assert_eq!(open(&rotated, &s, &binding(), now).unwrap().user, Some(secret));
    }

    #[test]
    fn a_ledger_accepts_each_state_once_and_forgets_expired_ones() {
        let l = MemoryStateLedger::new(2);
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        let c = |id: &str, exp| Claim { id: id.into(), expires: at(exp) };
        assert!(l.claim_now(&c("a", 10), at(0)).unwrap());
        assert!(!l.claim_now(&c("a", 10), at(1)).unwrap(), "a replay");
        assert!(l.claim_now(&c("b", 20), at(1)).unwrap());
        assert_eq!(l.claim_now(&c("c", 20), at(2)).unwrap_err().limit_reached(), Some("state_claims"));
        assert!(l.claim_now(&c("c", 20), at(11)).unwrap(), "a expired, room again");
    }

    #[test]
    fn argument_order_does_not_matter() {
        let a = Binding::new("tools/call", "t", &json!({"a": 1, "b": {"y": 2, "x": 1}}));
        let b =
            Binding::new("tools/call", "t", &serde_json::from_str(r#"{"b":{"x":1,"y":2},"a":1}"#).unwrap());
        assert_eq!(a, b);
    }

    #[test]
    fn tampered_expired_foreign_and_rebound_states_are_rejected() {
        let key = key();
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let s = seal(&key, &binding(), Map::new(), None, Duration::from_secs(60), now);
        let msg = |r: Result<Sealed, ErrorData>| r.unwrap_err().message;
        assert!(
            msg(open(&key.clone().into(), &format!("{s}-TAMPERED"), &binding(), now)).contains("integrity")
        );
        assert!(msg(open(&StateKey::new(vec![7u8; 32]).into(), &s, &binding(), now)).contains("integrity"));
        let later = now + Duration::from_secs(61);
        assert!(msg(open(&key.clone().into(), &s, &binding(), later)).contains("expired"));
        let other_tool = Binding::new("tools/call", "other", &json!({"city": "Paris", "days": 2}));
        assert!(msg(open(&key.clone().into(), &s, &other_tool, now))
            .contains("issued for tools/call \"weather\""));
        let other_args = Binding::new("tools/call", "weather", &json!({"city": "Rome", "days": 2}));
        assert!(msg(open(&key.clone().into(), &s, &other_args, now)).contains("different arguments"));
        assert!(msg(open(&key.clone().into(), "garbage", &binding(), now)).contains("malformed"));
        assert_eq!(
            open(&key.clone().into(), "x.y", &binding(), now).unwrap_err().code,
            crate::ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn tags_verify_under_any_key_and_only_for_their_parts() {
        let (a, b) = (StateKey::new(vec![1u8; 32]), StateKey::new(vec![2u8; 32]));
        let tag = StateKeys::from(a.clone()).tag("d", &[b"id", b"alice"]).unwrap();
        let rotated = StateKeys::new([b.clone(), a]);
        assert!(rotated.verify_tag("d", &[b"id", b"alice"], &tag));
        assert!(!rotated.verify_tag("d", &[b"id", b"bob"], &tag));
        assert!(!rotated.verify_tag("d", &[b"ida", b"lice"], &tag), "parts are length-prefixed");
        assert!(!rotated.verify_tag("e", &[b"id", b"alice"], &tag));
        assert!(!StateKeys::from(b).verify_tag("d", &[b"id", b"alice"], &tag));
        assert!(!rotated.verify_tag("d", &[b"id", b"alice"], &tag[..8]));
        assert!(StateKeys::default().tag("d", &[]).is_none());
    }
}
