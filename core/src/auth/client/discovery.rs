//! Finding the authorization server of an MCP server: Protected Resource Metadata (RFC 9728),
//! then the authorization server's metadata (RFC 8414 / OpenID Connect Discovery), in the
//! orders of [`crate::auth::metadata`]; the 2025-03-26 paths when the server publishes no PRM.

use crate::auth::challenge::OAuthChallenge;
use crate::auth::metadata::{
    self, authorization_server_urls, check_resource, origin, protected_resource_urls,
    AuthorizationServerMetadata, ProtectedResourceMetadata,
};
use crate::auth::AuthError;
use reqwest::Url;
use serde::de::DeserializeOwned;

/// Largest metadata document read.
const MAX_DOC: usize = 256 * 1024;

/// Where tokens for one MCP server come from.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The PRM document (`None` for a 2025-03-26 server without one).
    pub(crate) prm: Option<ProtectedResourceMetadata>,
    /// The issuer identifier, exactly as the PRM lists it (or the server's origin, 2025-03-26).
    pub(crate) issuer: String,
    /// The authorization server's metadata (the 2025-03-26 default endpoints when it has none).
    pub(crate) metadata: AuthorizationServerMetadata,
}

impl Discovered {
    /// The RFC 8707 `resource`: the PRM's identifier verbatim (2026-07-28 requires the value
    /// exactly as published); none for a 2025-03-26 server, which defines no resource.
    pub(crate) fn resource(&self) -> Option<&str> {
        self.prm.as_ref().map(|p| p.resource.as_str())
    }

    /// The scopes the resource advertises.
    pub(crate) fn resource_scopes(&self) -> Option<&[String]> {
        self.prm.as_ref().and_then(|p| p.scopes_supported.as_deref())
    }
}

/// Reads a body up to `limit` bytes.
pub(crate) async fn read_limited(mut resp: reqwest::Response, limit: usize) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| format!("reading the response failed: {e}"))? {
        if buf.len() + chunk.len() > limit {
            return Err(format!("the response exceeds {limit} bytes"));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
}

/// GETs a JSON document: `Ok(Some)` when found and parsed, `Ok(None)` when the server has none
/// there (any non-2xx), `Err` with the reason otherwise.
async fn get_json<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &Url,
    version: Option<&str>,
) -> Result<Option<T>, String> {
    // Not generic inside: a `DeserializeOwned` bound held across awaits defeats the `Send`
    // check of the tasks this runs in.
    match get_value(http, url, version).await? {
        Some(v) => {
            serde_json::from_value(v).map(Some).map_err(|e| format!("{url} is not a metadata document: {e}"))
        }
        None => Ok(None),
    }
}

async fn get_value(
    http: &reqwest::Client,
    url: &Url,
    version: Option<&str>,
) -> Result<Option<serde_json::Value>, String> {
    let mut rb = http.get(url.clone()).header("accept", "application/json");
    if let Some(v) = version {
        // 2025-03-26 `basic/authorization`, "Server Metadata Discovery Headers".
        rb = rb.header("MCP-Protocol-Version", v);
    }
    let resp = rb.send().await.map_err(|e| format!("GET {url} failed: {e}"))?;
    if !resp.status().is_success() {
        return Ok(None);
    }
    let body = read_limited(resp, MAX_DOC).await?;
    serde_json::from_slice(&body).map(Some).map_err(|e| format!("{url} is not JSON: {e}"))
}

/// Fetches the PRM: the challenge's `resource_metadata` URL, else the well-known URLs.
async fn protected_resource(
    http: &reqwest::Client,
    server: &Url,
    challenge: &OAuthChallenge,
    version: Option<&str>,
    tried: &mut Vec<String>,
) -> Option<ProtectedResourceMetadata> {
    let mut candidates = Vec::new();
    if let Some(u) = challenge.resource_metadata.as_deref().and_then(|u| server.join(u).ok()) {
        candidates.push(u);
    }
    for u in protected_resource_urls(server) {
        if !candidates.contains(&u) {
            candidates.push(u);
        }
    }
    for u in candidates {
        match get_json::<ProtectedResourceMetadata>(http, &u, version).await {
            Ok(Some(p)) => return Some(p),
            Ok(None) => tried.push(format!("{u}: not found")),
            Err(e) => tried.push(e),
        }
    }
    None
}

/// Fetches and validates the metadata of `issuer` (first URL that answers wins; an `issuer`
/// mismatch is refused, never skipped).
pub(crate) async fn authorization_server(
    http: &reqwest::Client,
    issuer: &str,
    version: Option<&str>,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let mut tried = Vec::new();
    for u in authorization_server_urls(issuer)? {
        match get_json::<AuthorizationServerMetadata>(http, &u, version).await {
            Ok(Some(m)) => {
                m.check_issuer(issuer)?;
                return Ok(m);
            }
            Ok(None) => tried.push(format!("{u}: not found")),
            Err(e) => tried.push(e),
        }
    }
    Err(AuthError::new(
        AuthError::METADATA_NOT_FOUND,
        format!("no authorization server metadata for {issuer} ({})", tried.join("; ")),
    ))
}

/// An issuer is an `https` URL (RFC 8414 §2); plain `http` only on loopback (tests, local ASes).
fn check_issuer_scheme(issuer: &str) -> Result<(), AuthError> {
    let u = Url::parse(issuer)
        .map_err(|e| AuthError::new(AuthError::METADATA_NOT_FOUND, format!("issuer {issuer:?}: {e}")))?;
    let loopback = matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    if u.scheme() == "https" || (u.scheme() == "http" && loopback) {
        return Ok(());
    }
    Err(AuthError::new(
        AuthError::INVALID_RESPONSE,
        format!("the authorization server {issuer} is not HTTPS; refusing to use it"),
    ))
}

/// Discovers the authorization server for `server`.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &Url,
    challenge: &OAuthChallenge,
    version: Option<&str>,
) -> Result<Discovered, AuthError> {
    let mut tried = Vec::new();
    if let Some(prm) = protected_resource(http, server, challenge, version, &mut tried).await {
        check_resource(&prm, server)?;
        // RFC 9728 §7.6 leaves the choice to the client: the first listed.
        let issuer = prm.authorization_servers[0].clone();
        check_issuer_scheme(&issuer)?;
        let metadata = authorization_server(http, &issuer, version).await?;
        return Ok(Discovered { prm: Some(prm), issuer, metadata });
    }
    // 2025-03-26: no PRM. Metadata at the server's origin, else the default endpoints there.
    let base = origin(server);
    let url = Url::parse(&format!("{base}/.well-known/oauth-authorization-server"))
        .map_err(|e| AuthError::new(AuthError::METADATA_NOT_FOUND, e.to_string()))?;
    match get_json::<AuthorizationServerMetadata>(http, &url, version).await {
        Ok(Some(m)) => {
            m.check_issuer(&base)?;
            Ok(Discovered { prm: None, issuer: base, metadata: m })
        }
        Ok(None) => Ok(Discovered {
            prm: None,
            metadata: AuthorizationServerMetadata::legacy_defaults(&base),
            issuer: base,
        }),
        Err(e) => {
            tried.push(e);
            Err(AuthError::new(
                AuthError::METADATA_NOT_FOUND,
                format!(
                    "no protected resource or authorization server metadata for {server} ({})",
                    tried.join("; ")
                ),
            ))
        }
    }
}

/// The canonical URI of the server, for when there is no PRM (used as the token store key).
pub(crate) fn server_key(server: &Url) -> String {
    metadata::canonical_resource(server)
}
