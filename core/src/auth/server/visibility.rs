//! Visibility rules: which tools and prompts exist for a caller, by tool-name pattern and by
//! the caller's scopes or token claims (issue 35 §5, the gateway's per-identity catalogue; any
//! protected server may use them). They extend the per-identity catalogue of
//! [`AuthConfig`](super::AuthConfig): a hidden tool is left out of `tools/list` and
//! `search_tools`, and `tools/call` answers it as an unknown tool, exactly like a tool whose
//! scopes the caller lacks.
//!
//! ```json
//! "visibility": [
//!   {"tools": ["billing__*"], "allow": {"scopes": ["billing"]}},
//!   {"tools": ["*__delete_*"], "deny": {"claims": {"role": "intern"}}},
//!   {"prompts": ["hr__*"], "allow": {"claims": {"groups": ["hr", "admins"]}}}
//! ]
//! ```
//!
//! A rule names tools and/or prompts (`*` matches any run of characters) and one condition:
//! `allow` (the entries exist only for callers meeting it) or `deny` (they do not exist for
//! callers meeting it). A condition holds when the caller has every scope of `scopes` and, for
//! each claim of `claims`, the token's claim equals the value given, or one of the values given
//! when that is a list; a claim that is a list (`groups`, `roles`) matches when any of its
//! items does. A claim name with dots that is not a claim itself is a path into nested claims
//! (`realm_access.roles`). An entry is visible when every rule naming it lets it through.

use crate::context::{Entry, Identity};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The visibility rules of a server, in order (all apply).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Visibility(pub Vec<VisibilityRule>);

/// One rule: the entries it names and the condition they are shown under.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisibilityRule {
    /// Tool names (`*` wildcards).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Prompt names (`*` wildcards).
    #[serde(default)]
    pub prompts: Vec<String>,
    /// Event type names (`*` wildcards; Events extension).
    #[serde(default)]
    pub events: Vec<String>,
    /// Shown only to callers meeting this.
    #[serde(default)]
    pub allow: Option<Condition>,
    /// Hidden from callers meeting this.
    #[serde(default)]
    pub deny: Option<Condition>,
}

/// What a caller must have: every scope listed, and every claim matching.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// Scopes the token must grant (all of them).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Claim name (or dotted path) → the value it must have, or a list of accepted values.
    #[serde(default)]
    pub claims: Map<String, Value>,
}

impl Visibility {
    /// Reads the rules from their JSON (a list of rule objects); an error names the rule.
    pub fn from_value(value: Value) -> Result<Visibility, String> {
        let Value::Array(items) = value else {
            return Err("visibility must be a list of rules".into());
        };
        let mut rules = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let rule: VisibilityRule =
                serde_json::from_value(item).map_err(|e| format!("visibility[{i}]: {e}"))?;
            if rule.tools.is_empty() && rule.prompts.is_empty() && rule.events.is_empty() {
                return Err(format!("visibility[{i}]: name \"tools\", \"prompts\" or \"events\" (patterns)"));
            }
            if rule.allow.is_some() == rule.deny.is_some() {
                return Err(format!("visibility[{i}]: give exactly one of \"allow\" and \"deny\""));
            }
            rules.push(rule);
        }
        Ok(Visibility(rules))
    }

    /// True when no rule is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when `entry` exists for `identity` under every rule naming it. Resources are not
    /// named by rules (their scopes decide).
    pub fn shows(&self, identity: &Identity, entry: &Entry<'_>) -> bool {
        self.0.iter().all(|rule| {
            let names = match entry {
                Entry::Tool(n) => rule.tools.iter().any(|p| crate::registry::glob(p, n)),
                Entry::Prompt(n) => rule.prompts.iter().any(|p| crate::registry::glob(p, n)),
                Entry::Event(n) => rule.events.iter().any(|p| crate::registry::glob(p, n)),
                Entry::Resource { .. } | Entry::ResourceTemplate(_) => false,
            };
            match (names, &rule.allow, &rule.deny) {
                (false, _, _) => true,
                (true, Some(c), _) => c.holds(identity),
                (true, None, Some(c)) => !c.holds(identity),
                (true, None, None) => true,
            }
        })
    }
}

