//! OAuth metadata documents and where to find them (sans-IO): RFC 9728 Protected Resource
//! Metadata, RFC 8414 / OpenID Connect Discovery authorization server metadata, the well-known
//! URLs in the order each MCP revision prescribes, and the checks a client must apply
//! (issuer identity, resource identity, PKCE support).
//!
//! Orders (2025-11-25 and 2026-07-28 `basic/authorization`, "Protected Resource Metadata
//! Discovery Requirements" and "Authorization Server Metadata Discovery"):
//! - PRM: the `resource_metadata` URL of the challenge; else
//!   `/.well-known/oauth-protected-resource/<mcp path>`, then `/.well-known/oauth-protected-resource`.
//! - AS metadata for an issuer with a path `/tenant1`:
//!   `/.well-known/oauth-authorization-server/tenant1`, `/.well-known/openid-configuration/tenant1`,
//!   `/tenant1/.well-known/openid-configuration`; without a path:
//!   `/.well-known/oauth-authorization-server`, `/.well-known/openid-configuration`.
//! - 2025-03-26 (no PRM): `/.well-known/oauth-authorization-server` at the MCP server's origin,
//!   else the default endpoints `/authorize`, `/token`, `/register` there (2025-03-26
//!   `basic/authorization`, "Fallbacks for Servers without Metadata Discovery").

use super::AuthError;
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An RFC 9728 Protected Resource Metadata document (the fields MCP uses; the rest in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The protected resource's identifier (the canonical URI of the MCP server).
    pub resource: String,
    /// Issuer identifiers of the authorization servers that issue tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource understands (the minimal set for basic use, per MCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Everything else in the document.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// RFC 8414 authorization server metadata (OpenID Connect Discovery documents parse too).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; must equal the one the document was looked up with.
    pub issuer: String,
    /// Where the user authorizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where tokens are issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// RFC 7591 Dynamic Client Registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes the authorization server knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Grant types (`authorization_code`, `refresh_token`, `client_credentials`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// PKCE methods; MCP clients refuse an authorization server without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client authentication methods at the token endpoint (RFC 8414 default: `client_secret_basic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Signing algorithms accepted for `private_key_jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// OAuth Client ID Metadata Documents are accepted as `client_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// RFC 9449 §5.1: DPoP proof algorithms the authorization server accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Everything else in the document.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthorizationServerMetadata {
    /// RFC 8414 §3.3 / OpenID Connect Discovery §4.3: the document's `issuer` must be
    /// identical (simple string comparison) to the issuer used to build its URL.
    pub fn check_issuer(&self, expected: &str) -> Result<(), AuthError> {
        if self.issuer == expected {
            return Ok(());
        }
        Err(AuthError::new(
            AuthError::ISSUER_MISMATCH,
            format!(
                "the authorization server metadata names issuer {:?}, not {expected:?}, the issuer it was looked up with",
                self.issuer
            ),
        ))
    }

    /// PKCE with `S256` (2025-11-25 and 2026-07-28 `security-considerations`, "Authorization
    /// Code Protection": absent `code_challenge_methods_supported` means no PKCE, and the
    /// client must refuse).
    pub fn check_pkce(&self) -> Result<(), AuthError> {
        match &self.code_challenge_methods_supported {
            Some(m) if m.iter().any(|m| m == "S256") => Ok(()),
            Some(m) => Err(AuthError::new(
                AuthError::PKCE_UNSUPPORTED,
                format!("the authorization server supports PKCE only with {m:?}, not S256"),
            )),
            None => Err(AuthError::new(
                AuthError::PKCE_UNSUPPORTED,
                "the authorization server metadata has no code_challenge_methods_supported, so it does not support PKCE; refusing to proceed",
            )),
        }
    }

    /// True when `scopes_supported` lists `scope`.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|x| x == scope))
    }

    /// The token endpoint authentication methods, with RFC 8414's default.
    pub fn auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".to_owned()])
    }

    /// The 2025-03-26 default endpoints at `base` (the MCP server's origin).
    pub fn legacy_defaults(base: &str) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: base.to_owned(),
            authorization_endpoint: Some(format!("{base}/authorize")),
            token_endpoint: Some(format!("{base}/token")),
            registration_endpoint: Some(format!("{base}/register")),
            ..Default::default()
        }
    }
}

