//! `OAuth`: the core's OAuth 2.1 client for `Client.connectHttp(url, { auth })`. The wrapper
//! (`lib/mcpcore.js`) passes the configuration as JSON and two Promise-returning functions:
//! `onAuthorize(url) => redirect URL`, and `store(method, key, recordJson) => recordJson`
//! (`"null"` for none), which it builds from the host's token store object. Both are weak
//! thread-safe functions called on the JS thread.

use crate::client::{Client, HttpConnectOptions};
use crate::errors;
use mcpcore::auth::client::{
    AuthorizationHandler, ClientAuth, DpopMode, FileTokenStore, Grant, LoopbackRedirect, OAuthConfig,
    PreRegistered, StoredClient, StoredTokens, TokenStore,
};
use mcpcore::auth::AuthError;
use mcpcore::client::BoxFuture;
use mcpcore::{Error, ErrorKind};
use napi::bindgen_prelude::{FnArgs, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use napi_derive::napi;
use serde::Deserialize;
use std::sync::Arc;

type AuthorizeFn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;
type StoreArgs = FnArgs<(String, String, Option<String>)>;
type StoreFn = ThreadsafeFunction<StoreArgs, Promise<String>, StoreArgs, Status, false, true>;

/// The wrapper's configuration (see `OAuth` in lib/mcpcore.d.ts).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default)]
    grant: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    private_key_pem: Option<String>,
    #[serde(default)]
    signing_algorithm: Option<String>,
    #[serde(default)]
    issuer: Option<String>,
    #[serde(default)]
    assertion: Option<String>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
    #[serde(default)]
    client_metadata_url: Option<String>,
    #[serde(default)]
    client_name: Option<String>,
    #[serde(default)]
    offline_access: Option<bool>,
    #[serde(default)]
    dpop: Option<bool>,
    #[serde(default)]
    max_authorizations: Option<usize>,
    #[serde(default)]
    redirect_uri: Option<String>,
    #[serde(default)]
    store_path: Option<String>,
}

struct JsAuthorize {
    redirect_uri: String,
    hook: AuthorizeFn,
}

impl AuthorizationHandler for JsAuthorize {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: String) -> BoxFuture<'_, mcpcore::Result<String>> {
        Box::pin(async move {
            let failed = |why: String| Error::auth(AuthError::new(AuthError::INTERACTION_FAILED, why));
            let promise = self
                .hook
                .call_async_catch(url)
                .await
                .map_err(|e| failed(format!("onAuthorize could not be called: {}", e.reason)))?;
            promise.await.map_err(|e| failed(format!("onAuthorize failed: {}", e.reason)))
        })
    }
}

struct JsStore(StoreFn);

impl std::fmt::Debug for JsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JsStore")
    }
}

impl JsStore {
    async fn invoke(
        &self,
        method: &'static str,
        key: &str,
        value: Option<String>,
    ) -> mcpcore::Result<String> {
        let io = |why: String| Error::new(ErrorKind::Io, format!("the token store's {method} failed: {why}"));
        let promise = self
            .0
            .call_async_catch(FnArgs::from((method.to_owned(), key.to_owned(), value)))
            .await
            .map_err(|e| io(e.reason))?;
        promise.await.map_err(|e| io(e.reason.clone()))
    }

    fn parse<T: serde::de::DeserializeOwned>(method: &str, text: &str) -> mcpcore::Result<Option<T>> {
        serde_json::from_str::<Option<T>>(text).map_err(|e| {
            Error::new(ErrorKind::Io, format!("the token store's {method} returned a bad record: {e}"))
        })
    }
}

impl TokenStore for JsStore {
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredTokens>>> {
        let server = server.to_owned();
        Box::pin(async move { Self::parse("loadTokens", &self.invoke("loadTokens", &server, None).await?) })
    }
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let (server, value) = (server.to_owned(), tokens.map(|t| crate::to_json(&t)));
        Box::pin(async move { self.invoke("saveTokens", &server, value).await.map(|_| ()) })
    }
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredClient>>> {
        let issuer = issuer.to_owned();
        Box::pin(async move { Self::parse("loadClient", &self.invoke("loadClient", &issuer, None).await?) })
    }
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let (issuer, value) = (issuer.to_owned(), client.map(|c| crate::to_json(&c)));
        Box::pin(async move { self.invoke("saveClient", &issuer, value).await.map(|_| ()) })
    }
}

