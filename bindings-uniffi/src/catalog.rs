//! The server's resources and prompts, read and rendered by the host through the core's host
//! bridge (`mcpcore::host::HostResource`, `HostPrompt`): [`Resources`] (fixed URIs and RFC 6570
//! templates, each read by a [`ResourceReader`]) and [`Prompts`] (each rendered by a
//! [`PromptRenderer`]; completion from fixed values or an [`ArgumentCompleter`]), served by a [`crate::Server`] given them. A handler answers with a
//! [`HostValue`]; what it becomes on the wire is the core's one rule set
//! (`core/src/host/results.rs`), the same as for a Python or Node handler returning that value.

use crate::errors::McpError;
use crate::handler::{reply_of, ToolCall};
use crate::parse_json;
use mcpcore::completion::{complete_from, Completer};
use mcpcore::host::{
    HandlerKind, HostCall, HostCallback, HostCompleter, HostPrompt, HostReply, HostResource,
};
use mcpcore::prompts::PromptRegistry;
use mcpcore::protocol::prompts::{Prompt, PromptArgument as CorePromptArgument};
use mcpcore::protocol::resources::{Resource, ResourceTemplate};
use mcpcore::registry::BoxFuture;
use mcpcore::resources::ResourceRegistry;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// What a host handler answers with: text, bytes, or any JSON value (as JSON text, in which
/// `{"$bytes": "<base64>"}` stands for bytes). The core turns it into the result.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum HostValue {
    /// A string (a resource's text, a prompt's one user message).
    Text {
        /// The text.
        text: String,
    },
    /// Bytes (a resource's base64 `blob`).
    Bytes {
        /// The bytes.
        data: Vec<u8>,
    },
    /// A JSON value, as JSON text (contents objects, a list of them, a `GetPromptResult`…).
    Json {
        /// The JSON text.
        json: String,
    },
}

impl HostValue {
    fn into_core(self) -> Result<mcpcore::host::HostValue, McpError> {
        Ok(match self {
            HostValue::Text { text } => mcpcore::host::HostValue::Json(Value::String(text)),
            HostValue::Bytes { data } => mcpcore::host::HostValue::Bytes(data),
            HostValue::Json { json } => {
                mcpcore::host::HostValue::from_marked_json(parse_json("the value", &json)?)
            }
        })
    }
}

/// Reads a resource (or a resource of a template) for `resources/read`.
///
/// Throwing [`McpError::Rpc`] (or [`McpError::ResourceNotFound`]) sends that JSON-RPC error;
/// any other exception sends `-32603` with its description.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait ResourceReader: Send + Sync {
    /// Reads `uri`; `variables` are what a template matched (empty for a fixed resource).
    async fn read(
        &self,
        uri: String,
        variables: HashMap<String, String>,
        call: Arc<ToolCall>,
    ) -> Result<HostValue, McpError>;
}

/// Renders a prompt for `prompts/get`, with its arguments (the required ones are checked by
/// the core first). Answer with [`prompt_messages`], a string (one user message) or any
/// `GetPromptResult` JSON.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait PromptRenderer: Send + Sync {
    /// Renders the prompt.
    async fn render(
        &self,
        arguments: HashMap<String, String>,
        call: Arc<ToolCall>,
    ) -> Result<HostValue, McpError>;
}

/// Suggests values for an argument of a prompt or a variable of a resource template
/// (`completion/complete`); at most 100 are sent (`total` and `hasMore` then say how many).
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait ArgumentCompleter: Send + Sync {
    /// The suggestions for `argument` given what was typed (`value`) and the values of the
    /// other arguments (`context`).
    async fn complete(
        &self,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> Result<Vec<String>, McpError>;
}

/// A prompt message a [`PromptRenderer`] answers with.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The content block.
    pub content: crate::Content,
}

/// An argument of a prompt.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PromptArgument {
    /// The name.
    pub name: String,
    /// What it is for.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// True when `prompts/get` must give it.
    #[uniffi(default = false)]
    pub required: bool,
}