/// The origin of `url` as `scheme://host[:port]`, without a trailing slash.
pub fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The PRM URLs to try when the challenge names none, in order (RFC 9728 §3.1: the
/// well-known segment goes between the host and the path; a server at the root has only the
/// root URL).
pub fn protected_resource_urls(server: &Url) -> Vec<Url> {
    let base = origin(server);
    let path = server.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        let mut s = format!("{base}/.well-known/oauth-protected-resource{path}");
        if let Some(q) = server.query() {
            s.push('?');
            s.push_str(q);
        }
        if let Ok(u) = Url::parse(&s) {
            out.push(u);
        }
    }
    if let Ok(u) = Url::parse(&format!("{base}/.well-known/oauth-protected-resource")) {
        out.push(u);
    }
    out
}

/// The authorization server metadata URLs for `issuer`, in the order MCP prescribes (see the
/// module docs). Fails for an issuer that is not an absolute http(s) URL, or that has a query
/// or fragment (RFC 8414 §2).
pub fn authorization_server_urls(issuer: &str) -> Result<Vec<Url>, AuthError> {
    let bad = |why: &str| {
        AuthError::new(AuthError::METADATA_NOT_FOUND, format!("issuer {issuer:?} is not usable: {why}"))
    };
    let u = Url::parse(issuer).map_err(|e| bad(&e.to_string()))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(bad("not an http(s) URL"));
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err(bad("an issuer has no query or fragment"));
    }
    let base = origin(&u);
    let path = u.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    };
    candidates.iter().map(|c| Url::parse(c).map_err(|e| bad(&e.to_string()))).collect()
}

/// The canonical URI of an MCP server (2025-06-18 and later `basic/authorization`, "Canonical
/// Server URI"): lowercase scheme and host (the URL parser does that), no fragment, and no
/// trailing slash on a root path.
pub fn canonical_resource(server: &Url) -> String {
    let mut u = server.clone();
    u.set_fragment(None);
    let s = u.to_string();
    if u.path() == "/" && u.query().is_none() {
        s.trim_end_matches('/').to_owned()
    } else {
        s
    }
}

/// Whether a PRM `resource` identifies the server at `server`: same scheme, host and port, and
/// the server's path is the resource's path or below it (a resource at the origin covers every
/// path; `https://h/api` covers `https://h/api/mcp` but not `https://h/apix`). RFC 9728 §3.3
/// and 2026-07-28 `security-considerations` (token audience binding).
pub fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(r) = Url::parse(resource) else { return false };
    if r.fragment().is_some() || r.origin() != server.origin() {
        return false;
    }
    let rp = r.path().trim_end_matches('/');
    let sp = server.path().trim_end_matches('/');
    rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// Checks a fetched PRM document against the server it describes.
