//! On-behalf-of token exchange (RFC 8693 §2): a service holding its caller's access token (the
//! subject token) asks the authorization server for a token of the same user for another
//! audience, authenticating as itself. A gateway uses it to call an upstream as its caller
//! instead of as itself (issue 35 §5), never passing the caller's token on (2025-11-25
//! `basic/security_best_practices`, "Token Passthrough").

use super::token::{Credential, TokenEndpoint};
use crate::auth::AuthError;
use std::sync::Arc;
use std::time::Duration;

/// What a token exchange asks for, and as whom.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenExchange {
    /// The authorization server's token endpoint.
    pub token_endpoint: String,
    /// The exchanging client's id.
    pub client_id: String,
    /// Its secret (`client_secret_basic`); none: a public client (`client_id` in the body).
    pub client_secret: Option<String>,
    /// RFC 8693 `audience`: who the new token is for (an authorization server's name for the
    /// upstream, e.g. its client id).
    pub audience: Option<String>,
    /// RFC 8707 `resource`: the upstream's URL, when the server takes resource indicators.
    pub resource: Option<String>,
    /// The scopes asked for (none: the server's default for that audience).
    pub scopes: Option<Vec<String>>,
}

impl std::fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenExchange")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("audience", &self.audience)
            .field("resource", &self.resource)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// An exchanged token and how long it is valid.
#[derive(Clone, PartialEq, Eq)]
pub struct Exchanged {
    /// The new access token.
    pub access_token: String,
    /// Its lifetime (`expires_in`; none given: assumed 5 minutes).
    pub expires_in: Duration,
}

impl std::fmt::Debug for Exchanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchanged").field("expires_in", &self.expires_in).finish_non_exhaustive()
    }
}

impl TokenExchange {
    /// Exchanges `subject_token` (an access token) for an access token for `audience` /
    /// `resource`. A refusal is the server's OAuth error (`invalid_grant`, `unauthorized_client`…)
    /// with its status.
    pub async fn exchange(
        &self,
        http: &reqwest::Client,
        subject_token: &str,
    ) -> Result<Exchanged, AuthError> {
        let url = reqwest::Url::parse(&self.token_endpoint).map_err(|e| {
            AuthError::new(
                AuthError::INVALID_CONFIG,
                format!("bad token endpoint {:?}: {e}", self.token_endpoint),
            )
        })?;
        let endpoint = TokenEndpoint::new(http, url, None, Arc::default());
        let credential = match &self.client_secret {
            Some(secret) => Credential::Basic(self.client_id.clone(), secret.clone()),
            None => Credential::Public(self.client_id.clone()),
        };
        const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";
        let mut params = vec![
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange".to_owned()),
            ("subject_token", subject_token.to_owned()),
            ("subject_token_type", ACCESS_TOKEN.to_owned()),
            ("requested_token_type", ACCESS_TOKEN.to_owned()),
        ];
        params.extend(self.audience.clone().map(|a| ("audience", a)));
        params.extend(self.resource.clone().map(|r| ("resource", r)));
        params.extend(self.scopes.as_ref().filter(|s| !s.is_empty()).map(|s| ("scope", s.join(" "))));
        let issued = endpoint.form_grant(Some(&credential), params).await?;
        Ok(Exchanged {
            access_token: issued.access_token,
            expires_in: Duration::from_secs(issued.expires_in.unwrap_or(300)),
        })
    }
}