/// The value of a prompt answering with `messages` (and an optional `description`).
#[uniffi::export(default(description = None))]
pub fn prompt_messages(
    messages: Vec<PromptMessage>,
    description: Option<String>,
) -> Result<HostValue, McpError> {
    let mut out = Vec::with_capacity(messages.len());
    for m in messages {
        out.push(json!({"role": m.role, "content": crate::results::content_json(&m.content)?}));
    }
    let mut v = json!({ "messages": out });
    if let Some(d) = description {
        v["description"] = json!(d);
    }
    Ok(HostValue::Json { json: v.to_string() })
}

struct ForeignReader(Arc<dyn ResourceReader>);

impl HostCallback for ForeignReader {
    fn call(&self, _kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let reader = self.0.clone();
        Box::pin(async move {
            let uri = input["uri"].as_str().unwrap_or_default().to_owned();
            let variables = serde_json::from_value(input["variables"].clone()).unwrap_or_default();
            reply(reader.read(uri, variables, ToolCall::new(input, call)).await)
        })
    }
}

struct ForeignRenderer(Arc<dyn PromptRenderer>);

impl HostCallback for ForeignRenderer {
    fn call(&self, _kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let renderer = self.0.clone();
        Box::pin(async move {
            let arguments = serde_json::from_value(input.clone()).unwrap_or_default();
            reply(renderer.render(arguments, ToolCall::new(input, call)).await)
        })
    }
}

struct ForeignCompleter(Arc<dyn ArgumentCompleter>);

impl HostCallback for ForeignCompleter {
    fn call(&self, _kind: HandlerKind, input: Value, _call: HostCall) -> BoxFuture<'static, HostReply> {
        let completer = self.0.clone();
        Box::pin(async move {
            let argument = input["argument"].as_str().unwrap_or_default().to_owned();
            let value = input["value"].as_str().unwrap_or_default().to_owned();
            let context = serde_json::from_value(input["context"].clone()).unwrap_or_default();
            match completer.complete(argument, value, context).await {
                Ok(values) => HostReply::Value(mcpcore::host::HostValue::Json(json!(values))),
                Err(e) => reply_of(e),
            }
        })
    }
}

/// The core completer of `values` (filtered by prefix) or of `completer`: exactly one.
fn completer_of(
    values: Option<Vec<String>>,
    completer: Option<Arc<dyn ArgumentCompleter>>,
) -> Result<Arc<dyn Completer>, McpError> {
    match (values, completer) {
        (Some(v), None) => Ok(complete_from(v)),
        (None, Some(c)) => Ok(Arc::new(HostCompleter::new(Arc::new(ForeignCompleter(c))))),
        _ => Err(McpError::invalid("give a completer exactly one of values or completer")),
    }
}

fn reply(out: Result<HostValue, McpError>) -> HostReply {
    match out.and_then(HostValue::into_core) {
        Ok(v) => HostReply::Value(v),
        Err(e) => reply_of(e),
    }
}

fn descriptor<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::invalid(format!("invalid {what}: {e}")))
}

/// The resources of a server: fixed URIs and RFC 6570 templates, each read by the host.
#[derive(uniffi::Object)]
pub struct Resources {
    pub(crate) inner: Arc<ResourceRegistry>,
}

