//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, Stable 2026-01-26;
//! `modelcontextprotocol/ext-apps` `specification/2026-01-26/apps.mdx`): a tool names a `ui://`
//! resource (`_meta.ui.resourceUri`, with its `visibility`) holding an HTML document served as
//! `text/html;profile=mcp-app`, with the CSP, permissions, domain and border the host should
//! give its sandboxed iframe (`_meta.ui`). The iframe bridge (`ui/*` messages) is the host's.

use super::capabilities::ClientCapabilities;
use super::tools::Tool;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The extension identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML ("Content Requirements": MUST).
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme every app resource's URI starts with.
pub const SCHEME: &str = "ui://";

/// The origins an app's document may reach (`McpUiResourceCsp`); each omitted list means none
/// (the host's restrictive default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// `connect-src`: fetch, XHR, WebSocket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// `img-src`, `script-src`, `style-src`, `font-src`, `media-src`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// `frame-src`: nested iframes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

/// Browser permissions an app asks for (each present member is a request, `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// Camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Map<String, Value>>,
    /// Microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Map<String, Value>>,
    /// Geolocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Map<String, Value>>,
    /// Clipboard write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Map<String, Value>>,
}

/// `_meta.ui` of an app resource (`UIResourceMeta`), on its descriptor and its contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The Content Security Policy the host builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<Csp>,
    /// Browser permissions asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated sandbox origin (host-specific format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl UiResourceMeta {
    /// True when nothing is set (no `_meta.ui` needed).
    pub fn is_empty(&self) -> bool {
        *self == UiResourceMeta::default()
    }
}

/// Who may call a tool bound to an app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The agent sees and calls it.
    Model,
    /// The app (from this server's connection) calls it.
    App,
}

/// `_meta.ui` of a tool (`McpUiToolMeta`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource rendering the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call it (default: the model and the app).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// True when the agent may see and call the tool (`visibility` absent or naming `model`).
    pub fn visible_to_model(&self) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&Visibility::Model))
    }
}

/// The tool's `_meta.ui`, if it is bound to an app (the deprecated flat `_meta["ui/resourceUri"]`
/// is read too).
pub fn tool_ui(tool: &Tool) -> Option<ToolUi> {
    let meta = tool.meta.as_ref()?;
    if let Some(ui) = meta.get("ui").and_then(|v| serde_json::from_value::<ToolUi>(v.clone()).ok()) {
        return Some(ui);
    }
    let flat = meta.get("ui/resourceUri")?.as_str()?;
    Some(ToolUi { resource_uri: Some(flat.to_owned()), visibility: None })
}

/// Binds `tool` to the app at `resource_uri` (`_meta.ui`; `visibility` `None`: the default,
/// model and app). Other `_meta` keys are kept.
pub fn bind_tool(tool: &mut Tool, resource_uri: &str, visibility: Option<&[Visibility]>) {
    let ui =
        ToolUi { resource_uri: Some(resource_uri.to_owned()), visibility: visibility.map(<[_]>::to_vec) };
    tool.meta.get_or_insert_with(Default::default).insert("ui".into(), json!(ui));
}

/// True when the client declared the extension with `text/html;profile=mcp-app` among its
/// `mimeTypes` (what a server checks before relying on a UI).
pub fn client_supports_apps(caps: &ClientCapabilities) -> bool {
    let settings = caps.extensions.as_ref().and_then(|e| e.get(EXTENSION_ID));
    let types = settings.and_then(|s| s.get("mimeTypes")).and_then(Value::as_array);
    types.is_some_and(|t| t.iter().any(|m| m == MIME_TYPE))
}

/// The client's declaration of the extension (`{"mimeTypes": ["text/html;profile=mcp-app"]}`),
/// for a host that renders apps to put under `capabilities.extensions`.
pub fn client_settings() -> Value {
    json!({ "mimeTypes": [MIME_TYPE] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_binds_to_an_app_and_reads_back() {
        let mut tool = Tool::new("show", "Shows", json!({"type": "object"}));
        assert!(tool_ui(&tool).is_none());
        bind_tool(&mut tool, "ui://echo/view.html", Some(&[Visibility::App]));
        let ui = tool_ui(&tool).unwrap();
        assert_eq!(
            serde_json::to_value(&tool).unwrap()["_meta"]["ui"],
            json!({"resourceUri": "ui://echo/view.html", "visibility": ["app"]})
        );
        assert!(!ui.visible_to_model());
        let mut flat = Tool::new("old", "Old", json!({"type": "object"}));
        flat.meta = Some(serde_json::from_value(json!({"ui/resourceUri": "ui://x/y"})).unwrap());
        assert_eq!(tool_ui(&flat).unwrap().resource_uri.as_deref(), Some("ui://x/y"));
        assert!(tool_ui(&flat).unwrap().visible_to_model());
    }

    #[test]
    fn a_client_supports_apps_when_it_declares_the_mime_type() {
        let mut caps = ClientCapabilities::default();
        assert!(!client_supports_apps(&caps));
        caps.extensions = Some(serde_json::from_value(json!({EXTENSION_ID: {}})).unwrap());
        assert!(!client_supports_apps(&caps));
        caps.extensions = Some(serde_json::from_value(json!({EXTENSION_ID: client_settings()})).unwrap());
        assert!(client_supports_apps(&caps));
    }
}
