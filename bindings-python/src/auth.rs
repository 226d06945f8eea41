//! `OAuth`: the core's OAuth 2.1 client for `Client.connect_http(auth=...)`. The facade
//! (`mcpcore/_auth.py`) passes the configuration as JSON, and the host's hooks as callables:
//! `on_authorize(url) -> redirect URL` and a token store with `load_tokens`, `save_tokens`,
//! `load_client`, `save_client` (sync or async; records cross as JSON-shaped dicts). Async
//! hooks run on the event loop `connect_http` was awaited on.

use crate::errors;
use mcpcore::auth::client::{
    AuthorizationHandler, ClientAuth, DpopMode, FileTokenStore, Grant, LoopbackRedirect, OAuthConfig,
    PreRegistered, StoredClient, StoredTokens, TokenStore,
};
use mcpcore::auth::AuthError;
use mcpcore::client::BoxFuture;
use mcpcore::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3_async_runtimes::TaskLocals;
use serde::Deserialize;
use std::sync::{Arc, Mutex};

/// The facade's configuration (see `mcpcore.OAuth`).
#[derive(Deserialize)]
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
    #[serde(default = "yes")]
    offline_access: bool,
    #[serde(default = "yes")]
    dpop: bool,
    #[serde(default)]
    max_authorizations: Option<usize>,
    #[serde(default)]
    redirect_uri: Option<String>,
    #[serde(default)]
    store_path: Option<String>,
}

fn yes() -> bool {
    true
}

/// The event loop the hooks run on, captured when `connect_http` is awaited.
#[derive(Default)]
struct Loop(Mutex<Option<TaskLocals>>);

impl Loop {
    fn locals(&self) -> Option<TaskLocals> {
        self.0.lock().expect("lock").clone()
    }
}

/// Calls `f(args)`; awaits the result when it is awaitable (on the captured loop).
async fn call(lp: &Loop, f: &Py<PyAny>, args: Vec<Option<String>>) -> PyResult<Py<PyAny>> {
    let pending = crate::gil::attach(|py| -> PyResult<Result<Py<PyAny>, _>> {
        let out = f.bind(py).call1(pyo3::types::PyTuple::new(py, args)?)?;
        if !out.hasattr("__await__")? {
            return Ok(Ok(out.unbind()));
        }
        let locals = lp.locals().ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err(
                "an async OAuth hook needs the event loop of connect_http",
            )
        })?;
        Ok(Err(pyo3_async_runtimes::into_future_with_locals(&locals, out)?))
    })?;
    match pending {
        Ok(v) => Ok(v),
        Err(fut) => fut.await,
    }
}

/// A Python value as JSON text (`None` stays `None`).
fn json_of(v: Py<PyAny>) -> PyResult<Option<String>> {
    crate::gil::attach(|py| {
        let b = v.bind(py);
        if b.is_none() {
            return Ok(None);
        }
        Ok(Some(py.import("json")?.call_method1("dumps", (b,))?.extract()?))
    })
}

/// The host's `on_authorize(url)`.
struct PyAuthorize {
    redirect_uri: String,
    hook: Py<PyAny>,
    lp: Arc<Loop>,
}

impl AuthorizationHandler for PyAuthorize {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: String) -> BoxFuture<'_, mcpcore::Result<String>> {
        Box::pin(async move {
            let failed = |why: String| Error::auth(AuthError::new(AuthError::INTERACTION_FAILED, why));
            let out = call(&self.lp, &self.hook, vec![Some(url)])
                .await
                .map_err(|e| failed(format!("the on_authorize hook failed: {}", errors::describe(&e))))?;
            crate::gil::attach(|py| out.extract::<String>(py))
                .map_err(|_| failed("on_authorize must return the redirect URL (a str)".into()))
        })
    }
}

/// The host's token store object.
struct PyStore {
    store: Py<PyAny>,
    lp: Arc<Loop>,
}

impl std::fmt::Debug for PyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PyStore")
    }
}

impl PyStore {
    async fn invoke(
        &self,
        method: &'static str,
        args: Vec<Option<String>>,
    ) -> mcpcore::Result<Option<String>> {
        let io = |e: PyErr| {
            Error::new(ErrorKind::Io, format!("the token store's {method} failed: {}", errors::describe(&e)))
        };
        let f = crate::gil::attach(|py| self.store.getattr(py, method)).map_err(io)?;
        json_of(call(&self.lp, &f, args).await.map_err(io)?).map_err(io)
    }

