//! `mcpcore._native`: the pyo3 module behind the `mcpcore` Python package. It only converts and
//! registers: JSON crosses the boundary as strings (the Python facade turns them into objects),
//! Python callables become tools, resource readers, prompt renderers and completers, and every
//! error becomes an exception of `mcpcore.errors` with its JSON-RPC code and data. All protocol
//! logic is in the `mcpcore` crate.

mod auth;
mod client;
mod errors;
mod gil;
mod handler;
mod prompts;
mod registry;
mod resources;
mod server;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The runtime's threads keep a Python thread state (see `gil`): completing an awaited
    // mcpcore coroutine (pyo3-async-runtimes) enters Python from them on every call.
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all().on_thread_start(gil::keep_thread_state);
    pyo3_async_runtimes::tokio::init(runtime);
    m.add_class::<registry::Registry>()?;
    m.add_class::<server::Server>()?;
    m.add_class::<server::HttpServing>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<auth::OAuth>()?;
    m.add_class::<handler::ToolCall>()?;
    m.add_class::<resources::Resources>()?;
    m.add_class::<prompts::Prompts>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// Parses JSON handed over by the facade.
pub(crate) fn parse_json(what: &str, text: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(format!("{what} is not valid JSON: {e}"))))
}

/// Parses JSON handed over by the facade as a protocol value `T`.
pub(crate) fn parse_as<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> PyResult<T> {
    serde_json::from_str(text)
        .map_err(|e| errors::to_py(mcpcore::Error::invalid_input(format!("{what} is not valid: {e}"))))
}

/// Serializes for the facade.
pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("protocol values serialize")
}
