//! DPoP (RFC 9449): the client's proof-of-possession key, the proof JWT sent in the `DPoP`
//! header of token requests (§5) and resource requests (§7), and the server-provided nonces
//! (§8 authorization server, §9 resource server), remembered per origin.
//!
//! Proofs are ES256 (P-256), the algorithm every DPoP server must accept in practice and the
//! one the conformance suite advertises. A proof: header `{typ: "dpop+jwt", alg, jwk}`,
//! claims `{jti, htm, htu, iat, ath?, nonce?}`; `htu` is the target URI without query and
//! fragment (§4.2); `ath` is base64url(SHA-256(access token)) (§4.2, resource requests only).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// A DPoP key pair (P-256).
pub(crate) struct DpopKey {
    encoding: EncodingKey,
    jwk: jsonwebtoken::jwk::Jwk,
    pkcs8: Vec<u8>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("jwk", &self.jwk).finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct ProofClaims<'a> {
    jti: String,
    htm: &'a str,
    htu: String,
    iat: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
}

/// Random bytes from the OS, base64url.
pub(crate) fn random_id(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).expect("the OS random source works");
    URL_SAFE_NO_PAD.encode(b)
}

/// The `htu` of a request URL: without query and fragment (RFC 9449 §4.2).
pub(crate) fn htu(url: &reqwest::Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

/// `ath`: base64url(SHA-256(token)).
pub(crate) fn ath(access_token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(access_token.as_bytes()))
}

impl DpopKey {
    /// A fresh key.
    pub(crate) fn generate() -> Result<DpopKey, String> {
        loop {
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed).map_err(|e| e.to_string())?;
            // Almost every 32-byte string is a valid scalar; retry on the rare one that is not.
            if let Ok(sk) = p256::SecretKey::from_slice(&seed) {
                let der = sk.to_pkcs8_der().map_err(|e| e.to_string())?;
                return Self::from_pkcs8(der.as_bytes());
            }
        }
    }

    /// A key from its PKCS#8 DER encoding.
    pub(crate) fn from_pkcs8(der: &[u8]) -> Result<DpopKey, String> {
        let encoding = EncodingKey::from_ec_der(der);
        let mut jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&encoding, Algorithm::ES256)
            .map_err(|e| format!("not a P-256 key: {e}"))?;
        jwk.common.key_algorithm = None;
        Ok(DpopKey { encoding, jwk, pkcs8: der.to_vec() })
    }

    /// The key as stored with DPoP-bound tokens (PKCS#8 DER, base64url).
    pub(crate) fn export(&self) -> String {
        URL_SAFE_NO_PAD.encode(&self.pkcs8)
    }

    /// A key stored by [`DpopKey::export`].
    pub(crate) fn import(s: &str) -> Result<DpopKey, String> {
        let der = URL_SAFE_NO_PAD.decode(s).map_err(|e| format!("bad stored DPoP key: {e}"))?;
        Self::from_pkcs8(&der)
    }

    /// A proof for `htm` on `url`, bound to `access_token` when given, carrying `nonce`.
    pub(crate) fn proof(
        &self,
        htm: &str,
        url: &reqwest::Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
        now: u64,
    ) -> Result<String, String> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        let claims = ProofClaims {
            jti: random_id(16),
            htm,
            htu: htu(url),
            iat: now,
            ath: access_token.map(ath),
            nonce,
        };
        jsonwebtoken::encode(&header, &claims, &self.encoding)
            .map_err(|e| format!("cannot sign a DPoP proof: {e}"))
    }
}

/// Server-provided nonces by origin (`scheme://host:port`).
#[derive(Debug, Default)]
pub(crate) struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    pub(crate) fn get(&self, url: &reqwest::Url) -> Option<String> {
        self.0.lock().expect("lock").get(&url.origin().ascii_serialization()).cloned()
    }

    /// Remembers `nonce` for `url`'s origin; true when it changed.
    pub(crate) fn set(&self, url: &reqwest::Url, nonce: &str) -> bool {
        let key = url.origin().ascii_serialization();
        let mut m = self.0.lock().expect("lock");
        if m.get(&key).map(String::as_str) == Some(nonce) {
            return false;
        }
        m.insert(key, nonce.to_owned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};
    use serde_json::Value;

    #[test]
    fn a_proof_verifies_with_its_embedded_key_and_carries_the_claims() {
        let key = DpopKey::generate().unwrap();
        let url = reqwest::Url::parse("https://rs.example/mcp?x=1#f").unwrap();
        let proof = key.proof("POST", &url, Some("tok"), Some("n1"), 1_700_000_000).unwrap();
        let header = jsonwebtoken::decode_header(&proof).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        assert_eq!(header.alg, Algorithm::ES256);
        let jwk = header.jwk.unwrap();
        let jwk_json = serde_json::to_value(&jwk).unwrap();
        assert!(jwk_json.get("d").is_none(), "no private part in the header: {jwk_json}");
        assert_eq!(jwk_json["kty"], "EC");
        assert_eq!(jwk_json["crv"], "P-256");
        let mut v = Validation::new(Algorithm::ES256);
        v.validate_exp = false;
        v.required_spec_claims.clear();
        let data = jsonwebtoken::decode::<Value>(&proof, &DecodingKey::from_jwk(&jwk).unwrap(), &v).unwrap();
        assert_eq!(data.claims["htm"], "POST");
        assert_eq!(data.claims["htu"], "https://rs.example/mcp");
        assert_eq!(data.claims["nonce"], "n1");
        assert_eq!(data.claims["ath"], ath("tok"));
        assert_eq!(data.claims["iat"], 1_700_000_000);
        let other = key.proof("POST", &url, None, None, 1).unwrap();
        let jti = |p: &str| {
            jsonwebtoken::decode::<Value>(p, &DecodingKey::from_jwk(&jwk).unwrap(), &v).unwrap().claims["jti"]
                .clone()
        };
        assert_ne!(jti(&proof), jti(&other), "every proof has a fresh jti");
    }

    #[test]
    fn keys_survive_export() {
        let key = DpopKey::generate().unwrap();
        let again = DpopKey::import(&key.export()).unwrap();
        assert_eq!(key.jwk, again.jwk);
        assert!(DpopKey::import("!!").is_err());
    }

    #[test]
    fn ath_matches_rfc_9449_example() {
        // RFC 9449 §7.1: the token "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU" hashes to this.
        assert_eq!(
            ath("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn nonces_are_per_origin() {
        let n = Nonces::default();
        let a = reqwest::Url::parse("https://a.example/x").unwrap();
        let b = reqwest::Url::parse("https://b.example/x").unwrap();
        assert!(n.set(&a, "1"));
        assert!(!n.set(&a, "1"));
        assert_eq!(n.get(&reqwest::Url::parse("https://a.example/other").unwrap()).as_deref(), Some("1"));
        assert_eq!(n.get(&b), None);
    }
}
