//! Resources a server offers: fixed resources by URI and resource templates (RFC 6570), each
//! read by a host handler; completion for template variables; change announcements.
//!
//! ```
//! use mcpcore::protocol::resources::{Resource, ResourceContents};
//! use mcpcore::resources::{ReadRequest, ResourceRegistry};
//! let resources = ResourceRegistry::new();
//! resources.add_text("memo://today", "today", "text/plain", "Buy milk").unwrap();
//! let template = serde_json::from_value(serde_json::json!({
//!     "uriTemplate": "users://{id}/profile", "name": "profile", "mimeType": "application/json"
//! })).unwrap();
//! resources.add_template(template, |req: ReadRequest, _ctx| async move {
//!     let id = req.variables["id"].clone();
//!     Ok(vec![ResourceContents::text(req.uri, Some("application/json".into()), format!("{{\"id\":\"{id}\"}}"))])
//! }).unwrap();
//! assert!(resources.resolve("users://7/profile").is_some());
//! ```

pub mod app;
pub mod template;

use crate::changes::{Change, ChangeFeed};
use crate::completion::Completer;
use crate::error::{Error, ErrorData, Result};
use crate::protocol::resources::{Resource, ResourceContents, ResourceTemplate};
use crate::registry::{page_of, BoxFuture, ToolContext};
pub use app::App;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, RwLock};
pub use template::{UriTemplate, Variables};

/// A `resources/read` as the handler sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    /// The URI asked for.
    pub uri: String,
    /// The template variables it matched with (empty for a fixed resource).
    pub variables: Variables,
}

/// Reads a resource. Implemented for every `Fn(ReadRequest, ToolContext) -> impl Future`
/// closure returning the contents. An error with [`crate::ErrorKind::Rpc`] is sent as is; any
/// other error becomes `-32603`.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads `request.uri`.
    fn read(
        &self,
        request: ReadRequest,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>>>;
}

impl<F, Fut> ResourceHandler for F
where
    F: Fn(ReadRequest, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>>> + Send + 'static,
{
    fn read(
        &self,
        request: ReadRequest,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>>> {
        Box::pin(self(request, ctx))
    }
}

struct Fixed {
    resource: Resource,
    handler: Arc<dyn ResourceHandler>,
    /// Shown by `resources/list` (a skill's supporting files are readable, not listed).
    listed: bool,
}

struct Template {
    template: ResourceTemplate,
    parsed: UriTemplate,
    handler: Arc<dyn ResourceHandler>,
    completers: BTreeMap<String, Arc<dyn Completer>>,
}

/// The resources of a server. Cheap to share behind an `Arc`; every method takes `&self`, and
/// adding or removing announces [`Change::ResourcesListChanged`].
#[derive(Default)]
pub struct ResourceRegistry {
    fixed: RwLock<BTreeMap<String, Arc<Fixed>>>,
    templates: RwLock<BTreeMap<String, Arc<Template>>>,
    changes: ChangeFeed,
    /// Told of each URI a client subscribes to (a proxy subscribes upstream).
    interest: RwLock<Option<Interest>>,
}

/// Told of each resource URI a client subscribes to (see [`ResourceRegistry::on_subscribe`]).
pub type Interest = Arc<dyn Fn(&str) + Send + Sync>;

impl std::fmt::Debug for ResourceRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fixed: Vec<String> = self.fixed.read().expect("lock").keys().cloned().collect();
        let templates: Vec<String> = self.templates.read().expect("lock").keys().cloned().collect();
        f.debug_struct("ResourceRegistry").field("resources", &fixed).field("templates", &templates).finish()
    }
}

