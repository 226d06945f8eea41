//! How one remote server is mounted: a prefix for the names of its entries, a prefix for its
//! resource URIs, which of its tools to take, and what to do when a name is taken.
//!
//! A resource URI is made local by putting [`Mount::uri_prefix`] in front of it, e.g.
//! `everything+` makes `demo://resource/1` the local `everything+demo://resource/1` (and the
//! template `demo://resource/{id}` the local `everything+demo://resource/{id}`): still an
//! absolute URI (`+` is allowed in a scheme, RFC 3986 §3.1), unique per remote, and turned back
//! by removing the prefix. URIs the remote returns in results (`resources/read` contents,
//! `resource_link` and embedded `resource` content of tool results and prompt messages) and in
//! `notifications/resources/updated` get the prefix too, so the local caller can read what a
//! tool pointed it to.

use crate::registry::{glob, CollisionPolicy};

/// How [`RemoteServer::mount`](super::RemoteServer::mount) registers one server's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mount {
    /// Put in front of the local name of every tool, prompt and resource template
    /// (`""`: the remote's names as they are).
    pub prefix: String,
    /// Put in front of every resource URI and URI template of the remote (`""`: its URIs as
    /// they are); see [`Mount::uri_prefix_for`] for the usual one.
    pub uri_prefix: String,
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

    /// The URI prefix of a remote called `server`: `<server>+`, with the characters a URI
    /// scheme cannot hold (anything but letters, digits, `+`, `-`, `.`) turned into `-`, and an
    /// `x` in front when the name does not start with a letter (RFC 3986 §3.1).
    pub fn uri_prefix_for(server: &str) -> String {
        let mut scheme: String = server
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "+-.".contains(c) { c } else { '-' })
            .collect();
        if !scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
            scheme.insert(0, 'x');
        }
        scheme.push('+');
        scheme
    }

    /// The local URI of the remote URI (or URI template) `uri`.
    pub(crate) fn local_uri(&self, uri: &str) -> String {
        format!("{}{uri}", self.uri_prefix)
    }

    /// The remote URI of the local `uri`, when it is one of this remote's.
    pub(crate) fn remote_uri<'a>(&self, uri: &'a str) -> Option<&'a str> {
        uri.strip_prefix(self.uri_prefix.as_str())
    }

    /// Gives the URIs in a result of the remote (`method`'s) their local prefix: `contents[].uri`
    /// of `resources/read`, and the `resource_link` and embedded `resource` content of
    /// `tools/call` and `prompts/get` results.
    pub(crate) fn localize(&self, method: &str, result: &mut serde_json::Value) {
        if self.uri_prefix.is_empty() {
            return;
        }
        let fix = |v: &mut serde_json::Value| {
            if let Some(serde_json::Value::String(uri)) = v.get_mut("uri") {
                *uri = self.local_uri(uri);
            }
        };
        let block = |b: &mut serde_json::Value| match b.get("type").and_then(serde_json::Value::as_str) {
            Some("resource_link") => fix(b),
            Some("resource") => {
                if let Some(r) = b.get_mut("resource") {
                    fix(r);
                }
            }
            _ => {}
        };
        let list = |v: Option<&mut serde_json::Value>, f: &dyn Fn(&mut serde_json::Value)| {
            if let Some(serde_json::Value::Array(items)) = v {
                items.iter_mut().for_each(f);
            }
        };
        match method {
            "resources/read" => list(result.get_mut("contents"), &fix),
            "tools/call" => list(result.get_mut("content"), &block),
            "prompts/get" => list(result.get_mut("messages"), &|m| {
                if let Some(c) = m.get_mut("content") {
                    block(c);
                }
            }),
            _ => {}
        }
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
        (self.include.is_empty() || self.include.iter().any(|p| glob(p, name)))
            && !self.exclude.iter().any(|p| glob(p, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_prefixes() {
        assert_eq!(Mount::uri_prefix_for("everything"), "everything+");
        assert_eq!(Mount::uri_prefix_for("my_server 2"), "my-server-2+");
        assert_eq!(Mount::uri_prefix_for("9lives"), "x9lives+");
        let m = Mount { uri_prefix: "ev+".into(), ..Mount::default() };
        assert_eq!(m.local_uri("demo://r/1"), "ev+demo://r/1");
        assert_eq!(m.remote_uri("ev+demo://r/1"), Some("demo://r/1"));
        assert_eq!(m.remote_uri("other+demo://r/1"), None);
        let mut r = serde_json::json!({"content": [
            {"type": "text", "text": "t"},
            {"type": "resource_link", "uri": "demo://a", "name": "a"},
            {"type": "resource", "resource": {"uri": "demo://b", "text": "b"}}
        ]});
        m.localize("tools/call", &mut r);
        assert_eq!(r["content"][1]["uri"], "ev+demo://a");
        assert_eq!(r["content"][2]["resource"]["uri"], "ev+demo://b");
        let mut r = serde_json::json!({"messages": [{"role": "user", "content":
            {"type": "resource", "resource": {"uri": "demo://c", "text": "c"}}}]});
        m.localize("prompts/get", &mut r);
        assert_eq!(r["messages"][0]["content"]["resource"]["uri"], "ev+demo://c");
        let mut r = serde_json::json!({"contents": [{"uri": "demo://d", "text": "d"}]});
        m.localize("resources/read", &mut r);
        assert_eq!(r["contents"][0]["uri"], "ev+demo://d");
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