#[uniffi::export]
impl Resources {
    /// An empty set of resources.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Resources { inner: Arc::new(ResourceRegistry::new()) })
    }

    /// Adds the resource `uri` named `name`, read by `reader`; `json` (a Resource as JSON text)
    /// may add any other field (`size`, `annotations`, `icons`, `_meta`). Fails with
    /// `InvalidInput` when the URI is taken.
    #[uniffi::method(default(title = None, description = None, mime_type = None, json = None))]
    #[allow(clippy::too_many_arguments)] // the optional ones have defaults, named by callers
    pub fn add(
        &self,
        uri: String,
        name: String,
        reader: Arc<dyn ResourceReader>,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
        json: Option<String>,
    ) -> Result<(), McpError> {
        let mut v = extra(json)?;
        fill(
            &mut v,
            [
                ("uri", Some(uri)),
                ("name", Some(name)),
                ("title", title),
                ("description", description),
                ("mimeType", mime_type),
            ],
        );
        let resource: Resource = descriptor("resource", v)?;
        let mime = resource.mime_type.clone();
        Ok(self.inner.add(resource, HostResource::new(Arc::new(ForeignReader(reader)), mime))?)
    }

    /// Adds a template (`uri_template`, RFC 6570 level 1-3, e.g. `file:///{path}`) named `name`,
    /// read by `reader` with the matched variables. Fails when it does not parse or its name is
    /// taken.
    #[uniffi::method(default(title = None, description = None, mime_type = None, json = None))]
    #[allow(clippy::too_many_arguments)] // the optional ones have defaults, named by callers
    pub fn add_template(
        &self,
        uri_template: String,
        name: String,
        reader: Arc<dyn ResourceReader>,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
        json: Option<String>,
    ) -> Result<(), McpError> {
        let mut v = extra(json)?;
        fill(
            &mut v,
            [
                ("uriTemplate", Some(uri_template)),
                ("name", Some(name)),
                ("title", title),
                ("description", description),
                ("mimeType", mime_type),
            ],
        );
        let template: ResourceTemplate = descriptor("resource template", v)?;
        let mime = template.mime_type.clone();
        Ok(self.inner.add_template(template, HostResource::new(Arc::new(ForeignReader(reader)), mime))?)
    }

    /// Completes `variable` of the template `uri_template` from `values` (those starting with
    /// what the user typed).
    pub fn complete(
        &self,
        uri_template: String,
        variable: String,
        values: Vec<String>,
    ) -> Result<(), McpError> {
        Ok(self.inner.complete_variable(&uri_template, &variable, complete_from(values))?)
    }

    /// Removes the resource with `uri`; false when there was none.
    pub fn remove(&self, uri: String) -> bool {
        self.inner.remove(&uri)
    }

    /// Removes the template named `name`; false when there was none.
    pub fn remove_template(&self, name: String) -> bool {
        self.inner.remove_template(&name)
    }

    /// Announces that the resource at `uri` changed (to the clients subscribed to it).
    pub fn notify_updated(&self, uri: String) {
        self.inner.notify_updated(&uri);
    }
}

/// The prompts of a server, each rendered by the host.
#[derive(uniffi::Object)]
pub struct Prompts {
    pub(crate) inner: Arc<PromptRegistry>,
}

#[uniffi::export]
impl Prompts {
    /// An empty set of prompts.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Prompts { inner: Arc::new(PromptRegistry::new()) })
    }

    /// Adds the prompt `name` with its `arguments`, rendered by `renderer`. Fails with
    /// `InvalidInput` when the name is empty or taken.
    #[uniffi::method(default(description = None, arguments = [], title = None))]
    pub fn add(
        &self,
        name: String,
        renderer: Arc<dyn PromptRenderer>,
        description: Option<String>,
        arguments: Vec<PromptArgument>,
        title: Option<String>,
    ) -> Result<(), McpError> {
        let arguments: Vec<CorePromptArgument> = arguments
            .into_iter()
            .map(|a| CorePromptArgument {
                name: a.name,
                title: None,
                description: a.description,
                required: a.required.then_some(true),
            })
            .collect();
        let prompt = Prompt {
            name,
            title,
            description,
            arguments: (!arguments.is_empty()).then_some(arguments),
            icons: None,
            meta: None,
        };
        Ok(self.inner.add(prompt, HostPrompt::new(Arc::new(ForeignRenderer(renderer))))?)
    }

    /// Completes `argument` of prompt `name`: from the fixed `values` (those starting with what
    /// the user typed), or by `completer`; give exactly one.
    #[uniffi::method(default(values = None, completer = None))]
    pub fn complete(
        &self,
        name: String,
        argument: String,
        values: Option<Vec<String>>,
        completer: Option<Arc<dyn ArgumentCompleter>>,
    ) -> Result<(), McpError> {
        Ok(self.inner.complete_argument(&name, &argument, completer_of(values, completer)?)?)
    }

    /// Removes prompt `name`; false when there was none.
    pub fn remove(&self, name: String) -> bool {
        self.inner.remove(&name)
    }
}

/// The object of `json` (empty when `None`).
fn extra(json: Option<String>) -> Result<Value, McpError> {
    match json {
        None => Ok(json!({})),
        Some(t) => match parse_json("the descriptor", &t)? {
            v @ Value::Object(_) => Ok(v),
            _ => Err(McpError::invalid("the descriptor must be a JSON object")),
        },
    }
}

fn fill<const N: usize>(v: &mut Value, fields: [(&str, Option<String>); N]) {
    for (k, val) in fields {
        if let Some(val) = val {
            v[k] = json!(val);
        }
    }
}
