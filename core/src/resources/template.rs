//! RFC 6570 URI templates, matched in reverse: which variable values make a template expand to
//! a given URI. Supports the expressions resource templates use: `{var}`, `{+var}`, `{#var}`,
//! `{/var}`, `{.var}`, `{;var}` and the query forms `{?a,b}` / `{&a}`; `*` explode modifiers
//! are accepted (matched as one value) and prefix modifiers (`:n`) are ignored.

use std::collections::BTreeMap;

/// The variables a URI matched with, percent-decoded.
pub type Variables = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Expr { op: Option<char>, names: Vec<String> },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`; an unclosed or empty `{}` is an error.
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close =
                rest[open..].find('}').ok_or_else(|| format!("unclosed '{{' in {template:?}"))? + open;
            let mut body = &rest[open + 1..close];
            let op = body.chars().next().filter(|c| "+#./;?&".contains(*c));
            if let Some(c) = op {
                body = &body[c.len_utf8()..];
            }
            let names: Vec<String> = body
                .split(',')
                .map(|n| n.trim_end_matches('*').split(':').next().unwrap_or("").to_owned())
                .collect();
            if names.iter().any(String::is_empty) {
                return Err(format!("empty variable in {template:?}"));
            }
            parts.push(Part::Expr { op, names });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { source: template.to_owned(), parts })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { names, .. } => names.iter().map(String::as_str).collect(),
                Part::Literal(_) => Vec::new(),
            })
            .collect()
    }

    /// The variables that make this template expand to `uri`, or `None` when it cannot.
    ///
    /// Matching backtracks over where each expression ends, so its work is bounded: failed
    /// (part, position) pairs are remembered, and past [`MATCH_BUDGET_BASE`] plus
    /// [`MATCH_BUDGET_PER_BYTE`] steps per byte of `uri` the URI does not match (a client's
    /// `resources/read` of an adversarial URI then gets "not found", not a busy server).
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        let mut m = Matcher {
            found: Vec::new(),
            failed: std::collections::HashSet::new(),
            budget: MATCH_BUDGET_BASE.saturating_add(uri.len().saturating_mul(MATCH_BUDGET_PER_BYTE)),
        };
        if !m.parts(&self.parts, uri) {
            return None;
        }
        Some(m.found.into_iter().map(|(name, raw)| (name.to_owned(), decode(raw))).collect())
    }
}

/// Matching steps every URI may take (see [`UriTemplate::matches`]).
pub const MATCH_BUDGET_BASE: usize = 100_000;
/// Further matching steps per byte of the URI.
pub const MATCH_BUDGET_PER_BYTE: usize = 4;
/// Most failed (part, position) pairs remembered in one match.
const MEMO_MAX: usize = 100_000;

/// One match in progress: the raw values found so far (decoded only once the whole URI
/// matched), the states known to fail, and the steps left.
struct Matcher<'a> {
    found: Vec<(&'a str, &'a str)>,
    failed: std::collections::HashSet<(usize, usize)>,
    budget: usize,
}

impl<'a> Matcher<'a> {
    /// Spends `n` steps; false once the budget is gone.
    fn spend(&mut self, n: usize) -> bool {
        match self.budget.checked_sub(n) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => {
                self.budget = 0;
                false
            }
        }
    }

    /// Whether `parts` can expand to `uri`; on success `found` holds their values. Whether the
    /// rest matches depends only on the remaining parts and text, so failures are remembered.
    fn parts(&mut self, parts: &'a [Part], uri: &'a str) -> bool {
        let key = (parts.len(), uri.len());
        if self.failed.contains(&key) || !self.spend(1) {
            return false;
        }
        let mark = self.found.len();
        let ok = self.first(parts, uri);
        if !ok {
            self.found.truncate(mark);
            if self.failed.len() < MEMO_MAX {
                self.failed.insert(key);
            }
        }
        ok
    }

    fn first(&mut self, parts: &'a [Part], uri: &'a str) -> bool {
        let Some((first, rest)) = parts.split_first() else { return uri.is_empty() };
        match first {
            Part::Literal(lit) => uri.strip_prefix(lit.as_str()).is_some_and(|tail| self.parts(rest, tail)),
            Part::Expr { op: Some(q @ ('?' | '&')), names } => {
                // Query forms: `?a=1&b=2` (any order, any subset), up to a fragment.
                let Some(tail) = uri.strip_prefix(*q) else { return self.parts(rest, uri) };
                let end = tail.find('#').unwrap_or(tail.len());
                if !self.spend(end) {
                    return false;
                }
                for pair in tail[..end].split('&') {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    if let Some(n) = names.iter().find(|n| *n == k) {
                        self.found.push((n.as_str(), v));
                    }
                }
                self.parts(rest, &tail[end..])
            }
            Part::Expr { op, names } => {
                let (prefix, sep) = match op {
                    Some('#') => ("#", ','),
                    Some('/') => ("/", '/'),
                    Some('.') => (".", '.'),
                    Some(';') => (";", ';'),
                    _ => ("", ','),
                };
                let Some(body) = uri.strip_prefix(prefix) else { return false };
                let limit = body
                    .char_indices()
                    .find(|(_, c)| !allowed(*op, *c) && *c != sep)
                    .map_or(body.len(), |(i, _)| i);
                if !self.spend(limit) {
                    return false;
                }
                // Try every end position, longest first, so later literals can still match.
                let ends = std::iter::once(limit).chain(body[..limit].char_indices().rev().map(|(i, _)| i));
                for end in ends.filter(|e| *e > 0) {
                    if !self.spend(1) {
                        return false;
                    }
                    let value = &body[..end];
                    let mark = self.found.len();
                    if names.len() == 1 {
                        self.found.push((names[0].as_str(), strip_name(*op, &names[0], value)));
                    } else {
                        if !self.spend(end) {
                            return false;
                        }
                        if value.split(sep).count() != names.len() || value.split(sep).any(str::is_empty) {
                            continue;
                        }
                        for (n, v) in names.iter().zip(value.split(sep)) {
                            self.found.push((n.as_str(), strip_name(*op, n, v)));
                        }
                    }
                    if self.parts(rest, &body[end..]) {
                        return true;
                    }
                    self.found.truncate(mark);
                }
                false
            }
        }
    }
}

/// A `{;name}` value without its `name=`.
fn strip_name<'v>(op: Option<char>, name: &str, v: &'v str) -> &'v str {
    if op == Some(';') {
        v.strip_prefix(name).and_then(|r| r.strip_prefix('=')).unwrap_or(v)
    } else {
        v
    }
}

/// Characters a value of each operator may contain when matched (so a simple `{id}` never
/// swallows a `/`, while `{+path}` may).
fn allowed(op: Option<char>, c: char) -> bool {
    match op {
        Some('+') | Some('#') => true,
        Some('?') | Some('&') => c != '#',
        _ => !matches!(c, '/' | '?' | '#' | '&' | ','),
    }
}

/// Percent-decodes `s` (invalid escapes are kept as they are).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().matches(uri).map(|v| v.into_iter().collect())
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect())
    }

    #[test]
    fn simple_variables_stop_at_slashes() {
        assert_eq!(m("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
        assert_eq!(m("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(m("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(
            m("users://{user}/posts/{post}", "users://ann/posts/7"),
            pairs(&[("post", "7"), ("user", "ann")])
        );
        assert_eq!(m("file:///{name}.txt", "file:///a%20b.txt"), pairs(&[("name", "a b")]));
        assert_eq!(m("x://{a}", "y://b"), None);
    }

    #[test]
    fn reserved_path_and_query_forms() {
        assert_eq!(m("file:///{+path}", "file:///etc/hosts"), pairs(&[("path", "etc/hosts")]));
        assert_eq!(
            m("repo://x{/owner,name}", "repo://x/me/proj"),
            pairs(&[("name", "proj"), ("owner", "me")])
        );
        assert_eq!(
            m("search://q{?term,page}", "search://q?page=2&term=rust"),
            pairs(&[("page", "2"), ("term", "rust")])
        );
        assert_eq!(m("search://q{?term}", "search://q"), pairs(&[]));
        assert_eq!(m("doc://{id}{#frag}", "doc://7#intro"), pairs(&[("frag", "intro"), ("id", "7")]));
    }

    #[test]
    fn bad_templates_and_variable_names() {
        assert!(UriTemplate::parse("x://{id").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
        assert_eq!(UriTemplate::parse("a://{x}/{+y}{?q*}").unwrap().variables(), vec!["x", "y", "q"]);
    }

    /// Found by the uri_template fuzz target: backtracking over adjacent expressions took time
    /// exponential in their number (5 expressions and a 60-byte URI ran past libFuzzer's 10 s);
    /// the step budget bounds it now (this test would hang, not fail, without it).
    #[test]
    fn adversarial_uris_are_matched_in_bounded_time() {
        let t = UriTemplate::parse("x://{a}{b}{c}{d}{e}!").unwrap();
        assert_eq!(t.matches(&format!("x://{}", "a".repeat(60))), None);
        let t = UriTemplate::parse("x://{+a}{+b}{+c}{+d}!").unwrap();
        assert_eq!(t.matches(&format!("x://{}", "a".repeat(200))), None);
        // Past the budget a URI simply does not match.
        assert_eq!(t.matches(&format!("x://{}", "a/".repeat(100_000))), None);
        // A long URI through one expression still matches.
        let t = UriTemplate::parse("file:///{+path}.txt").unwrap();
        let long = format!("file:///{}.txt", "d/".repeat(1 << 20));
        assert_eq!(t.matches(&long).unwrap()["path"].len(), 2 << 20);
        assert_eq!(m("x://{a}{b}!", "x://abc!"), pairs(&[("a", "ab"), ("b", "c")]));
    }
}
