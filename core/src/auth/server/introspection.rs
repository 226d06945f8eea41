//! [`IntrospectionVerifier`]: opaque (or any) tokens checked by asking the authorization
//! server (RFC 7662): `POST token=…&token_type_hint=access_token` to its introspection
//! endpoint, authenticated with the resource server's client credentials (HTTP Basic) when
//! configured. An inactive token, an expired `exp`, another `iss`, or an `aud` that does not
//! name this server is refused.

use super::{Identity, Refusal, TokenVerifier};
use crate::auth::client::discovery::read_limited;
use crate::future::BoxFuture;
use reqwest::Url;
use serde_json::Value;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Largest introspection response read.
const MAX_RESPONSE: usize = 64 * 1024;

/// Where and how to introspect.
#[derive(Debug, Clone)]
pub struct IntrospectionConfig {
    /// The authorization server's `introspection_endpoint`.
    pub endpoint: String,
    /// The resource server's client id at the authorization server (HTTP Basic), if any.
    pub client_id: Option<String>,
    /// Its client secret.
    pub client_secret: Option<String>,
    /// Accepted `aud` values (the server's canonical resource URI). The response must carry an
    /// `aud` naming one of them; empty accepts any audience (only for an authorization server
    /// that issues tokens for this server alone).
    pub audience: Vec<String>,
    /// The `iss` the response must carry, when set (a response without `iss` passes).
    pub issuer: Option<String>,
    /// Clock skew allowed on `exp` (default 60 s).
    pub leeway: Duration,
}

impl IntrospectionConfig {
    /// Introspection at `endpoint` for tokens whose audience is `audience`.
    pub fn new(endpoint: impl Into<String>, audience: impl Into<String>) -> Self {
        IntrospectionConfig {
            endpoint: endpoint.into(),
            client_id: None,
            client_secret: None,
            audience: vec![audience.into()],
            issuer: None,
            leeway: Duration::from_secs(60),
        }
    }

    /// Authenticates to the endpoint with these client credentials.
    pub fn credentials(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = Some(client_secret.into());
        self
    }
}

/// Verifies tokens with the authorization server's introspection endpoint.
#[derive(Debug)]
pub struct IntrospectionVerifier {
    config: IntrospectionConfig,
    http: reqwest::Client,
}

impl IntrospectionVerifier {
    /// A verifier for `config`.
    pub fn new(config: IntrospectionConfig) -> IntrospectionVerifier {
        let http = crate::tls::authorization_client(Duration::from_secs(10));
        IntrospectionVerifier { config, http }
    }

    async fn check(&self, token: &str) -> Result<Identity, Refusal> {
        let c = &self.config;
        let unavailable =
            |e: String| Refusal::Unavailable(format!("token introspection at {} failed: {e}", c.endpoint));
        let mut form = Url::parse("x:").expect("a URL");
        form.query_pairs_mut().append_pair("token", token).append_pair("token_type_hint", "access_token");
        let mut rb = self
            .http
            .post(&c.endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(form.query().unwrap_or_default().to_owned());
        if let Some(id) = &c.client_id {
            rb = rb.basic_auth(id, c.client_secret.as_ref());
        }
        let resp = rb.send().await.map_err(|e| unavailable(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(unavailable(format!("HTTP {}", resp.status())));
        }
        let body = read_limited(resp, MAX_RESPONSE).await.map_err(unavailable)?;
        let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(&body) else {
            return Err(unavailable("the response is not a JSON object".to_owned()));
        };
        judge(c, claims, SystemTime::now())
    }
}

/// The identity an introspection response grants at `now`, or why not.
fn judge(
    c: &IntrospectionConfig,
    claims: serde_json::Map<String, Value>,
    now: SystemTime,
) -> Result<Identity, Refusal> {
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(Refusal::InvalidToken("the token is not active".to_owned()));
    }
    let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    if let Some(exp) = claims.get("exp").and_then(Value::as_u64) {
        if exp.saturating_add(c.leeway.as_secs()) <= now {
            return Err(Refusal::InvalidToken("the token has expired".to_owned()));
        }
    }
    if let (Some(want), Some(iss)) = (&c.issuer, claims.get("iss")) {
        if iss.as_str() != Some(want.as_str()) {
            return Err(Refusal::InvalidToken(format!("the token was not issued by {want}")));
        }
    }
    if !c.audience.is_empty() {
        let named = match claims.get("aud") {
            Some(Value::String(a)) => c.audience.contains(a),
            Some(Value::Array(a)) => {
                a.iter().filter_map(Value::as_str).any(|a| c.audience.iter().any(|w| w == a))
            }
            _ => false,
        };
        if !named {
            return Err(Refusal::InvalidToken(format!(
                "the token is not for this resource (aud must be {})",
                c.audience.join(" or ")
            )));
        }
    }
    Ok(Identity::from_claims(claims))
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn responses_are_judged_on_activity_expiry_issuer_and_audience() {
        let mut c = IntrospectionConfig::new("http://as/introspect", "http://rs/mcp");
        c.issuer = Some("http://as".into());
        let t = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ok = json!({"active": true, "aud": ["x", "http://rs/mcp"], "iss": "http://as", "exp": 1_000_100, "scope": "a"});
        assert_eq!(judge(&c, claims(ok.clone()), t).unwrap().scopes, ["a"]);
        let refused = |v: Value| judge(&c, claims(v), t).unwrap_err().description().to_owned();
        assert!(refused(json!({"active": false})).contains("not active"));
        assert!(refused(json!({"active": "true", "aud": "http://rs/mcp"})).contains("not active"));
        let mut v = ok.clone();
        v["exp"] = json!(1_000_000 - 61);
        assert!(refused(v).contains("expired"));
        let mut v = ok.clone();
        v["iss"] = json!("http://evil");
        assert!(refused(v).contains("not issued by"));
        let mut v = ok;
        v["aud"] = json!("http://other/mcp");
        assert!(refused(v.clone()).contains("not for this resource"));
        v.as_object_mut().unwrap().remove("aud");
        assert!(refused(v).contains("not for this resource"), "no aud, no access");
    }
}
