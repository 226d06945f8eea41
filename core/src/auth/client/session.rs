//! One MCP server's authorization state: the current tokens (read on every request), and the
//! flow lock under which tokens are refreshed or obtained — one flow at a time; requests that
//! were refused meanwhile see the new generation and simply retry.

use super::config::Grant;
use super::discovery::{self, Discovered};
use super::dpop::DpopKey;
use super::flow::{self, select_scopes};
use super::registration;
use super::store::StoredTokens;
use super::token::{now_secs, Credential, Issued, TokenEndpoint};
use super::{Inner, Tries};
use crate::auth::challenge::OAuthChallenge;
use crate::auth::AuthError;
use crate::error::{ErrorKind, Result};
use reqwest::Url;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// The tokens in use and what they are bound to.
#[derive(Debug, Clone)]
pub(super) struct Current {
    pub(super) tokens: StoredTokens,
    pub(super) dpop: Option<Arc<DpopKey>>,
    pub(super) generation: u64,
}

#[derive(Debug, Default)]
struct FlowState {
    discovered: Option<Discovered>,
    /// Scopes requested last time (the base of a step-up's union), with their issuer.
    requested: Vec<String>,
    requested_at: Option<String>,
}

#[derive(Debug)]
pub(super) struct Session {
    server: Url,
    pub(super) key: String,
    current: RwLock<Option<Current>>,
    generation: AtomicU64,
    flow: tokio::sync::Mutex<FlowState>,
    loaded: tokio::sync::OnceCell<()>,
}

fn is_loopback(u: &Url) -> bool {
    matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"))
}

/// Authorization server endpoints must be HTTPS (2025-06-18 and later
/// `security-considerations`, "Communication Security"); plain HTTP only on loopback.
fn endpoint(name: &str, value: Option<&str>) -> std::result::Result<Url, AuthError> {
    let v = value.ok_or_else(|| {
        AuthError::new(
            AuthError::METADATA_NOT_FOUND,
            format!("the authorization server metadata has no {name}"),
        )
    })?;
    let u = Url::parse(v)
        .map_err(|e| AuthError::new(AuthError::METADATA_NOT_FOUND, format!("bad {name} {v:?}: {e}")))?;
    match u.scheme() {
        "https" => Ok(u),
        "http" if is_loopback(&u) => Ok(u),
        _ => Err(AuthError::new(
            AuthError::INVALID_RESPONSE,
            format!("the {name} {v} is not HTTPS; refusing to send credentials there"),
        )),
    }
}

impl Session {
    pub(super) fn new(server: Url, key: String) -> Self {
        Session {
            server,
            key,
            current: RwLock::new(None),
            generation: AtomicU64::new(0),
            flow: tokio::sync::Mutex::default(),
            loaded: tokio::sync::OnceCell::new(),
        }
    }

