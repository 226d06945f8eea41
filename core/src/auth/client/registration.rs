//! The client's identity at an authorization server, in the spec's priority (2026-07-28
//! `basic/authorization/client-registration`): pre-registered credentials, a Client ID
//! Metadata Document URL, a stored registration for this issuer, Dynamic Client Registration
//! (RFC 7591, with `application_type`). Registrations are stored per issuer and never used at
//! another authorization server ("Authorization Server Binding").

use super::config::{ClientAuth, OAuthConfig, PreRegistered};
use super::discovery::read_limited;
use super::store::StoredClient;
use super::token::{now_secs, Credential};
use crate::auth::metadata::AuthorizationServerMetadata;
use crate::auth::AuthError;
use serde::Deserialize;
use serde_json::json;

/// The credential for `secret` at an authorization server: the registered method if any, else
/// `client_secret_basic` or `client_secret_post`, whichever the server lists (basic first).
pub(crate) fn secret_credential(
    client_id: &str,
    secret: Option<&str>,
    registered_method: Option<&str>,
    meta: &AuthorizationServerMetadata,
) -> Credential {
    let id = client_id.to_owned();
    let Some(secret) = secret.filter(|s| !s.is_empty()) else { return Credential::Public(id) };
    let s = secret.to_owned();
    match registered_method {
        Some("client_secret_basic") => return Credential::Basic(id, s),
        Some("client_secret_post") => return Credential::Post(id, s),
        Some("none") => return Credential::Public(id),
        _ => {}
    }
    let methods = meta.auth_methods();
    if methods.iter().any(|m| m == "client_secret_basic") {
        Credential::Basic(id, s)
    } else if methods.iter().any(|m| m == "client_secret_post") {
        Credential::Post(id, s)
    } else if methods.iter().any(|m| m == "none") {
        Credential::Public(id)
    } else {
        Credential::Basic(id, s)
    }
}

/// The credential from pre-registered credentials, after checking they belong to `issuer`.
pub(crate) fn pre_registered_credential(
    pre: &PreRegistered,
    issuer: &str,
    meta: &AuthorizationServerMetadata,
) -> Result<Credential, AuthError> {
    if let Some(bound) = pre.issuer.as_deref().filter(|b| *b != issuer) {
        return Err(AuthError::new(
            AuthError::CREDENTIALS_FOR_OTHER_ISSUER,
            format!(
                "the pre-registered client {} belongs to {bound}, but the server now names {issuer}; refusing to use it there",
                pre.client_id
            ),
        ));
    }
    Ok(match &pre.auth {
        ClientAuth::None => Credential::Public(pre.client_id.clone()),
        ClientAuth::Secret(s) => secret_credential(&pre.client_id, Some(s), None, meta),
        ClientAuth::PrivateKeyJwt { pem, algorithm } => {
            Credential::private_key_jwt(&pre.client_id, pem, algorithm.as_deref(), issuer)?
        }
    })
}

/// `native` for loopback and custom-scheme redirects, `web` otherwise (2026-07-28
/// `client-registration`, "Application Type and Redirect URI Constraints").
pub(crate) fn application_type(redirect_uri: &str) -> &'static str {
    match reqwest::Url::parse(redirect_uri) {
        Ok(u) if !matches!(u.scheme(), "http" | "https") => "native",
        Ok(u) => match u.host_str() {
            Some("localhost" | "127.0.0.1" | "[::1]") => "native",
            _ => "web",
        },
        Err(_) => "native",
    }
}

/// Whether a stored registration can serve `redirect_uri` (loopback URIs match whatever the
/// port: RFC 8252 §7.3 has authorization servers accept any port on them).
pub(crate) fn registration_fits(c: &StoredClient, redirect_uri: &str) -> bool {
    if c.client_secret_expires_at.is_some_and(|t| t != 0 && t <= now_secs()) {
        return false;
    }
    let strip_port = |s: &str| {
        reqwest::Url::parse(s).ok().filter(|_| application_type(s) == "native").map(|mut u| {
            let _ = u.set_port(None);
            u.to_string()
        })
    };
    c.redirect_uris
        .iter()
        .any(|r| r == redirect_uri || (strip_port(r).is_some() && strip_port(r) == strip_port(redirect_uri)))
}

#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    client_secret_expires_at: Option<u64>,
    #[serde(default)]
    redirect_uris: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct RegistrationError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// Registers with RFC 7591 Dynamic Client Registration.
