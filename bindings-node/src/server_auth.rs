//! `ServerAuth`: the core's resource-server configuration (`AuthConfig`) for
//! `Server.serveHttp({ auth })`. The wrapper (`lib/server-auth.js`) passes the settings as JSON
//! and, for a host verifier, a Promise-returning `verify(token) => verdict JSON` (it turns the
//! host's identity, `null` or `TokenRefused` into `{"identity": …}` / `{"refusal": …}`); a weak
//! thread-safe function called on the JS thread. The rules (JWT checks, scopes, the
//! per-identity catalogue, challenges) are the core's.

use crate::errors;
use mcpcore::auth::server::{
    auth_config, host_verdict, verifier_failed, AuthConfig, Identity, Refusal, Spelling, TokenVerifier,
};
use napi::bindgen_prelude::Promise;
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use napi_derive::napi;
use std::sync::Arc;

type VerifyFn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;

/// The host's verifier.
struct JsVerifier(VerifyFn);

impl JsVerifier {
    async fn run(&self, token: String) -> Result<Identity, Refusal> {
        let promise = self.0.call_async_catch(token).await.map_err(|e| verifier_failed(e.reason))?;
        let text = promise.await.map_err(|e| verifier_failed(e.reason.clone()))?;
        host_verdict(&text)
    }
}

impl TokenVerifier for JsVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> mcpcore::future::BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.run(token.to_owned()))
    }
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
        let host = verify.map(|v| Arc::new(JsVerifier(v)) as Arc<dyn TokenVerifier>);
        let config = auth_config(&settings_json, Spelling::Camel, host).map_err(errors::to_js)?;
        Ok(ServerAuth { config })
    }

    /// The Protected Resource Metadata URL named in challenges.
    #[napi(getter)]
    pub fn metadata_url(&self) -> Option<String> {
        self.config.metadata_url()
    }
}
