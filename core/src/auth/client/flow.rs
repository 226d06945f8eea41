//! The pure parts of the authorization code grant: scope selection, the authorization request
//! (PKCE S256, `state`, RFC 8707 `resource`, built by the `oauth2` crate) and the validation of
//! the authorization response (RFC 9207 `iss`, `state`, `error`, `code`).

use crate::auth::challenge::split_scopes;
use crate::auth::AuthError;
use oauth2::basic::BasicClient;
use oauth2::{AuthUrl, ClientId, CsrfToken, PkceCodeChallenge, RedirectUrl, Scope};
use reqwest::Url;

/// Adds the scopes of `more` missing from `into`, keeping order.
pub(crate) fn union(into: &mut Vec<String>, more: &[String]) {
    for s in more {
        if !into.contains(s) {
            into.push(s.clone());
        }
    }
}

/// The scopes to request (2025-11-25 and 2026-07-28 `basic/authorization`, "Scope Selection
/// Strategy" and "Step-Up Authorization Flow"): the host's choice, else the challenge's
/// `scope`, else the PRM's `scopes_supported`, else none; united with what was requested
/// before (SEP-2350). A step-up whose challenge names no scope adds `scopes_supported` (the
/// only hint there is). Plus `offline_access` when wanted and the authorization server lists
/// it (SEP-2207).
pub(crate) fn select_scopes(
    configured: Option<&[String]>,
    challenged: &[String],
    resource_scopes: Option<&[String]>,
    previous: &[String],
    offline_access: bool,
    step_up: bool,
) -> Vec<String> {
    let mut out = previous.to_vec();
    if let Some(c) = configured {
        union(&mut out, c);
    }
    if !challenged.is_empty() {
        union(&mut out, challenged);
    } else if configured.is_none() || step_up {
        union(&mut out, resource_scopes.unwrap_or_default());
    }
    if offline_access {
        union(&mut out, &["offline_access".to_owned()]);
    }
    out
}

/// An authorization request ready to send, and what validating its response needs.
#[derive(Debug)]
pub(crate) struct AuthorizationRequest {
    pub(crate) url: String,
    pub(crate) state: String,
    pub(crate) verifier: String,
}

/// Builds the authorization URL.
pub(crate) fn authorization_request(
    endpoint: &str,
    client_id: &str,
    redirect_uri: &str,
    scopes: &[String],
    resource: Option<&str>,
) -> Result<AuthorizationRequest, AuthError> {
    let bad = |why: String| AuthError::new(AuthError::INVALID_CONFIG, why);
    let auth_url =
        AuthUrl::new(endpoint.to_owned()).map_err(|e| bad(format!("bad authorization endpoint: {e}")))?;
    let redirect =
        RedirectUrl::new(redirect_uri.to_owned()).map_err(|e| bad(format!("bad redirect URI: {e}")))?;
    let client = BasicClient::new(ClientId::new(client_id.to_owned()))
        .set_auth_uri(auth_url)
        .set_redirect_uri(redirect);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut req = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_scopes(scopes.iter().map(|s| Scope::new(s.clone())));
    if let Some(r) = resource {
        req = req.add_extra_param("resource", r.to_owned());
    }
    let (url, state) = req.url();
    Ok(AuthorizationRequest {
        url: url.to_string(),
        state: state.secret().clone(),
        verifier: verifier.secret().clone(),
    })
}

/// The query of the redirect back to the client.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Callback {
    pub(crate) code: Option<String>,
    pub(crate) state: Option<String>,
    pub(crate) iss: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) error_description: Option<String>,
    pub(crate) error_uri: Option<String>,
}

/// Parses the redirect URL the host's hook returned (form-decoded query parameters).
pub(crate) fn parse_callback(redirect: &str) -> Result<Callback, AuthError> {
    let u = Url::parse(redirect).map_err(|e| {
        AuthError::new(AuthError::INTERACTION_FAILED, format!("the redirect {redirect:?} is not a URL: {e}"))
    })?;
    let mut c = Callback::default();
    for (k, v) in u.query_pairs() {
        let slot = match k.as_ref() {
            "code" => &mut c.code,
            "state" => &mut c.state,
            "iss" => &mut c.iss,
            "error" => &mut c.error,
            "error_description" => &mut c.error_description,
            "error_uri" => &mut c.error_uri,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(v.into_owned());
        }
    }
    Ok(c)
}

/// Validates an authorization response before the code goes anywhere (2026-07-28
/// `basic/authorization`, "Authorization Response Validation": `iss` first — compared to the
/// recorded issuer by simple string comparison, required when the server advertises it —, then
/// `state`, then `error`). Returns the code.
pub(crate) fn check_callback(
    c: &Callback,
    expected_state: &str,
    issuer: &str,
    iss_advertised: bool,
) -> Result<String, AuthError> {
    match (&c.iss, iss_advertised) {
        (Some(iss), _) if iss != issuer => {
            return Err(AuthError::new(
                AuthError::ISS_MISMATCH,
                format!("the authorization response comes from issuer {iss:?}, not {issuer:?} (RFC 9207)"),
            ))
        }
        (None, true) => {
            return Err(AuthError::new(
                AuthError::ISS_MISSING,
                "the authorization server advertises the iss parameter but its response has none (RFC 9207)",
            ))
        }
        _ => {}
    }
    if c.state.as_deref() != Some(expected_state) {
        return Err(AuthError::new(
            AuthError::STATE_MISMATCH,
            "the authorization response's state is not ours",
        ));
    }
    if let Some(e) = &c.error {
        return Err(AuthError {
            error: e.clone(),
            description: c.error_description.clone(),
            uri: c.error_uri.clone(),
            status: None,
            challenge: None,
        });
    }
    c.code.clone().filter(|c| !c.is_empty()).ok_or_else(|| {
        AuthError::new(AuthError::INVALID_RESPONSE, "the authorization response has neither code nor error")
    })
}

