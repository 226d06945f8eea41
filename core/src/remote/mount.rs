//! How one remote server is mounted: a prefix for the names of its entries, which of its tools
//! to take, and what to do when a name is taken.

use crate::registry::CollisionPolicy;

/// How [`RemoteServer::mount`](super::RemoteServer::mount) registers one server's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mount {
    /// Put in front of the local name of every tool, prompt and resource template
    /// (`""`: the remote's names as they are). Resource URIs are never renamed.
    pub prefix: String,
    /// Which of the remote's tools to register (by their remote names).
    pub tools: ToolFilter,
    /// What to do when a local name (after the prefix) is taken.
    pub policy: CollisionPolicy,
}

impl Mount {
    /// No prefix, every tool, `policy` on collision.
    pub fn with_policy(policy: CollisionPolicy) -> Self {
        Mount { policy, ..Mount::default() }
    }

    /// The local name of the remote entry `name`.
    pub(crate) fn local_name(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// Tool name patterns: a tool is taken when it matches one of `include` (or `include` is
/// empty) and none of `exclude`. A pattern is a name, where `*` stands for any run of
/// characters (`get_*`, `*_debug`, `*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// Only these (empty: all).
    pub include: Vec<String>,
    /// Never these.
    pub exclude: Vec<String>,
}

impl ToolFilter {
    /// Whether the remote tool `name` is taken.
    pub fn admits(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| matches(p, name)))
            && !self.exclude.iter().any(|p| matches(p, name))
    }
}

/// `*`-glob matching: `*` matches any run of characters (none included), everything else itself.
fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(matches("echo", "echo"));
        assert!(!matches("echo", "echo2"));
        assert!(matches("*", ""));
        assert!(matches("get_*", "get_sum"));
        assert!(!matches("get_*", "xget_sum"));
        assert!(matches("*_debug", "a_debug"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXcYb"));
        assert!(!matches("ab*ba", "aba"));
    }

    #[test]
    fn filters() {
        let f = ToolFilter { include: vec!["get-*".into(), "echo".into()], exclude: vec!["get-env".into()] };
        assert!(f.admits("echo"));
        assert!(f.admits("get-sum"));
        assert!(!f.admits("get-env"));
        assert!(!f.admits("trigger"));
        assert!(ToolFilter::default().admits("anything"));
    }
}
