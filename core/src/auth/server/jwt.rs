//! [`JwtVerifier`]: JWT access tokens (RFC 9068) checked locally — the signature with the
//! issuer's JWKS ([`super::jwks`]), `iss`, `aud` (the server's canonical resource URI,
//! 2026-07-28 `basic/authorization` "Token Handling": tokens must be issued for this server),
//! `exp` and `nbf` with a clock-skew leeway, and the algorithm against an allow-list (never
//! `none`, never a symmetric one unless allowed: the JWKS holds public keys).

use super::jwks::Jwks;
use super::{Identity, Refusal, TokenVerifier};
use crate::future::BoxFuture;
use jsonwebtoken::errors::ErrorKind as JwtError;
use jsonwebtoken::{decode, decode_header, Algorithm, Validation};
use serde_json::{Map, Value};
use std::time::Duration;

/// What a [`JwtVerifier`] accepts.
#[derive(Debug, Clone)]
pub struct JwtConfig {
    /// The issuer's JWKS URL (its metadata's `jwks_uri`).
    pub jwks_url: String,
    /// The `iss` tokens must carry (exactly).
    pub issuer: String,
    /// Accepted `aud` values: the server's canonical resource URI (RFC 8707). A token's `aud`
    /// (a string or a list) must contain one of them.
    pub audience: Vec<String>,
    /// Accepted signing algorithms (default: RS256, RS384, RS512, PS256, PS384, PS512, ES256,
    /// ES384, EdDSA).
    pub algorithms: Vec<Algorithm>,
    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub leeway: Duration,
    /// How long fetched keys are used before fetching them again (default 5 minutes).
    pub jwks_ttl: Duration,
    /// The least time between two fetches caused by an unknown key id or by a signature that
    /// fails under a known one (default 10 s).
    pub jwks_cooldown: Duration,
}

impl JwtConfig {
    /// Tokens of `issuer`, signed with the keys at `jwks_url`, for `audience`.
    pub fn new(jwks_url: impl Into<String>, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        use Algorithm::*;
        JwtConfig {
            jwks_url: jwks_url.into(),
            issuer: issuer.into(),
            audience: vec![audience.into()],
            algorithms: vec![RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA],
            leeway: Duration::from_secs(60),
            jwks_ttl: Duration::from_secs(300),
            jwks_cooldown: Duration::from_secs(10),
        }
    }
}

/// Verifies JWT access tokens against an issuer's published keys.
pub struct JwtVerifier {
    config: JwtConfig,
    jwks: Jwks,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier").field("config", &self.config).finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// A verifier for `config` (keys are fetched on first use).
    pub fn new(config: JwtConfig) -> JwtVerifier {
        let http = crate::tls::authorization_client(Duration::from_secs(10));
        let jwks = Jwks::new(config.jwks_url.clone(), http, config.jwks_ttl, config.jwks_cooldown);
        JwtVerifier { config, jwks }
    }

    /// How many times the JWKS was fetched (first use, expiry, unknown key ids).
    pub fn jwks_fetches(&self) -> u64 {
        self.jwks.fetches()
    }

    async fn check(&self, token: &str) -> Result<Identity, Refusal> {
        let header = decode_header(token)
            .map_err(|e| Refusal::InvalidToken(format!("the token is not a JWT: {e}")))?;
        if !self.config.algorithms.contains(&header.alg) {
            return Err(Refusal::InvalidToken(format!(
                "the token's algorithm {:?} is not accepted",
                header.alg
            )));
        }
        let (key, seen) = self.jwks.key(header.kid.as_deref(), header.alg).await?;
        let mut v = Validation::new(header.alg);
        v.leeway = self.config.leeway.as_secs();
        v.validate_nbf = true;
        v.set_issuer(&[&self.config.issuer]);
        v.set_audience(&self.config.audience);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut decoded = decode::<Map<String, Value>>(token, &key, &v);
        // A signature that fails under a key id the set has: the issuer may have replaced the
        // key under the same `kid`. One newer key is tried (a refetch at most once per
        // cooldown, as for an unknown key id).
        if decoded.as_ref().is_err_and(|e| matches!(e.kind(), JwtError::InvalidSignature)) {
            if let Some(newer) = self.jwks.rekey(header.kid.as_deref(), header.alg, seen).await {
                decoded = decode::<Map<String, Value>>(token, &newer, &v);
            }
        }
        let data = decoded.map_err(|e| {
            Refusal::InvalidToken(match e.kind() {
                JwtError::ExpiredSignature => "the token has expired".to_owned(),
                JwtError::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
                JwtError::InvalidSignature => "the token's signature does not verify".to_owned(),
                JwtError::InvalidIssuer => format!("the token was not issued by {}", self.config.issuer),
                JwtError::InvalidAudience => {
                    format!(
                        "the token is not for this resource (aud must be {})",
                        self.config.audience.join(" or ")
                    )
                }
                JwtError::MissingRequiredClaim(c) => format!("the token has no {c:?} claim"),
                _ => format!("the token is invalid: {e}"),
            })
        })?;
        Ok(Identity::from_claims(data.claims))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.check(token))
    }
}