impl Condition {
    /// True when `identity` has every scope and every claim of the condition.
    pub fn holds(&self, identity: &Identity) -> bool {
        identity.has_scopes(self.scopes.iter().map(String::as_str))
            && self.claims.iter().all(|(name, wanted)| {
                claim(&identity.claims, name).is_some_and(|have| matches_claim(have, wanted))
            })
    }
}

/// The claim `name`, or the nested claim its dotted path names.
fn claim<'a>(claims: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    if let Some(v) = claims.get(name) {
        return Some(v);
    }
    let mut parts = name.split('.');
    let mut at = claims.get(parts.next()?)?;
    for part in parts {
        at = at.as_object()?.get(part)?;
    }
    Some(at)
}

/// True when the claim value `have` is (or, a list, holds) the value `wanted` or one of the
/// values `wanted` lists.
fn matches_claim(have: &Value, wanted: &Value) -> bool {
    let accepted: &[Value] = match wanted {
        Value::Array(values) => values,
        one => std::slice::from_ref(one),
    };
    match have {
        Value::Array(items) => items.iter().any(|item| accepted.contains(item)),
        one => accepted.contains(one),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(scopes: &[&str], claims: Value) -> Identity {
        Identity {
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            claims: claims.as_object().cloned().unwrap_or_default(),
            ..Identity::default()
        }
    }

    #[test]
    fn allow_and_deny_rules_decide_per_caller() {
        let v = Visibility::from_value(json!([
            {"tools": ["billing__*"], "allow": {"scopes": ["billing"]}},
            {"tools": ["*__delete_*"], "deny": {"claims": {"role": "intern"}}},
            {"prompts": ["hr__*"], "allow": {"claims": {"groups": ["hr", "admins"]}}},
            {"tools": ["ops__*"], "allow": {"claims": {"realm_access.roles": "ops"}}}
        ]))
        .unwrap();
        let nobody = id(&[], json!({}));
        let biller = id(&["billing"], json!({"role": "intern"}));
        let hr = id(&[], json!({"groups": ["staff", "hr"], "realm_access": {"roles": ["ops"]}}));
        let tool = |n| Entry::Tool(n);
        assert!(v.shows(&nobody, &tool("echo")), "no rule names it");
        assert!(!v.shows(&nobody, &tool("billing__charge")));
        assert!(v.shows(&biller, &tool("billing__charge")));
        assert!(!v.shows(&biller, &tool("billing__delete_invoice")), "both rules apply");
        assert!(v.shows(&nobody, &tool("files__delete_file")), "deny needs the claim");
        assert!(!v.shows(&biller, &tool("files__delete_file")));
        assert!(v.shows(&hr, &Entry::Prompt("hr__review")), "a list claim holding one accepted value");
        assert!(!v.shows(&nobody, &Entry::Prompt("hr__review")));
        assert!(v.shows(&nobody, &Entry::Tool("hr__review")), "the rule names prompts only");
        assert!(v.shows(&hr, &tool("ops__restart")), "a dotted path into nested claims");
        assert!(!v.shows(&biller, &tool("ops__restart")));
        let uri = Entry::Resource { uri: "billing__x", template: None };
        assert!(v.shows(&nobody, &uri), "resources are not named by rules");
    }

    #[test]
    fn bad_rules_are_named() {
        let e = |v: Value| Visibility::from_value(v).unwrap_err();
        assert!(e(json!({})).contains("a list of rules"));
        assert!(e(json!([{"allow": {}}])).contains("visibility[0]: name \"tools\""));
        assert!(e(json!([{"tools": ["a"]}])).contains("exactly one of"));
        assert!(e(json!([{"tools": ["a"], "allow": {}, "deny": {}}])).contains("exactly one of"));
        assert!(e(json!([{"tools": ["a"], "allow": {"scope": ["x"]}}])).contains("visibility[0]"));
        assert!(e(json!([{"tools": "a", "allow": {}}])).contains("visibility[0]"));
    }
}
