//! `ServerAuth`: the core's resource-server configuration (`AuthConfig`) for
//! `Server.serve_http(auth=...)`. The facade (`mcpcore/_server_auth.py`) passes the settings as
//! JSON and, for a host verifier, an async callable `token -> JSON text` (the facade turns the
//! host's `Identity`, `None` or `TokenRefused` into `{"identity": ...}` / `{"refusal": ...}`).
//! The rules (JWT checks, scopes, the per-identity catalogue, challenges) are the core's.

use crate::errors;
use crate::handler::LoopSlot;
use mcpcore::auth::server::{
    auth_config, host_verdict, verifier_failed, AuthConfig, Identity, Refusal, Spelling, TokenVerifier,
};
use pyo3::prelude::*;
use std::sync::Arc;

/// The host's verifier: the facade's async wrapper, run on the serving loop.
struct PyVerifier {
    verify: Arc<Py<PyAny>>,
    loop_slot: Arc<LoopSlot>,
}

impl PyVerifier {
    async fn run(&self, token: String) -> Result<Identity, Refusal> {
        let pending = crate::gil::attach(|py| -> PyResult<_> {
            let locals = self
                .loop_slot
                .get(py)
                .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the serving event loop is gone"))?;
            let coro = self.verify.bind(py).call1((token,))?;
            pyo3_async_runtimes::into_future_with_locals(&locals, coro)
        })
        .map_err(|e| verifier_failed(errors::describe(&e)))?;
        let out = pending.await.map_err(|e| verifier_failed(errors::describe(&e)))?;
        let text: String =
            crate::gil::attach(|py| out.extract(py)).map_err(|e| verifier_failed(errors::describe(&e)))?;
        host_verdict(&text)
    }
}

impl TokenVerifier for PyVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> mcpcore::future::BoxFuture<'a, Result<Identity, Refusal>> {
        Box::pin(self.run(token.to_owned()))
    }
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
        let loop_slot = Arc::new(LoopSlot::default());
        let host = verify.map(|v| {
            Arc::new(PyVerifier { verify: Arc::new(v), loop_slot: loop_slot.clone() })
                as Arc<dyn TokenVerifier>
        });
        let config = auth_config(settings, Spelling::Snake, host).map_err(errors::to_py)?;
        Ok(ServerAuth { config, loop_slot })
    }

    /// The Protected Resource Metadata URL named in challenges.
    #[getter]
    fn metadata_url(&self) -> Option<String> {
        self.config.metadata_url()
    }
}
