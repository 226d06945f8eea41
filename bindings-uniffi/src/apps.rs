//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): [`Resources::add_app`] serves a `ui://`
//! HTML document as `text/html;profile=mcp-app`, [`apps_meta`] binds a tool to it, and the
//! [`Client`] reads an app with the sandbox settings its host needs.

use crate::catalog::Resources;
use crate::client::Client;
use crate::errors::McpError;
use crate::rt;

/// An app as read from its server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct AppView {
    /// The `ui://` URI.
    pub uri: String,
    /// The HTML document.
    pub html: String,
    /// Its `_meta.ui` (csp, permissions, domain, prefersBorder) as JSON text (`{}` when none).
    pub meta_json: String,
}

/// A tool's `_meta` (JSON text) binding it to the app at `resource_uri`; `visibility`: who may
/// call it (`"model"`, `"app"`; both when null). Pass it as `addTool(..., meta = …)`.
#[uniffi::export(default(visibility = None))]
pub fn apps_meta(resource_uri: String, visibility: Option<Vec<String>>) -> String {
    let mut ui = serde_json::json!({ "resourceUri": resource_uri });
    if let Some(v) = visibility {
        ui["visibility"] = serde_json::json!(v);
    }
    serde_json::json!({ "ui": ui }).to_string()
}

#[uniffi::export]
impl Resources {
    /// Serves an app: `html` at the `ui://` URI `uri` as `text/html;profile=mcp-app`, with
    /// `ui_meta` (JSON text: `csp`, `permissions`, `domain`, `prefersBorder`) as its `_meta.ui`.
    /// The server then declares the extension. Fails with `InvalidInput` for a URI that is not
    /// `ui://…` or is taken.
    #[uniffi::method(default(name = None, title = None, description = None, ui_meta = None))]
    pub fn add_app(
        &self,
        uri: String,
        html: String,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        ui_meta: Option<String>,
    ) -> Result<(), McpError> {
        let app =
            mcpcore::resources::App::from_host(uri, html, name, title, description, ui_meta.as_deref())?;
        Ok(self.inner.add_app(app)?)
    }
}

#[uniffi::export]
impl Client {
    /// True when the server declared MCP Apps.
    pub fn offers_apps(&self) -> Result<bool, McpError> {
        Ok(self.inner()?.offers_apps())
    }

    /// Reads the app at `uri` (a tool's `_meta.ui.resourceUri`). What is not
    /// `text/html;profile=mcp-app` throws `Protocol`; rendering it is the host's.
    pub async fn read_app(&self, uri: String) -> Result<AppView, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let app = c.read_app(&uri).await?;
            Ok(AppView {
                uri: app.uri,
                html: app.html,
                meta_json: serde_json::to_string(&app.meta).expect("serializes"),
            })
        })
        .await
    }
}
