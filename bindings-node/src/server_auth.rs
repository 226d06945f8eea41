//! `ServerAuth`: the core's resource-server configuration (`AuthConfig`) for
//! `Server.serveHttp({ auth })`. The wrapper (`lib/server-auth.js`) passes the settings as JSON
//! and, for a host verifier, a Promise-returning `verify(token) => verdict JSON` (it turns the
//! host's identity, `null` or `TokenRefused` into `{"identity": …}` / `{"refusal": …}`); a weak
//! thread-safe function called on the JS thread. The rules (JWT checks, scopes, the
//! per-identity catalogue, challenges) are the core's.

use crate::errors;
use mcpcore::auth::server::{
    AuthConfig, Identity, JwtConfig, JwtVerifier, Refusal, ScopeMode, TokenVerifier,
};
use mcpcore::Error;
use napi::bindgen_prelude::Promise;
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

type VerifyFn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;

/// The wrapper's settings (see `Auth` in lib/mcpcore.d.ts).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
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
}

/// What the wrapper's verifier answers.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Verdict {
    #[serde(rename_all = "camelCase")]
    Identity {
        subject: Option<String>,
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

/// The host's verifier.
struct JsVerifier(VerifyFn);

impl JsVerifier {
    async fn run(&self, token: String) -> Result<Identity, Refusal> {
        let broken = |why: String| Refusal::Unavailable(format!("the token verifier failed: {why}"));
        let promise = self.0.call_async_catch(token).await.map_err(|e| broken(e.reason))?;
        let text = promise.await.map_err(|e| broken(e.reason.clone()))?;
        match serde_json::from_str(&text).map_err(|e| broken(e.to_string()))? {
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
}

impl TokenVerifier for JsVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> mcpcore::future::BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.run(token.to_owned()))
    }
}

fn invalid(why: impl Into<String>) -> napi::Error {
    errors::to_js(Error::invalid_input(why))
}

/// A protected server's settings (see `Auth` in lib/mcpcore.d.ts).
#[napi]
pub struct ServerAuth {
    pub(crate) config: AuthConfig,
}

#[napi]
impl ServerAuth {
    /// `settingsJson` is the settings; `verify` the wrapper's async host verifier (else the JWT
    /// verifier of `jwksUrl`, `issuer`, `audience`).
    #[napi(
        constructor,
        ts_args_type = "settingsJson: string, verify?: ((token: string) => Promise<string>) | undefined | null"
    )]
    pub fn new(settings_json: String, verify: Option<VerifyFn>) -> napi::Result<Self> {
        let s: Settings =
            serde_json::from_str(&settings_json).map_err(|e| invalid(format!("bad auth settings: {e}")))?;
        let resource = s
            .resource
            .clone()
            .or_else(|| s.audience.clone())
            .ok_or_else(|| invalid("auth needs resource (the server's canonical URI) or audience"))?;
        let mut servers = s.authorization_servers;
        if servers.is_empty() {
            servers.extend(s.issuer.clone());
        }
        if servers.is_empty() {
            return Err(invalid("auth needs issuer or authorizationServers (named in the PRM)"));
        }
        let verifier: Arc<dyn TokenVerifier> = match (verify, s.jwks_url) {
            (Some(v), _) => Arc::new(JsVerifier(v)),
            (None, Some(jwks)) => {
                let issuer = s.issuer.ok_or_else(|| invalid("jwksUrl needs issuer"))?;
                let mut jwt = JwtConfig::new(jwks, issuer, s.audience.unwrap_or_else(|| resource.clone()));
                if let Some(l) = s.leeway_seconds {
                    jwt.leeway = Duration::from_secs(l);
                }
                Arc::new(JwtVerifier::new(jwt))
            }
            (None, None) => return Err(invalid("auth needs jwksUrl (with issuer) or verify")),
        };
        let mut config = AuthConfig::new(verifier, resource, servers).require(s.required_scopes);
        config.scopes_supported = s.scopes_supported;
        config.tool_scopes = s.tool_scopes;
        config.prompt_scopes = s.prompt_scopes;
        config.resource_scopes = s.resource_scopes;
        config.metadata = s.metadata;
        config.scope_mode = match s.scope_mode.as_deref().unwrap_or("hide") {
            "hide" => ScopeMode::Hide,
            "stepUp" => ScopeMode::StepUp,
            other => return Err(invalid(format!("scopeMode must be 'hide' or 'stepUp', not {other:?}"))),
        };
        Ok(ServerAuth { config })
    }

    /// The Protected Resource Metadata URL named in challenges.
    #[napi(getter)]
    pub fn metadata_url(&self) -> Option<String> {
        self.config.metadata_url()
    }
}
