//! A JWKS URL's keys, cached: fetched on first use, again when older than the TTL, when a
//! token names a key id the set lacks (the issuer rotated its keys), and when a token's
//! signature fails under a key id the set has (the issuer replaced the key under the same
//! `kid`; issue 49) — at most one attempt per cooldown, so neither tokens with made-up key ids
//! or forged signatures nor an unreachable issuer make every request wait on a fetch. Keys
//! already fetched keep verifying while the issuer is down.

use super::Refusal;
use crate::auth::client::discovery::read_limited;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Largest JWKS document read.
const MAX_JWKS: usize = 256 * 1024;

/// When a key set was fetched (none: never): tells a set from the one that replaced it.
pub(super) type Fetched = Option<Instant>;

/// One usable key of the set.
struct Key {
    kid: Option<String>,
    alg: Option<Algorithm>,
    key: DecodingKey,
}

#[derive(Default)]
struct KeySet {
    keys: Vec<Key>,
    fetched: Option<Instant>,
}

impl KeySet {
    fn fresh(&self, ttl: Duration) -> bool {
        self.fetched.is_some_and(|t| t.elapsed() < ttl)
    }

    /// The key for a token header: by `kid`; without one, the only key usable with `alg`.
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
        let usable = |k: &&Key| k.alg.is_none_or(|a| a == alg);
        match kid {
            Some(kid) => self.keys.iter().filter(usable).find(|k| k.kid.as_deref() == Some(kid)),
            None => {
                let mut it = self.keys.iter().filter(usable);
                it.next().filter(|_| it.next().is_none())
            }
        }
        .map(|k| k.key.clone())
    }
}

/// The cached keys of one JWKS URL.
pub(super) struct Jwks {
    url: String,
    http: reqwest::Client,
    ttl: Duration,
    cooldown: Duration,
    set: RwLock<Arc<KeySet>>,
    /// When a fetch was last attempted; held while fetching, so concurrent misses wait for
    /// one fetch.
    attempt: tokio::sync::Mutex<Option<Instant>>,
    fetches: AtomicU64,
}

impl Jwks {
    pub(super) fn new(url: String, http: reqwest::Client, ttl: Duration, cooldown: Duration) -> Jwks {
        Jwks {
            url,
            http,
            ttl,
            cooldown,
            set: RwLock::default(),
            attempt: tokio::sync::Mutex::new(None),
            fetches: AtomicU64::new(0),
        }
    }

    /// How many times the JWKS URL was fetched.
    pub(super) fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    fn current(&self) -> Arc<KeySet> {
        self.set.read().expect("lock").clone()
    }

    /// The key for a token's `kid` and `alg`, and when the set it came from was fetched (for
    /// [`Jwks::rekey`]).
    pub(super) async fn key(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<(DecodingKey, Fetched), Refusal> {
        let set = self.current();
        if set.fresh(self.ttl) {
            if let Some(k) = set.find(kid, alg) {
                return Ok((k, set.fetched));
            }
        }
        let mut attempt = self.attempt.lock().await;
        let mut set = self.current();
        if set.fresh(self.ttl) {
            if let Some(k) = set.find(kid, alg) {
                return Ok((k, set.fetched)); // another request just fetched it
            }
        }
        if attempt.is_none_or(|t| t.elapsed() >= self.cooldown) {
            *attempt = Some(Instant::now());
            match self.fetch().await {
                Ok(new) => {
                    let new = Arc::new(new);
                    *self.set.write().expect("lock") = new.clone();
                    set = new;
                }
                // Keys we had still verify while the issuer is unreachable.
                Err(e) => return set.find(kid, alg).map(|k| (k, set.fetched)).ok_or(Refusal::Unavailable(e)),
            }
        } else if set.fetched.is_none() {
            return Err(Refusal::Unavailable(format!(
                "the keys of {} could not be fetched yet; retrying after the cooldown",
                self.url
            )));
        }
        // Within the cooldown a stale set still serves the keys it has.
        set.find(kid, alg).map(|k| (k, set.fetched)).ok_or_else(|| {
            Refusal::InvalidToken(match kid {
                Some(kid) => format!("the token is signed with an unknown key ({kid:?})"),
                None => "the token names no key id and the issuer has several keys".to_owned(),
            })
        })
    }

    /// A token's signature failed under the key for `kid` from the set fetched at `seen`: the
    /// key for `kid` in a newer set, fetched now unless another request already did or the
    /// cooldown forbids it. None when there is no newer key to try (the token is refused as
    /// it is).
    pub(super) async fn rekey(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
        seen: Fetched,
    ) -> Option<DecodingKey> {
        let mut attempt = self.attempt.lock().await;
        let set = self.current();
        if set.fetched != seen {
            return set.find(kid, alg); // fetched since this token's key was taken
        }
        if attempt.is_some_and(|t| t.elapsed() < self.cooldown) {
            return None;
        }
        *attempt = Some(Instant::now());
        let new = Arc::new(self.fetch().await.ok()?);
        *self.set.write().expect("lock") = new.clone();
        new.find(kid, alg)
    }

    async fn fetch(&self) -> Result<KeySet, String> {
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let fail = |e: String| format!("cannot fetch the JWKS {}: {e}", self.url);
        let resp = self.http.get(&self.url).header("accept", "application/json").send().await;
        let resp = resp.map_err(|e| fail(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(fail(format!("HTTP {}", resp.status())));
        }
        let body = read_limited(resp, MAX_JWKS).await.map_err(fail)?;
        let keys = parse(&body).map_err(fail)?;
        Ok(KeySet { keys, fetched: Some(Instant::now()) })
    }
}

/// The usable keys of a JWKS document (RFC 7517 §5): keys of kinds we cannot use, or for
/// encryption, are skipped, not fatal; a document that is not JSON or has no `keys` array is.
fn parse(body: &[u8]) -> Result<Vec<Key>, String> {
    let doc: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let Some(keys) = doc.get("keys").and_then(serde_json::Value::as_array) else {
        return Err("no \"keys\" array".to_owned());
    };
    Ok(keys
        .iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
        .filter(|k| !matches!(k.common.public_key_use, Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)))
        .filter_map(|jwk| {
            let key = DecodingKey::from_jwk(&jwk).ok()?;
            let alg = match jwk.common.key_algorithm {
                Some(a) => Some(a.to_string().parse::<Algorithm>().ok()?),
                None => None,
            };
            Some(Key { kid: jwk.common.key_id.clone(), alg, key })
        })
        .collect())
}

/// For the fuzz target `jwks_document` ([`crate::fuzzing::parse_jwks`]): how many usable keys
/// a JWKS document holds, with the key ids.
#[cfg(feature = "fuzzing")]
pub(crate) fn parse_for_fuzzing(body: &[u8]) -> Result<Vec<Option<String>>, String> {
    parse(body).map(|keys| keys.into_iter().map(|k| k.kid).collect())
}