fn invalid(why: impl Into<String>) -> napi::Error {
    errors::to_js(Error::invalid_input(why))
}

/// An OAuth client (see `OAuth` in lib/mcpcore.d.ts).
#[napi]
pub struct OAuth {
    inner: mcpcore::auth::client::OAuth,
}

#[napi]
impl OAuth {
    /// `configJson` is the configuration; `onAuthorize` the user step (without it, a loopback
    /// listener opens the browser); `store` the host's token store.
    #[napi(
        constructor,
        ts_args_type = "configJson: string, onAuthorize?: ((url: string) => Promise<string>) | undefined | null, store?: ((method: string, key: string, recordJson: string | null | undefined) => Promise<string>) | undefined | null"
    )]
    pub fn new(
        config_json: String,
        on_authorize: Option<AuthorizeFn>,
        store: Option<StoreFn>,
    ) -> napi::Result<Self> {
        let c: Config = serde_json::from_str(&config_json)
            .map_err(|e| invalid(format!("bad OAuth configuration: {e}")))?;
        let grant = match c.grant.as_deref().unwrap_or("authorization_code") {
            "authorization_code" => Grant::AuthorizationCode,
            "client_credentials" => Grant::ClientCredentials,
            "jwt_bearer" => Grant::JwtBearer {
                assertion: c
                    .assertion
                    .clone()
                    .ok_or_else(|| invalid("the jwt_bearer grant needs an assertion"))?,
            },
            other => return Err(invalid(format!("unknown grant {other:?}"))),
        };
        let mut cfg = OAuthConfig::base(grant);
        if let Some(id) = c.client_id {
            let auth = match (c.private_key_pem, c.client_secret) {
                (Some(pem), _) => ClientAuth::PrivateKeyJwt { pem, algorithm: c.signing_algorithm },
                (None, Some(s)) => ClientAuth::Secret(s),
                (None, None) => ClientAuth::None,
            };
            cfg.pre_registered = Some(PreRegistered { client_id: id, auth, issuer: c.issuer });
        }
        cfg.scopes = c.scopes;
        cfg.client_metadata_url = c.client_metadata_url;
        cfg.client_name = c.client_name.unwrap_or_else(|| "mcpcore-node".into());
        cfg.offline_access = c.offline_access.unwrap_or(true);
        cfg.dpop = if c.dpop.unwrap_or(true) { DpopMode::Auto } else { DpopMode::Off };
        if let Some(m) = c.max_authorizations {
            cfg.max_authorizations = m;
        }
        cfg.authorization = match on_authorize {
            Some(hook) => {
                let redirect_uri = c
                    .redirect_uri
                    .ok_or_else(|| invalid("onAuthorize needs redirectUri (what the hook receives)"))?;
                Some(Arc::new(JsAuthorize { redirect_uri, hook }))
            }
            None if cfg.grant == Grant::AuthorizationCode => {
                Some(Arc::new(LoopbackRedirect::bind().map_err(|e| errors::to_js(Error::from(e)))?))
            }
            None => None,
        };
        cfg.store = match (store, c.store_path) {
            (Some(s), _) => Arc::new(JsStore(s)),
            (None, Some(p)) => Arc::new(FileTokenStore::new(p)),
            (None, None) => cfg.store,
        };
        Ok(OAuth { inner: mcpcore::auth::client::OAuth::new(cfg) })
    }

    /// Connects to `url` with this OAuth client (what `Client.connectHttp(url, { auth })` calls).
    #[napi]
    pub async fn connect_http(
        &self,
        url: String,
        options: Option<HttpConnectOptions>,
    ) -> napi::Result<Client> {
        crate::client::connect_http_with(url, options, Some(self.inner.clone())).await
    }

    /// Resolves to the tokens held for the server at `url` (JSON), or null.
    #[napi]
    pub async fn tokens(&self, url: String) -> napi::Result<Option<String>> {
        let t = self.inner.tokens(&url).await.map_err(errors::to_js)?;
        Ok(t.map(|t| crate::to_json(&t)))
    }

    /// Forgets the tokens for the server at `url` (here and in the store).
    #[napi]
    pub async fn forget(&self, url: String) -> napi::Result<()> {
        self.inner.forget(&url).await.map_err(errors::to_js)
    }
}