pub fn check_resource(prm: &ProtectedResourceMetadata, server: &Url) -> Result<(), AuthError> {
    if !resource_covers(&prm.resource, server) {
        return Err(AuthError::new(
            AuthError::RESOURCE_MISMATCH,
            format!(
                "the protected resource metadata is for {:?}, not for {server}; refusing to authorize",
                prm.resource
            ),
        ));
    }
    if prm.authorization_servers.is_empty() {
        return Err(AuthError::new(
            AuthError::METADATA_NOT_FOUND,
            "the protected resource metadata lists no authorization_servers",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn prm_urls_path_first_then_root() {
        let got: Vec<String> = protected_resource_urls(&url("https://h.example:8443/public/mcp"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            got,
            [
                "https://h.example:8443/.well-known/oauth-protected-resource/public/mcp",
                "https://h.example:8443/.well-known/oauth-protected-resource"
            ]
        );
        let root: Vec<String> =
            protected_resource_urls(&url("http://h/")).iter().map(Url::to_string).collect();
        assert_eq!(root, ["http://h/.well-known/oauth-protected-resource"]);
        let trailing: Vec<String> =
            protected_resource_urls(&url("http://h/mcp/")).iter().map(Url::to_string).collect();
        assert_eq!(trailing[0], "http://h/.well-known/oauth-protected-resource/mcp");
    }

    #[test]
    fn as_urls_for_issuers_with_and_without_path() {
        let p: Vec<String> = authorization_server_urls("https://auth.example.com/tenant1")
            .unwrap()
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            p,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        for issuer in ["https://auth.example.com", "https://auth.example.com/"] {
            let r: Vec<String> =
                authorization_server_urls(issuer).unwrap().iter().map(Url::to_string).collect();
            assert_eq!(
                r,
                [
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration"
                ]
            );
        }
        let t: Vec<String> = authorization_server_urls("http://localhost:9/a/b/")
            .unwrap()
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(t[2], "http://localhost:9/a/b/.well-known/openid-configuration");
        assert!(authorization_server_urls("ftp://x").is_err());
        assert!(authorization_server_urls("https://x/?q=1").is_err());
        assert!(authorization_server_urls("not a url").is_err());
    }

    #[test]
    fn issuer_must_match_exactly() {
        let m = AuthorizationServerMetadata { issuer: "http://localhost:9".into(), ..Default::default() };
        assert!(m.check_issuer("http://localhost:9").is_ok());
        assert_eq!(m.check_issuer("http://localhost:9/").unwrap_err().error, AuthError::ISSUER_MISMATCH);
        assert!(m.check_issuer("http://LOCALHOST:9").is_err());
    }

    #[test]
    fn pkce_is_required() {
        let mut m = AuthorizationServerMetadata::default();
        assert_eq!(m.check_pkce().unwrap_err().error, AuthError::PKCE_UNSUPPORTED);
        m.code_challenge_methods_supported = Some(vec!["plain".into()]);
        assert!(m.check_pkce().is_err());
        m.code_challenge_methods_supported = Some(vec!["plain".into(), "S256".into()]);
        assert!(m.check_pkce().is_ok());
    }

    #[test]
    fn resource_identity() {
        let s = url("http://localhost:3000/mcp");
        assert!(resource_covers("http://localhost:3000/mcp", &s));
        assert!(resource_covers("http://localhost:3000", &s));
        assert!(resource_covers("http://LOCALHOST:3000/", &s));
        assert!(!resource_covers("https://evil.example.com/mcp", &s));
        assert!(!resource_covers("http://localhost:3001/mcp", &s));
        assert!(!resource_covers("http://localhost:3000/other", &s));
        assert!(!resource_covers("http://localhost:3000/mc", &s));
        assert!(resource_covers("http://localhost:3000/api", &url("http://localhost:3000/api/mcp")));
        assert!(!resource_covers("http://localhost:3000/mcp#x", &s));
        assert!(!resource_covers("mcp.example.com", &s));
    }

    #[test]
    fn canonical_resource_drops_fragment_and_root_slash() {
        assert_eq!(canonical_resource(&url("HTTPS://MCP.Example.com/#x")), "https://mcp.example.com");
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com:8443/mcp")),
            "https://mcp.example.com:8443/mcp"
        );
        assert_eq!(canonical_resource(&url("https://h/server/mcp/")), "https://h/server/mcp/");
    }

    #[test]
    fn documents_parse_with_unknown_fields() {
        let prm: ProtectedResourceMetadata = serde_json::from_value(serde_json::json!({
            "resource": "https://h/mcp", "authorization_servers": ["https://as"], "bearer_methods_supported": ["header"]
        }))
        .unwrap();
        assert_eq!(prm.extra["bearer_methods_supported"], serde_json::json!(["header"]));
        assert!(check_resource(&prm, &url("https://h/mcp")).is_ok());
        let empty = ProtectedResourceMetadata { authorization_servers: vec![], ..prm };
        assert_eq!(
            check_resource(&empty, &url("https://h/mcp")).unwrap_err().error,
            AuthError::METADATA_NOT_FOUND
        );
        let m: AuthorizationServerMetadata =
            serde_json::from_str(r#"{"issuer":"https://as","jwks_uri":"https://as/jwks","dpop_signing_alg_values_supported":["ES256"]}"#)
                .unwrap();
        assert_eq!(m.auth_methods(), ["client_secret_basic"]);
        assert_eq!(m.dpop_signing_alg_values_supported.as_deref(), Some(&["ES256".to_owned()][..]));
    }
}