pub(crate) async fn register(
    http: &reqwest::Client,
    config: &OAuthConfig,
    issuer: &str,
    meta: &AuthorizationServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<StoredClient, AuthError> {
    let methods = meta.auth_methods();
    // A native client has no secret to keep: public when the server allows it.
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| methods.iter().any(|x| x == m))
        .unwrap_or("client_secret_basic");
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": application_type(redirect_uri),
    });
    let failed = |why: String| AuthError::new(AuthError::INVALID_RESPONSE, why);
    let resp = http
        .post(endpoint)
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| failed(format!("client registration at {endpoint} failed: {e}")))?;
    let status = resp.status();
    let bytes = read_limited(resp, 256 * 1024).await.map_err(failed)?;
    if !status.is_success() {
        return Err(match serde_json::from_slice::<RegistrationError>(&bytes) {
            Ok(e) => AuthError {
                error: e.error,
                description: e.error_description,
                uri: None,
                status: Some(status.as_u16()),
                challenge: None,
            },
            Err(_) => failed(format!("client registration at {endpoint} answered HTTP {status}"))
                .with_status(status.as_u16()),
        });
    }
    let r: RegistrationResponse = serde_json::from_slice(&bytes).map_err(|e| {
        failed(format!("the registration response is not usable: {e}")).with_status(status.as_u16())
    })?;
    Ok(StoredClient {
        issuer: issuer.to_owned(),
        client_id: r.client_id,
        client_secret: r.client_secret,
        token_endpoint_auth_method: r.token_endpoint_auth_method.or_else(|| Some(method.to_owned())),
        redirect_uris: r
            .redirect_uris
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| vec![redirect_uri.to_owned()]),
        client_secret_expires_at: r.client_secret_expires_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(methods: &[&str]) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: "https://as".into(),
            token_endpoint_auth_methods_supported: Some(methods.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn secret_method_follows_registration_then_server() {
        let m = meta(&["client_secret_post"]);
        assert!(matches!(secret_credential("i", Some("s"), None, &m), Credential::Post(..)));
        assert!(matches!(
            secret_credential("i", Some("s"), Some("client_secret_basic"), &m),
            Credential::Basic(..)
        ));
        assert!(matches!(secret_credential("i", Some("s"), Some("none"), &m), Credential::Public(..)));
        assert!(matches!(secret_credential("i", None, None, &m), Credential::Public(..)));
        assert!(matches!(secret_credential("i", Some("s"), None, &meta(&["none"])), Credential::Public(..)));
        assert!(matches!(
            secret_credential("i", Some("s"), None, &AuthorizationServerMetadata::default()),
            Credential::Basic(..)
        ));
    }

    #[test]
    fn pre_registered_credentials_are_bound_to_their_issuer() {
        let pre = PreRegistered {
            client_id: "c".into(),
            auth: ClientAuth::Secret("s".into()),
            issuer: Some("https://a".into()),
        };
        let m = meta(&["client_secret_basic"]);
        assert!(pre_registered_credential(&pre, "https://a", &m).is_ok());
        assert_eq!(
            pre_registered_credential(&pre, "https://b", &m).unwrap_err().error,
            AuthError::CREDENTIALS_FOR_OTHER_ISSUER
        );
        let any = PreRegistered { issuer: None, ..pre };
        assert!(pre_registered_credential(&any, "https://b", &m).is_ok());
    }

    #[test]
    fn application_types() {
        assert_eq!(application_type("http://127.0.0.1:4000/callback"), "native");
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("com.example.app:/oauth"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
    }

    #[test]
    fn stored_registrations_fit_any_loopback_port() {
        let c = StoredClient {
            issuer: "i".into(),
            client_id: "c".into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            redirect_uris: vec!["http://127.0.0.1:4000/callback".into()],
            client_secret_expires_at: None,
        };
        assert!(registration_fits(&c, "http://127.0.0.1:5000/callback"));
        assert!(!registration_fits(&c, "http://127.0.0.1:5000/other"));
        assert!(!registration_fits(&c, "https://app.example.com/callback"));
        let expired = StoredClient { client_secret_expires_at: Some(1), ..c.clone() };
        assert!(!registration_fits(&expired, "http://127.0.0.1:4000/callback"));
        let web = StoredClient { redirect_uris: vec!["https://app/cb".into()], ..c };
        assert!(registration_fits(&web, "https://app/cb"));
        assert!(!registration_fits(&web, "https://app:8443/cb"));
    }
}