impl ResourceRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a resource read by `handler`; fails when its URI is taken.
    pub fn add(&self, resource: Resource, handler: impl ResourceHandler) -> Result<()> {
        self.add_as(resource, Arc::new(handler), true)
    }

    /// Adds a resource that `resources/read` serves but `resources/list` does not show (what a
    /// client reaches by URI only: a skill's supporting files, SEP-2640).
    pub fn add_unlisted(&self, resource: Resource, handler: impl ResourceHandler) -> Result<()> {
        self.add_as(resource, Arc::new(handler), false)
    }

    fn add_as(&self, resource: Resource, handler: Arc<dyn ResourceHandler>, listed: bool) -> Result<()> {
        let mut fixed = self.fixed.write().expect("lock");
        if fixed.contains_key(&resource.uri) {
            return Err(Error::invalid_input(format!(
                "a resource with URI {:?} is already registered",
                resource.uri
            )));
        }
        fixed.insert(resource.uri.clone(), Arc::new(Fixed { resource, handler, listed }));
        drop(fixed);
        if listed {
            self.changes.send(Change::ResourcesListChanged);
        }
        Ok(())
    }

    /// Adds a fixed text resource.
    pub fn add_text(&self, uri: &str, name: &str, mime_type: &str, text: &str) -> Result<()> {
        let resource = Resource {
            uri: uri.to_owned(),
            name: name.to_owned(),
            title: None,
            description: None,
            mime_type: Some(mime_type.to_owned()),
            size: Some(text.len() as u64),
            annotations: None,
            icons: None,
            meta: None,
        };
        let contents = ResourceContents::text(uri, Some(mime_type.to_owned()), text);
        self.add(resource, move |_req: ReadRequest, _ctx: ToolContext| {
            let contents = contents.clone();
            async move { Ok(vec![contents]) }
        })
    }

    /// Adds a template read by `handler`; fails when the template does not parse or its name
    /// is taken.
    pub fn add_template(&self, template: ResourceTemplate, handler: impl ResourceHandler) -> Result<()> {
        let parsed = UriTemplate::parse(&template.uri_template)
            .map_err(|e| Error::invalid_input(format!("resource template {}: {e}", template.name)))?;
        let mut templates = self.templates.write().expect("lock");
        if templates.contains_key(&template.name) {
            return Err(Error::invalid_input(format!(
                "a template named {:?} is already registered",
                template.name
            )));
        }
        let entry = Template { template, parsed, handler: Arc::new(handler), completers: BTreeMap::new() };
        templates.insert(entry.template.name.clone(), Arc::new(entry));
        drop(templates);
        self.changes.send(Change::ResourcesListChanged);
        Ok(())
    }

    /// Attaches a completer to `variable` of the template whose `uriTemplate` is `uri_template`.
    pub fn complete_variable(
        &self,
        uri_template: &str,
        variable: &str,
        completer: Arc<dyn Completer>,
    ) -> Result<()> {
        let mut templates = self.templates.write().expect("lock");
        let Some((name, t)) = templates.iter().find(|(_, t)| t.template.uri_template == uri_template) else {
            return Err(Error::invalid_input(format!("no resource template {uri_template:?}")));
        };
        if !t.parsed.variables().contains(&variable) {
            return Err(Error::invalid_input(format!(
                "template {uri_template:?} has no variable {variable:?}"
            )));
        }
        let mut completers = t.completers.clone();
        completers.insert(variable.to_owned(), completer);
        let updated = Template {
            template: t.template.clone(),
            parsed: t.parsed.clone(),
            handler: t.handler.clone(),
            completers,
        };
        let name = name.clone();
        templates.insert(name, Arc::new(updated));
        Ok(())
    }

    /// Removes the resource with `uri`; false when there was none.
    pub fn remove(&self, uri: &str) -> bool {
        let removed = self.fixed.write().expect("lock").remove(uri);
        if removed.as_ref().is_some_and(|f| f.listed) {
            self.changes.send(Change::ResourcesListChanged);
        }
        removed.is_some()
    }

    /// Removes the template named `name`; false when there was none.
    pub fn remove_template(&self, name: &str) -> bool {
        let removed = self.templates.write().expect("lock").remove(name).is_some();
        if removed {
            self.changes.send(Change::ResourcesListChanged);
        }
        removed
    }

    /// Calls `interest` with each URI a client subscribes to (legacy `resources/subscribe`, or
    /// a 2026-07-28 `subscriptions/listen` naming it in `resourceSubscriptions`), so that a
    /// registry filled from other servers can subscribe there. It runs on the engine's path:
    /// keep it short (spawn anything slow). Replaces an earlier one.
    pub fn on_subscribe(&self, interest: impl Fn(&str) + Send + Sync + 'static) {
        *self.interest.write().expect("lock") = Some(Arc::new(interest));
    }

    /// Tells the [`ResourceRegistry::on_subscribe`] hook that a client subscribed to `uri`.
    pub(crate) fn subscribed(&self, uri: &str) {
        let hook = self.interest.read().expect("lock").clone();
        if let Some(hook) = hook {
            hook(uri);
        }
    }

    /// Announces that the resource at `uri` changed (`notifications/resources/updated` to the
    /// clients subscribed to it).
    pub fn notify_updated(&self, uri: &str) {
        self.changes.send(Change::ResourceUpdated(uri.to_owned()));
    }

    /// The feed of this registry's changes.
    pub fn changes(&self) -> &ChangeFeed {
        &self.changes
    }

    /// True when nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.fixed.read().expect("lock").is_empty() && self.templates.read().expect("lock").is_empty()
    }

    /// One page of resources (by URI order) and the next cursor; a bad cursor is `-32602`.
    pub fn page(
        &self,
        cursor: Option<&str>,
        size: usize,
    ) -> Result<(Vec<Resource>, Option<String>), ErrorData> {
        self.page_where(cursor, size, |_| true)
    }

    /// [`ResourceRegistry::page`] of the resources `keep` accepts (a caller's own catalogue).
    pub fn page_where(
        &self,
        cursor: Option<&str>,
        size: usize,
        keep: impl Fn(&Resource) -> bool,
    ) -> Result<(Vec<Resource>, Option<String>), ErrorData> {
        page_of(
            &self.fixed.read().expect("lock"),
            cursor,
            size,
            |f| f.listed && keep(&f.resource),
            |f| f.resource.clone(),
        )
    }

    /// One page of templates (by name order) and the next cursor.
    pub fn templates_page(
        &self,
        cursor: Option<&str>,
        size: usize,
    ) -> Result<(Vec<ResourceTemplate>, Option<String>), ErrorData> {
        self.templates_page_where(cursor, size, |_| true)
    }

    /// [`ResourceRegistry::templates_page`] of the templates `keep` accepts.
    pub fn templates_page_where(
        &self,
        cursor: Option<&str>,
        size: usize,
        keep: impl Fn(&ResourceTemplate) -> bool,
    ) -> Result<(Vec<ResourceTemplate>, Option<String>), ErrorData> {
        page_of(
            &self.templates.read().expect("lock"),
            cursor,
            size,
            |t| keep(&t.template),
            |t| t.template.clone(),
        )
    }

    /// The `uriTemplate` that `uri` is read through (or `uri` itself, when it is one): `None`
    /// for a fixed resource or a URI no template matches.
    pub fn template_of(&self, uri: &str) -> Option<String> {
        if self.fixed.read().expect("lock").contains_key(uri) {
            return None;
        }
        let templates = self.templates.read().expect("lock");
        let t = templates
            .values()
            .find(|t| t.template.uri_template == uri)
            .or_else(|| templates.values().find(|t| t.parsed.matches(uri).is_some()));
        t.map(|t| t.template.uri_template.clone())
    }

    /// The handler for `uri` and the variables it matched: a fixed resource first, then the
    /// templates in name order.
    pub fn resolve(&self, uri: &str) -> Option<(Arc<dyn ResourceHandler>, ReadRequest)> {
        if let Some(f) = self.fixed.read().expect("lock").get(uri) {
            return Some((
                f.handler.clone(),
                ReadRequest { uri: uri.to_owned(), variables: Variables::new() },
            ));
        }
        let templates = self.templates.read().expect("lock");
        templates.values().find_map(|t| {
            t.parsed
                .matches(uri)
                .map(|variables| (t.handler.clone(), ReadRequest { uri: uri.to_owned(), variables }))
        })
    }

    /// The completer for `variable` of the template named by `uri` (its `uriTemplate`, or a URI
    /// it matches).
    pub fn completer(&self, uri: &str, variable: &str) -> Option<Arc<dyn Completer>> {
        let templates = self.templates.read().expect("lock");
        let t = templates
            .values()
            .find(|t| t.template.uri_template == uri)
            .or_else(|| templates.values().find(|t| t.parsed.matches(uri).is_some()))?;
        t.completers.get(variable).cloned()
    }

    /// True when `uri` names a template (by `uriTemplate` or a matching URI).
    pub fn has_template(&self, uri: &str) -> bool {
        let templates = self.templates.read().expect("lock");
        templates.values().any(|t| t.template.uri_template == uri || t.parsed.matches(uri).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::completion::complete_from;

    fn template(uri: &str, name: &str) -> ResourceTemplate {
        serde_json::from_value(serde_json::json!({"uriTemplate": uri, "name": name})).unwrap()
    }

    #[tokio::test]
    async fn fixed_resources_win_over_templates_and_changes_are_announced() {
        let r = ResourceRegistry::new();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let _sub = {
            let seen = seen.clone();
            r.changes().subscribe(move |c| seen.lock().unwrap().push(c.clone()))
        };
        r.add_text("test://template/1/data", "one", "text/plain", "fixed").unwrap();
        r.add_template(template("test://template/{id}/data", "tpl"), |req: ReadRequest, _| async move {
            Ok(vec![ResourceContents::text(req.uri, None, req.variables["id"].clone())])
        })
        .unwrap();
        assert_eq!(seen.lock().unwrap()[0], Change::ResourcesListChanged);
        let (h, req) = r.resolve("test://template/1/data").unwrap();
        assert!(req.variables.is_empty());
        let got = h.read(req, ToolContext::local()).await.unwrap();
        assert!(matches!(&got[0], ResourceContents::Text(t) if t.text == "fixed"));
        let (h, req) = r.resolve("test://template/42/data").unwrap();
        let got = h.read(req, ToolContext::local()).await.unwrap();
        assert!(matches!(&got[0], ResourceContents::Text(t) if t.text == "42"));
        assert!(r.resolve("test://other").is_none());
        assert!(r.add_text("test://template/1/data", "again", "text/plain", "x").is_err());
        assert!(r.remove("test://template/1/data"));
        assert!(!r.remove("test://template/1/data"));
    }

    #[tokio::test]
    async fn completers_attach_to_template_variables() {
        let r = ResourceRegistry::new();
        r.add_template(template("users://{id}", "user"), |_: ReadRequest, _| async { Ok(vec![]) }).unwrap();
        assert!(r.complete_variable("users://{id}", "nope", complete_from(["a"])).is_err());
        r.complete_variable("users://{id}", "id", complete_from(["ann", "bob"])).unwrap();
        assert!(r.completer("users://{id}", "id").is_some());
        assert!(r.completer("users://ann", "id").is_some());
        assert!(r.completer("users://{id}", "other").is_none());
    }

    #[test]
    fn pages_follow_uri_order() {
        let r = ResourceRegistry::new();
        for i in 0..5 {
            r.add_text(&format!("x://{i}"), &format!("n{i}"), "text/plain", "t").unwrap();
        }
        let (page, next) = r.page(None, 2).unwrap();
        assert_eq!(page.iter().map(|x| x.uri.as_str()).collect::<Vec<_>>(), ["x://0", "x://1"]);
        let (page, _) = r.page(next.as_deref(), 10).unwrap();
        assert_eq!(page.len(), 3);
        assert!(r.page(Some("bogus"), 2).is_err());
    }
}
