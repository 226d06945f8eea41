//! What a server fronting other servers (a gateway) says about its aggregate: the
//! capabilities it declares (the union of what its upstreams offer) and the caching hints of
//! its lists (the shortest freshness of the upstreams' lists, private when one is private;
//! 2026-07-28 server/utilities/caching). The engine asks an [`Aggregate`] each time it answers
//! `initialize`, `server/discover` or a list, so the answers follow upstreams coming and going.

use crate::protocol::{CacheHint, ServerCapabilities};

/// The lists an [`Aggregate`] gives caching hints for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    Templates,
}

/// A server's view of the servers it fronts (set in
/// [`ServerConfig::aggregate`](super::ServerConfig::aggregate)).
pub trait Aggregate: Send + Sync + std::fmt::Debug {
    /// The capabilities to declare; the engine drops what a revision lacks (`completions`
    /// before 2025-03-26, `extensions` and `tasks` off their lineage).
    fn capabilities(&self) -> ServerCapabilities;

    /// The caching hints of `list` as the fronted servers gave them; merged with the server's
    /// own (`ServerConfig::ttl_ms`, `cache_scope`), the shortest and most private winning.
    fn list_hint(&self, list: ListKind) -> CacheHint;
}
