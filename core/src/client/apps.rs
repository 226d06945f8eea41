//! MCP Apps on the client (`io.modelcontextprotocol/ui`, ext-apps
//! `specification/2026-01-26/apps.mdx`): declaring that the host renders apps, finding the app a
//! tool names ([`tool_ui`](crate::protocol::apps::tool_ui)), and reading it. Rendering it in a
//! sandboxed iframe, and the `ui/*` bridge, are the host's.
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::protocol::apps::tool_ui;
//! for tool in client.list_tools().await? {
//!     if let Some(uri) = tool_ui(&tool).and_then(|ui| ui.resource_uri) {
//!         let app = client.read_app(&uri).await?;
//!         println!("{} renders {} bytes of HTML, CSP {:?}", tool.name, app.html.len(), app.meta.csp);
//!     }
//! }
//! # Ok(()) }
//! ```

use super::{Client, ClientOptions};
use crate::error::{Error, Result};
use crate::protocol::apps::{client_settings, UiResourceMeta, EXTENSION_ID, MIME_TYPE, SCHEME};
use crate::protocol::resources::ResourceContents;

/// An app as read from its server: the HTML and what the host needs to sandbox it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppView {
    /// The `ui://` URI.
    pub uri: String,
    /// The HTML document.
    pub html: String,
    /// `_meta.ui` of the contents (CSP, permissions, domain, border; empty when none).
    pub meta: UiResourceMeta,
}

impl ClientOptions {
    /// Declares that this client's host renders apps (`extensions["io.modelcontextprotocol/ui"]:
    /// {"mimeTypes": ["text/html;profile=mcp-app"]}`), so servers may rely on a UI.
    pub fn with_apps(mut self) -> Self {
        self.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(EXTENSION_ID.into(), client_settings());
        self
    }
}

impl Client {
    /// True when the server declared the MCP Apps extension.
    pub fn offers_apps(&self) -> bool {
        self.negotiated().capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID))
    }

    /// Reads the app at `uri` (a `ui://` URI, as a tool's `_meta.ui.resourceUri` names it; a
    /// gateway may have put its URI prefix in front). Fails with
    /// [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) when what comes back is not
    /// `text/html;profile=mcp-app`.
    pub async fn read_app(&self, uri: &str) -> Result<AppView> {
        if !uri.contains(SCHEME) {
            return Err(Error::invalid_input(format!("{uri} is not an app's ui:// URI")));
        }
        let read = self.read_resource(uri).await?;
        let contents = read.contents.into_iter().find(|c| c.uri() == uri);
        let (mime, html, meta) = match contents {
            Some(ResourceContents::Text(t)) => (t.mime_type, t.text, t.meta),
            Some(ResourceContents::Blob(b)) => {
                let bytes = b.bytes()?;
                let html = String::from_utf8(bytes)
                    .map_err(|_| Error::protocol(format!("{uri} is not UTF-8 HTML")))?;
                (b.mime_type, html, b.meta)
            }
            None => {
                return Err(Error::protocol(format!("resources/read of {uri} returned no contents for it")))
            }
        };
        if mime.as_deref() != Some(MIME_TYPE) {
            return Err(Error::protocol(format!("{uri} is {mime:?}, not an app ({MIME_TYPE})")));
        }
        let meta = meta
            .and_then(|m| m.get("ui").cloned())
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| Error::protocol(format!("{uri}: malformed _meta.ui: {e}")))?
            .unwrap_or_default();
        Ok(AppView { uri: uri.to_owned(), html, meta })
    }
}
