//! The OAuth side of `mcpcore conformance-client`: an [`OAuth`] client configured for each
//! `auth/*` scenario from `MCP_CONFORMANCE_CONTEXT` (tests/conformance/NOTES.md §7.4–7.5).
//! Nothing here is scenario logic: the scenarios differ only in the credentials and grant the
//! suite hands the client, which a real host would configure the same way.

use mcpcore::auth::client::{
    ClientAuth, DpopMode, FetchRedirect, Grant, IdentityAssertion, OAuth, OAuthConfig, PreRegistered,
};
use serde_json::Value;
use std::sync::Arc;

/// Where the suite's authorization server redirects (nothing listens there: the redirect is
/// read from the authorization endpoint's `Location`, as a headless client must).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The Client ID Metadata Document URL the suite expects a CIMD-capable client to use.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

fn text(ctx: &Value, key: &str) -> Option<String> {
    ctx.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn pre_registered(ctx: &Value) -> Option<PreRegistered> {
    let client_id = text(ctx, "client_id")?;
    let auth = match (text(ctx, "client_secret"), text(ctx, "private_key_pem")) {
        (_, Some(pem)) => ClientAuth::PrivateKeyJwt { pem, algorithm: text(ctx, "signing_algorithm") },
        (Some(secret), None) => ClientAuth::Secret(secret),
        (None, None) => ClientAuth::None,
    };
    Some(PreRegistered { client_id, auth, issuer: None })
}

/// The OAuth client for `scenario`, or `None` outside the `auth/*` scenarios.
pub(crate) fn oauth_for(scenario: &str, ctx: &Value) -> Option<OAuth> {
    if !scenario.starts_with("auth/") {
        return None;
    }
    let grant = if scenario.starts_with("auth/client-credentials") {
        Grant::ClientCredentials
    } else if let Some(assertion) = text(ctx, "valid_jwt") {
        Grant::JwtBearer { assertion }
    } else if let (Some(endpoint), Some(id_token)) =
        (text(ctx, "idp_token_endpoint"), text(ctx, "idp_id_token"))
    {
        Grant::IdentityAssertion(IdentityAssertion {
            idp_token_endpoint: endpoint,
            id_token,
            idp_client_id: text(ctx, "idp_client_id"),
            idp_client_secret: None,
        })
    } else {
        Grant::AuthorizationCode
    };
    let mut config = OAuthConfig::base(grant);
    config.client_name = "mcpcore-conformance-client".into();
    config.pre_registered = pre_registered(ctx);
    config.client_metadata_url = Some(CLIENT_METADATA_URL.into());
    config.authorization = Some(Arc::new(FetchRedirect::new(REDIRECT_URI)));
    // The auth/dpop scenarios of 0.2.0-alpha.12 offer DPoP at the authorization server only:
    // their resource's metadata does not say it takes DPoP (PR #400 adds that), so the
    // default (both sides must say so) would present bearer tokens there.
    config.dpop = DpopMode::Offered;
    Some(OAuth::new(config))
}
