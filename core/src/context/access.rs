//! Which catalogue entries a caller may see and use: the per-identity catalogue.
//!
//! An authorization layer attaches a [`CatalogView`] to a request (as a request extension, so
//! it reaches [`Origin::extensions`]); the engine asks [`Origin::allows`] before listing or
//! running a tool, prompt or resource. Without a view everything is visible (stdio,
//! unprotected HTTP). A refused entry is treated exactly like one that does not exist: missing
//! from `*/list`, and "Unknown tool" (or prompt, or resource) when named.

use super::{Identity, Origin};
use std::sync::Arc;

/// A catalogue entry, as the engine names it to a [`CatalogFilter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    /// A tool, by name.
    Tool(&'a str),
    /// A prompt, by name.
    Prompt(&'a str),
    /// A fixed resource by URI; or a URI read through a template (`template` is then the
    /// `uriTemplate` it matched).
    Resource {
        /// The resource's URI.
        uri: &'a str,
        /// The `uriTemplate` the URI matched, when it is not a fixed resource.
        template: Option<&'a str>,
    },
    /// A resource template, by its `uriTemplate`.
    ResourceTemplate(&'a str),
    /// An event type (Events extension), by name.
    Event(&'a str),
}

/// What the caller wants to do with an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// See it in a `*/list` result.
    List,
    /// Call, get or read it (and complete its arguments).
    Use,
}

/// Decides, per caller, which entries exist for it.
pub trait CatalogFilter: Send + Sync {
    /// True when the caller (`identity`, `None` when the request carried none) may `access`
    /// `entry`.
    fn allows(&self, identity: Option<&Identity>, entry: &Entry<'_>, access: Access) -> bool;
}

/// The request extension carrying a [`CatalogFilter`] (the authorization layer inserts it).
#[derive(Clone)]
pub struct CatalogView(pub Arc<dyn CatalogFilter>);

impl std::fmt::Debug for CatalogView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CatalogView")
    }
}

impl Origin {
    /// True when the request may `access` `entry`: always, unless a [`CatalogView`] is attached
    /// and refuses it for the request's identity.
    pub fn allows(&self, entry: &Entry<'_>, access: Access) -> bool {
        match self.extensions.get::<CatalogView>() {
            None => true,
            Some(view) => view.0.allows(self.identity.as_deref(), entry, access),
        }
    }

    /// True when a [`CatalogView`] is attached (the catalogue may differ per caller).
    pub fn has_view(&self) -> bool {
        self.extensions.get::<CatalogView>().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct OnlyEcho;
    impl CatalogFilter for OnlyEcho {
        fn allows(&self, identity: Option<&Identity>, entry: &Entry<'_>, _: Access) -> bool {
            identity.is_some() && *entry == Entry::Tool("echo")
        }
    }

    #[test]
    fn without_a_view_everything_is_visible_and_with_one_the_filter_decides() {
        let mut origin = Origin::default();
        assert!(origin.allows(&Entry::Tool("add"), Access::Use));
        origin.extensions.insert(CatalogView(Arc::new(OnlyEcho)));
        assert!(!origin.allows(&Entry::Tool("echo"), Access::List), "no identity");
        origin.identity = Some(Arc::new(Identity::default()));
        assert!(origin.allows(&Entry::Tool("echo"), Access::List));
        assert!(!origin.allows(&Entry::Tool("add"), Access::Use));
        assert!(origin.has_view());
    }
}
