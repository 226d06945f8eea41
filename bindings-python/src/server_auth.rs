//! `ServerAuth`: the core's resource-server configuration (`AuthConfig`) for
//! `Server.serve_http(auth=...)`. The facade (`mcpcore/_server_auth.py`) passes the settings as
//! JSON and, for a host verifier, an async callable `token -> JSON text` (the facade turns the
//! host's `Identity`, `None` or `TokenRefused` into `{"identity": ...}` / `{"refusal": ...}`).
//! The rules (JWT checks, scopes, the per-identity catalogue, challenges) are the core's.

use crate::errors;
use crate::handler::LoopSlot;
use mcpcore::auth::server::{
    AuthConfig, Identity, JwtConfig, JwtVerifier, Refusal, ScopeMode, TokenVerifier,
};
use mcpcore::Error;
use pyo3::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The facade's settings (see `mcpcore.Auth`).
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
}

/// What the facade's verifier wrapper answers.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
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

/// The host's verifier: the facade's async wrapper, run on the serving loop.
struct PyVerifier {
    verify: Arc<Py<PyAny>>,
    loop_slot: Arc<LoopSlot>,
}

impl PyVerifier {
    async fn run(&self, token: String) -> Result<Identity, Refusal> {
        let broken = |why: String| Refusal::Unavailable(format!("the token verifier failed: {why}"));
        let pending = crate::gil::attach(|py| -> PyResult<_> {
            let locals = self
                .loop_slot
                .get(py)
                .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the serving event loop is gone"))?;
            let coro = self.verify.bind(py).call1((token,))?;
            pyo3_async_runtimes::into_future_with_locals(&locals, coro)
        })
        .map_err(|e| broken(errors::describe(&e)))?;
        let out = pending.await.map_err(|e| broken(errors::describe(&e)))?;
        let text: String =
            crate::gil::attach(|py| out.extract(py)).map_err(|e| broken(errors::describe(&e)))?;
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

impl TokenVerifier for PyVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> mcpcore::future::BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.run(token.to_owned()))
    }
}

fn invalid(why: impl Into<String>) -> PyErr {
    errors::to_py(Error::invalid_input(why))
}

/// A protected server's settings (see `mcpcore.Auth`).
#[pyclass(module = "mcpcore._native", frozen)]
pub struct ServerAuth {
    pub(crate) config: AuthConfig,
    /// The loop a host verifier runs on, bound when serving starts.
    pub(crate) loop_slot: Arc<LoopSlot>,
}

#[pymethods]
impl ServerAuth {
    /// `settings` is JSON; `verify` the facade's async wrapper of a host verifier (else the
    /// JWT verifier of `jwks_url`, `issuer`, `audience`).
    #[new]
    #[pyo3(signature = (settings, verify=None))]
    fn new(settings: &str, verify: Option<Py<PyAny>>) -> PyResult<Self> {
        let s: Settings =
            serde_json::from_str(settings).map_err(|e| invalid(format!("bad Auth settings: {e}")))?;
        let loop_slot = Arc::new(LoopSlot::default());
        let resource = s
            .resource
            .clone()
            .or_else(|| s.audience.clone())
            .ok_or_else(|| invalid("Auth needs resource (the server's canonical URI) or audience"))?;
        let mut servers = s.authorization_servers;
        if servers.is_empty() {
            servers.extend(s.issuer.clone());
        }
        if servers.is_empty() {
            return Err(invalid("Auth needs issuer or authorization_servers (named in the PRM)"));
        }
        let verifier: Arc<dyn TokenVerifier> = match (verify, s.jwks_url) {
            (Some(v), _) => Arc::new(PyVerifier { verify: Arc::new(v), loop_slot: loop_slot.clone() }),
            (None, Some(jwks)) => {
                let issuer = s.issuer.ok_or_else(|| invalid("jwks_url needs issuer"))?;
                let mut jwt = JwtConfig::new(jwks, issuer, s.audience.unwrap_or_else(|| resource.clone()));
                if let Some(l) = s.leeway_seconds {
                    jwt.leeway = Duration::from_secs(l);
                }
                Arc::new(JwtVerifier::new(jwt))
            }
            (None, None) => return Err(invalid("Auth needs jwks_url (with issuer) or verify")),
        };
        let mut config = AuthConfig::new(verifier, resource, servers).require(s.required_scopes);
        config.scopes_supported = s.scopes_supported;
        config.tool_scopes = s.tool_scopes;
        config.prompt_scopes = s.prompt_scopes;
        config.resource_scopes = s.resource_scopes;
        config.metadata = s.metadata;
        config.scope_mode = match s.scope_mode.as_deref().unwrap_or("hide") {
            "hide" => ScopeMode::Hide,
            "step_up" => ScopeMode::StepUp,
            other => return Err(invalid(format!("scope_mode must be 'hide' or 'step_up', not {other:?}"))),
        };
        Ok(ServerAuth { config, loop_slot })
    }

    /// The Protected Resource Metadata URL named in challenges.
    #[getter]
    fn metadata_url(&self) -> Option<String> {
        self.config.metadata_url()
    }
}
