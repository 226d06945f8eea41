//! `Resources` and `Prompts`: the core's registries with JS handlers (see `Server.resource` and
//! `Server.prompt` in the JS API). Descriptors cross as JSON; handlers are [`JsCallback`]s.

use crate::handler::{completer, JsCallback, JsFunction};
use crate::{errors, parse_json};
use mcpcore::host::{HostPrompt, HostResource};
use mcpcore::prompts::PromptRegistry;
use mcpcore::resources::ResourceRegistry;
use napi_derive::napi;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// Parses a descriptor handed over by the wrapper.
fn descriptor<T: DeserializeOwned>(what: &str, text: &str) -> napi::Result<T> {
    serde_json::from_value(parse_json(what, text)?)
        .map_err(|e| errors::to_js(mcpcore::Error::invalid_input(format!("invalid {what}: {e}"))))
}

/// The resources of a server: fixed URIs and RFC 6570 templates, each read by a JS callback.
#[napi]
pub struct Resources {
    pub(crate) inner: Arc<ResourceRegistry>,
}

impl Default for Resources {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl Resources {
    /// An empty set of resources.
    #[napi(constructor)]
    pub fn new() -> Self {
        Resources { inner: Arc::new(ResourceRegistry::new()) }
    }

    /// Adds a resource (`resourceJson`: the MCP Resource) read by `handler(requestJson, call)`
    /// (request: `{uri, variables}`; answer: the envelope of a ResourceContents array); fails
    /// when its URI is taken.
    #[napi(
        ts_args_type = "resourceJson: string, handler: (requestJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub fn add(&self, resource_json: String, handler: JsFunction) -> napi::Result<()> {
        let resource = descriptor::<mcpcore::protocol::resources::Resource>("resource", &resource_json)?;
        let reader = HostResource::new(JsCallback::new(handler), resource.mime_type.clone());
        self.inner.add(resource, reader).map_err(errors::to_js)
    }

    /// Adds a template (`templateJson`: the MCP ResourceTemplate); fails when it does not parse
    /// or its name is taken.
    #[napi(
        ts_args_type = "templateJson: string, handler: (requestJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub fn add_template(&self, template_json: String, handler: JsFunction) -> napi::Result<()> {
        let template = descriptor::<mcpcore::protocol::resources::ResourceTemplate>(
            "resource template",
            &template_json,
        )?;
        let reader = HostResource::new(JsCallback::new(handler), template.mime_type.clone());
        self.inner.add_template(template, reader).map_err(errors::to_js)
    }

    /// Attaches a completer to `variable` of the template `uriTemplate`: the fixed `values`, or
    /// `handler(requestJson)` (request: `{argument, value, context}`; answer: a Completion
    /// envelope).
    #[napi(
        ts_args_type = "uriTemplate: string, variable: string, values?: Array<string> | undefined | null, handler?: ((requestJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>) | undefined | null"
    )]
    pub fn complete(
        &self,
        uri_template: String,
        variable: String,
        values: Option<Vec<String>>,
        handler: Option<JsFunction>,
    ) -> napi::Result<()> {
        let c = completer(values, handler)?;
        self.inner.complete_variable(&uri_template, &variable, c).map_err(errors::to_js)
    }

    /// Serves an app (MCP Apps): the HTML `html` at the `ui://` URI `uri` as
    /// `text/html;profile=mcp-app`, with `uiMetaJson` (csp, permissions, domain, prefersBorder)
    /// as its `_meta.ui`.
    #[napi]
    pub fn add_app(
        &self,
        uri: String,
        html: String,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        ui_meta_json: Option<String>,
    ) -> napi::Result<()> {
        let app =
            mcpcore::resources::App::from_host(uri, html, name, title, description, ui_meta_json.as_deref())
                .map_err(errors::to_js)?;
        self.inner.add_app(app).map_err(errors::to_js)
    }

    /// Removes the resource with `uri`; false when there was none.
    #[napi]
    pub fn remove(&self, uri: String) -> bool {
        self.inner.remove(&uri)
    }

    /// Removes the template named `name`; false when there was none.
    #[napi]
    pub fn remove_template(&self, name: String) -> bool {
        self.inner.remove_template(&name)
    }

    /// Announces that the resource at `uri` changed (to the clients subscribed to it).
    #[napi]
    pub fn notify_updated(&self, uri: String) {
        self.inner.notify_updated(&uri);
    }
}

/// The prompts of a server, each rendered by a JS callback.
#[napi]
pub struct Prompts {
    pub(crate) inner: Arc<PromptRegistry>,
}

impl Default for Prompts {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl Prompts {
    /// An empty set of prompts.
    #[napi(constructor)]
    pub fn new() -> Self {
        Prompts { inner: Arc::new(PromptRegistry::new()) }
    }

    /// Adds a prompt (`promptJson`: the MCP Prompt) rendered by `handler(argumentsJson, call)`
    /// (answer: a GetPromptResult envelope); fails when the name is empty or taken.
    #[napi(
        ts_args_type = "promptJson: string, handler: (argumentsJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>"
    )]
    pub fn add(&self, prompt_json: String, handler: JsFunction) -> napi::Result<()> {
        let prompt = descriptor("prompt", &prompt_json)?;
        self.inner.add(prompt, HostPrompt::new(JsCallback::new(handler))).map_err(errors::to_js)
    }

    /// Attaches a completer to `argument` of prompt `name` (see `Resources.complete`).
    #[napi(
        ts_args_type = "name: string, argument: string, values?: Array<string> | undefined | null, handler?: ((requestJson: string, call: ToolCall) => string | [string] | Promise<string | [string]>) | undefined | null"
    )]
    pub fn complete(
        &self,
        name: String,
        argument: String,
        values: Option<Vec<String>>,
        handler: Option<JsFunction>,
    ) -> napi::Result<()> {
        let c = completer(values, handler)?;
        self.inner.complete_argument(&name, &argument, c).map_err(errors::to_js)
    }

    /// Removes prompt `name`; false when there was none.
    #[napi]
    pub fn remove(&self, name: String) -> bool {
        self.inner.remove(&name)
    }
}