    pub(super) fn current(&self) -> Option<Current> {
        self.current.read().expect("lock").clone()
    }

    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    pub(super) fn clear(&self) {
        *self.current.write().expect("lock") = None;
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    fn install(&self, tokens: StoredTokens, dpop: Option<Arc<DpopKey>>) {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *self.current.write().expect("lock") = Some(Current { tokens, dpop, generation });
    }

    /// Loads stored tokens once (a store error or a bad stored DPoP key just means "no token").
    pub(super) async fn ensure_loaded(&self, inner: &Inner) {
        self.loaded
            .get_or_init(|| async {
                if let Ok(Some(t)) = inner.config.store.load_tokens(&self.key).await {
                    let dpop = t.dpop_key.as_deref().and_then(|k| DpopKey::import(k).ok()).map(Arc::new);
                    if t.dpop_key.is_none() || dpop.is_some() {
                        self.install(t, dpop);
                    }
                }
            })
            .await;
    }

    /// Refreshes ahead of a request when the token has expired or nearly
    /// ([`StoredTokens::refresh_due`]) and the server's authorization server is already known
    /// (otherwise the server's 401 will tell).
    pub(super) async fn refresh_if_expired(&self, inner: &Inner) {
        let Some(cur) = self.current() else { return };
        if !cur.tokens.refresh_due(now_secs()) || cur.tokens.refresh_token.is_none() {
            return;
        }
        let fs = self.flow.lock().await;
        if self.generation() != cur.generation {
            return; // someone refreshed meanwhile
        }
        let Some(d) = fs.discovered.clone().filter(|d| d.issuer == cur.tokens.issuer) else { return };
        let _busy = inner.clock.busy();
        let _shared = inner.config.store.refresh_guard(&self.key).await;
        if self.adopt_stored(inner, &cur).await {
            return; // another client sharing the store refreshed meanwhile
        }
        if let Ok((tokens, key)) = self.refresh(inner, &d, &cur).await {
            self.save(inner, tokens, key).await;
        }
    }

    /// Takes the tokens stored for this server when they are not `cur`'s (another `OAuth` or
    /// process sharing the store got new ones) and not expired; true when it did.
    async fn adopt_stored(&self, inner: &Inner, cur: &Current) -> bool {
        let Ok(Some(t)) = inner.config.store.load_tokens(&self.key).await else { return false };
        let fresh = !t.refresh_due(now_secs());
        if t.access_token == cur.tokens.access_token || t.issuer != cur.tokens.issuer || !fresh {
            return false;
        }
        let dpop = t.dpop_key.as_deref().and_then(|k| DpopKey::import(k).ok()).map(Arc::new);
        if t.dpop_key.is_some() && dpop.is_none() {
            return false;
        }
        self.install(t, dpop);
        true
    }

    async fn save(&self, inner: &Inner, tokens: StoredTokens, dpop: Option<Arc<DpopKey>>) {
        // A store that cannot save leaves the token usable for this process.
        let _ = inner.config.store.save_tokens(&self.key, Some(tokens.clone())).await;
        self.install(tokens, dpop);
    }

    /// Gets new tokens after the server refused the ones presented at `generation`.
    pub(super) fn reauthorize<'a>(
        &'a self,
        inner: &'a Inner,
        generation: u64,
        challenge: &'a OAuthChallenge,
        step_up: bool,
        tries: &'a mut Tries,
        version: Option<&'a str>,
    ) -> crate::future::BoxFuture<'a, Result<()>> {
        Box::pin(self.reauthorize_inner(inner, generation, challenge, step_up, tries, version))
    }

    async fn reauthorize_inner(
        &self,
        inner: &Inner,
        generation: u64,
        challenge: &OAuthChallenge,
        step_up: bool,
        tries: &mut Tries,
        version: Option<&str>,
    ) -> Result<()> {
        let mut fs = self.flow.lock().await;
        if self.generation() != generation {
            return Ok(()); // another request already got new tokens: retry with them
        }
        let _busy = inner.clock.busy();
        // A 401 may mean the server moved to another authorization server: look again.
        let d = match (&fs.discovered, step_up) {
            (Some(d), true) => d.clone(),
            _ => discovery::discover(&inner.http, &self.server, challenge, version).await?,
        };
        fs.discovered = Some(d.clone());
        let cur = self.current();
        let same_issuer = cur.as_ref().is_some_and(|c| c.tokens.issuer == d.issuer);
        if !step_up && !tries.refreshed && same_issuer {
            if let Some(c) = cur.as_ref().filter(|c| c.tokens.refresh_token.is_some()) {
                tries.refreshed = true;
                // Clients sharing the store refresh once: the others find the new tokens there.
                let _shared = inner.config.store.refresh_guard(&self.key).await;
                if self.adopt_stored(inner, c).await {
                    return Ok(());
                }
                if let Ok((tokens, key)) = self.refresh(inner, &d, c).await {
                    self.save(inner, tokens, key).await;
                    return Ok(());
                }
                // A refused refresh (expired, revoked): authorize from scratch.
            }
        }
        let previous =
            if fs.requested_at.as_deref() == Some(d.issuer.as_str()) { fs.requested.clone() } else { vec![] };
        let offline = inner.config.offline_access
            && inner.config.grant == Grant::AuthorizationCode
            && d.metadata.supports_scope("offline_access");
        let challenged = challenge.scopes();
        let scopes = select_scopes(
            inner.config.scopes.as_deref(),
            &challenged,
            d.resource_scopes(),
            &previous,
            offline,
            step_up,
        );
        if step_up {
            // Nothing new to ask for: another authorization cannot help (retry limits, 2026-07-28
            // `basic/authorization`, "Step-Up Authorization Flow").
            let held = cur
                .as_ref()
                .filter(|_| same_issuer)
                .map(|c| flow::granted(c.tokens.scope.as_deref(), &previous))
                .unwrap_or_default();
            if scopes.iter().all(|s| held.contains(s) || s == "offline_access") {
                return Err(AuthError {
                    error: "insufficient_scope".into(),
                    description: Some(format!(
                        "{} needs scope {:?}, which the token already has or that cannot be requested{}",
                        self.server,
                        challenge.scope.as_deref().unwrap_or(""),
                        challenge.error_description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
                    )),
                    uri: None,
                    status: Some(403),
                    challenge: None,
                }
                .into());
            }
        }
        let dpop = self.dpop_key(inner, &d, cur.as_ref())?;
        let issued = self.obtain(inner, &d, &scopes, dpop.clone()).await?;
        let tokens = self.stored(&d, issued, &scopes, dpop.as_deref());
        let key = dpop.filter(|_| tokens.token_type == "DPoP");
        fs.requested = scopes;
        fs.requested_at = Some(d.issuer.clone());
        self.save(inner, tokens, key).await;
        Ok(())
    }

    /// The DPoP key for a new grant: the session's (tokens stay bound to one key), else a new
    /// one, when DPoP is wanted ([`super::DpopMode`]: the resource's metadata and the
    /// authorization server's, or the latter's alone).
    fn dpop_key(
        &self,
        inner: &Inner,
        d: &Discovered,
        cur: Option<&Current>,
    ) -> std::result::Result<Option<Arc<DpopKey>>, AuthError> {
        let offered = d
            .metadata
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|a| a.iter().any(|a| a == "ES256"));
        let wanted = match inner.config.dpop {
            super::DpopMode::Off => false,
            super::DpopMode::Offered => offered,
            super::DpopMode::Auto => offered && d.prm.as_ref().is_some_and(takes_dpop),
        };
        if !wanted {
            return Ok(None);
        }
        if let Some(k) = cur.and_then(|c| c.dpop.clone()) {
            return Ok(Some(k));
        }
        DpopKey::generate()
            .map(|k| Some(Arc::new(k)))
            .map_err(|e| AuthError::new(AuthError::INVALID_CONFIG, e))
    }

    fn stored(
        &self,
        d: &Discovered,
        issued: Issued,
        requested: &[String],
        dpop: Option<&DpopKey>,
    ) -> StoredTokens {
        let dpop_key = dpop.filter(|_| issued.token_type == "DPoP").map(DpopKey::export);
        let now = now_secs();
        StoredTokens {
            access_token: issued.access_token,
            token_type: issued.token_type,
            refresh_token: issued.refresh_token,
            // `expires_in: 0` gives no usable expiry: kept as unknown, not as expired on arrival
            // (which would refresh before every request).
            expires_at: issued.expires_in.filter(|s| *s > 0).map(|s| now.saturating_add(s)),
            issued_at: Some(now),
            scope: issued.scope.or_else(|| (!requested.is_empty()).then(|| requested.join(" "))),
            issuer: d.issuer.clone(),
            resource: d.resource().map(str::to_owned),
            dpop_key,
        }
    }

    async fn refresh(
        &self,
        inner: &Inner,
        d: &Discovered,
        cur: &Current,
    ) -> std::result::Result<(StoredTokens, Option<Arc<DpopKey>>), AuthError> {
        let refresh_token = cur.tokens.refresh_token.as_deref().unwrap_or_default();
        let token_url = endpoint("token_endpoint", d.metadata.token_endpoint.as_deref())?;
        let cred = self.credential_for_refresh(inner, d).await?;
        let te = TokenEndpoint::new(&inner.http, token_url, cur.dpop.clone(), inner.nonces.clone());
        let mut issued = te.refresh(&cred, refresh_token, d.resource()).await?;
        if issued.refresh_token.is_none() {
            issued.refresh_token = Some(refresh_token.to_owned()); // RFC 6749 §6: the old one stays valid
        }
        let scopes: Vec<String> =
            cur.tokens.scope.as_deref().map(crate::auth::challenge::split_scopes).unwrap_or_default();
        let tokens = self.stored(d, issued, &scopes, cur.dpop.as_deref());
        let key = cur.dpop.clone().filter(|_| tokens.token_type == "DPoP");
        Ok((tokens, key))
    }

    /// The client credential a refresh authenticates with (the one the tokens were issued to).
    async fn credential_for_refresh(
        &self,
        inner: &Inner,
        d: &Discovered,
    ) -> std::result::Result<Credential, AuthError> {
        if let Some(pre) = &inner.config.pre_registered {
            return registration::pre_registered_credential(pre, &d.issuer, &d.metadata);
        }
        if let (Some(url), Some(true)) =
            (&inner.config.client_metadata_url, d.metadata.client_id_metadata_document_supported)
        {
            return Ok(Credential::Public(url.clone()));
        }
        match inner.config.store.load_client(&d.issuer).await {
            Ok(Some(c)) => Ok(registration::secret_credential(
                &c.client_id,
                c.client_secret.as_deref(),
                c.token_endpoint_auth_method.as_deref(),
                &d.metadata,
            )),
            _ => Err(AuthError::new(
                AuthError::REGISTRATION_UNAVAILABLE,
                "no client registration to refresh with",
            )),
        }
    }

    /// The client's identity for the authorization code grant, in the spec's priority.
    async fn client_for_code(
        &self,
        inner: &Inner,
        d: &Discovered,
        redirect_uri: &str,
    ) -> std::result::Result<Credential, AuthError> {
        if let Some(pre) = &inner.config.pre_registered {
            return registration::pre_registered_credential(pre, &d.issuer, &d.metadata);
        }
        if let (Some(url), Some(true)) =
            (&inner.config.client_metadata_url, d.metadata.client_id_metadata_document_supported)
        {
            return Ok(Credential::Public(url.clone()));
        }
        let store = &inner.config.store;
        if let Ok(Some(c)) = store.load_client(&d.issuer).await {
            if c.issuer == d.issuer && registration::registration_fits(&c, redirect_uri) {
                return Ok(registration::secret_credential(
                    &c.client_id,
                    c.client_secret.as_deref(),
                    c.token_endpoint_auth_method.as_deref(),
                    &d.metadata,
                ));
            }
        }
        let Some(reg) = d.metadata.registration_endpoint.as_deref() else {
            return Err(AuthError::new(
                AuthError::REGISTRATION_UNAVAILABLE,
                format!(
                    "{} offers no way to get a client id (no registration_endpoint, no Client ID Metadata Document support) and none is configured",
                    d.issuer
                ),
            ));
        };
        let reg = endpoint("registration_endpoint", Some(reg))?;
        let c = registration::register(
            &inner.http,
            &inner.config,
            &d.issuer,
            &d.metadata,
            reg.as_str(),
            redirect_uri,
        )
        .await?;
        let _ = store.save_client(&d.issuer, Some(c.clone())).await;
        Ok(registration::secret_credential(
            &c.client_id,
            c.client_secret.as_deref(),
            c.token_endpoint_auth_method.as_deref(),
            &d.metadata,
        ))
    }

    fn pre_registered(
        &self,
        inner: &Inner,
        d: &Discovered,
    ) -> std::result::Result<Option<Credential>, AuthError> {
        inner
            .config
            .pre_registered
            .as_ref()
            .map(|p| registration::pre_registered_credential(p, &d.issuer, &d.metadata))
            .transpose()
    }

    /// Runs the configured grant.
    async fn obtain(
        &self,
        inner: &Inner,
        d: &Discovered,
        scopes: &[String],
        dpop: Option<Arc<DpopKey>>,
    ) -> std::result::Result<Issued, AuthError> {
        let token_url = endpoint("token_endpoint", d.metadata.token_endpoint.as_deref())?;
        let te = TokenEndpoint::new(&inner.http, token_url, dpop, inner.nonces.clone());
        let resource = d.resource();
        let scope_param = || (!scopes.is_empty()).then(|| ("scope", scopes.join(" ")));
        match &inner.config.grant {
            Grant::AuthorizationCode => self.code_grant(inner, d, scopes, &te).await,
            Grant::ClientCredentials => {
                let cred = self.pre_registered(inner, d)?.ok_or_else(|| {
                    AuthError::new(
                        AuthError::INVALID_CONFIG,
                        "the client credentials grant needs pre-registered credentials",
                    )
                })?;
                te.client_credentials(&cred, scopes, resource).await
            }
            Grant::JwtBearer { assertion } => {
                let cred = self.pre_registered(inner, d)?;
                let mut params = vec![
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned()),
                    ("assertion", assertion.clone()),
                ];
                params.extend(scope_param());
                params.extend(resource.map(|r| ("resource", r.to_owned())));
                te.form_grant(cred.as_ref(), params).await
            }
            Grant::IdentityAssertion(ia) => {
                // RFC 8693 at the identity provider: ID token -> ID-JAG for this server's AS.
                let idp_url = endpoint("identity provider token endpoint", Some(&ia.idp_token_endpoint))?;
                let idp = TokenEndpoint::new(&inner.http, idp_url, None, inner.nonces.clone());
                let idp_cred = match (&ia.idp_client_id, &ia.idp_client_secret) {
                    (Some(id), Some(secret)) => Some(Credential::Post(id.clone(), secret.clone())),
                    (Some(id), None) => Some(Credential::Public(id.clone())),
                    _ => None,
                };
                let canonical = crate::auth::metadata::canonical_resource(&self.server);
                let mut params = vec![
                    ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange".to_owned()),
                    ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag".to_owned()),
                    ("audience", d.issuer.clone()),
                    ("resource", resource.map(str::to_owned).unwrap_or(canonical)),
                    ("subject_token", ia.id_token.clone()),
                    ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token".to_owned()),
                ];
                params.extend(scope_param());
                let jag = idp.form_grant(idp_cred.as_ref(), params).await?;
                let cred = self.pre_registered(inner, d)?;
                let mut params = vec![
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned()),
                    ("assertion", jag.access_token),
                ];
                params.extend(scope_param());
                te.form_grant(cred.as_ref(), params).await
            }
        }
    }

    /// The authorization code grant: PKCE check, client identity, the user step, response
    /// validation, code exchange.
    async fn code_grant(
        &self,
        inner: &Inner,
        d: &Discovered,
        scopes: &[String],
        te: &TokenEndpoint,
    ) -> std::result::Result<Issued, AuthError> {
        let handler = inner.config.authorization.as_ref().ok_or_else(|| {
            AuthError::new(
                AuthError::INVALID_CONFIG,
                "the authorization code grant needs an authorization hook",
            )
        })?;
        // 2025-03-26 default endpoints have no metadata to check; everything else must show PKCE.
        if d.prm.is_some() || d.metadata.code_challenge_methods_supported.is_some() {
            d.metadata.check_pkce()?;
        }
        let auth_url = endpoint("authorization_endpoint", d.metadata.authorization_endpoint.as_deref())?;
        let redirect_uri = handler.redirect_uri();
        let cred = self.client_for_code(inner, d, &redirect_uri).await?;
        let req = flow::authorization_request(
            auth_url.as_str(),
            cred.client_id(),
            &redirect_uri,
            scopes,
            d.resource(),
        )?;
        let redirect = handler.authorize(req.url).await.map_err(|e| match (e.kind(), e.auth_error()) {
            (ErrorKind::Auth, Some(a)) => a.clone(),
            _ => AuthError::new(AuthError::INTERACTION_FAILED, e.message().to_owned()),
        })?;
        let callback = flow::parse_callback(&redirect)?;
        let iss_advertised = d.metadata.authorization_response_iss_parameter_supported == Some(true);
        let code = flow::check_callback(&callback, &req.state, &d.issuer, iss_advertised)?;
        te.exchange_code(&cred, code, req.verifier, &redirect_uri, d.resource()).await
    }
}

/// True when a resource's metadata says it takes DPoP-bound tokens with ES256 proofs (RFC 9728
/// §2: `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`).
fn takes_dpop(prm: &crate::auth::metadata::ProtectedResourceMetadata) -> bool {
    let algs = prm.extra.get("dpop_signing_alg_values_supported").and_then(serde_json::Value::as_array);
    algs.is_some_and(|a| a.iter().any(|a| a == "ES256"))
        || prm.extra.get("dpop_bound_access_tokens_required") == Some(&serde_json::Value::Bool(true))
}
