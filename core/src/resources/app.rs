//! App resources (MCP Apps, `io.modelcontextprotocol/ui`; ext-apps
//! `specification/2026-01-26/apps.mdx` "UI Resource Format"): an HTML document at a `ui://` URI,
//! served as `text/html;profile=mcp-app` with its `_meta.ui` (CSP, permissions, domain, border)
//! on the descriptor and on the contents.

use super::{ReadRequest, ResourceRegistry};
use crate::error::{Error, Result};
use crate::protocol::apps::{UiResourceMeta, MIME_TYPE, SCHEME};
use crate::protocol::resources::{Resource, ResourceContents, TextResourceContents};
use crate::registry::ToolContext;
use serde_json::json;

/// An app's HTML and what the host needs to render it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct App {
    /// The `ui://` URI tools name in `_meta.ui.resourceUri`.
    pub uri: String,
    /// The resource's name (the URI when empty).
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// What the app shows.
    pub description: Option<String>,
    /// The HTML5 document.
    pub html: String,
    /// CSP, permissions, domain, border (`_meta.ui`).
    pub meta: UiResourceMeta,
}

impl App {
    /// An app at `uri` showing `html`, with no extra origins or permissions.
    pub fn new(uri: impl Into<String>, html: impl Into<String>) -> Self {
        App { uri: uri.into(), html: html.into(), ..App::default() }
    }

    /// An app as a binding's host gives it: its `_meta.ui` as JSON text (`csp`, `permissions`,
    /// `domain`, `prefersBorder`; MCP Apps, ext-apps `UIResourceMeta`), none for the defaults.
    /// JSON that is not that object is [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput)
    /// saying why, the same in every binding.
    pub fn from_host(
        uri: String,
        html: String,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        ui_meta_json: Option<&str>,
    ) -> crate::Result<App> {
        let meta = match ui_meta_json {
            Some(m) => serde_json::from_str(m)
                .map_err(|e| crate::Error::invalid_input(format!("invalid app _meta.ui: {e}")))?,
            None => UiResourceMeta::default(),
        };
        Ok(App { uri, name: name.unwrap_or_default(), title, description, html, meta })
    }
}

impl ResourceRegistry {
    /// Serves `app` (fails when its URI is not `ui://…` or is taken). The server then declares
    /// the extension.
    pub fn add_app(&self, app: App) -> Result<()> {
        if !app.uri.starts_with(SCHEME) || app.uri.len() == SCHEME.len() {
            return Err(Error::invalid_input(format!(
                "an app's URI must start with ui:// (MCP Apps), not {:?}",
                app.uri
            )));
        }
        let meta = (!app.meta.is_empty()).then(|| {
            let mut m = serde_json::Map::new();
            m.insert("ui".into(), json!(app.meta));
            m
        });
        let resource = Resource {
            uri: app.uri.clone(),
            name: if app.name.is_empty() { app.uri.clone() } else { app.name.clone() },
            title: app.title.clone(),
            description: app.description.clone(),
            mime_type: Some(MIME_TYPE.into()),
            size: Some(app.html.len() as u64),
            annotations: None,
            icons: None,
            meta: meta.clone(),
        };
        let contents = ResourceContents::Text(TextResourceContents {
            uri: app.uri,
            mime_type: Some(MIME_TYPE.into()),
            text: app.html,
            meta,
        });
        self.add(resource, move |_: ReadRequest, _: ToolContext| {
            let contents = contents.clone();
            async move { Ok(vec![contents]) }
        })
    }

    /// True when an app resource is served (`text/html;profile=mcp-app` at a `ui://` URI).
    pub fn has_apps(&self) -> bool {
        let fixed = self.fixed.read().expect("lock");
        fixed
            .range(SCHEME.to_owned()..)
            .take_while(|(uri, _)| uri.starts_with(SCHEME))
            .any(|(_, f)| f.resource.mime_type.as_deref() == Some(MIME_TYPE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::apps::Csp;

    /// A host's `_meta.ui` JSON: an object becomes the meta; anything else is InvalidInput
    /// saying why (the text every binding shows).
    #[test]
    fn from_host_reads_the_meta_json_or_says_why_not() {
        let app = App::from_host(
            "ui://a".into(),
            "<p>".into(),
            None,
            None,
            None,
            Some(r#"{"domain": "a.example", "prefersBorder": true}"#),
        )
        .unwrap();
        assert_eq!(app.meta.domain.as_deref(), Some("a.example"));
        assert_eq!(app.meta.prefers_border, Some(true));
        assert_eq!(
            App::from_host("ui://a".into(), "<p>".into(), None, None, None, None).unwrap().meta,
            UiResourceMeta::default()
        );
        let e = App::from_host("ui://a".into(), "<p>".into(), None, None, None, Some("[1]")).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("invalid app _meta.ui"), "{e}");
    }

    #[tokio::test]
    async fn an_app_is_html_with_its_ui_meta_on_descriptor_and_contents() {
        let r = ResourceRegistry::new();
        assert!(!r.has_apps());
        let mut app = App::new("ui://echo/view.html", "<!DOCTYPE html><p>hi</p>");
        app.meta.csp =
            Some(Csp { connect_domains: Some(vec!["https://api.example.com".into()]), ..Csp::default() });
        app.meta.prefers_border = Some(true);
        r.add_app(app).unwrap();
        assert!(r.has_apps());
        let (page, _) = r.page(None, 10).unwrap();
        assert_eq!(page[0].mime_type.as_deref(), Some(MIME_TYPE));
        let ui = json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true});
        assert_eq!(page[0].meta.as_ref().unwrap()["ui"], ui);
        let (h, req) = r.resolve("ui://echo/view.html").unwrap();
        let got = h.read(req, ToolContext::local()).await.unwrap();
        let ResourceContents::Text(t) = &got[0] else { panic!("text") };
        assert_eq!((t.text.as_str(), t.mime_type.as_deref()), ("<!DOCTYPE html><p>hi</p>", Some(MIME_TYPE)));
        assert_eq!(t.meta.as_ref().unwrap()["ui"], ui);
        assert!(r.add_app(App::new("https://x/view.html", "<p>")).unwrap_err().message().contains("ui://"));
        r.add_text("ui://plain", "plain", "text/html", "<p>").unwrap();
        assert!(r.remove("ui://echo/view.html"));
        assert!(!r.has_apps(), "a ui:// resource of another type is not an app");
    }
}
