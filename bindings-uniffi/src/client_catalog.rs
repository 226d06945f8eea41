//! The client's side of resources, prompts and completion: typed records and the [`Client`]
//! methods listing, reading and getting them.

use crate::client::Client;
use crate::errors::McpError;
use crate::results::Content;
use crate::rt;
use mcpcore::protocol::completion::CompleteResult;
use mcpcore::protocol::resources::ResourceContents as CoreContents;
use serde_json::json;
use std::collections::HashMap;

fn json_text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("protocol values serialize")
}

/// A resource as listed by a server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// The name.
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// The MIME type.
    pub mime_type: Option<String>,
    /// The whole descriptor as JSON text (`size`, annotations, icons, `_meta`…).
    pub json: String,
}

/// A resource template as listed by a server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// The name.
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// The MIME type.
    pub mime_type: Option<String>,
    /// The whole descriptor as JSON text.
    pub json: String,
}

/// One contents of a `resources/read` result.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The URI.
        uri: String,
        /// The MIME type.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents (the `blob`, decoded).
    Blob {
        /// The URI.
        uri: String,
        /// The MIME type.
        mime_type: Option<String>,
        /// The bytes.
        data: Vec<u8>,
    },
}

/// A prompt as listed by a server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Prompt {
    /// The name.
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<crate::catalog::PromptArgument>,
    /// The whole descriptor as JSON text.
    pub json: String,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PromptResult {
    /// The description of the rendered prompt.
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<crate::catalog::PromptMessage>,
}

/// Suggestions of `completion/complete`.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Completion {
    /// The values (at most 100).
    pub values: Vec<String>,
    /// How many matched in all, when the server says.
    pub total: Option<u64>,
    /// True when more matched than were sent.
    pub has_more: bool,
}

impl From<&mcpcore::protocol::resources::Resource> for Resource {
    fn from(r: &mcpcore::protocol::resources::Resource) -> Self {
        Resource {
            uri: r.uri.clone(),
            name: r.name.clone(),
            title: r.title.clone(),
            description: r.description.clone(),
            mime_type: r.mime_type.clone(),
            json: json_text(r),
        }
    }
}

impl From<&mcpcore::protocol::resources::ResourceTemplate> for ResourceTemplate {
    fn from(t: &mcpcore::protocol::resources::ResourceTemplate) -> Self {
        ResourceTemplate {
            uri_template: t.uri_template.clone(),
            name: t.name.clone(),
            title: t.title.clone(),
            description: t.description.clone(),
            mime_type: t.mime_type.clone(),
            json: json_text(t),
        }
    }
}

impl From<&mcpcore::protocol::prompts::Prompt> for Prompt {
    fn from(p: &mcpcore::protocol::prompts::Prompt) -> Self {
        Prompt {
            name: p.name.clone(),
            title: p.title.clone(),
            description: p.description.clone(),
            arguments: p
                .arguments
                .iter()
                .flatten()
                .map(|a| crate::catalog::PromptArgument {
                    name: a.name.clone(),
                    description: a.description.clone(),
                    required: a.required.unwrap_or(false),
                })
                .collect(),
            json: json_text(p),
        }
    }
}

#[uniffi::export]
impl Client {
    /// Every resource of the server (all pages).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.list_resources().await?.iter().map(Resource::from).collect()) })
            .await
    }

    /// Every resource template of the server (all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            Ok(c.list_resource_templates().await?.iter().map(ResourceTemplate::from).collect())
        })
        .await
    }

    /// Reads the resource `uri`. An unknown resource throws `ResourceNotFound` (`-32002`; the
    /// `data` names the `uri`); a blob that is not base64 throws `Protocol`.
    pub async fn read_resource(&self, uri: String) -> Result<Vec<ResourceContents>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let read = c.read_resource(&uri).await?;
            read.contents
                .into_iter()
                .map(|item| match item {
                    CoreContents::Text(t) => {
                        Ok(ResourceContents::Text { uri: t.uri, mime_type: t.mime_type, text: t.text })
                    }
                    CoreContents::Blob(b) => {
                        let data = b.bytes()?;
                        Ok(ResourceContents::Blob { uri: b.uri, mime_type: b.mime_type, data })
                    }
                })
                .collect()
        })
        .await
    }

    /// Every prompt of the server (all pages).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.list_prompts().await?.iter().map(Prompt::from).collect()) }).await
    }

    /// Gets the prompt `name` rendered with `arguments`. An unknown prompt or a missing required
    /// argument throws `Rpc` with code `-32602`.
    #[uniffi::method(default(arguments))]
    pub async fn get_prompt(
        &self,
        name: String,
        arguments: HashMap<String, String>,
    ) -> Result<PromptResult, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let r = c.get_prompt(&name, Some(arguments.into_iter().collect())).await?;
            Ok(PromptResult {
                description: r.description,
                messages: r
                    .messages
                    .iter()
                    .map(|m| crate::catalog::PromptMessage {
                        role: json!(m.role).as_str().unwrap_or("user").to_owned(),
                        content: Content::from(&m.content),
                    })
                    .collect(),
            })
        })
        .await
    }

    /// Completion (2025-06-18+): suggestions for `argument` of the prompt `name` given what was
    /// typed (`value`) and the values of other arguments (`context`).
    #[uniffi::method(default(context))]
    pub async fn complete_prompt(
        &self,
        name: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> Result<Completion, McpError> {
        self.complete(json!({"type": "ref/prompt", "name": name}), argument, value, context).await
    }

    /// Completion (2025-06-18+): suggestions for `variable` of the resource template
    /// `uri_template` given what was typed (`value`) and other variables (`context`).
    #[uniffi::method(default(context))]
    pub async fn complete_resource(
        &self,
        uri_template: String,
        variable: String,
        value: String,
        context: HashMap<String, String>,
    ) -> Result<Completion, McpError> {
        self.complete(json!({"type": "ref/resource", "uri": uri_template}), variable, value, context).await
    }
}

impl Client {
    async fn complete(
        &self,
        reference: serde_json::Value,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> Result<Completion, McpError> {
        let c = self.inner()?;
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        rt::in_runtime(async move {
            let v = c.request("completion/complete", params).await?;
            let r: CompleteResult = serde_json::from_value(v).map_err(|e| {
                mcpcore::Error::protocol(format!("malformed completion/complete result: {e}"))
            })?;
            let c = r.completion;
            Ok(Completion { values: c.values, total: c.total, has_more: c.has_more.unwrap_or(false) })
        })
        .await
    }
}
