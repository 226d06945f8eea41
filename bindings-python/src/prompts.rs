//! `Prompts`: the core's `PromptRegistry` with Python renderers (see `mcpcore.Server.prompt`).

use crate::handler::{completer, LoopSlot, PyCallback};
use crate::{errors, parse_as, to_json};
use mcpcore::host::HostPrompt;
use mcpcore::prompts::PromptRegistry;
use mcpcore::protocol::prompts::Prompt;
use pyo3::prelude::*;
use std::sync::Arc;

/// A Python renderer: `callback(arguments_json, call)` → GetPromptResult JSON.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Prompts {
    pub(crate) inner: Arc<PromptRegistry>,
    pub(crate) loop_slot: Arc<LoopSlot>,
}

#[pymethods]
impl Prompts {
    /// An empty set of prompts.
    #[new]
    fn new() -> Self {
        Prompts { inner: Arc::new(PromptRegistry::new()), loop_slot: Arc::default() }
    }

    /// Adds a prompt (`prompt`: the MCP Prompt as JSON text) rendered by
    /// `callback(arguments_json, call)` (an awaitable when `is_async`); fails when the name is
    /// empty or taken.
    fn add(&self, prompt: &str, callback: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let prompt: Prompt = parse_as("prompt", prompt)?;
        let handler = HostPrompt::new(PyCallback::new(callback, is_async, &self.loop_slot));
        self.inner.add(prompt, handler).map_err(errors::to_py)
    }

    /// Attaches a completer to `argument` of prompt `name`: the fixed `values`, or
    /// `callback(request_json, None)` → Completion JSON.
    #[pyo3(signature = (name, argument, values=None, callback=None, is_async=false))]
    fn complete(
        &self,
        name: &str,
        argument: &str,
        values: Option<Vec<String>>,
        callback: Option<Py<PyAny>>,
        is_async: bool,
    ) -> PyResult<()> {
        let c = completer(values, callback, is_async, &self.loop_slot)?;
        self.inner.complete_argument(name, argument, c).map_err(errors::to_py)
    }

    /// Removes prompt `name`; False when there was none.
    fn remove(&self, name: &str) -> bool {
        self.inner.remove(name)
    }

    /// True when no prompt is registered.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Every prompt, by name, as a JSON array.
    fn list(&self) -> PyResult<String> {
        let (all, _) =
            self.inner.page(None, usize::MAX).map_err(|e| errors::to_py(mcpcore::Error::rpc(e)))?;
        Ok(to_json(&all))
    }
}
