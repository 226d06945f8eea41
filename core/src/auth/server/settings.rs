//! A protected server's settings as a binding's host code writes them (JSON), and the verdict a
//! host verifier returns (JSON): read once here for every binding, which only supplies its
//! users' spelling and, optionally, the host verifier.

use super::{
    AuthConfig, DpopMode, Identity, JwtConfig, JwtVerifier, Refusal, ScopeMode, TokenVerifier, Visibility,
};
use crate::error::{Error, Result};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

pub use crate::host::Spelling;

/// What the users call the settings object.
fn label(spelling: Spelling) -> &'static str {
    match spelling {
        Spelling::Snake => "Auth",
        Spelling::Camel => "auth",
    }
}

/// The settings, by their snake-case names.
#[derive(Deserialize)]
struct Settings {
    jwks_url: Option<String>,
    issuer: Option<String>,
    audience: Option<String>,
    resource: Option<String>,
    #[serde(default)]
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    required_scopes: Vec<String>,
    #[serde(default)]
    tool_scopes: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    prompt_scopes: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    resource_scopes: BTreeMap<String, Vec<String>>,
    scope_mode: Option<String>,
    leeway_seconds: Option<u64>,
    #[serde(default)]
    metadata: Map<String, Value>,
    visibility: Option<Value>,
    /// `off`, `allowed` or `required` (RFC 9449 DPoP-bound tokens).
    dpop: Option<String>,
    /// Demand server-provided DPoP nonces (RFC 9449 §9), each good for 60 to 120 s.
    #[serde(default)]
    dpop_nonce: bool,
}

/// Reads `json` (top-level names in `spelling`; names spelled otherwise are ignored like any
/// unknown name) into an [`AuthConfig`]: `host` verifies tokens when given, else a
/// [`JwtVerifier`] of `jwks_url`, `issuer` and `audience` (default: `resource`). `resource`
/// defaults to `audience`; `authorization_servers` to `[issuer]`.
pub fn auth_config(
    json: &str,
    spelling: Spelling,
    host: Option<Arc<dyn TokenVerifier>>,
) -> Result<AuthConfig> {
    let n = |snake: &str| spelling.name(snake);
    let label = label(spelling);
    let invalid = |why: String| Error::invalid_input(why);
    let mut raw: Map<String, Value> =
        serde_json::from_str(json).map_err(|e| invalid(format!("bad {label} settings: {e}")))?;
    raw = spelling.to_snake(raw);
    let s: Settings = serde_json::from_value(Value::Object(raw))
        .map_err(|e| invalid(format!("bad {label} settings: {e}")))?;
    let resource =
        s.resource.clone().or_else(|| s.audience.clone()).ok_or_else(|| {
            invalid(format!("{label} needs resource (the server's canonical URI) or audience"))
        })?;
    let mut servers = s.authorization_servers;
    if servers.is_empty() {
        servers.extend(s.issuer.clone());
    }
    if servers.is_empty() {
        return Err(invalid(format!(
            "{label} needs issuer or {} (named in the PRM)",
            n("authorization_servers")
        )));
    }
    let verifier: Arc<dyn TokenVerifier> = match (host, s.jwks_url) {
        (Some(v), _) => v,
        (None, Some(jwks)) => {
            let issuer = s.issuer.ok_or_else(|| invalid(format!("{} needs issuer", n("jwks_url"))))?;
            let mut jwt = JwtConfig::new(jwks, issuer, s.audience.unwrap_or_else(|| resource.clone()));
            if let Some(l) = s.leeway_seconds {
                jwt.leeway = Duration::from_secs(l);
            }
            Arc::new(JwtVerifier::new(jwt))
        }
        (None, None) => {
            return Err(invalid(format!("{label} needs {} (with issuer) or verify", n("jwks_url"))))
        }
    };
    let mut config = AuthConfig::new(verifier, resource, servers).require(s.required_scopes);
    config.scopes_supported = s.scopes_supported;
    config.tool_scopes = s.tool_scopes;
    config.prompt_scopes = s.prompt_scopes;
    config.resource_scopes = s.resource_scopes;
    config.metadata = s.metadata;
    if let Some(rules) = s.visibility {
        config.visibility = Visibility::from_value(rules).map_err(invalid)?;
    }
    if let Some(mode) = s.dpop.as_deref() {
        config.dpop.mode = DpopMode::parse(mode)
            .ok_or_else(|| invalid(format!("dpop must be 'off', 'allowed' or 'required', not {mode:?}")))?;
    }
    if s.dpop_nonce {
        config.dpop.nonce_window = Some(Duration::from_secs(60));
    }
    let step_up = n("step_up");
    config.scope_mode = match s.scope_mode.as_deref().unwrap_or("hide") {
        "hide" => ScopeMode::Hide,
        m if m == step_up => ScopeMode::StepUp,
        other => {
            return Err(invalid(format!("{} must be 'hide' or '{step_up}', not {other:?}", n("scope_mode"))))
        }
    };
    Ok(config)
}