/// Splits a token response's `scope`, or falls back to what was requested.
pub(crate) fn granted(scope: Option<&str>, requested: &[String]) -> Vec<String> {
    scope.map(split_scopes).unwrap_or_else(|| requested.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use sha2::Digest;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn scope_selection_priority_and_union() {
        assert_eq!(select_scopes(None, &v(&["a"]), Some(&v(&["x", "y"])), &[], false, false), v(&["a"]));
        assert_eq!(select_scopes(None, &[], Some(&v(&["x", "y"])), &[], false, false), v(&["x", "y"]));
        assert!(select_scopes(None, &[], None, &[], false, false).is_empty());
        // The host's scopes replace scopes_supported, not the challenge.
        assert_eq!(select_scopes(Some(&v(&["c"])), &[], Some(&v(&["x"])), &[], false, false), v(&["c"]));
        // Step-up: the union of what was requested before and the challenge (SEP-2350).
        assert_eq!(
            select_scopes(None, &v(&["w"]), Some(&v(&["p"])), &v(&["b"]), false, true),
            v(&["b", "w"])
        );
        assert_eq!(
            select_scopes(Some(&v(&["c"])), &v(&["w"]), None, &[], true, false),
            v(&["c", "w", "offline_access"])
        );
        assert_eq!(
            select_scopes(None, &v(&["offline_access"]), None, &[], true, false),
            v(&["offline_access"])
        );
        // A step-up without a scope in the challenge falls back to scopes_supported.
        assert_eq!(
            select_scopes(Some(&v(&["r"])), &[], Some(&v(&["r", "w"])), &v(&["r"]), false, true),
            v(&["r", "w"])
        );
    }

    #[test]
    fn authorization_url_has_pkce_s256_state_and_resource() {
        let r = authorization_request(
            "https://as.example/authorize?tenant=1",
            "cid",
            "http://127.0.0.1:9/callback",
            &v(&["a", "b"]),
            Some("https://mcp.example/mcp"),
        )
        .unwrap();
        let u = Url::parse(&r.url).unwrap();
        let q: std::collections::HashMap<String, String> = u.query_pairs().into_owned().collect();
        assert_eq!(q["tenant"], "1");
        assert_eq!(q["response_type"], "code");
        assert_eq!(q["client_id"], "cid");
        assert_eq!(q["redirect_uri"], "http://127.0.0.1:9/callback");
        assert_eq!(q["scope"], "a b");
        assert_eq!(q["resource"], "https://mcp.example/mcp");
        assert_eq!(q["state"], r.state);
        assert_eq!(q["code_challenge_method"], "S256");
        let expect = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(r.verifier.as_bytes()));
        assert_eq!(q["code_challenge"], expect);
        assert!(r.verifier.len() >= 43);
        let none =
            authorization_request("https://as/authorize", "c", "http://localhost/cb", &[], None).unwrap();
        assert!(!none.url.contains("scope=") && !none.url.contains("resource="));
    }

    #[test]
    fn iss_validation_table_of_rfc_9207() {
        let cb = |iss: Option<&str>| Callback {
            code: Some("c".into()),
            state: Some("s".into()),
            iss: iss.map(str::to_owned),
            ..Default::default()
        };
        let is = "https://as.example";
        assert_eq!(check_callback(&cb(Some(is)), "s", is, true).unwrap(), "c");
        assert_eq!(check_callback(&cb(None), "s", is, true).unwrap_err().error, AuthError::ISS_MISSING);
        assert_eq!(check_callback(&cb(Some(is)), "s", is, false).unwrap(), "c");
        assert_eq!(
            check_callback(&cb(Some("https://evil.example.com")), "s", is, false).unwrap_err().error,
            AuthError::ISS_MISMATCH
        );
        assert_eq!(check_callback(&cb(None), "s", is, false).unwrap(), "c");
        // No normalization: a trailing slash is another issuer.
        assert_eq!(
            check_callback(&cb(Some("https://as.example/")), "s", is, true).unwrap_err().error,
            AuthError::ISS_MISMATCH
        );
    }

    #[test]
    fn state_and_error_responses() {
        let c = parse_callback(
            "http://localhost:3000/callback?code=test-auth-code&state=abc&iss=http%3A%2F%2Flocalhost%3A9",
        )
        .unwrap();
        assert_eq!(c.iss.as_deref(), Some("http://localhost:9"));
        assert_eq!(
            check_callback(&c, "other", "http://localhost:9", true).unwrap_err().error,
            AuthError::STATE_MISMATCH
        );
        let e = parse_callback("http://x/cb?error=access_denied&error_description=no+way&state=s").unwrap();
        let err = check_callback(&e, "s", "i", false).unwrap_err();
        assert_eq!((err.error.as_str(), err.description.as_deref()), ("access_denied", Some("no way")));
        // A mismatched iss hides the error (the spec forbids acting on it).
        let evil = parse_callback("http://x/cb?error=access_denied&state=s&iss=https%3A%2F%2Fevil").unwrap();
        assert_eq!(check_callback(&evil, "s", "i", false).unwrap_err().error, AuthError::ISS_MISMATCH);
        assert!(parse_callback("not a url").is_err());
        let empty = parse_callback("http://x/cb?state=s").unwrap();
        assert_eq!(check_callback(&empty, "s", "i", false).unwrap_err().error, AuthError::INVALID_RESPONSE);
    }
}