    fn parse<T: serde::de::DeserializeOwned>(
        method: &str,
        text: Option<String>,
    ) -> mcpcore::Result<Option<T>> {
        text.map(|t| serde_json::from_str(&t)).transpose().map_err(|e| {
            Error::new(ErrorKind::Io, format!("the token store's {method} returned a bad record: {e}"))
        })
    }
}

impl TokenStore for PyStore {
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredTokens>>> {
        let server = server.to_owned();
        Box::pin(
            async move { Self::parse("load_tokens", self.invoke("load_tokens", vec![Some(server)]).await?) },
        )
    }
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let args = vec![Some(server.to_owned()), tokens.map(|t| crate::to_json(&t))];
        Box::pin(async move { self.invoke("save_tokens", args).await.map(|_| ()) })
    }
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, mcpcore::Result<Option<StoredClient>>> {
        let issuer = issuer.to_owned();
        Box::pin(
            async move { Self::parse("load_client", self.invoke("load_client", vec![Some(issuer)]).await?) },
        )
    }
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, mcpcore::Result<()>> {
        let args = vec![Some(issuer.to_owned()), client.map(|c| crate::to_json(&c))];
        Box::pin(async move { self.invoke("save_client", args).await.map(|_| ()) })
    }
}

/// The OAuth client (see `mcpcore.OAuth`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct OAuth {
    pub(crate) inner: mcpcore::auth::client::OAuth,
    lp: Arc<Loop>,
}

impl OAuth {
    /// Remembers the running loop for async hooks (called by `connect_http`).
    pub(crate) fn bind_loop(&self, py: Python<'_>) {
        if let Ok(l) = pyo3_async_runtimes::tokio::get_current_locals(py) {
            *self.lp.0.lock().expect("lock") = Some(l);
        }
    }
}

fn invalid(why: impl Into<String>) -> PyErr {
    errors::to_py(Error::invalid_input(why))
}

#[pymethods]
impl OAuth {
    /// `config` is JSON; `on_authorize(url)` returns the redirect URL (without it, a loopback
    /// listener opens the browser); `store` is an object with the four store methods.
    #[new]
    #[pyo3(signature = (config, on_authorize=None, store=None))]
    fn new(config: &str, on_authorize: Option<Py<PyAny>>, store: Option<Py<PyAny>>) -> PyResult<Self> {
        let c: Config =
            serde_json::from_str(config).map_err(|e| invalid(format!("bad OAuth configuration: {e}")))?;
        let lp = Arc::new(Loop::default());
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
        cfg.client_name = c.client_name.unwrap_or_else(|| "mcpcore-python".into());
        cfg.offline_access = c.offline_access;
        cfg.dpop = if c.dpop { DpopMode::Auto } else { DpopMode::Off };
        if let Some(m) = c.max_authorizations {
            cfg.max_authorizations = m;
        }
        cfg.authorization = match on_authorize {
            Some(hook) => {
                let redirect_uri = c
                    .redirect_uri
                    .ok_or_else(|| invalid("on_authorize needs redirect_uri (what the hook receives)"))?;
                Some(Arc::new(PyAuthorize { redirect_uri, hook, lp: lp.clone() }))
            }
            None if cfg.grant == Grant::AuthorizationCode => {
                Some(Arc::new(LoopbackRedirect::bind().map_err(|e| errors::to_py(Error::from(e)))?))
            }
            None => None,
        };
        cfg.store = match (store, c.store_path) {
            (Some(s), _) => Arc::new(PyStore { store: s, lp: lp.clone() }),
            (None, Some(p)) => Arc::new(FileTokenStore::new(p)),
            (None, None) => cfg.store,
        };
        Ok(OAuth { inner: mcpcore::auth::client::OAuth::new(cfg), lp })
    }

    /// Resolves to the tokens held for the server at `url` (JSON), or None.
    fn tokens<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        self.bind_loop(py);
        let o = self.inner.clone();
        crate::awaitable::future_into_py(py, async move {
            let t = o.tokens(&url).await.map_err(errors::to_py)?;
            Ok(t.map(|t| crate::to_json(&t)))
        })
    }

    /// Forgets the tokens for the server at `url` (here and in the store).
    fn forget<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        self.bind_loop(py);
        let o = self.inner.clone();
        crate::awaitable::future_into_py(py, async move { o.forget(&url).await.map_err(errors::to_py) })
    }
}