/// What a host verifier's wrapper answers: `{"identity": {...}}` or `{"refusal": {...}}`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Identity {
        subject: Option<String>,
        #[serde(alias = "clientId")]
        client_id: Option<String>,
        scopes: Vec<String>,
        claims: Map<String, Value>,
    },
    Refusal {
        kind: String,
        description: String,
        scopes: Vec<String>,
    },
}

/// The refusal of a host verifier that failed (raised, rejected, answered nonsense): 503.
pub fn verifier_failed(why: impl std::fmt::Display) -> Refusal {
    Refusal::Unavailable(format!("the token verifier failed: {why}"))
}

/// A host verifier's verdict JSON (`client_id` or `clientId`; refusal kinds
/// `invalid_token`, `insufficient_scope`, `unavailable`) as the verifier's answer.
pub fn host_verdict(json: &str) -> std::result::Result<Identity, Refusal> {
    match serde_json::from_str(json).map_err(verifier_failed)? {
        Verdict::Identity { subject, client_id, scopes, claims } => {
            Ok(Identity { subject, client_id, scopes, claims })
        }
        Verdict::Refusal { kind, description, scopes } => Err(match kind.as_str() {
            "insufficient_scope" => Refusal::InsufficientScope { scopes, description },
            "unavailable" => Refusal::Unavailable(description),
            _ => Refusal::InvalidToken(description),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_errors_follow_the_spelling() {
        assert_eq!(Spelling::Camel.name("authorization_servers"), "authorizationServers");
        let e = auth_config(r#"{"issuer":"https://as","audience":"https://r"}"#, Spelling::Camel, None)
            .unwrap_err();
        assert!(e.to_string().contains("auth needs jwksUrl (with issuer) or verify"), "{e}");
        let e = auth_config(r#"{"issuer":"https://as","audience":"https://r"}"#, Spelling::Snake, None)
            .unwrap_err();
        assert!(e.to_string().contains("Auth needs jwks_url (with issuer) or verify"), "{e}");
        // A snake-case name is not a JavaScript setting: ignored like any unknown one.
        let j = r#"{"jwks_url":"https://as/jwks","issuer":"https://as","audience":"https://r"}"#;
        assert!(auth_config(j, Spelling::Camel, None).is_err());
        let j = r#"{"jwksUrl":"https://as/jwks","issuer":"https://as","audience":"https://r","scopeMode":"stepUp"}"#;
        assert_eq!(auth_config(j, Spelling::Camel, None).unwrap().scope_mode, ScopeMode::StepUp);
        let j = r#"{"jwks_url":"https://as/jwks","issuer":"https://as","audience":"https://r","scope_mode":"stepUp"}"#;
        let e = auth_config(j, Spelling::Snake, None).unwrap_err();
        assert!(e.to_string().contains("scope_mode must be 'hide' or 'step_up'"), "{e}");
        let j =
            r#"{"jwksUrl":"https://as/jwks","issuer":"https://as","audience":"https://r","dpop":"required"}"#;
        assert_eq!(auth_config(j, Spelling::Camel, None).unwrap().dpop.mode, DpopMode::Required);
        assert_eq!(auth_config(j, Spelling::Camel, None).unwrap().dpop.nonce_window, None);
        let j = r#"{"jwksUrl":"https://as/jwks","issuer":"https://as","audience":"https://r","dpop":"allowed","dpopNonce":true}"#;
        assert_eq!(
            auth_config(j, Spelling::Camel, None).unwrap().dpop.nonce_window,
            Some(Duration::from_secs(60))
        );
        let j = r#"{"jwks_url":"https://as/jwks","issuer":"https://as","audience":"https://r","dpop":"yes"}"#;
        let e = auth_config(j, Spelling::Snake, None).unwrap_err();
        assert!(e.to_string().contains("dpop must be 'off', 'allowed' or 'required'"), "{e}");
    }

    #[test]
    fn verdicts() {
        let ok = host_verdict(r#"{"identity":{"subject":"s","clientId":"c","scopes":["a"],"claims":{}}}"#);
        assert_eq!(ok.unwrap().client_id.as_deref(), Some("c"));
        let no =
            host_verdict(r#"{"refusal":{"kind":"insufficient_scope","description":"d","scopes":["x"]}}"#);
        assert!(matches!(no, Err(Refusal::InsufficientScope { .. })));
        assert!(matches!(host_verdict("nonsense"), Err(Refusal::Unavailable(_))));
    }
}
