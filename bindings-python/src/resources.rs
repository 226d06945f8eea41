//! `Resources`: the core's `ResourceRegistry` with Python readers (see `mcpcore.Server.resource`).

use crate::handler::{completer, LoopSlot, PyCallback};
use crate::{errors, parse_as, to_json};
use mcpcore::host::HostResource;
use mcpcore::protocol::resources::{Resource, ResourceTemplate};
use mcpcore::resources::ResourceRegistry;
use pyo3::prelude::*;
use std::sync::Arc;

/// A Python reader: `callback({"uri", "variables"} JSON, call)` → a JSON array of
/// ResourceContents.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Resources {
    pub(crate) inner: Arc<ResourceRegistry>,
    pub(crate) loop_slot: Arc<LoopSlot>,
}

impl Resources {
    fn reader(&self, callback: Py<PyAny>, is_async: bool, mime: Option<String>) -> HostResource {
        HostResource::new(PyCallback::new(callback, is_async, &self.loop_slot), mime)
    }
}

#[pymethods]
impl Resources {
    /// An empty set of resources.
    #[new]
    fn new() -> Self {
        Resources { inner: Arc::new(ResourceRegistry::new()), loop_slot: Arc::default() }
    }

    /// Adds a resource (`resource`: the MCP Resource as JSON text) read by
    /// `callback(request_json, call)` (an awaitable when `is_async`); fails when its URI is taken.
    fn add(&self, resource: &str, callback: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let resource: Resource = parse_as("resource", resource)?;
        let reader = self.reader(callback, is_async, resource.mime_type.clone());
        self.inner.add(resource, reader).map_err(errors::to_py)
    }

    /// Adds a template (`template`: the MCP ResourceTemplate as JSON text); fails when it does
    /// not parse or its name is taken.
    fn add_template(&self, template: &str, callback: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let template: ResourceTemplate = parse_as("resource template", template)?;
        let reader = self.reader(callback, is_async, template.mime_type.clone());
        self.inner.add_template(template, reader).map_err(errors::to_py)
    }

    /// Attaches a completer to `variable` of the template `uri_template`: the fixed `values`, or
    /// `callback(request_json, None)` → Completion JSON.
    #[pyo3(signature = (uri_template, variable, values=None, callback=None, is_async=false))]
    fn complete(
        &self,
        uri_template: &str,
        variable: &str,
        values: Option<Vec<String>>,
        callback: Option<Py<PyAny>>,
        is_async: bool,
    ) -> PyResult<()> {
        let c = completer(values, callback, is_async, &self.loop_slot)?;
        self.inner.complete_variable(uri_template, variable, c).map_err(errors::to_py)
    }

    /// Serves an app (MCP Apps): the HTML `html` at the `ui://` URI `uri` as
    /// `text/html;profile=mcp-app`, with `ui_meta` (JSON: csp, permissions, domain,
    /// prefersBorder) as its `_meta.ui`.
    #[pyo3(signature = (uri, html, name=None, title=None, description=None, ui_meta=None))]
    fn add_app(
        &self,
        uri: String,
        html: String,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        ui_meta: Option<&str>,
    ) -> PyResult<()> {
        let app = mcpcore::resources::App::from_host(uri, html, name, title, description, ui_meta)
            .map_err(errors::to_py)?;
        self.inner.add_app(app).map_err(errors::to_py)
    }

    /// Removes the resource with `uri`; False when there was none.
    fn remove(&self, uri: &str) -> bool {
        self.inner.remove(uri)
    }

    /// Removes the template named `name`; False when there was none.
    fn remove_template(&self, name: &str) -> bool {
        self.inner.remove_template(name)
    }

    /// Announces that the resource at `uri` changed (to the clients subscribed to it).
    fn notify_updated(&self, uri: &str) {
        self.inner.notify_updated(uri);
    }

    /// True when no resource or template is registered.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Every resource, by URI, as a JSON array.
    fn list(&self) -> PyResult<String> {
        let (all, _) =
            self.inner.page(None, usize::MAX).map_err(|e| errors::to_py(mcpcore::Error::rpc(e)))?;
        Ok(to_json(&all))
    }

    /// Every template, by name, as a JSON array.
    fn list_templates(&self) -> PyResult<String> {
        let (all, _) =
            self.inner.templates_page(None, usize::MAX).map_err(|e| errors::to_py(mcpcore::Error::rpc(e)))?;
        Ok(to_json(&all))
    }
}
