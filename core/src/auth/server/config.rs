//! [`AuthConfig`]: what a protected server requires, the catalogue policy it implies, and the
//! documents and challenges it publishes (sans-IO).

use super::dpop::{DpopConfig, DpopMode};
use super::{TokenVerifier, Visibility};
use crate::auth::metadata::{protected_resource_urls, ProtectedResourceMetadata};
use crate::context::{Access, CatalogFilter, CatalogView, Entry, Identity};
use reqwest::Url;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A host rule beyond scopes: `false` hides the entry from the caller (in lists, and when
/// named: refused like an unknown one).
pub type HostFilter = Arc<dyn Fn(&Identity, &Entry<'_>) -> bool + Send + Sync>;

/// What happens to an entry whose scopes the caller's token lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScopeMode {
    /// It does not exist for the caller: left out of lists, "Unknown tool" (or prompt,
    /// resource) when named.
    #[default]
    Hide,
    /// Lists show it; using it gets 403 `insufficient_scope` with the scopes it needs, so the
    /// client can step up (2026-07-28 `basic/authorization`, "Scope Challenge Handling").
    StepUp,
}

/// The authorization settings of a protected HTTP server.
#[derive(Clone)]
pub struct AuthConfig {
    /// Checks each request's bearer token.
    pub verifier: Arc<dyn TokenVerifier>,
    /// The server's canonical resource URI (RFC 8707 §2; e.g. `https://mcp.example.com/mcp`):
    /// the PRM's `resource`, the audience tokens must be issued for, and where the PRM URL is
    /// derived from.
    pub resource: String,
    /// Issuer identifiers of the authorization servers (the PRM's `authorization_servers`; at
    /// least one, 2026-07-28 `basic/authorization/authorization-server-discovery`).
    pub authorization_servers: Vec<String>,
    /// The PRM's `scopes_supported`. `None` derives it: under [`ScopeMode::Hide`] every scope
    /// this config names (a hidden entry can only be reached by asking for its scope up
    /// front); under [`ScopeMode::StepUp`] the scopes every request needs (the minimal set,
    /// the rest come by step-up); omitted when empty.
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs (403 `insufficient_scope` without them; named in the 401
    /// challenge's `scope`).
    pub required_scopes: Vec<String>,
    /// Scopes a tool needs, by tool name.
    pub tool_scopes: BTreeMap<String, Vec<String>>,
    /// Scopes a prompt needs, by prompt name.
    pub prompt_scopes: BTreeMap<String, Vec<String>>,
    /// Scopes a resource needs, by URI (fixed resources) or `uriTemplate` (every URI read
    /// through the template, and the template in `resources/templates/list`).
    pub resource_scopes: BTreeMap<String, Vec<String>>,
    /// Hidden or challenged, when scopes are missing.
    pub scope_mode: ScopeMode,
    /// Rules beyond scopes.
    pub filter: Option<HostFilter>,
    /// Which tools and prompts exist for a caller, by name pattern and by its scopes or
    /// claims ([`Visibility`]; default: no rule).
    pub visibility: Visibility,
    /// More PRM fields (`resource_name`, `resource_documentation`, …).
    pub metadata: Map<String, Value>,
    /// DPoP-bound tokens (RFC 9449): off (the default), allowed or required.
    pub dpop: DpopConfig,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .field("scope_mode", &self.scope_mode)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

fn strings<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

impl AuthConfig {
    /// A server at `resource` accepting the tokens `verifier` accepts, issued by
    /// `authorization_servers`; no scopes required.
    pub fn new<S: Into<String>>(
        verifier: Arc<dyn TokenVerifier>,
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = S>,
    ) -> Self {
        AuthConfig {
            verifier,
            resource: resource.into(),
            authorization_servers: strings(authorization_servers),
            scopes_supported: None,
            required_scopes: Vec::new(),
            tool_scopes: BTreeMap::new(),
            prompt_scopes: BTreeMap::new(),
            resource_scopes: BTreeMap::new(),
            scope_mode: ScopeMode::Hide,
            filter: None,
            visibility: Visibility::default(),
            metadata: Map::new(),
            dpop: DpopConfig::default(),
        }
    }

    /// DPoP-bound tokens in `mode`, with the default algorithms and `iat` window.
    pub fn dpop(mut self, mode: DpopMode) -> Self {
        self.dpop.mode = mode;
        self
    }

    /// Every request needs `scopes`.
    pub fn require<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes.extend(strings(scopes));
        self
    }

    /// Tool `name` needs `scopes`.
    pub fn tool_scopes<S: Into<String>>(mut self, name: &str, scopes: impl IntoIterator<Item = S>) -> Self {
        self.tool_scopes.entry(name.to_owned()).or_default().extend(strings(scopes));
        self
    }

    /// Prompt `name` needs `scopes`.
    pub fn prompt_scopes<S: Into<String>>(mut self, name: &str, scopes: impl IntoIterator<Item = S>) -> Self {
        self.prompt_scopes.entry(name.to_owned()).or_default().extend(strings(scopes));
        self
    }

    /// The resource (URI or `uriTemplate`) needs `scopes`.
    pub fn resource_scopes<S: Into<String>>(
        mut self,
        uri: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.resource_scopes.entry(uri.to_owned()).or_default().extend(strings(scopes));
        self
    }

    /// Hidden or challenged when scopes are missing.
    pub fn scope_mode(mut self, mode: ScopeMode) -> Self {
        self.scope_mode = mode;
        self
    }

    /// Adds a rule beyond scopes.
    pub fn filter(mut self, filter: impl Fn(&Identity, &Entry<'_>) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(filter));
        self
    }

    /// The scopes `entry` needs (besides [`AuthConfig::required_scopes`]).
    pub fn entry_scopes(&self, entry: &Entry<'_>) -> &[String] {
        let found = match entry {
            Entry::Tool(n) => self.tool_scopes.get(*n),
            Entry::Prompt(n) => self.prompt_scopes.get(*n),
            Entry::Resource { uri, template } => {
                self.resource_scopes.get(*uri).or_else(|| template.and_then(|t| self.resource_scopes.get(t)))
            }
            Entry::ResourceTemplate(t) => self.resource_scopes.get(*t),
            // No per-event-type scopes yet: the required scopes and visibility rules decide.
            Entry::Event(_) => None,
        };
        found.map_or(&[], Vec::as_slice)
    }

    /// Every scope using `entry` needs: the required ones, then the entry's own.
    pub fn operation_scopes(&self, entry: &Entry<'_>) -> Vec<String> {
        let mut out = self.required_scopes.clone();
        for s in self.entry_scopes(entry) {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    }

    /// The PRM's `scopes_supported` (see the field).
    pub fn supported_scopes(&self) -> Vec<String> {
        if let Some(s) = &self.scopes_supported {
            return s.clone();
        }
        let mut out: Vec<String> = self.required_scopes.clone();
        if self.scope_mode == ScopeMode::Hide {
            let named: BTreeSet<&String> = (self.tool_scopes.values())
                .chain(self.prompt_scopes.values())
                .chain(self.resource_scopes.values())
                .flatten()
                .collect();
            out.extend(named.into_iter().filter(|s| !self.required_scopes.contains(s)).cloned());
        }
        out
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata_document(&self) -> ProtectedResourceMetadata {
        let scopes = self.supported_scopes();
        let mut extra = self.metadata.clone();
        extra.entry("bearer_methods_supported").or_insert_with(|| serde_json::json!(["header"]));
        // RFC 9449 §5.1 / RFC 9728 §2: the proof algorithms, and whether only DPoP-bound
        // tokens are accepted.
        if self.dpop.mode != DpopMode::Off {
            extra.insert("dpop_signing_alg_values_supported".into(), self.dpop.algorithm_names().into());
        }
        if self.dpop.mode == DpopMode::Required {
            extra.insert("dpop_bound_access_tokens_required".into(), Value::Bool(true));
        }
        ProtectedResourceMetadata {
            resource: self.resource.clone(),
            authorization_servers: self.authorization_servers.clone(),
            scopes_supported: (!scopes.is_empty()).then_some(scopes),
            extra,
        }
    }

    /// The PRM URL named in challenges: the well-known URI with the resource's path
    /// (RFC 9728 §3.1), or the root one for a resource at the root. `None` when `resource`
    /// is not an absolute URL.
    pub fn metadata_url(&self) -> Option<String> {
        let url = Url::parse(&self.resource).ok()?;
        protected_resource_urls(&url).into_iter().next().map(String::from)
    }

    /// The paths the PRM document is served at: the path-inserted one and the root one.
    pub fn metadata_paths(&self) -> Vec<String> {
        let Ok(url) = Url::parse(&self.resource) else {
            return vec!["/.well-known/oauth-protected-resource".to_owned()];
        };
        protected_resource_urls(&url).into_iter().map(|u| u.path().to_owned()).collect()
    }

    /// A `WWW-Authenticate` value: `Bearer` with `error` and `error_description` (when
    /// given), `scope` (when non-empty) and `resource_metadata`.
    pub fn challenge(&self, error: Option<(&str, &str)>, scopes: &[String]) -> String {
        self.challenge_in(Scheme::Bearer, error, scopes)
    }

    /// A `WWW-Authenticate` value of `scheme`: the parameters of [`AuthConfig::challenge`];
    /// a `DPoP` challenge adds `algs`, the proof algorithms accepted (RFC 9449 §7.1).
    pub fn challenge_in(&self, scheme: Scheme, error: Option<(&str, &str)>, scopes: &[String]) -> String {
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error=\"{}\"", quote(code)));
            params.push(format!("error_description=\"{}\"", quote(description)));
        }
        if !scopes.is_empty() {
            params.push(format!("scope=\"{}\"", quote(&scopes.join(" "))));
        }
        if let Some(url) = self.metadata_url() {
            params.push(format!("resource_metadata=\"{}\"", quote(&url)));
        }
        match scheme {
            Scheme::Bearer => format!("Bearer {}", params.join(", ")),
            Scheme::Dpop => {
                params.push(format!("algs=\"{}\"", self.dpop.algorithm_names().join(" ")));
                format!("DPoP {}", params.join(", "))
            }
        }
    }

    /// The per-identity catalogue this config implies, as the request extension the engine reads.
    pub fn catalog_view(&self) -> CatalogView {
        CatalogView(Arc::new(ScopePolicy(self.clone())))
    }
}

/// The authorization scheme of a request or a challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `Bearer` (RFC 6750).
    Bearer,
    /// `DPoP` (RFC 9449 §7).
    Dpop,
}

/// A quoted-string body (RFC 9110 §5.6.4): `"` and `\` escaped; control characters dropped.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The catalogue rules of an [`AuthConfig`].
struct ScopePolicy(AuthConfig);

impl CatalogFilter for ScopePolicy {
    fn allows(&self, identity: Option<&Identity>, entry: &Entry<'_>, access: Access) -> bool {
        let c = &self.0;
        let Some(id) = identity else {
            return false;
        };
        let scoped = id.has_scopes(c.entry_scopes(entry).iter().map(String::as_str));
        let shown = scoped || (c.scope_mode == ScopeMode::StepUp && access == Access::List);
        shown && c.visibility.shows(id, entry) && c.filter.as_ref().is_none_or(|f| f(id, entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::server::Refusal;

    fn config() -> AuthConfig {
        let nobody = |_: String| async { Err::<Identity, _>(Refusal::InvalidToken("no".into())) };
        AuthConfig::new(Arc::new(nobody), "http://127.0.0.1:9/mcp", ["http://as.example"])
            .tool_scopes("add", ["mcp:add"])
            .resource_scopes("file:///{name}", ["files:read"])
    }

    fn id(scopes: &[&str]) -> Identity {
        Identity { scopes: strings(scopes.iter().copied()), ..Default::default() }
    }

    #[test]
    fn prm_names_the_resource_servers_and_scopes_and_lives_at_both_well_known_paths() {
        let c = config().require(["mcp"]);
        let doc = serde_json::to_value(c.metadata_document()).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"resource": "http://127.0.0.1:9/mcp", "authorization_servers": ["http://as.example"],
                "scopes_supported": ["mcp", "files:read", "mcp:add"], "bearer_methods_supported": ["header"]})
        );
        assert_eq!(
            c.metadata_url().as_deref(),
            Some("http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            c.metadata_paths(),
            ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
        );
        let stepup = config().require(["mcp"]).scope_mode(ScopeMode::StepUp);
        assert_eq!(stepup.supported_scopes(), ["mcp"]);
    }

    #[test]
    fn challenges_quote_their_values() {
        let c = config();
        assert_eq!(
            c.challenge(None, &[]),
            "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\""
        );
        let v = c.challenge(Some(("invalid_token", "bad \"sig\"")), &strings(["a", "b"]));
        assert!(v.starts_with(
            "Bearer error=\"invalid_token\", error_description=\"bad \\\"sig\\\"\", scope=\"a b\""
        ));
        let parsed = crate::auth::challenge::OAuthChallenge::from_headers([v.as_str()]);
        assert_eq!(parsed.error_description.as_deref(), Some("bad \"sig\""));
        assert_eq!(parsed.scope.as_deref(), Some("a b"));
    }

    #[test]
    fn hide_mode_hides_what_scopes_do_not_reach_and_step_up_only_refuses_its_use() {
        let hide = ScopePolicy(config());
        let add = Entry::Tool("add");
        assert!(!hide.allows(Some(&id(&[])), &add, Access::List));
        assert!(!hide.allows(Some(&id(&[])), &add, Access::Use));
        assert!(hide.allows(Some(&id(&["mcp:add"])), &add, Access::Use));
        assert!(hide.allows(Some(&id(&[])), &Entry::Tool("echo"), Access::Use));
        assert!(!hide.allows(None, &Entry::Tool("echo"), Access::List), "no identity, nothing");
        let read = Entry::Resource { uri: "file:///a", template: Some("file:///{name}") };
        assert!(!hide.allows(Some(&id(&[])), &read, Access::Use));
        assert!(hide.allows(Some(&id(&["files:read"])), &read, Access::Use));

        let step = ScopePolicy(
            config()
                .scope_mode(ScopeMode::StepUp)
                .filter(|id, e| id.subject.as_deref() == Some("admin") || *e != Entry::Tool("echo")),
        );
        assert!(step.allows(Some(&id(&[])), &add, Access::List));
        assert!(!step.allows(Some(&id(&[])), &add, Access::Use));
        assert!(!step.allows(Some(&id(&[])), &Entry::Tool("echo"), Access::List), "the filter hides");
        let admin = Identity { subject: Some("admin".into()), ..Default::default() };
        assert!(step.allows(Some(&admin), &Entry::Tool("echo"), Access::Use));
    }
}
